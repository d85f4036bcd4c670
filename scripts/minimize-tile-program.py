#!/usr/bin/env python3
"""Shrinks a .tile program while a failure persists (issue 17).

    scripts/minimize-tile-program.py PROGRAM.tile -o OUT.tile
        [--case 'GRID ARG...' | --cases FILE [--name NAME]]
        [--build BUILD] [--match REGEX] [--corrupt]
    scripts/minimize-tile-program.py PROGRAM.tile -o OUT.tile --test 'CMD'

A candidate is interesting when it still fails the same way:
  - by default, as the differential test of scripts/gen-tile-programs.py:
    make-gpu-cases.py compiles it and runs it in the interpreter (both
    must succeed), then the case's command runs the PTX in the stand-in
    driver's simulator and must fail with output matching REGEX (default:
    the original failure's simulator message, its numbers generalized, or
    'differ' for wrong results). The case (grid and arguments) is given
    with --case or taken from a cases.txt line (--cases, the line of
    --name, default the kernel's name). --corrupt moves the interpreter's
    results first, as gen-tile-programs.py's does (so every program fails:
    for tests of the minimizer itself);
  - with --test, when CMD exits 0; CMD sees the candidate's path in
    $TILE (run through sh).
The kernel's signature and the case's arguments stay as they are; the body
shrinks by delta debugging over its lines (removing chunks of lines, down
to single ones) and by replacing a value with one of its operands (the
line `%v = op %a, %b` goes, %v's uses take %a or %b), until no single step
keeps the failure. Candidates that do not parse or verify are simply not
interesting. Prints each step and the lines left; exits 1 if the input
itself is not interesting. Needs only python3's standard library.
"""

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_generator():
    """scripts/gen-tile-programs.py as a module (its simulate and corrupt)."""
    spec = importlib.util.spec_from_file_location(
        "gen_tile_programs", os.path.join(ROOT, "scripts",
                                          "gen-tile-programs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split_program(text):
    """(head, body, tail): the lines up to the kernel's `{`, the body, and
    the closing `return` and `}` (the function's last two lines)."""
    lines = text.rstrip("\n").split("\n")
    start = next(i for i, l in enumerate(lines)
                 if l.rstrip().endswith("{") and "func.func" in
                 "\n".join(lines[:i + 1]))
    end = len(lines)
    while end > start and lines[end - 1].strip() in ("}", "return", ""):
        end -= 1
    return lines[:start + 1], lines[start + 1:end], lines[end:]


class DiffTest:
    """The differential test of one case: interesting when the simulator
    disagrees with the interpreter (or reports an error) as `match` says."""

    def __init__(self, name, grid, args, build, match, corrupt, work):
        self.gen = load_generator()
        self.name, self.grid, self.args = name, grid, args
        self.build, self.match, self.corrupt = build, match, corrupt
        self.work = work
        self.count = 0

    def run(self, text):
        """(compiled and interpreted, simulator passed, output)."""
        self.count += 1
        d = os.path.join(self.work, "try%d" % self.count)
        os.makedirs(d)
        tile = os.path.join(d, self.name + ".tile")
        with open(tile, "w") as f:
            f.write(text)
        cases = os.path.join(d, "cases.txt")
        with open(cases, "w") as f:
            f.write("%s %s %s %s\n" % (self.name, tile, self.grid,
                                       " ".join(self.args)))
        proc = subprocess.run(
            [sys.executable, os.path.join(ROOT, "scripts",
                                          "make-gpu-cases.py"),
             "--build", self.build, "--cases", cases, "-o",
             os.path.join(d, "cases")], capture_output=True, text=True)
        if proc.returncode != 0:
            shutil.rmtree(d, ignore_errors=True)
            return False, False, proc.stdout + proc.stderr
        case = os.path.join(d, "cases", self.name)
        if self.corrupt:
            self.gen.corrupt_expected(case)
        passed, output = self.gen.simulate(case, self.build,
                                           os.path.join(self.work, "cache"))
        shutil.rmtree(d, ignore_errors=True)
        return True, passed, output

    def default_match(self, output):
        """The simulator's message with its numbers generalized, or
        'differ' (a wrong result)."""
        m = re.search(r"ptxsim: [^:]+: (.*)", output)
        if not m:
            return "differ"
        # Past the place: block and thread, line and instruction text.
        message = re.sub(r"^(block \([0-9,]+\) thread [0-9]+ )?"
                         r"(line [0-9]+( '[^']*')?: )?", "", m.group(1))
        return re.sub(r"[0-9]+", "[0-9]+", re.escape(message))

    def __call__(self, text):
        made, passed, output = self.run(text)
        return made and not passed and re.search(self.match, output)


class CommandTest:
    """Interesting when `command` exits 0 with $TILE naming the candidate."""

    def __init__(self, command, work):
        self.command, self.work = command, work
        self.count = 0

    def __call__(self, text):
        self.count += 1
        path = os.path.join(self.work, "candidate%d.tile" % self.count)
        with open(path, "w") as f:
            f.write(text)
        proc = subprocess.run(["sh", "-c", self.command],
                              env=dict(os.environ, TILE=path),
                              capture_output=True)
        os.remove(path)
        return proc.returncode == 0


def ddmin(lines, interesting):
    """The lines left after removing chunks while `interesting` holds
    (Zeller's ddmin over complements, chunks halved down to one line)."""
    n = 2
    while len(lines) >= 2:
        size = max(1, len(lines) // n)
        chunks = [(i, min(i + size, len(lines)))
                  for i in range(0, len(lines), size)]
        removed = False
        for lo, hi in chunks:
            rest = lines[:lo] + lines[hi:]
            if rest and interesting(rest):
                print("  removed lines %d..%d: %d left" % (
                    lo + 1, hi, len(rest)))
                lines = rest
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if size == 1:
                break
            n = min(n * 2, len(lines))
    return lines


DEF = re.compile(r"^\s*(%[A-Za-z0-9_]+)(?::[0-9]+)?\s*=\s*(.*)$")
VALUE = re.compile(r"%[A-Za-z0-9_]+")


def replace_values(lines, interesting):
    """Replaces a defined value by one of the operands of its line (the line
    goes) while `interesting` holds; one pass over the lines, last first."""
    i = len(lines) - 1
    while i >= 0:
        m = DEF.match(lines[i])
        if m:
            name = m.group(1)
            operands = [v for v in dict.fromkeys(VALUE.findall(m.group(2)))
                        if v != name]
            use = re.compile(re.escape(name) + r"(?![A-Za-z0-9_])")
            for operand in operands:
                rest = lines[:i] + [use.sub(operand, l)
                                    for l in lines[i + 1:]]
                if interesting(rest):
                    print("  %s replaced by %s: %d left" % (
                        name, operand, len(rest)))
                    lines = rest
                    break
        i = min(i, len(lines)) - 1
    return lines


def main():
    parser = argparse.ArgumentParser(
        description="Shrinks a .tile program while a failure persists.")
    parser.add_argument("program")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--case", help="GRID ARG... of the differential test")
    parser.add_argument("--cases", help="a cases.txt with the program's line")
    parser.add_argument("--name", help="the line of --cases (default: the "
                        "kernel's name)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--match", help="regex the failing output must match")
    parser.add_argument("--corrupt", action="store_true",
                        help="move the interpreter's results first")
    parser.add_argument("--test", help="a shell command: interesting when it "
                        "exits 0 ($TILE: the candidate)")
    args = parser.parse_args()

    with open(args.program) as f:
        text = f.read()
    found = re.search(r"func\.func @([A-Za-z0-9_]+)", text)
    kernel = found.group(1) if found else "kernel"
    work = tempfile.mkdtemp(prefix="tilec-minimize-")
    try:
        if args.test:
            test = CommandTest(args.test, work)
        else:
            if args.case:
                words = args.case.split()
            elif args.cases:
                name = args.name or kernel
                with open(args.cases) as f:
                    found = [l.split() for l in f
                             if l.split()[:1] == [name]]
                if not found:
                    sys.exit("minimize-tile-program: error: no line '%s' in "
                             "%s" % (name, args.cases))
                words = found[0][2:]
            else:
                sys.exit("minimize-tile-program: error: give --case, --cases "
                         "or --test")
            test = DiffTest(kernel, words[0], words[1:],
                            os.path.abspath(args.build), args.match or "",
                            args.corrupt, work)
            made, passed, output = test.run(text)
            if not made or passed:
                sys.exit("minimize-tile-program: error: %s does not fail "
                         "the differential test%s" % (
                             args.program, "" if made else
                             " (it does not compile or interpret):\n" +
                             output))
            if not args.match:
                test.match = test.default_match(output)
            print("minimize-tile-program: failure: /%s/" % test.match)

        try:
            head, body, tail = split_program(text)
        except StopIteration:
            sys.exit("minimize-tile-program: error: %s has no kernel body" %
                     args.program)

        def interesting(lines):
            return bool(test("\n".join(head + lines + tail) + "\n"))

        if not interesting(body):
            sys.exit("minimize-tile-program: error: %s is not interesting" %
                     args.program)
        size = len(body)
        while True:
            before = len(body)
            body = ddmin(body, interesting)
            body = replace_values(body, interesting)
            if len(body) == before:
                break
        with open(args.output, "w") as f:
            f.write("\n".join(head + body + tail) + "\n")
        print("minimize-tile-program: %d of %d body lines left, %d tries: %s"
              % (len(body), size, test.count, args.output))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
