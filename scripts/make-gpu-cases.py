#!/usr/bin/env python3
"""Differential GPU cases: the CPU interpreter's results, for the GPU to meet.

    scripts/make-gpu-cases.py [-o DIR] [--build BUILD] [--cases FILE]
                              [--only NAME,...] [--jobs J]
                              [--tilec-flag FLAG]...

For each case of FILE (default test/GPU/diff-cases.txt, whose header gives
the format) this compiles the kernel with `tilec` (or `tilec-examples` for a
builder example), runs it in the interpreter with `tilec-run` (memory
checker on) saving the inputs it generated (save=) and the results (out=),
and writes DIR/<case>/ (default .gpu-cases):

    <kernel>.ptx, <kernel>.json   what the GPU runs
    source.tile                   what the interpreter ran
    <param>.npy                   the inputs
    <param>.expected.npy          the interpreter's results
    prints.expected               the interpreter's tile.print lines, sorted
                                  (kernels that print; the GPU's must match)
    command                       the one-line tilec-gpu-run command
    cpu-command                   the same check on the CPU (tilec-run)

Each folder is checked here: cpu-command must pass (the folder reproduces
the interpreter's run from its own files), and `command` must get as far as
needing the driver (tilec-gpu-run checks the metadata, the files and the
scalars, divisibility included, before it loads one). scripts/gpu-diff.sh
runs `command` in each folder on the GPU machine; scripts/diff-batch.py packs
the folders into one archive for many cases in one call there. --jobs J
makes J cases at a time (the order of the lines and folders stays the
cases'). --tilec-flag passes FLAG to tilec for the .tile sources
(repeatable), e.g. --max-unrolled-elements=2 to run every large enough tile
in chunks. Needs only python3's standard library and the tools of BUILD.
"""

import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = ".tilec-gpu-cases"
SOURCES = ("in=", "rand=", "fill=", "iota")
TOLERANCES = ("atol=", "rtol=")
# A driver that cannot load: tilec-gpu-run checks everything it can first.
NO_DRIVER = "/nonexistent/libcuda.so.1"
# Cases made at a time share the builder's examples, made once.
BUILDER_LOCK = threading.Lock()


class CaseError(Exception):
    """A case that cannot be made, with a message for the user."""


def run(cmd, cwd=None):
    """Runs a tool; a failure becomes a CaseError with its output."""
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CaseError("`%s` failed (exit %d):\n%s%s" % (
            " ".join(shlex.quote(c) for c in cmd), proc.returncode,
            proc.stdout, proc.stderr))
    return proc.stdout


def read_cases(path):
    """The cases of `path`: (line number, name, source, grid, args)."""
    cases = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) < 3:
                raise CaseError("%s:%d: expected NAME SOURCE GRID ARG..." %
                                (path, number))
            name, source, grid = words[0], words[1], words[2]
            if not all(c.isalnum() or c in "-_." for c in name):
                raise CaseError("%s:%d: case name '%s' must be letters, "
                                "digits, '-', '_' or '.'" % (path, number, name))
            if any(c[1] == name for c in cases):
                raise CaseError("%s:%d: case '%s' is defined twice" %
                                (path, number, name))
            cases.append((number, name, source, grid, words[3:]))
    return cases


def parse_grid(text):
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() and int(p) > 0
                                           for p in parts):
        raise CaseError("grid '%s' is not X[,Y[,Z]] of positive integers" %
                        text)
    return ",".join(parts + ["1"] * (3 - len(parts)))


def compile_kernel(source, tools, workdir, builder_cache, tilec_flags):
    """Compiles `source` into workdir: (tile file, ptx, json, kernel)."""
    kernel = None
    if source.startswith("builder:"):
        name = source[len("builder:"):]
        with BUILDER_LOCK:
            if name not in builder_cache:
                out = tempfile.mkdtemp(prefix="builder-", dir=workdir)
                run([tools["tilec-examples"], "-o", out, name])
                builder_cache[name] = out
        base = os.path.join(builder_cache[name], name)
        tile, ptx, meta = base + ".tile", base + ".ptx", base + ".json"
        kernel = name
    else:
        path, _, kernel = source.partition(":")
        tile = os.path.join(ROOT, path)
        if not os.path.isfile(tile):
            raise CaseError("no source file '%s'" % path)
        out = tempfile.mkdtemp(prefix="tile-", dir=workdir)
        stem = os.path.splitext(os.path.basename(tile))[0]
        ptx = os.path.join(out, stem + ".ptx")
        run([tools["tilec"], tile, "--emit=ptx", "-o", ptx] + tilec_flags)
        meta = os.path.join(out, stem + ".json")
    with open(meta) as f:
        kernels = json.load(f)["kernels"]
    if not kernel:
        if len(kernels) != 1:
            raise CaseError("'%s' has %d kernels; name one as FILE:KERNEL" %
                            (source, len(kernels)))
        kernel = kernels[0]["name"]
    found = [k for k in kernels if k["name"] == kernel]
    if not found:
        raise CaseError("no kernel '%s' in '%s' (its kernels: %s)" % (
            kernel, source, ", ".join(k["name"] for k in kernels)))
    return tile, ptx, meta, found[0]


