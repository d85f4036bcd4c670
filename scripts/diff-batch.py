#!/usr/bin/env python3
"""Differential GPU cases by the thousand: one archive, batches of cases.

    scripts/diff-batch.py pack --cases DIR -o ARCHIVE [--corrupt NAME,...]
    scripts/diff-batch.py unpack ARCHIVE -o DIR [--jobs J]
    scripts/diff-batch.py run DIR --gpu-run BIN [--jobs J] [--chunk N]
                          [--case-timeout S] [--budget S] [--logs LOGS]

`pack` (here) puts the case folders that scripts/make-gpu-cases.py wrote
into one xz-compressed tar, keeping only what the GPU machine cannot make:
each case's command, PTX, metadata, the interpreter's results (with their
tolerances in the command) and prints.expected. The inputs and source of a
program of scripts/gen-tile-programs.py (a folder named gen_SEED_INDEX) are
left out: `unpack` makes them again there with the generator's own code
(program_files), and pack checks here that what it makes is, byte for
byte, what the interpreter ran (the folder's inputs, which tilec-run saved
as it read them) and records their SHA-256, which unpack checks there.
Inputs of other cases travel as files. --corrupt moves element 0 of the
named cases' references (gen-tile-programs.py's corrupt_expected): those
cases must fail, a check of the checking.

`unpack` (on the GPU machine) extracts ARCHIVE into DIR (DIR/cases/NAME),
makes the generated inputs and sources, J programs at a time, and writes
DIR/batch.list, the case folders in the archive's order.

`run` runs DIR's cases with `BIN --batch` (tilec-gpu-run: one process, one
context, many cases), J processes at a time over chunks of N cases. A case
whose launch fails (a fault is sticky in CUDA), that runs past S seconds,
or during which the process dies, is reported CRASH, and a new process
goes on from the next case. At the end of the budget (seconds from the
start of `run`) the processes are stopped and the cases left are "not
run". Prints every verdict as it comes (PASS/FAIL/CRASH NAME: ...), then
the cases that did not pass in their order with their lines, then
"diff-batch: N passed, M failed, K crashed[, L not run] of T cases in S s".
LOGS (default DIR/logs) gets verdicts.txt (every case in order),
counts.txt ("passed failed crashed notrun") and the failing cases' folders
under failed/. Exits 0 if every case passed, 1 if not or if the batches
could not run at all (no driver, say).

Needs only python3's standard library.
"""

import argparse
import concurrent.futures
import hashlib
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(ROOT, "scripts", "gen-tile-programs.py")
FORMAT = "tilec-diff-batch"
VERSION = 1
TOP = "tilec-diff-batch/"
MARKER = ".tilec-diff-batch"
GENERATED = re.compile(r"gen_(\d+)_(\d+)$")
VERDICT = re.compile(r"(PASS|FAIL|CRASH) (\S+?): ")


class BatchError(Exception):
    """Something the user must fix, with a message for them."""


_generator = None


