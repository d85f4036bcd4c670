#!/usr/bin/env python3
"""The GEMM sweep's table: tilec-tune's winners beside peers.py gemm_sweep.

    scripts/tune-compare.py TUNE_RESULTS.json [PEERS.json]

Prints a Markdown table (ms and TFLOP/s of tilec's winner, cuBLAS and
Triton's tutorial kernel, tilec's time over cuBLAS's) and the geometric mean
of that ratio with the worst shape: the issue's targets are <= 1.0x on the
mean and <= 1.25x on every shape. Without PEERS.json, tilec's column only.
"""
import json
import math
import os
import sys


def main():
    tune = json.load(open(sys.argv[1]))
    peers = {}
    if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
        for r in json.load(open(sys.argv[2])):
            peers[(r["work"], r["system"])] = r
    print("| shape (M x N x K) | tilec ms | tilec TFLOP/s | cuBLAS ms | "
          "Triton ms | tilec / cuBLAS | tilec winner |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for s in tune["shapes"]:
        work = f'gemm bf16 M{s["m"]} N{s["n"]} K{s["k"]}'
        w = s["winner"]
        cublas = peers.get((work, "torch (cuBLAS)"))
        triton = peers.get((work, "triton (tutorial, autotuned 4 cfgs)"))
        ms = w["median_ms"] if w else None
        ratio = ms / cublas["ms"] if ms and cublas else None
        if ratio:
            ratios.append(ratio)
        cells = [f'{s["m"]} x {s["n"]} x {s["k"]}',
                 f"{ms:.4f}" if w else "-",
                 f'{w["tflops"]:.0f}' if w else "-",
                 f'{cublas["ms"]:.4f}' if cublas else "-",
                 f'{triton["ms"]:.4f}' if triton else "-",
                 f"{ratio:.2f}x" if ratio else "-",
                 " ".join(f"{k}={v}" for k, v in w["params"].items())
                 if w else "no winner"]
        print("| " + " | ".join(cells) + " |")
    if ratios:
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"\ntilec / cuBLAS over {len(ratios)} shapes: geometric mean "
              f"{geo:.2f}x (target <= 1.0x), worst {max(ratios):.2f}x "
              f"(target <= 1.25x)")


if __name__ == "__main__":
    main()
