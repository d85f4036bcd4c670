#!/usr/bin/env python3
"""Runs the commands shown in the docs and checks what they print.

The docs are tests: every fenced block whose info string is `console` is a
transcript. A line starting with `$ ` is a command (a trailing backslash
continues it on the next line); the lines after it, up to the next command or
the end of the block, are what it prints (standard output and standard error
together). Matching, line by line after trailing blanks are dropped:

  - a line that is `...` alone matches any number of lines (none too);
  - `...` inside a line matches any text (numbers that change from run to
    run, paths);
  - a command with no lines after it is checked for its exit status only;
  - the exit status must be 0, unless the last expected line is `[exit N]`.

Blocks tagged `sh` are the install and build steps (scripts/setup.sh,
test.sh, demo.sh), which CI runs itself, and the pkg-config build that
test/Runtime/install-pkg-config.test checks: they are not run again here.

Each file's commands run in order in one scratch folder, where `examples`
and `docs` name the repository's own, so `tilec examples/add.tile -o add.ptx`
writes into the scratch folder. The build's tools come first on PATH; GPU
tools talk to the stand-in driver (test/lib/FakeCuda) running kernels in its
PTX simulator, so GPU commands run in CI too.

  doc_commands.py --src SRC --build BUILD [--keep] FILE.md...

Prints one line per command; exits 1 if any differs, naming FILE:LINE.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


class Command:
    def __init__(self, line, text):
        self.line = line  # 1-based line of the `$ ` in the markdown file
        self.text = text
        self.expected = []
        self.status = 0


def parse(path):
    """The console blocks' commands of one markdown file, in order."""
    commands = []
    in_block = False
    current = None
    continuing = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^\s*```\s*(\S*)", line)
        if fence:
            if in_block:
                in_block, current, continuing = False, None, False
            else:
                in_block = fence.group(1) == "console"
            continue
        if not in_block:
            continue
        if continuing:
            current.text += "\n" + line
            continuing = line.endswith("\\")
        elif line.startswith("$ "):
            current = Command(number, line[2:])
            commands.append(current)
            continuing = line.endswith("\\")
        elif current is None:
            raise SystemExit(f"{path}:{number}: a console block must start "
                             f"with a `$ ` command")
        else:
            status = re.fullmatch(r"\[exit (\d+)\]", line.strip())
            if status:
                current.status = int(status.group(1))
            else:
                current.expected.append(line.rstrip())
    return commands


def line_matches(pattern, actual):
    parts = [re.escape(p) for p in pattern.split("...")]
    return re.fullmatch(".*".join(parts), actual) is not None


def matches(expected, actual):
    """Whether `actual` lines fit `expected`, with `...` lines as gaps."""
    # Trailing blank lines on either side do not count.
    while expected and not expected[-1]:
        expected = expected[:-1]
    while actual and not actual[-1]:
        actual = actual[:-1]
    memo = {}

    def fit(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "...":
            result = any(fit(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_matches(expected[i], actual[j]) \
                and fit(i + 1, j + 1)
        memo[key] = result
        return result

    return fit(0, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", required=True, help="the source tree")
    parser.add_argument("--build", required=True, help="the build folder")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch folders")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.join(args.build, "bin"),
                                   env.get("PATH", "")])
    env["TILEC_LIBCUDA"] = os.path.join(args.build, "lib",
                                        "libtilec_fake_cuda.so")
    env["TILEC_FAKE_CUDA_SIMULATE"] = "1"
    env["TILEC_RUNTIME_PTXAS"] = "off"
    env["COLUMNS"] = "100"

    failures = 0
    total = 0
    for path in args.files:
        commands = parse(path)
        if not commands:
            continue
        scratch = tempfile.mkdtemp(prefix="tilec-doc-")
        env["TILEC_CACHE_DIR"] = os.path.join(scratch, ".cache")
        for name in ("examples", "docs"):
            os.symlink(os.path.join(args.src, name),
                       os.path.join(scratch, name))
        for command in commands:
            total += 1
            where = f"{path}:{command.line}"
            done = subprocess.run(["bash", "-o", "pipefail", "-c",
                                   command.text], cwd=scratch, env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=300)
            actual = done.stdout.decode("utf-8", "replace").split("\n")
            actual = [a.rstrip() for a in actual]
            ok = done.returncode == command.status
            if ok and command.expected:
                ok = matches(command.expected, actual)
            first = command.text.split("\n")[0]
            if ok:
                print(f"PASS {where}: {first}")
                continue
            failures += 1
            print(f"FAIL {where}: {first}")
            print(f"  exit status {done.returncode}, expected "
                  f"{command.status}")
            print("  expected:")
            for e in command.expected:
                print(f"    | {e}")
            print("  got:")
            for a in actual:
                print(f"    | {a}")
        if args.keep:
            print(f"(scratch folder of {path}: {scratch})")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{total - failures} of {total} doc commands as shown")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