def generator():
    """scripts/gen-tile-programs.py as a module (loaded once a process)."""
    global _generator
    if _generator is None:
        spec = importlib.util.spec_from_file_location("gen_tile_programs",
                                                      GENERATOR)
        _generator = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_generator)
    return _generator


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def natural_key(name):
    """gen_3_10 after gen_3_9."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def command_files(words):
    """The files a tilec-gpu-run command reads: (kernel file, metadata,
    inputs (in=), references (expect=))."""
    binary, metadata, inputs, refs = None, None, [], []
    i = 1
    while i < len(words):
        word = words[i]
        option, eq, value = word.partition("=")
        takes = option in ("--metadata", "--kernel", "--grid", "--arg",
                           "--device", "--max-report")
        if takes and not eq:
            i += 1
            value = words[i] if i < len(words) else ""
        if option == "--metadata":
            metadata = value
        elif option == "--arg":
            for item in value.split(","):
                if item.startswith("in="):
                    inputs.append(item[3:])
                elif item.startswith("expect="):
                    refs.append(item[7:])
        elif not word.startswith("-") and binary is None:
            binary = word
        i += 1
    if binary is None:
        raise BatchError("the command names no kernel file")
    if metadata is None:
        metadata = os.path.splitext(binary)[0] + ".json"
    return binary, metadata, inputs, refs


# --- pack --------------------------------------------------------------------

def read(path):
    with open(path, "rb") as f:
        return f.read()


def pack_case(case_dir, name, corrupt):
    """One case: ({file: bytes, or None to read it from the folder when it
    is written}, manifest entry)."""
    command = read(os.path.join(case_dir, "command"))
    words = command.decode().split()
    if not words or words[0] != "tilec-gpu-run":
        raise BatchError("its command is not a tilec-gpu-run command")
    binary, metadata, inputs, refs = command_files(words)
    for f in [binary, metadata] + inputs + refs:
        if os.path.isabs(f) or ".." in f.split("/"):
            raise BatchError("its command names '%s', outside the folder" % f)
    entry = {"name": name}
    shipped = ["command", binary, metadata] + refs
    if os.path.exists(os.path.join(case_dir, "prints.expected")):
        shipped.append("prints.expected")
    match = GENERATED.match(name)
    if match:
        seed, index = int(match.group(1)), int(match.group(2))
        made_name, tile, _, _, files, _ = generator().program_files(seed,
                                                                    index)
        if made_name != name:
            raise BatchError("gen-tile-programs.py names program %d of seed "
                             "%d '%s'" % (index, seed, made_name))
        source = os.path.join(case_dir, "source.tile")
        if os.path.exists(source) and read(source) != tile.encode():
            raise BatchError("source.tile is not what gen-tile-programs.py "
                             "makes for seed %d, program %d (another version "
                             "of the generator made it?)" % (seed, index))
        hashes = {}
        for f in inputs:
            if f not in files:
                raise BatchError("input %s is not one gen-tile-programs.py "
                                 "makes for seed %d, program %d" %
                                 (f, seed, index))
            if read(os.path.join(case_dir, f)) != files[f]:
                raise BatchError("input %s is not what gen-tile-programs.py "
                                 "makes for seed %d, program %d (another "
                                 "version of the generator made it?)" %
                                 (f, seed, index))
            hashes[f] = sha256(files[f])
        entry.update(seed=seed, index=index, tile=sha256(tile.encode()),
                     inputs=hashes)
    else:
        shipped += inputs
    data = {}
    for f in shipped:
        if not os.path.isfile(os.path.join(case_dir, f)):
            raise BatchError("its command names '%s', which it does not hold"
                             % f)
        data[f] = None
    if corrupt:
        data.update(corrupted(case_dir, refs))
    return data, entry


def corrupted(case_dir, refs):
    """The references of `refs`, element 0 moved (corrupt_expected)."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="diff-batch-") as tmp:
        for f in refs:
            shutil.copy(os.path.join(case_dir, f), os.path.join(tmp, f))
        generator().corrupt_expected(tmp)
        return {f: read(os.path.join(tmp, f)) for f in refs}


def member(name, data):
    info = tarfile.TarInfo(TOP + name)
    info.size = len(data)
    info.mode = 0o644
    info.mtime = 0
    return info