def make_case(case, tools, out_dir, workdir, builder_cache, tilec_flags):
    """Writes one case folder; returns its size in bytes."""
    number, name, source, grid_text, specs = case
    grid = parse_grid(grid_text)
    tile, ptx, meta, kernel = compile_kernel(source, tools, workdir,
                                             builder_cache, tilec_flags)
    params = kernel["params"]
    if len(specs) != len(params):
        raise CaseError("kernel '%s' takes %d arguments (%s) but the case "
                        "gives %d" % (kernel["name"], len(params), ", ".join(
                            p["name"] for p in params), len(specs)))
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir)
    kname = kernel["name"]
    shutil.copy(ptx, os.path.join(case_dir, kname + ".ptx"))
    shutil.copy(meta, os.path.join(case_dir, kname + ".json"))
    shutil.copy(tile, os.path.join(case_dir, "source.tile"))

    cpu_specs, gpu_specs, in_place = [], [], []
    for param, spec in zip(params, specs):
        if param["kind"] != "ptr":
            cpu_specs.append(spec)
            gpu_specs.append(spec)
            continue
        items = spec.split(",")
        tolerance = [i for i in items if i.startswith(TOLERANCES)]
        plain = [i for i in items if not i.startswith(TOLERANCES)]
        if any(i.startswith(("save=", "out=", "expect=", "print"))
               for i in plain):
            raise CaseError("argument %%%s ('%s'): the generator adds save=, "
                            "out= and expect= itself" % (param["name"], spec))
        stem = param["name"]
        expected = stem + ".expected.npy"
        cpu = ",".join(plain)
        if any(i.startswith(SOURCES) for i in plain):
            # An input: saved as generated, and compared after the run in
            # case the kernel writes it.
            after = stem + ".after.npy"
            cpu_specs.append("%s,save=%s,out=%s" % (cpu, stem + ".npy", after))
            in_place.append((stem, after, expected, tolerance))
            gpu_specs.append(",".join(["in=" + stem + ".npy"]))
        else:
            cpu_specs.append("%s,out=%s" % (cpu, expected))
            gpu_specs.append(",".join(plain + ["expect=" + expected] +
                                      tolerance))
    cpu_cmd = [tools["tilec-run"], "source.tile", "--kernel=" + kname,
               "--grid=" + grid] + ["--arg=" + s for s in cpu_specs]
    printed = run(cpu_cmd, cwd=case_dir)
    prints = sorted(l for l in printed.splitlines() if l.startswith("pid ("))
    if prints:
        with open(os.path.join(case_dir, "prints.expected"), "w") as f:
            f.write("\n".join(prints) + "\n")
    # Inputs the kernel left alone need no reference (tilec-gpu-run checks
    # they are unchanged); those it wrote get one.
    for i, (stem, after, expected, tolerance) in enumerate(in_place):
        after_path = os.path.join(case_dir, after)
        with open(after_path, "rb") as a, \
                open(os.path.join(case_dir, stem + ".npy"), "rb") as b:
            changed = a.read() != b.read()
        if changed:
            os.rename(after_path, os.path.join(case_dir, expected))
            index = [p["name"] for p in params].index(stem)
            gpu_specs[index] = ",".join(
                ["in=" + stem + ".npy", "expect=" + expected] + tolerance)
        else:
            os.remove(after_path)

    gpu_args = " ".join("--arg " + s for s in gpu_specs)
    with open(os.path.join(case_dir, "command"), "w") as f:
        f.write("tilec-gpu-run %s.ptx --kernel %s --grid %s %s\n" %
                (kname, kname, grid, gpu_args))
    check = "tilec-run source.tile --kernel=%s --grid=%s %s" % (
        kname, grid, " ".join("--arg=" + s for s in gpu_specs))
    with open(os.path.join(case_dir, "cpu-command"), "w") as f:
        f.write(check + "\n")
    # The folder must reproduce the interpreter's run from its own files.
    run([tools["tilec-run"]] + check.split()[1:], cwd=case_dir)
    # And the GPU command must be refused for nothing but the missing driver.
    with open(os.path.join(case_dir, "command")) as f:
        gpu_cmd = [tools["tilec-gpu-run"]] + f.read().split()[1:]
    proc = subprocess.run(gpu_cmd, cwd=case_dir, capture_output=True,
                          text=True, env=dict(os.environ,
                                              TILEC_LIBCUDA=NO_DRIVER))
    if "no CUDA driver found: %s" % NO_DRIVER not in proc.stderr:
        raise CaseError("the GPU command would fail:\n%s%s" %
                        (proc.stdout, proc.stderr))
    return sum(os.path.getsize(os.path.join(case_dir, f))
               for f in os.listdir(case_dir))


