#!/usr/bin/env python3
"""Side-by-side table of tilec-bench rows and peers.py rows.

    compare.py OURS.json PEERS.json [--ours SYSTEM]

Both files hold rows of peers.py's format, as a JSON list (peers.json,
tilec-bench --out) or one object per line (their stdout). Prints a Markdown
table: for each workload our row, then each peer's, with
  - time ratio: our time / the peer's (below 1: we are faster);
  - "% copy": GB/s as a share of the copy ceiling ("copy fp32 2^28" row).
Launch rows hold host microseconds per launch, from the rows' notes
("4.20 us/launch") where present, else ms * 1000.
"""
import json
import sys


def load(path):
    with open(path) as f:
        text = f.read().strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines()
            if line.startswith("{")]


def fmt(v, digits=1):
    return "" if v is None else f"{v:.{digits}f}"


def time_of(row):
    """ms, or for launch rows the note's finer "x.xx us/launch" in ms (the
    rows' ms is rounded to 4 decimals, 0.1 us)."""
    note = row.get("note") or ""
    if note.endswith(" us/launch"):
        try:
            return float(note.split()[0]) / 1000
        except ValueError:
            pass
    return row["ms"]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    ours_name = "tilec"
    if "--ours" in argv:
        ours_name = argv[argv.index("--ours") + 1]
        args.remove(ours_name)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    ours, peers = load(args[0]), load(args[1])
    copy = next((r["GBps"] for r in peers
                 if r["work"].startswith("copy") and r["GBps"]), None)
    works = []
    for r in ours + peers:
        if r["work"] not in works and not r["work"].startswith("copy"):
            works.append(r["work"])

    print(f"copy ceiling: {fmt(copy)} GB/s" if copy else
          "copy ceiling: not measured (run peers.py copy)")
    print()
    print("| work | system | time | GB/s | % copy | TFLOP/s "
          "| ours / this (time) |")
    print("|---|---|---|---|---|---|---|")
    for work in works:
        launch = work.startswith("launch")
        rows = [r for r in ours if r["work"] == work]
        rows += [r for r in peers if r["work"] == work]
        mine = next((r for r in rows if r["system"] == ours_name), None)
        for r in rows:
            t = (f"{time_of(r) * 1000:.2f} us" if launch
                 else f"{r['ms']:.4f} ms")
            share = (f"{100 * r['GBps'] / copy:.0f}%"
                     if copy and r["GBps"] else "")
            ratio = ""
            if mine and r is not mine and time_of(r) > 0:
                ratio = f"{time_of(mine) / time_of(r):.2f}x"
            print(f"| {work} | {r['system']} | {t} | {fmt(r['GBps'])} "
                  f"| {share} | {fmt(r['TFLOPs'])} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