def pack(args):
    cases_dir = os.path.abspath(args.cases)
    if not os.path.isdir(cases_dir):
        raise BatchError("no case folder %s (scripts/make-gpu-cases.py makes "
                         "it)" % args.cases)
    names = sorted((n for n in os.listdir(cases_dir)
                    if os.path.isfile(os.path.join(cases_dir, n, "command"))),
                   key=natural_key)
    if not names:
        raise BatchError("no cases in %s (folders with a `command`)" %
                         args.cases)
    corrupt = set(filter(None, args.corrupt.split(",")))
    unknown = corrupt - set(names)
    if unknown:
        raise BatchError("--corrupt: no case named %s in %s" %
                         (", ".join(sorted(unknown)), args.cases))
    start = time.time()
    cases, manifest, folder_bytes = [], [], 0
    for name in names:
        case_dir = os.path.join(cases_dir, name)
        try:
            data, entry = pack_case(case_dir, name, name in corrupt)
        except (BatchError, OSError, UnicodeDecodeError) as e:
            raise BatchError("case %s: %s" % (name, e))
        folder_bytes += sum(os.path.getsize(os.path.join(case_dir, f))
                            for f in os.listdir(case_dir))
        cases.append((name, data))
        manifest.append(entry)
    head = {"format": FORMAT, "version": VERSION,
            "generator": sha256(read(GENERATOR)), "cases": manifest}
    out = os.path.abspath(args.output)
    tmp = out + ".tmp"
    # Files of a kind together (commands, metadata, PTX, references): xz
    # finds what they share.
    order = [lambda f: f == "command", lambda f: f.endswith(".json"),
             lambda f: f.endswith((".ptx", ".cubin")),
             lambda f: f.endswith(".expected.npy"), lambda f: True]
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        text = json.dumps(head, indent=0, sort_keys=True).encode()
        tar.addfile(member("manifest.json", text), io.BytesIO(text))
        done = set()
        for kind in order:
            for name, data in cases:
                for f in sorted(data):
                    if (name, f) not in done and kind(f):
                        done.add((name, f))
                        content = data[f]
                        if content is None:
                            content = read(os.path.join(cases_dir, name, f))
                        path = "cases/%s/%s" % (name, f)
                        tar.addfile(member(path, content),
                                    io.BytesIO(content))
    os.replace(tmp, out)
    size = os.path.getsize(out)
    generated = sum(1 for e in manifest if "seed" in e)
    print("diff-batch: packed %d cases (%d with inputs made there) into %s: "
          "%.2f MiB, %.2f KiB a case (the folders: %.1f MiB; %.0f s)" % (
              len(names), generated, out, size / 2**20,
              size / 1024 / len(names), folder_bytes / 2**20,
              time.time() - start))


# --- unpack ------------------------------------------------------------------

def regenerate(items):
    """Makes the sources and inputs of generated cases and checks them
    against the archive's hashes; returns [(name, error or None)]."""
    results = []
    for case_dir, entry in items:
        name = entry["name"]
        try:
            made, tile, _, _, files, features = generator().program_files(
                entry["seed"], entry["index"])
            if made != name:
                raise BatchError("the generator names it %s" % made)
            tile = tile.encode()
            if sha256(tile) != entry["tile"]:
                raise BatchError("the regenerated source.tile is not the one "
                                 "the interpreter ran")
            for f, digest in sorted(entry["inputs"].items()):
                if f not in files:
                    raise BatchError("the generator makes no input %s" % f)
                if sha256(files[f]) != digest:
                    raise BatchError("the regenerated input %s is not the "
                                     "one the interpreter ran (SHA-256 %s, "
                                     "expected %s)" % (f, sha256(files[f]),
                                                       digest))
                with open(os.path.join(case_dir, f), "wb") as out:
                    out.write(files[f])
            with open(os.path.join(case_dir, "source.tile"), "wb") as out:
                out.write(tile)
            with open(os.path.join(case_dir, "features"), "w") as out:
                out.write(" ".join(features) + "\n")
            results.append((name, None))
        except (BatchError, OSError) as e:
            results.append((name, str(e)))
    return results


def safe_path(name):
    """The path of an archive member below the top folder, or None."""
    if not name.startswith(TOP):
        return None
    rest = name[len(TOP):]
    parts = rest.split("/")
    if not rest or any(p in ("", ".", "..") for p in parts):
        return None
    return rest


