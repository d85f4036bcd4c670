#!/usr/bin/env python3
"""Writes the seed corpus of tilec-fuzz-pipeline (test/Fuzz/corpus/pipeline).

    scripts/make-pipeline-corpus.py [--build build] [-o DIR]

An input of the pipeline fuzzer is one options byte (the chip and options,
test/Fuzz/PipelineFuzzer.cpp) and a .tile program. The seeds are the
examples, the kernels of the tests (test/tilec, test/GPU/kernels) and the
pieces (`// -----`) of the lit tests that hold a kernel, without their
comment lines, and a few dozen programs of scripts/gen-tile-programs.py;
each on sm_90a (byte 0), and those with a dot also on sm_80 (byte 1: mma.sync
and cp.async instead of wgmma). Seeds are run once through the fuzzer (in its
replay mode) and any that crashes, hangs or runs out of memory is reported
and left out: fix it, then keep it as a regression input. The regression
inputs already in DIR (`regress-*`) are kept; the other files are replaced.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_SEED_BYTES = 8192  # larger pieces cost the mutator time for little


def pieces(path):
    """The kernels of a source file: the whole file, or its `// -----` pieces."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for piece in re.split(r"^// -----.*$", text, flags=re.M):
        # Comment lines (RUN, CHECK, prose) are not program text.
        lines = [l for l in piece.splitlines() if not l.lstrip().startswith("//")]
        body = "\n".join(lines).strip() + "\n"
        if "tile.kernel" in body and len(body) <= MAX_SEED_BYTES:
            yield body


def sources():
    globs = [("examples", ".tile"), ("test/tilec", ".tile"),
             ("test/tilec/Inputs", ".tile"), ("test/GPU/kernels", ".tile"),
             ("test/Transforms", ".mlir"), ("test/Conversion/TileToGPU", ".mlir"),
             ("test/Dialect/Tile", ".mlir"), ("test/Interpreter", ".tile"),
             ("test/Interpreter", ".mlir"), ("test/Analysis", ".mlir")]
    for folder, ext in globs:
        d = os.path.join(ROOT, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(ext):
                for i, body in enumerate(pieces(os.path.join(d, name))):
                    yield "%s-%s-%d" % (folder.replace("/", "_"),
                                        name.rsplit(".", 1)[0], i), body


def generated(count):
    out = tempfile.mkdtemp(prefix="pipeline-corpus-gen-")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts/gen-tile-programs.py"),
                    "gen", "--seed", "7", "--count", str(count), "-o", out],
                   check=True, stdout=subprocess.DEVNULL)
    progs = os.path.join(out, "programs")
    for name in sorted(os.listdir(progs)):
        if name.endswith(".tile"):
            with open(os.path.join(progs, name)) as f:
                yield "gen-" + name[:-5], f.read()
    shutil.rmtree(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-o", "--output",
                    default=os.path.join(ROOT, "test/Fuzz/corpus/pipeline"))
    ap.add_argument("--generated", type=int, default=20)
    args = ap.parse_args()
    fuzzer = os.path.join(args.build, "bin", "tilec-fuzz-pipeline")

    seeds, seen = {}, set()
    for name, body in list(sources()) + list(generated(args.generated)):
        variants = [(name, b"\x00")]
        if "tile.dot" in body and "tile.target" not in body:
            variants.append((name + "-sm80", b"\x01"))
        for vname, byte in variants:
            data = byte + body.encode()
            digest = hashlib.sha1(data).hexdigest()
            if digest not in seen:
                seen.add(digest)
                seeds[vname] = data

    # Each seed once through the fuzzer: a finding is reported, not kept.
    staging = tempfile.mkdtemp(prefix="pipeline-corpus-")
    artifacts = os.path.join(staging, "artifacts") + "/"
    os.mkdir(artifacts)
    files = []
    for name, data in seeds.items():
        path = os.path.join(staging, name)
        with open(path, "wb") as f:
            f.write(data)
        files.append(path)
    run = subprocess.run([fuzzer, "-timeout=5", "-artifact_prefix=" + artifacts]
                         + files, stdout=subprocess.PIPE, text=True)
    bad = set()
    for line in run.stdout.splitlines():
        m = re.match(r"FAILED (.*): (.*)", line)
        if m:
            bad.add(os.path.basename(m.group(1)))
            print("make-pipeline-corpus: %s is a finding, %s: left out"
                  % (os.path.basename(m.group(1)), m.group(2)), file=sys.stderr)
    if run.returncode not in (0, 1):
        sys.exit("make-pipeline-corpus: the fuzzer failed:\n" + run.stdout)

    os.makedirs(args.output, exist_ok=True)
    for old in os.listdir(args.output):
        if not old.startswith("regress-"):
            os.remove(os.path.join(args.output, old))
    total = 0
    for name, data in seeds.items():
        if name in bad:
            continue
        with open(os.path.join(args.output, name), "wb") as f:
            f.write(data)
        total += len(data)
    shutil.rmtree(staging)
    print("make-pipeline-corpus: %d seeds, %d bytes, in %s (%d left out)"
          % (len(seeds) - len(bad), total, args.output, len(bad)))


if __name__ == "__main__":
    main()