def main():
    parser = argparse.ArgumentParser(
        description="Make the differential GPU cases (docs/runtime.md).")
    parser.add_argument("-o", "--output", default=os.path.join(ROOT,
                                                               ".gpu-cases"))
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the build folder holding bin/tilec, ...")
    parser.add_argument("--cases", default=os.path.join(
        ROOT, "test", "GPU", "diff-cases.txt"))
    parser.add_argument("--only", default="",
                        help="comma-separated case names")
    parser.add_argument("--jobs", type=int, default=1,
                        help="cases made at a time (default 1)")
    parser.add_argument("--tilec-flag", action="append", default=[],
                        metavar="FLAG",
                        help="a flag for tilec on .tile sources (repeatable)")
    args = parser.parse_args()
    if args.jobs < 1:
        sys.exit("make-gpu-cases: error: --jobs must be at least 1")
    # The tools run in the case folders: a relative --build would miss them.
    args.build = os.path.abspath(args.build)

    tools = {}
    for tool in ("tilec", "tilec-run", "tilec-examples", "tilec-gpu-run"):
        tools[tool] = os.path.join(args.build, "bin", tool)
        if not os.access(tools[tool], os.X_OK):
            sys.exit("make-gpu-cases: error: no %s in %s/bin (build it, or "
                     "give --build)" % (tool, args.build))
    try:
        cases = read_cases(args.cases)
    except (CaseError, OSError) as e:
        sys.exit("make-gpu-cases: error: %s" % e)
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in [c[1] for c in cases]]
        if unknown:
            sys.exit("make-gpu-cases: error: no case named %s in %s" %
                     (", ".join(unknown), args.cases))
        cases = [c for c in cases if c[1] in wanted]

    out = os.path.abspath(args.output)
    if os.path.exists(out):
        if os.listdir(out) and not os.path.exists(os.path.join(out, MARKER)):
            sys.exit("make-gpu-cases: error: %s exists and is not a case "
                     "folder; remove it or choose another" % out)
        shutil.rmtree(out)
    os.makedirs(out)
    open(os.path.join(out, MARKER), "w").close()

    total, failed = 0, []
    with tempfile.TemporaryDirectory(prefix="tilec-cases-") as workdir:
        builder_cache = {}

        def make(case):
            try:
                return make_case(case, tools, out, workdir, builder_cache,
                                 args.tilec_flag), None
            except (CaseError, OSError) as e:
                shutil.rmtree(os.path.join(out, case[1]), ignore_errors=True)
                return 0, e

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for case, (size, error) in zip(cases, pool.map(make, cases)):
                if error is None:
                    total += size
                    print("made %-40s %8.1f KiB" % (case[1], size / 1024),
                          flush=True)
                else:
                    failed.append(case[1])
                    print("make-gpu-cases: error: %s:%d: case %s: %s" %
                          (args.cases, case[0], case[1], error),
                          file=sys.stderr, flush=True)
    print("make-gpu-cases: %d cases, %.1f MiB in %s" %
          (len(cases) - len(failed), total / 2**20, out))
    if failed:
        sys.exit("make-gpu-cases: %d cases failed: %s" %
                 (len(failed), ", ".join(failed)))


if __name__ == "__main__":
    main()