def unpack(args):
    start = time.time()
    out = os.path.abspath(args.output)
    if os.path.exists(out):
        if os.listdir(out) and not os.path.exists(os.path.join(out, MARKER)):
            raise BatchError("%s exists and is not an unpacked batch; remove "
                             "it or choose another" % out)
        shutil.rmtree(out)
    os.makedirs(out)
    open(os.path.join(out, MARKER), "w").close()
    manifest = None
    try:
        with tarfile.open(args.archive, "r:xz") as tar:
            for m in tar:
                if m.isdir():
                    continue
                rest = safe_path(m.name)
                if rest is None or not m.isfile():
                    raise BatchError("%s holds '%s', which is not a file of "
                                     "a batch" % (args.archive, m.name))
                data = tar.extractfile(m).read()
                if rest == "manifest.json":
                    manifest = json.loads(data)
                    continue
                path = os.path.join(out, rest)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
    except (tarfile.TarError, EOFError, OSError, ValueError) as e:
        raise BatchError("cannot read %s: %s" % (args.archive, e))
    if (not isinstance(manifest, dict) or manifest.get("format") != FORMAT
            or manifest.get("version") != VERSION):
        raise BatchError("%s is not a batch of diff-batch.py pack (format %s "
                         "version %d)" % (args.archive, FORMAT, VERSION))
    entries = manifest["cases"]
    cases = os.path.join(out, "cases")
    for e in entries:
        if not os.path.isfile(os.path.join(cases, e["name"], "command")):
            raise BatchError("%s lists case %s but holds no command for it" %
                             (args.archive, e["name"]))
    generated = [(os.path.join(cases, e["name"]), e) for e in entries
                 if "seed" in e]
    extracted = time.time() - start
    jobs = max(1, args.jobs)
    chunks = [generated[i::jobs] for i in range(jobs)]
    errors = []
    if len(generated) < 50 or jobs == 1:
        errors = [r for r in regenerate(generated) if r[1]]
    else:
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            for results in pool.map(regenerate, chunks):
                errors += [r for r in results if r[1]]
    if errors:
        same = manifest.get("generator") == sha256(read(GENERATOR))
        for name, error in errors[:10]:
            print("diff-batch: error: case %s: %s" % (name, error),
                  file=sys.stderr)
        raise BatchError(
            "%d of %d generated cases could not be made again as they were "
            "packed%s" % (len(errors), len(generated), "" if same else
                          " (scripts/gen-tile-programs.py is not the one "
                          "that packed them: run this from the same commit)"))
    with open(os.path.join(out, "batch.list"), "w") as f:
        f.write("".join("cases/%s\n" % e["name"] for e in entries))
    print("diff-batch: unpacked %d cases into %s (%d with their inputs made "
          "again and checked; %.0f s extracting, %.0f s generating)" % (
              len(entries), out, len(generated), extracted,
              time.time() - start - extracted))


# --- run ---------------------------------------------------------------------

class Runner:
    """Runs the list's cases in batch processes, chunk by chunk, and keeps
    one result per case: (verdict line, its lines, other output)."""

    def __init__(self, args, names):
        self.args, self.names = args, names
        self.list = os.path.join(os.path.abspath(args.dir), "batch.list")
        self.results = [None] * len(names)
        self.lock = threading.Lock()
        self.stopping = False
        self.fatal = None
        self.restarts = 0
        self.procs = {}          # worker -> (process, time of its last line)
        size = args.chunk or max(1, min(100, -(-len(names) // (
            args.jobs * 4))))
        self.chunks = [(i, min(i + size, len(names)))
                       for i in range(0, len(names), size)]
        self.next_chunk = 0
        # A process silent this long is hung past its own --case-timeout.
        self.quiet = (args.case_timeout or 600) + 60

    def say(self, text):
        with self.lock:
            print(text, flush=True)

    def record(self, index, verdict, lines, stray):
        with self.lock:
            self.results[index] = (verdict, lines, stray)
            print(verdict, flush=True)
            if not verdict.startswith("PASS"):
                for line in lines:
                    print(line, flush=True)

    def take_chunk(self):
        with self.lock:
            if self.stopping or self.next_chunk == len(self.chunks):
                return None
            chunk = self.chunks[self.next_chunk]
            self.next_chunk += 1
            return chunk

    def worker(self, number):
        while True:
            chunk = self.take_chunk()
            if chunk is None:
                return
            position, end = chunk
            while position < end and not self.stopping:
                position = self.run_batch(number, position, end)

    def run_batch(self, number, first, end):
        """One process from case `first`; returns where the next starts."""
        cmd = [self.args.gpu_run, "--batch", self.list, "--first",
               str(first), "--count", str(end - first)]
        if self.args.case_timeout:
            cmd += ["--case-timeout", str(self.args.case_timeout)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, errors="replace",
                                text=True)
        with self.lock:
            # The process, the time of its last line, whether it was killed
            # for saying nothing too long.
            self.procs[number] = [proc, time.time(), False]
        position, stray = first, []
        current = None           # the last verdict: [index, line, lines]
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            with self.lock:
                self.procs[number][1] = time.time()
            match = VERDICT.match(line)
            if match and position < end and \
                    match.group(2) == self.names[position]:
                if current:
                    self.record(*current)
                current = [position, line, [], stray]
                stray = []
                position += 1
            elif line.startswith("    ") and current:
                current[2].append(line)
            elif not line.startswith("tilec-gpu-run: batch: "):
                stray.append(line)
        if current:
            self.record(*current)
        rc = proc.wait()
        with self.lock:
            silent = self.procs.pop(number)[2]
        if self.stopping:
            return end
        if rc == 2:
            # The batch itself could not run (no driver, say): every other
            # would fail alike.
            with self.lock:
                if not self.fatal:
                    self.fatal = "\n".join(stray) or "exit status 2"
                self.stopping = True
            return end
        if position < end and (rc not in (0, 1) or position == first):
            if rc != 3 or position == first:
                # The process died in this case (or stopped without saying
                # why): the case is the crash, and the next process goes on
                # after it.
                how = ("signal %d" % -rc) if rc < 0 else "exit status %d" % rc
                if silent:
                    how = "killed after %d s without a line" % self.quiet
                self.record(position, "CRASH %s: the batch process ended "
                            "(%s) during this case" % (self.names[position],
                                                         how),
                            ["    " + l for l in stray[-8:]], [])
                position += 1
            with self.lock:
                self.restarts += 1
        elif position < end:
            # A batch that exits 0 or 1 has run its whole range.
            self.record(position, "CRASH %s: the batch process ended (exit "
                        "status %d) before this case" % (
                            self.names[position], rc), [], [])
            position += 1
        return position

    def watch(self, threads, deadline):
        """Stops everything at the deadline, and kills a process that has
        said nothing for longer than a case may take."""
        while any(t.is_alive() for t in threads):
            time.sleep(0.2)
            now = time.time()
            with self.lock:
                if now > deadline and not self.stopping:
                    self.stopping = True
                    self.out_of_time = True
                procs = list(self.procs.values())
                stopping = self.stopping
            for entry in procs:
                proc, last = entry[0], entry[1]
                if stopping or now - last > self.quiet:
                    entry[2] = not stopping
                    try:
                        proc.kill()
                    except OSError:
                        pass

    def run(self):
        self.out_of_time = False
        start = time.time()
        threads = [threading.Thread(target=self.worker, args=(i,))
                   for i in range(self.args.jobs)]
        for t in threads:
            t.start()
        self.watch(threads, start + self.args.budget)
        for t in threads:
            t.join()
        return time.time() - start


def features_of(case_dir):
    try:
        with open(os.path.join(case_dir, "features")) as f:
            return f.read().strip()
    except OSError:
        return ""


def run(args):
    batch_dir = os.path.abspath(args.dir)
    listing = os.path.join(batch_dir, "batch.list")
    try:
        with open(listing) as f:
            folders = [l.strip() for l in f if l.strip()]
    except OSError as e:
        raise BatchError("no batch in %s (%s): diff-batch.py unpack makes "
                         "one" % (args.dir, e))
    if not folders:
        raise BatchError("%s lists no cases" % listing)
    if not os.access(args.gpu_run, os.X_OK):
        raise BatchError("no tilec-gpu-run at %s" % args.gpu_run)
    if args.jobs < 1 or args.budget <= 0:
        raise BatchError("--jobs and --budget must be positive")
    names = [os.path.basename(f.rstrip("/")) for f in folders]
    runner = Runner(args, names)
    print("diff-batch: %d cases in %s, %d processes at a time over chunks of "
          "%d" % (len(names), batch_dir, args.jobs,
                  runner.chunks[0][1] - runner.chunks[0][0]), flush=True)
    seconds = runner.run()
    if runner.fatal and not any(runner.results):
        raise BatchError("the batch could not run:\n%s" % runner.fatal)

    counts = {"PASS": 0, "FAIL": 0, "CRASH": 0}
    logs = os.path.abspath(args.logs or os.path.join(batch_dir, "logs"))
    failed_dir = os.path.join(logs, "failed")
    shutil.rmtree(failed_dir, ignore_errors=True)
    os.makedirs(logs, exist_ok=True)
    bad = []
    with open(os.path.join(logs, "verdicts.txt"), "w") as f:
        for i, name in enumerate(names):
            result = runner.results[i]
            if result is None:
                f.write("NOTRUN %s\n" % name)
                continue
            verdict, lines, stray = result
            counts[verdict.split(" ", 1)[0]] += 1
            f.write(verdict + "\n")
            if not verdict.startswith("PASS"):
                extra = lines + ["    " + l for l in stray[-8:]]
                f.write("".join(l + "\n" for l in extra))
                bad.append((i, verdict, extra))
                src = os.path.join(batch_dir, folders[i])
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(failed_dir, name))
    notrun = sum(1 for r in runner.results if r is None)
    with open(os.path.join(logs, "counts.txt"), "w") as f:
        f.write("%d %d %d %d\n" % (counts["PASS"], counts["FAIL"],
                                   counts["CRASH"], notrun))
    if bad:
        print("== the %d cases that did not pass, in order" % len(bad))
        for i, verdict, extra in bad[:args.most_shown]:
            print(verdict)
            for line in extra:
                print(line)
            features = features_of(os.path.join(batch_dir, folders[i]))
            if features:
                print("    features: %s" % features)
        if len(bad) > args.most_shown:
            print("... and %d more in %s" % (len(bad) - args.most_shown,
                                             os.path.join(logs,
                                                          "verdicts.txt")))
    if runner.fatal:
        print("diff-batch: a batch could not run: %s" % runner.fatal)
    summary = "%d passed, %d failed, %d crashed" % (
        counts["PASS"], counts["FAIL"], counts["CRASH"])
    if notrun:
        summary += ", %d not run (%s)" % (
            notrun, "out of the %d s budget" % args.budget
            if runner.out_of_time else "stopped")
    print("diff-batch: %s of %d cases in %.0f s (%.1f cases a second; "
          "batches restarted after a crash: %d; logs in %s)" % (
              summary, len(names), seconds, (len(names) - notrun) /
              max(seconds, 1e-3), runner.restarts, logs))
    return 0 if counts["PASS"] == len(names) else 1


def main():
    parser = argparse.ArgumentParser(
        description="Differential GPU cases in one archive, run in batches.")
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("pack", help="pack case folders into an archive")
    p.add_argument("--cases", required=True,
                   help="the folder scripts/make-gpu-cases.py wrote")
    p.add_argument("-o", "--output", required=True, help="the archive")
    p.add_argument("--corrupt", default="",
                   help="cases whose references to move (they must fail)")
    p = sub.add_parser("unpack", help="unpack an archive, inputs made again")
    p.add_argument("archive")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p = sub.add_parser("run", help="run an unpacked batch")
    p.add_argument("dir", help="the folder unpack wrote")
    p.add_argument("--gpu-run", required=True, help="tilec-gpu-run")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="batch processes at a time")
    p.add_argument("--chunk", type=int, default=0,
                   help="cases a process takes (default: from the count)")
    p.add_argument("--case-timeout", type=int, default=60,
                   help="seconds a case may take (0: no limit)")
    p.add_argument("--budget", type=int, default=400,
                   help="seconds for all cases")
    p.add_argument("--logs", default="")
    p.add_argument("--most-shown", type=int, default=40,
                   help="failing cases shown with their lines at the end")
    args = parser.parse_args()
    try:
        if args.mode == "pack":
            pack(args)
        elif args.mode == "unpack":
            unpack(args)
        else:
            sys.exit(run(args))
    except BatchError as e:
        sys.exit("diff-batch: error: %s" % e)


if __name__ == "__main__":
    main()
