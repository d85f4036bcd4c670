#!/usr/bin/env python3
"""Random tile programs, tested differentially (issue 17).

    scripts/gen-tile-programs.py gen [--seed S] [--count N] [--first I] -o DIR
    scripts/gen-tile-programs.py run [--seed S] [--count N] [--first I]
                                     [-o DIR] [--build BUILD] [--jobs J]
                                     [--keep] [--corrupt]
                                     [--tilec-flag FLAG]...

`gen` writes N seeded kernels, DIR/programs/gen-S-I.tile with their inputs
(.npy files in DIR/programs/gen-S-I/), and DIR/cases.txt, one line per
program in the format of test/GPU/diff-cases.txt. Program I of seed S
depends on S and I only, so `--first I --count 1` regenerates one program
of a campaign alone.

`run` generates them, makes the case folders with scripts/make-gpu-cases.py
(which compiles each kernel with tilec and runs it in the CPU interpreter,
the oracle), runs every folder's `command` (tilec-gpu-run) on the PTX
simulator of the stand-in driver, and prints one PASS/FAIL line per program
and a summary. A program that fails keeps its source and folder, and the
line says how to reproduce it; DIR is removed when every program passed and
--keep is not given. Exits 1 if any program failed. --corrupt changes the
first element of every interpreter result before the GPU runs compare with
it, so that every program must fail: a check of the checking.
--tilec-flag passes a flag to tilec: --max-unrolled-elements=2 makes the
programs' small tiles run in loops over chunks (tile-loop-large-tiles),
which their default 128 elements per thread leaves to huge tiles.

What the programs cover: elementwise chains over f32, f16, bf16, f64, i8,
i32 and i64 with casts between them; masks with ragged sizes and extra
programs; 1-D and 2-D tiles whose sizes include non-powers of two;
reductions and scans with named combiners (add, max, min, and, or, xor)
along each axis; broadcasts (expand_dims + broadcast) of reduced tiles and
of loaded vectors; dots (f16/bf16 into f32 on mma.sync, multiples of 16;
f32, i8 into i32 and f16/bf16 tiles below the mma shape on the FMA path);
scf.for loops that accumulate; scf.if on the program id's parity and
scf.while loops of 1 to 3 trips by program id; tile.atomic_rmw of every
order-independent kind (i32/i64 add, max, min, umax, umin, and, or, xor;
f16/bf16/f32/f64 fadd of exact values) at each program's own elements
(xchg too, old values stored) or contended by every program.

Numerics: the generator tracks, for every value, a bound on its magnitude,
whether it is exact (a multiple of a known power of two that the dtype
holds, so any order of additions gives the same result) and an estimate of
how far the GPU's value may be from the interpreter's: zero for exact
values and for correctly rounded operations on values alike in both runs;
the GPU's approximate exp and f32 division, the multiply-adds it fuses and
sums in another order add to it, and rounding a value that differs rounds
it to a neighbour. Inputs are multiples of 1/8 in [-2, 2] (exact) or random
values of the dtype in [-2, 2]. Comparisons and fptosi only take values
alike in both runs (a last-bit difference could flip them), no value can
overflow its dtype (bounds stay far below f16's 65504), and an output that
may differ gets an atol of four times the estimate (the dtype's default
tolerances of tilec-gpu-run otherwise).
Needs only python3's standard library.
"""

import argparse
import concurrent.futures
import math
import os
import random
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Significand bits (with the hidden one), largest finite value, the default
# tolerances of tilec-run/tilec-gpu-run (docs/interpreter.md) and the .npy
# descriptor of each dtype. bf16 travels as its bits (u2), as tilec-run
# reads it.
DTYPES = {
    "f32": dict(mant=24, max=3.0e38, atol=1e-6, rtol=1e-5, npy="<f4"),
    "f16": dict(mant=11, max=65504.0, atol=1e-3, rtol=2e-3, npy="<f2"),
    "bf16": dict(mant=8, max=3.0e38, atol=1e-2, rtol=1.6e-2, npy="<u2"),
    "i32": dict(mant=31, max=2.0**31 - 1, atol=0, rtol=0, npy="<i4"),
    "i8": dict(mant=7, max=127.0, atol=0, rtol=0, npy="|i1"),
    "i64": dict(mant=63, max=2.0**63 - 1, atol=0, rtol=0, npy="<i8"),
    "f64": dict(mant=53, max=1.0e308, atol=1e-12, rtol=1e-10, npy="<f8"),
}
FLOATS = ("f32", "f16", "bf16", "f64")
INTS = ("i8", "i32", "i64")
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i8": 8, "i32": 32,
        "i64": 64}
# The smallest granularity an exact value may have: keeps f16 away from
# subnormals, which the GPU and the interpreter need not agree on.
MIN_GRAN = 2.0**-12
# Largest bound a value may reach; past it the generator picks another op.
MAX_BOUND = {"f32": 1e6, "f16": 3e4, "bf16": 1e6, "i32": 2.0**24,
             "i8": 100.0, "i64": 2.0**50, "f64": 1e6}
# How far the two runs' values may drift apart (absolute, and relative to
# the value) before a value is too noisy to compare: a wrong element or lane
# is off by far more.
MAX_ABS_ERR = 0.02
MAX_REL_ERR = 2.0**-5


def is_int(dt):
    return dt in INTS


def ulp(dt):
    """The relative rounding error of one operation in `dt` (one ulp)."""
    return 2.0**-(DTYPES[dt]["mant"] - 1)


class Val:
    """An SSA value: its name, shape (() for a scalar) and dtype, a bound on
    its magnitude, its granularity if exact (None if not) and how far the
    GPU's value may be from the interpreter's: err + rel * |value|."""

    def __init__(self, name, shape, dt, bound, gran, err, rel=0.0):
        self.name, self.shape, self.dt = name, tuple(shape), dt
        self.bound, self.gran = float(bound), gran
        self.err, self.rel = float(err), float(rel)

    @property
    def noisy(self):
        return self.err > MAX_ABS_ERR or self.rel > MAX_REL_ERR

    def spread(self):
        """The difference as an absolute one (for sums and differences)."""
        return self.err + self.rel * self.bound

    @property
    def exact(self):
        return self.gran is not None

    @property
    def same(self):
        """Whether both runs compute the very same value."""
        return self.err == 0 and self.rel == 0


def type_of(shape, dt):
    if not shape:
        return dt
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), dt)


def ptr_type(shape, dt):
    return type_of(shape, "!tile.ptr<%s>" % dt)


def fits_exactly(dt, bound, gran):
    """Whether every multiple of `gran` up to `bound` is a value of `dt`."""
    if gran is None:
        return False
    if is_int(dt):
        return bound <= DTYPES[dt]["max"] and gran >= 1
    return gran >= MIN_GRAN and bound / gran <= 2.0**DTYPES[dt]["mant"]


def fmt_float(v):
    text = repr(float(v))
    return text if ("." in text or "e" in text) else text + ".0"


class Program:
    """One kernel being written: its lines, parameters and inputs."""

    def __init__(self, rng, name):
        self.rng, self.name = rng, name
        self.lines = []
        self.indent = "  "
        self.counter = 0
        self.params = []   # (name, type text, attributes text)
        self.args = []     # the case's ARG specs, in parameter order
        self.inputs = {}   # parameter name -> (dtype, values)
        self.features = set()
        self.pid = None    # an i32 program id, for control flow that varies

    def parity(self):
        """An i1: whether the program id is even."""
        two, zero = self.scalar_i32(2), self.scalar_i32(0)
        q, c = self.fresh("q"), self.fresh("even")
        self.emit("%s = arith.remsi %s, %s : i32" % (q, self.pid, two))
        self.emit("%s = arith.cmpi eq, %s, %s : i32" % (c, q, zero))
        return c

    def trips(self, most):
        """An i32 trip count of 1 to `most`, by program id."""
        m, one = self.scalar_i32(most), self.scalar_i32(1)
        q, t = self.fresh("q"), self.fresh("trips")
        self.emit("%s = arith.remsi %s, %s : i32" % (q, self.pid, m))
        self.emit("%s = arith.addi %s, %s : i32" % (t, q, one))
        return t

    def fresh(self, prefix="v"):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def emit(self, text):
        self.lines.append(self.indent + text)

    def op(self, text, shape, dt, bound, gran, err, rel=0.0, prefix="v"):
        """Emits `%new = text` and returns the Val, rounding it into dt."""
        name = self.fresh(prefix)
        self.emit("%s = %s" % (name, text))
        if gran is not None and not fits_exactly(dt, bound, gran):
            gran = None
        if gran is None and not is_int(dt) and (err > 0 or rel > 0):
            # Operands that may differ between the two runs may round to
            # neighbouring values of dt.
            rel = rel + ulp(dt)
        return Val(name, shape, dt, bound, gran, err, rel)

    def const(self, value, shape, dt):
        if is_int(dt):
            text = "%d" % value
        else:
            text = fmt_float(value)
        if shape:
            line = "arith.constant dense<%s> : %s" % (text, type_of(shape, dt))
        else:
            line = "arith.constant %s : %s" % (text, dt)
        gran = 2.0**-3 if not is_int(dt) else 1.0
        if not is_int(dt) and value != 0:
            gran = min(gran, 2.0**math.floor(math.log2(abs(value))))
        return self.op(line, shape, dt, abs(value), gran, 0, prefix="c")

    def scalar_i32(self, value):
        return self.const(value, (), "i32").name

    def param(self, name, ty, attrs=""):
        self.params.append(("%" + name, ty, attrs))
        return "%" + name

    def ptr_param(self, name, dt):
        attrs = ""
        if self.rng.random() < 0.5:
            attrs = " {tile.divisibility = 16 : i32}"
        return self.param(name, "!tile.ptr<%s>" % dt, attrs)

    def add_input(self, name, dt, count, exact_values=None):
        """A pointer parameter with generated contents: multiples of 1/8 in
        [-2, 2] (exact) or random values of the dtype in [-2, 2]."""
        p = self.ptr_param(name, dt)
        exact = exact_values if exact_values is not None else (
            is_int(dt) or self.rng.random() < 0.6)
        rng = self.rng
        if dt == "i8":
            values = [rng.randint(-8, 8) for _ in range(count)]
            bound, gran = 8.0, 1.0
        elif dt == "i64" and rng.random() < 0.5:
            # Past 32 bits: the upper halves must travel too.
            values = [rng.randint(-2**34, 2**34) for _ in range(count)]
            bound, gran = 2.0**34, 1.0
        elif is_int(dt):
            values = [rng.randint(-100, 100) for _ in range(count)]
            bound, gran = 100.0, 1.0
        elif exact:
            values = [rng.randint(-16, 16) / 8.0 for _ in range(count)]
            bound, gran = 2.0, 2.0**-3
        else:
            values = [rng.uniform(-2.0, 2.0) for _ in range(count)]
            bound, gran = 2.0, None
        self.inputs[name] = (dt, values)
        self.args.append("in=%s.npy" % name)
        return p, bound, gran

    def add_output(self, name, dt, count, val=None):
        p = self.param(name, "!tile.ptr<%s>" % dt)
        spec = "n=%d" % count
        if val is not None and not val.same and not is_int(dt):
            atol = max(DTYPES[dt]["atol"], 4 * val.err)
            rtol = max(DTYPES[dt]["rtol"], 2 * val.rel)
            spec += ",atol=%.3g,rtol=%.3g" % (atol, rtol)
        self.args.append(spec)
        return p

    def load(self, base, offs, mask, shape, dt, bound, gran):
        """Loads a tile at base + offs under mask, `other` zero."""
        ptrs = self.fresh("p")
        self.emit("%s = tile.addptr %s, %s : !tile.ptr<%s>, %s" % (
            ptrs, base, offs, dt, type_of(shape, "i32")))
        zero = self.const(0, shape, dt)
        return self.op("tile.load %s, %s, %s : %s" % (
            ptrs, mask, zero.name, ptr_type(shape, dt)), shape, dt, bound,
            gran, 0, prefix="x")

    def store(self, base, offs, mask, val):
        ptrs = self.fresh("p")
        self.emit("%s = tile.addptr %s, %s : !tile.ptr<%s>, %s" % (
            ptrs, base, offs, val.dt, type_of(val.shape, "i32")))
        self.emit("tile.store %s, %s, %s : %s" % (
            ptrs, val.name, mask, ptr_type(val.shape, val.dt)))

    def text(self, attrs):
        params = (",\n" + " " * (len(self.name) + 12)).join(
            "%s: %s%s" % p for p in self.params)
        head = "func.func @%s(%s)\n    attributes {%s} {\n" % (
            self.name, params, attrs)
        return head + "\n".join(self.lines) + "\n  return\n}\n"


# --- elementwise ops ---------------------------------------------------------

def cast(prog, v, dt):
    """v converted to dtype dt (None if the value does not allow it)."""
    if v.dt == dt:
        return v
    ty_from, ty_to = type_of(v.shape, v.dt), type_of(v.shape, dt)
    if is_int(dt) and is_int(v.dt):
        if BITS[dt] > BITS[v.dt]:
            return prog.op("arith.extsi %s : %s to %s" % (
                v.name, ty_from, ty_to), v.shape, dt, v.bound, v.gran, 0)
        if v.bound > MAX_BOUND[dt]:
            return None
        return prog.op("arith.trunci %s : %s to %s" % (v.name, ty_from, ty_to),
                       v.shape, dt, v.bound, v.gran, 0)
    if is_int(dt):
        # fptosi truncates: only a value both runs compute alike converts
        # alike (a difference of one ulp could cross an integer).
        if not v.same or v.bound >= min(2.0**24, MAX_BOUND[dt]):
            return None
        return prog.op("arith.fptosi %s : %s to %s" % (v.name, ty_from, ty_to),
                       v.shape, dt, math.floor(v.bound), 1.0, 0)
    if is_int(v.dt):
        if v.bound > MAX_BOUND[dt]:
            return None
        return prog.op("arith.sitofp %s : %s to %s" % (v.name, ty_from, ty_to),
                       v.shape, dt, v.bound, v.gran, v.err, v.rel)
    if BITS[v.dt] == 16 and BITS[dt] == 16:
        # f16 <-> bf16 goes through f32.
        mid = cast(prog, v, "f32")
        return cast(prog, mid, dt)
    if BITS[dt] > BITS[v.dt]:
        return prog.op("arith.extf %s : %s to %s" % (v.name, ty_from, ty_to),
                       v.shape, dt, v.bound, v.gran, v.err, v.rel)
    if v.bound > MAX_BOUND[dt]:
        return None
    return prog.op("arith.truncf %s : %s to %s" % (v.name, ty_from, ty_to),
                   v.shape, dt, v.bound, v.gran, v.err, v.rel)


def binary(prog, a, b, kind):
    """a kind b for two values of one shape and dtype (None if refused)."""
    dt, shape, ty = a.dt, a.shape, type_of(a.shape, a.dt)
    g = None if not (a.exact and b.exact) else min(a.gran, b.gran)
    rel = 0.0
    if kind in ("add", "sub"):
        bound, gran, err = a.bound + b.bound, g, a.spread() + b.spread()
    elif kind == "mul":
        bound = a.bound * b.bound
        gran = None if g is None else a.gran * b.gran
        err = a.err * b.bound + b.err * a.bound + a.err * b.err
        rel = a.rel + b.rel
        if gran is None or not fits_exactly(dt, bound, gran):
            # The GPU may fuse the product into an add (one rounding less).
            rel += ulp(dt)
    elif kind in ("max", "min"):
        bound, gran = max(a.bound, b.bound), g
        err, rel = max(a.err, b.err), max(a.rel, b.rel)
    elif kind in ("and", "or", "xor"):
        top = 2.0**math.ceil(math.log2(max(a.bound, b.bound) + 1))
        bound, gran, err = top, 1.0, 0
    else:
        raise ValueError(kind)
    if bound > MAX_BOUND[dt] or err > MAX_ABS_ERR or rel > MAX_REL_ERR:
        return None
    if is_int(dt):
        name = {"add": "addi", "sub": "subi", "mul": "muli", "max": "maxsi",
                "min": "minsi", "and": "andi", "or": "ori",
                "xor": "xori"}[kind]
    else:
        if kind in ("and", "or", "xor"):
            return None
        name = {"add": "addf", "sub": "subf", "mul": "mulf",
                "max": "maxnumf", "min": "minnumf"}[kind]
    return prog.op("arith.%s %s, %s : %s" % (name, a.name, b.name, ty),
                   shape, dt, bound, gran, err, rel)


def unary(prog, a, kind):
    dt, shape, ty = a.dt, a.shape, type_of(a.shape, a.dt)
    if is_int(dt):
        if kind == "neg":
            zero = prog.const(0, shape, dt)
            return prog.op("arith.subi %s, %s : %s" % (zero.name, a.name, ty),
                           shape, dt, a.bound, a.gran, 0)
        if kind == "abs":
            return prog.op("math.absi %s : %s" % (a.name, ty), shape, dt,
                           a.bound, a.gran, 0)
        if kind == "shr":
            two = prog.const(2, shape, dt)
            return prog.op("arith.shrsi %s, %s : %s" % (a.name, two.name, ty),
                           shape, dt, math.ceil(a.bound / 4), 1.0, 0)
        return None
    if kind == "neg":
        return prog.op("arith.negf %s : %s" % (a.name, ty), shape, dt,
                       a.bound, a.gran, a.err, a.rel)
    if kind == "abs":
        return prog.op("math.absf %s : %s" % (a.name, ty), shape, dt,
                       a.bound, a.gran, a.err, a.rel)
    if kind == "div":
        # a / (|a| + 1): in (-1, 1), a denominator of at least 1.
        one = prog.const(1.0, shape, dt)
        absv = prog.op("math.absf %s : %s" % (a.name, ty), shape, dt,
                       a.bound, a.gran, a.err, a.rel)
        den = prog.op("arith.addf %s, %s : %s" % (absv.name, one.name, ty),
                      shape, dt, a.bound + 1, None, a.spread())
        # div.full.f32 on the GPU: 2 ulp of f32.
        return prog.op("arith.divf %s, %s : %s" % (a.name, den.name, ty),
                       shape, dt, 1.0, None, 2 * a.spread(),
                       den.rel + 4 * ulp("f32"))
    if kind == "exp" and dt == "f64":
        # f64 exp is libdevice's __nv_exp, which needs a CUDA toolkit with
        # libdevice; CI compiles without one.
        return None
    if kind == "exp":
        # exp(min(a, 2)): at most e^2; the GPU's exp is approximate (a few
        # ulps of f32), which the error estimate carries.
        cap = prog.const(2.0, shape, dt)
        low = prog.op("arith.minnumf %s, %s : %s" % (a.name, cap.name, ty),
                      shape, dt, min(a.bound, 2.0), a.gran, a.err, a.rel)
        bound = math.exp(min(a.bound, 2.0))
        # exp(x + d) = exp(x) exp(d): a difference of x is a relative one.
        return prog.op("math.exp %s : %s" % (low.name, ty), shape, dt, bound,
                       None, 0, low.spread() + 8 * ulp("f32"))
    return None


def select(prog, a, b, x, y):
    """a < b ? x : y (a, b alike in both runs: the comparison cannot flip)."""
    if not (a.same and b.same) or x.dt != y.dt:
        return None
    pred = prog.rng.choice(["lt", "le", "gt", "ge", "eq", "ne"])
    if is_int(a.dt):
        cmp = "arith.cmpi s%s" % pred if pred not in ("eq", "ne") else \
            "arith.cmpi %s" % pred
    else:
        cmp = "arith.cmpf o%s" % pred if pred != "ne" else "arith.cmpf une"
    c = prog.fresh("m")
    prog.emit("%s = %s, %s, %s : %s" % (c, cmp, a.name, b.name,
                                         type_of(a.shape, a.dt)))
    g = None if not (x.exact and y.exact) else min(x.gran, y.gran)
    return prog.op("arith.select %s, %s, %s : %s, %s" % (
        c, x.name, y.name, type_of(a.shape, "i1"), type_of(x.shape, x.dt)),
        x.shape, x.dt, max(x.bound, y.bound), g, max(x.err, y.err),
        max(x.rel, y.rel))


# --- reductions, scans, broadcasts -------------------------------------------

def combiners(v):
    """The named combiners that apply to v's dtype."""
    names = ["add", "max", "min"]
    if is_int(v.dt):
        names += ["and", "or", "xor", "umax", "umin"]
    return names


def combined_bound(v, comb, count):
    """(bound, gran, err, rel) of `comb` over `count` elements of v, or None
    if the runs may differ by more than the dtype shows (an f16 or bf16 sum
    that rounds: reduce those in f32)."""
    if comb == "add":
        # The two runs add in different orders: an inexact sum differs by
        # up to its rounding errors (about sqrt(count) of them, each at
        # most an ulp of the partial sums).
        err = count * v.spread()
        if not fits_exactly(v.dt, v.bound * count, v.gran):
            # Partial sums that round (inexact terms, or exact ones whose
            # sum outgrows the dtype) depend on the order of the additions.
            if v.dt in ("f16", "bf16"):
                return None
            err += 2 * ulp(v.dt) * v.bound * count * math.sqrt(count)
        return v.bound * count, v.gran, err, 0
    if comb in ("and", "or", "xor"):
        return 2.0**math.ceil(math.log2(v.bound + 1)), 1.0, 0, 0
    if comb in ("umax", "umin"):
        # Negative values are large unsigned ones; their bits stay.
        return v.bound, v.gran, 0, 0
    return v.bound, v.gran, v.err, v.rel


def bounded_combination(v, axis, comb):
    """combined_bound of comb over v's axis, or None when it passes the
    dtype's bound or the error limits."""
    combined = combined_bound(v, comb, v.shape[axis])
    if combined is None:
        return None
    bound, _, err, rel = combined
    if bound > MAX_BOUND[v.dt] or err > MAX_ABS_ERR or rel > MAX_REL_ERR:
        return None
    return combined


def reduce(prog, v, axis, comb):
    """tile.reduce comb along axis: a tile of one rank less (or a scalar)."""
    combined = bounded_combination(v, axis, comb)
    if combined is None:
        return None
    bound, gran, err, rel = combined
    shape = v.shape[:axis] + v.shape[axis + 1:]
    prog.features.add("reduce-%s-axis%d-rank%d" % (comb, axis, len(v.shape)))
    return prog.op("tile.reduce %s(%s) axis = %d : (%s) -> %s" % (
        comb, v.name, axis, type_of(v.shape, v.dt), type_of(shape, v.dt)),
        shape, v.dt, bound, gran, err, rel, prefix="r")


def scan(prog, v, axis, comb):
    combined = bounded_combination(v, axis, comb)
    if combined is None:
        return None
    bound, gran, err, rel = combined
    reverse = " reverse" if prog.rng.random() < 0.3 else ""
    prog.features.add("scan-%s-axis%d-rank%d" % (comb, axis, len(v.shape)))
    ty = type_of(v.shape, v.dt)
    return prog.op("tile.scan %s(%s) axis = %d%s : (%s) -> %s" % (
        comb, v.name, axis, reverse, ty, ty), v.shape, v.dt, bound, gran, err,
        rel, prefix="s")


def arg_reduce(prog, v, axis, comb):
    """tile.reduce argmax/argmin of v along axis with the index along it:
    (values, indices). Ties (the inputs repeat values) take the first."""
    shape, n = v.shape, v.shape[axis]
    idx = prog.fresh("idx")
    prog.emit("%s = tile.range 0, %d : %s" % (idx, n, type_of((n,), "i32")))
    index = Val(idx, (n,), "i32", n, 1.0, 0)
    if len(shape) == 2:
        index = broadcast_back(prog, index, 1 - axis, shape)
    out = shape[:axis] + shape[axis + 1:]
    rv, ri = prog.fresh("r"), prog.fresh("ri")
    prog.emit("%s, %s = tile.reduce %s(%s, %s) axis = %d : (%s, %s) -> "
              "(%s, %s)" % (rv, ri, comb, v.name, index.name, axis,
                            type_of(shape, v.dt), type_of(shape, "i32"),
                            type_of(out, v.dt), type_of(out, "i32")))
    prog.features.add("%s-axis%d-rank%d" % (comb, axis, len(shape)))
    return (Val(rv, out, v.dt, v.bound, v.gran, 0),
            Val(ri, out, "i32", n, 1.0, 0))


def reshaped(prog, v):
    """v through another shape and back: 2-D tiles transposed or flattened,
    an elementwise op there; 1-D tiles split into rows when they can be."""
    shape, rng = v.shape, prog.rng
    if len(shape) == 2 and rng.random() < 0.5:
        other, how = (shape[1], shape[0]), "trans"
    elif len(shape) == 2:
        other, how = (shape[0] * shape[1],), "reshape"
    else:
        rows = [r for r in (2, 3, 4, 8) if shape[0] % r == 0]
        if not rows:
            return None
        r = rng.choice(rows)
        other, how = (r, shape[0] // r), "reshape"

    def move(val, to):
        if how == "trans":
            text = "tile.trans %s, [1, 0] : %s -> %s"
        else:
            text = "tile.reshape %s : %s -> %s"
        return prog.op(text % (val.name, type_of(val.shape, val.dt),
                               type_of(to, val.dt)), to, val.dt, val.bound,
                       val.gran, val.err, val.rel)

    there = move(v, other)
    done = unary(prog, there, rng.choice(["neg", "abs"]))
    prog.features.add("%s-%s" % (how, "x".join(str(d) for d in other)))
    return move(done, shape)


def broadcast_back(prog, r, axis, shape):
    """A tile reduced along axis, expanded and broadcast back to shape."""
    if not r.shape:
        return prog.op("tile.splat %s : %s -> %s" % (
            r.name, r.dt, type_of(shape, r.dt)), shape, r.dt, r.bound, r.gran,
            r.err, r.rel)
    one = list(shape)
    one[axis] = 1
    e = prog.op("tile.expand_dims %s, %d : %s -> %s" % (
        r.name, axis, type_of(r.shape, r.dt), type_of(one, r.dt)), one, r.dt,
        r.bound, r.gran, r.err, r.rel)
    prog.features.add("broadcast-axis%d" % axis)
    return prog.op("tile.broadcast %s : %s -> %s" % (
        e.name, type_of(one, r.dt), type_of(shape, r.dt)), shape, r.dt,
        r.bound, r.gran, r.err, r.rel)


# --- the random chain --------------------------------------------------------

class Chain:
    """The pool of values of one tile shape and the steps that grow it."""

    def __init__(self, prog, shape, values):
        self.prog, self.shape = prog, tuple(shape)
        self.pool = list(values)
        self.reduced = []   # (reduced value, axis) of 2-D tiles, to store

    def pick(self, pred=lambda v: True, recent=True):
        choices = [v for v in self.pool if pred(v)]
        if not choices:
            return None
        if recent and self.prog.rng.random() < 0.6:
            return choices[-1]
        return self.prog.rng.choice(choices)

    def add(self, v):
        """Adds v to the pool unless it is too noisy to compare."""
        if v is None or v.noisy:
            return None
        self.pool.append(v)
        return v

    def step(self):
        rng, prog = self.prog.rng, self.prog
        kind = rng.choices(
            ["binary", "unary", "cast", "select", "const", "reduce", "scan",
             "argreduce", "reshape", "if", "while"],
            weights=[30, 12, 14, 6, 6, 10, 5, 4, 4, 3, 3])[0]
        a = self.pick()
        if kind == "binary":
            b = self.pick(recent=False)
            if b.dt != a.dt:
                b = cast(prog, b, a.dt)
                if b is None:
                    return None
            kinds = ["add", "sub", "mul", "max", "min"]
            if is_int(a.dt):
                kinds += ["and", "or", "xor"]
            prog.features.add("elementwise-" + a.dt)
            return self.add(binary(prog, a, b, rng.choice(kinds)))
        if kind == "unary":
            kinds = ["neg", "abs", "shr"] if is_int(a.dt) else \
                ["neg", "abs", "div", "exp"]
            return self.add(unary(prog, a, rng.choice(kinds)))
        if kind == "cast":
            dt = rng.choice([d for d in DTYPES if d != a.dt])
            v = cast(prog, a, dt)
            if v is not None:
                prog.features.add("cast-%s-%s" % (a.dt, dt))
            return self.add(v)
        if kind == "select":
            b = self.pick(lambda v: v.dt == a.dt and v.same, recent=False)
            x = self.pick(recent=False)
            y = self.pick(lambda v: v.dt == x.dt, recent=False)
            if b is None or not a.same:
                return None
            prog.features.add("select")
            return self.add(select(prog, a, b, x, y))
        if kind == "const":
            value = rng.randint(-12, 12) / 4.0 if not is_int(a.dt) else \
                rng.randint(-9, 9)
            c = prog.const(value, self.shape, a.dt)
            return self.add(binary(prog, a, c, rng.choice(
                ["add", "mul", "max", "min"])))
        if kind == "reduce":
            axis = rng.randrange(len(self.shape))
            src = a
            if a.dt in ("f16", "bf16") and rng.random() < 0.5:
                src = cast(prog, a, "f32")
            r = reduce(prog, src, axis, rng.choice(combiners(src)))
            if r is None:
                return None
            if r.shape:
                self.reduced.append((r, axis))
            back = broadcast_back(prog, r, axis, self.shape)
            other = self.pick(lambda v: v.dt == back.dt, recent=False)
            if other is None:
                return self.add(back)
            return self.add(binary(prog, other, back,
                                   rng.choice(["add", "sub", "max"])))
        if kind == "scan":
            axis = rng.randrange(len(self.shape))
            return self.add(scan(prog, a, axis, rng.choice(combiners(a))))
        if kind == "argreduce":
            if not a.same:
                return None
            axis = rng.randrange(len(self.shape))
            v, i = arg_reduce(prog, a, axis, rng.choice(["argmax", "argmin"]))
            if v.shape:
                self.reduced.append((i, axis))
            self.add(broadcast_back(prog, v, axis, self.shape))
            return self.add(broadcast_back(prog, i, axis, self.shape))
        if kind == "reshape":
            return self.add(reshaped(prog, a))
        if kind == "if" and prog.pid:
            return self.add(self.branch())
        if kind == "while" and prog.pid:
            return self.add(self.loop_while())
        return None

    def branch(self):
        """scf.if on the program id's parity, one elementwise op of the pool
        in each branch: both branches run, in different programs."""
        prog, rng = self.prog, self.prog.rng
        a = self.pick()
        b = self.pick(lambda v: v.dt == a.dt, recent=False)
        ty = type_of(self.shape, a.dt)
        head = len(prog.lines)
        cond = prog.parity()
        res = prog.fresh("if")
        prog.emit("%s = scf.if %s -> (%s) {" % (res, cond, ty))
        outer = prog.indent
        prog.indent = outer + "  "
        kinds = ["add", "sub", "max", "min", "mul"]
        then = unary(prog, a, rng.choice(["neg", "abs"]))
        prog.emit("scf.yield %s : %s" % (then.name, ty))
        prog.indent = outer
        prog.emit("} else {")
        prog.indent = outer + "  "
        other = binary(prog, a, b, rng.choice(kinds))
        if other is not None:
            prog.emit("scf.yield %s : %s" % (other.name, ty))
        prog.indent = outer
        if other is None:
            del prog.lines[head:]
            return None
        prog.emit("}")
        prog.features.add("if")
        g = None if not (then.exact and other.exact) else \
            min(then.gran, other.gran)
        return Val(res, self.shape, a.dt, max(then.bound, other.bound), g,
                   max(then.err, other.err), max(then.rel, other.rel))

    def loop_while(self):
        """scf.while of 1 to 3 trips (by program id) that combines a value
        of the pool into an accumulator."""
        prog, rng = self.prog, self.prog.rng
        a = self.pick()
        init = self.pick(lambda v: v.dt == a.dt, recent=False)
        comb = rng.choice(["add", "sub", "max", "min"])
        ty = type_of(self.shape, a.dt)
        head = len(prog.lines)
        trips = prog.trips(3)
        c0, c1 = prog.scalar_i32(0), prog.scalar_i32(1)
        res, i, acc = prog.fresh("w"), prog.fresh("wi"), prog.fresh("wacc")
        prog.emit("%s:2 = scf.while (%s = %s, %s = %s) : (i32, %s) -> "
                  "(i32, %s) {" % (res, i, c0, acc, init.name, ty, ty))
        outer = prog.indent
        prog.indent = outer + "  "
        cond = prog.fresh("wc")
        prog.emit("%s = arith.cmpi slt, %s, %s : i32" % (cond, i, trips))
        prog.emit("scf.condition(%s) %s, %s : i32, %s" % (cond, i, acc, ty))
        prog.indent = outer
        i2, acc2 = prog.fresh("wi"), prog.fresh("wacc")
        prog.emit("} do {")
        prog.emit("^bb0(%s: i32, %s: %s):" % (i2, acc2, ty))
        prog.indent = outer + "  "
        # Before the last trip the accumulator has taken at most two terms.
        grows = comb in ("add", "sub")
        accv = Val(acc2, self.shape, a.dt,
                   init.bound + (2 * a.bound if grows else 0),
                   None if not (a.exact and init.exact) else
                   min(a.gran, init.gran),
                   init.err + (2 * a.spread() if grows else a.err),
                   max(init.rel, a.rel))
        nxt = binary(prog, accv, a, comb)
        if nxt is None:
            prog.indent = outer
            del prog.lines[head:]
            return None
        i3 = prog.fresh("wi")
        prog.emit("%s = arith.addi %s, %s : i32" % (i3, i2, c1))
        prog.emit("scf.yield %s, %s : i32, %s" % (i3, nxt.name, ty))
        prog.indent = outer
        prog.emit("}")
        prog.features.add("while-" + comb)
        return Val("%s#1" % res, self.shape, a.dt, nxt.bound, nxt.gran,
                   nxt.err, nxt.rel)

    def grow(self, steps):
        for _ in range(steps * 3):
            if steps <= 0:
                break
            if self.step() is not None:
                steps -= 1


# --- program templates -------------------------------------------------------

# Tile sizes: powers of two and not.
SIZES_1D = [16, 32, 64, 128, 256, 512, 1024, 12, 20, 24, 48, 96, 100, 160,
            192, 384, 640, 1000]
SIZES_2D = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 100, 128]
LARGE_1D = [2048, 3072, 4096, 5000]
WARPS = [None, 1, 2, 4, 4, 8, 3, 6, 16]


def kernel_attrs(prog, extra=""):
    warps = prog.rng.choice(WARPS)
    attrs = "tile.kernel"
    if warps is not None:
        attrs += ", tile.num_warps = %d : i32" % warps
    return attrs + extra


def choose_inputs(prog):
    count = prog.rng.choice([1, 2, 2, 3])
    return [prog.rng.choice(["f32", "f32", "f16", "bf16", "i32", "i8", "i64",
                             "f64"])
            for _ in range(count)]


def store_outputs(prog, chain, offs, mask, count, first=0):
    """Stores 1-2 values of the pool; returns (param, val) of each."""
    picks = [chain.pool[-1]]
    if prog.rng.random() < 0.5 and len(chain.pool) > 1:
        other = prog.rng.choice(chain.pool[:-1])
        if other is not picks[0]:
            picks.append(other)
    outs = []
    for i, v in enumerate(picks):
        p = prog.add_output("y%d" % (first + i), v.dt, count, v)
        outs.append((p, v))
    return outs


def block_indices(prog, block):
    """This program's `block` element indices (program_id * block + 0 ..
    block - 1) and their mask against the kernel's %n; sets prog.pid."""
    pid = prog.fresh("pid")
    prog.emit("%s = tile.program_id 0" % pid)
    prog.pid = pid
    cb = prog.scalar_i32(block)
    start = prog.fresh("start")
    prog.emit("%s = arith.muli %s, %s : i32" % (start, pid, cb))
    offs = prog.fresh("offs")
    prog.emit("%s = tile.range 0, %d offset %s : %s" % (
        offs, block, start, type_of((block,), "i32")))
    ns = prog.fresh("ns")
    prog.emit("%s = tile.splat %%n : i32 -> %s" % (
        ns, type_of((block,), "i32")))
    mask = prog.fresh("mask")
    prog.emit("%s = arith.cmpi slt, %s, %s : %s" % (
        mask, offs, ns, type_of((block,), "i32")))
    return offs, mask


def gen_1d(prog):
    rng = prog.rng
    block = rng.choice(SIZES_1D)
    if rng.random() < 0.05:
        # Now and then a wide row (the padded 5000 of docs/pipeline.md).
        block = rng.choice(LARGE_1D)
    n = rng.randint(1, 3 * block)
    if rng.random() < 0.2:
        n = block * rng.randint(1, 3)
    loop = rng.random() < 0.25
    trips = rng.randint(2, 4) if loop else 1
    dts = choose_inputs(prog)
    grid = -(-n // block) + rng.choice([0, 0, 1])
    bases = [prog.add_input("x%d" % i, dt, n * (trips if i == 0 else 1))
             for i, dt in enumerate(dts)]
    # Outputs come after the inputs; their values are known only at the
    # end, so the parameters are filled in then.
    offs, mask = block_indices(prog, block)
    shape = (block,)
    values = []
    for i, (p, bound, gran) in enumerate(bases):
        if i == 0 and loop:
            continue
        values.append(prog.load(p, offs, mask, shape, dts[i], bound, gran))
    chain = Chain(prog, shape, values)
    if loop:
        acc = loop_1d(prog, chain, bases[0], dts[0], offs, mask, trips)
        if acc is not None:
            chain.add(acc)
    if not chain.pool:
        return None
    chain.grow(rng.randint(2, 8))
    outs = store_outputs(prog, chain, offs, mask, n)
    for p, v in outs:
        prog.store(p, offs, mask, v)
    prog.param("n", "i32")
    prog.args.append(str(n))
    prog.features.add("tile-%d" % block)
    return "%d" % grid, kernel_attrs(prog)


def loop_1d(prog, chain, base, dt, offs, mask, trips):
    """acc = combine over i < trips of chain(x[i * n + offs]) in scf.for."""
    rng = prog.rng
    p, bound, gran = base
    shape = chain.shape
    acc_dt = {"i64": "i64", "f64": "f64"}.get(
        dt, "i32" if is_int(dt) else "f32")
    comb = rng.choice(["add", "max"])
    init = prog.const(0, shape, acc_dt)
    c0, c1, ct = prog.scalar_i32(0), prog.scalar_i32(1), prog.scalar_i32(trips)
    head = len(prog.lines)
    i, a = prog.fresh("i"), prog.fresh("acc")
    outer = prog.indent
    prog.indent = outer + "  "
    step = prog.fresh("step")
    prog.emit("%s = arith.muli %s, %%n : i32" % (step, i))
    steps = prog.fresh("steps")
    prog.emit("%s = tile.splat %s : i32 -> %s" % (steps, step,
                                                 type_of(shape, "i32")))
    offs_i = prog.fresh("offs")
    prog.emit("%s = arith.addi %s, %s : %s" % (offs_i, offs, steps,
                                              type_of(shape, "i32")))
    x = prog.load(p, offs_i, mask, shape, dt, bound, gran)
    inner = Chain(prog, shape, chain.pool + [x])
    inner.grow(rng.randint(1, 4))
    v = cast(prog, inner.pool[-1], acc_dt)
    if v is None:
        v = cast(prog, x, acc_dt)
    accv = Val(a, shape, acc_dt, v.bound * (trips if comb == "add" else 1),
               v.gran, v.err * trips, v.rel)
    nxt = binary(prog, accv, v, comb)
    prog.indent = outer
    if nxt is None:
        del prog.lines[head:]
        return None
    ty = type_of(shape, acc_dt)
    prog.lines.insert(head, "%s%s = scf.for %s = %s to %s step %s "
                      "iter_args(%s = %s) -> (%s) : i32 {" % (
                          outer, "%" + a[1:] + "_out", i, c0, ct, c1, a,
                          init.name, ty))
    prog.lines.append(outer + "  scf.yield %s : %s" % (nxt.name, ty))
    prog.lines.append(outer + "}")
    prog.features.add("loop-" + comb)
    return Val("%" + a[1:] + "_out", shape, acc_dt, accv.bound, nxt.gran,
               nxt.err * trips, nxt.rel)


def gen_2d(prog):
    rng = prog.rng
    rows, cols = rng.choice(SIZES_2D), rng.choice(SIZES_2D)
    while rows * cols > 8192 or rows * cols < 4:
        rows, cols = rng.choice(SIZES_2D), rng.choice(SIZES_2D)
    n_rows = rng.randint(1, 3 * rows)
    n_cols = rng.randint(1, 2 * cols)
    hint = ""
    if rng.random() < 0.3:
        n_cols = 16 * rng.randint(1, max(1, (2 * cols) // 16))
        hint = " {tile.divisibility = 16 : i32}"
    total = n_rows * n_cols
    dts = choose_inputs(prog)
    bases = [prog.add_input("x%d" % i, dt, total) for i, dt in enumerate(dts)]
    bias = None
    if rng.random() < 0.4:
        bdt = rng.choice(["f32", "f16", "bf16", "i32", "i8", "i64", "f64"])
        bias = (prog.add_input("bias", bdt, n_cols), bdt)
    shape = (rows, cols)
    pm, pn = prog.fresh("pm"), prog.fresh("pn")
    prog.emit("%s = tile.program_id 0" % pm)
    prog.emit("%s = tile.program_id 1" % pn)
    prog.pid = pm
    cr, cc = prog.scalar_i32(rows), prog.scalar_i32(cols)
    r0, c0 = prog.fresh("r0"), prog.fresh("c0")
    prog.emit("%s = arith.muli %s, %s : i32" % (r0, pm, cr))
    prog.emit("%s = arith.muli %s, %s : i32" % (c0, pn, cc))
    rr, rc = prog.fresh("rows"), prog.fresh("cols")
    prog.emit("%s = tile.range 0, %d offset %s : %s" % (
        rr, rows, r0, type_of((rows,), "i32")))
    prog.emit("%s = tile.range 0, %d offset %s : %s" % (
        rc, cols, c0, type_of((cols,), "i32")))
    nrs, ncs = prog.fresh("nr"), prog.fresh("nc")
    prog.emit("%s = tile.splat %%n_rows : i32 -> %s" % (
        nrs, type_of((rows,), "i32")))
    prog.emit("%s = tile.splat %%n_cols : i32 -> %s" % (
        ncs, type_of((cols,), "i32")))
    rmask, cmask = prog.fresh("rmask"), prog.fresh("cmask")
    prog.emit("%s = arith.cmpi slt, %s, %s : %s" % (
        rmask, rr, nrs, type_of((rows,), "i32")))
    prog.emit("%s = arith.cmpi slt, %s, %s : %s" % (
        cmask, rc, ncs, type_of((cols,), "i32")))
    mask = prog.fresh("mask")
    prog.emit("%s = tile.outer and %s, %s : %s, %s" % (
        mask, rmask, cmask, type_of((rows,), "i1"), type_of((cols,), "i1")))
    # The row stride is n_cols: a splat of it the length of the rows.
    rowoff = prog.fresh("rowoff")
    ncr = prog.fresh("ncr")
    prog.emit("%s = tile.splat %%n_cols : i32 -> %s" % (
        ncr, type_of((rows,), "i32")))
    prog.emit("%s = arith.muli %s, %s : %s" % (
        rowoff, rr, ncr, type_of((rows,), "i32")))
    offs = prog.fresh("offs")
    prog.emit("%s = tile.outer add %s, %s : %s, %s" % (
        offs, rowoff, rc, type_of((rows,), "i32"), type_of((cols,), "i32")))
    values = [prog.load(p, offs, mask, shape, dts[i], b, g)
              for i, (p, b, g) in enumerate(bases)]
    chain = Chain(prog, shape, values)
    if bias is not None:
        (p, b, g), bdt = bias
        bv = prog.load(p, rc, cmask, (cols,), bdt, b, g)
        chain.add(broadcast_back(prog, bv, 0, shape))
    chain.grow(rng.randint(3, 9))
    outs = store_outputs(prog, chain, offs, mask, total)
    for p, v in outs:
        prog.store(p, offs, mask, v)
    # A reduced tile of the chain, stored along its remaining axis (rows or
    # columns), once per program column (row) of the grid so that no two
    # programs store one element.
    grid_rows = -(-n_rows // rows) + rng.choice([0, 0, 1])
    grid_cols = -(-n_cols // cols) + rng.choice([0, 0, 1])
    if chain.reduced:
        r, axis = rng.choice(chain.reduced)
        # axis 1: r[rows], one column block per program: out[pn * n_rows
        # + row]; axis 0: r[cols], out[pm * n_cols + col].
        if axis == 1:
            count, extent, pid, width, offs, mask = (
                n_rows * grid_cols, "n_rows", pn, rows, rr, rmask)
        else:
            count, extent, pid, width, offs, mask = (
                n_cols * grid_rows, "n_cols", pm, cols, rc, cmask)
        p = prog.add_output("red", r.dt, count, r)
        base = prog.fresh("rbase")
        prog.emit("%s = arith.muli %s, %%%s : i32" % (base, pid, extent))
        bs = prog.fresh("rbs")
        prog.emit("%s = tile.splat %s : i32 -> %s" % (
            bs, base, type_of((width,), "i32")))
        ro = prog.fresh("roffs")
        prog.emit("%s = arith.addi %s, %s : %s" % (
            ro, offs, bs, type_of((width,), "i32")))
        prog.store(p, ro, mask, r)
        prog.features.add("store-reduced")
    prog.param("n_rows", "i32")
    prog.param("n_cols", "i32", hint)
    prog.args += [str(n_rows), str(n_cols)]
    prog.features.add("tile-%dx%d" % shape)
    return "%d,%d" % (grid_rows, grid_cols), kernel_attrs(prog)


def gen_dot(prog):
    """C[M, N] = A[M, K] B[K, N] (+ an epilogue), K stepped by a loop.
    f16/bf16 of 16 or more per side run on mma.sync; f32 (exact inputs:
    tf32 keeps them), i8 (into i32) and f16/bf16 tiles below the mma shape
    on the FMA path."""
    rng = prog.rng
    dt = rng.choice(["f16", "bf16", "f16", "bf16", "f32", "i8"])
    if dt in ("f16", "bf16") and rng.random() < 0.8:
        bm, bn, bk = (rng.choice([16, 32, 64]) for _ in range(3))
    else:
        bm, bn, bk = (rng.choice([2, 4, 8, 16, 32]) for _ in range(3))
    acc_dt = "i32" if dt == "i8" else "f32"
    m, n = rng.randint(1, 2 * bm), rng.randint(1, 2 * bn)
    k = rng.randint(1, 3 * bk)
    # Row strides: multiples of 8 elements (16 bytes) so that the hints of
    # the loads may claim it.
    sa, sb = -(-k // 8) * 8, -(-n // 8) * 8
    pa, ba, ga = prog.add_input("a", dt, (m - 1) * sa + k, exact_values=True)
    pb, bb, gb = prog.add_input("b", dt, (k - 1) * sb + n, exact_values=True)
    pm, pn = prog.fresh("pm"), prog.fresh("pn")
    prog.emit("%s = tile.program_id 0" % pm)
    prog.emit("%s = tile.program_id 1" % pn)
    m0, n0 = prog.fresh("m0"), prog.fresh("n0")
    prog.emit("%s = arith.muli %s, %s : i32" % (m0, pm, prog.scalar_i32(bm)))
    prog.emit("%s = arith.muli %s, %s : i32" % (n0, pn, prog.scalar_i32(bn)))
    rm, rn, rk = prog.fresh("rm"), prog.fresh("rn"), prog.fresh("rk")
    prog.emit("%s = tile.range 0, %d offset %s : %s" % (
        rm, bm, m0, type_of((bm,), "i32")))
    prog.emit("%s = tile.range 0, %d offset %s : %s" % (
        rn, bn, n0, type_of((bn,), "i32")))
    prog.emit("%s = tile.range 0, %d : %s" % (rk, bk, type_of((bk,), "i32")))

    def splat(scalar, length):
        s = prog.fresh("sp")
        prog.emit("%s = tile.splat %s : i32 -> %s" % (
            s, scalar, type_of((length,), "i32")))
        return s

    def cmp(vec, bound, length):
        c = prog.fresh("in")
        prog.emit("%s = arith.cmpi slt, %s, %s : %s" % (
            c, vec, splat(bound, length), type_of((length,), "i32")))
        return c

    mok, nok = cmp(rm, "%M", bm), cmp(rn, "%N", bn)
    arow = prog.fresh("arow")
    prog.emit("%s = arith.muli %s, %s : %s" % (
        arow, rm, splat("%stride_a", bm), type_of((bm,), "i32")))
    brow = prog.fresh("brow")
    prog.emit("%s = arith.muli %s, %s : %s" % (
        brow, rk, splat("%stride_b", bk), type_of((bk,), "i32")))
    acc0 = prog.const(0, (bm, bn), acc_dt)
    c0, cstep = prog.scalar_i32(0), prog.scalar_i32(bk)
    k_s, acc = prog.fresh("k"), prog.fresh("acc")
    prog.emit("%s = scf.for %s = %s to %%K step %s iter_args(%s = %s) "
              "-> (%s) : i32 {" % (acc + "_out", k_s, c0, cstep, acc,
                                   acc0.name, type_of((bm, bn), acc_dt)))
    outer = prog.indent
    prog.indent = outer + "  "
    kk = prog.fresh("kk")
    prog.emit("%s = tile.splat %s : i32 -> %s" % (kk, k_s,
                                                 type_of((bk,), "i32")))
    ks = prog.fresh("ks")
    prog.emit("%s = arith.addi %s, %s : %s" % (ks, rk, kk,
                                              type_of((bk,), "i32")))
    kok = cmp(ks, "%K", bk)
    amask, bmask = prog.fresh("amask"), prog.fresh("bmask")
    prog.emit("%s = tile.outer and %s, %s : %s, %s" % (
        amask, mok, kok, type_of((bm,), "i1"), type_of((bk,), "i1")))
    prog.emit("%s = tile.outer and %s, %s : %s, %s" % (
        bmask, kok, nok, type_of((bk,), "i1"), type_of((bn,), "i1")))
    aoff, boff = prog.fresh("aoff"), prog.fresh("boff")
    prog.emit("%s = tile.outer add %s, %s : %s, %s" % (
        aoff, arow, ks, type_of((bm,), "i32"), type_of((bk,), "i32")))
    kb = prog.fresh("kb")
    prog.emit("%s = arith.muli %s, %s : %s" % (
        kb, ks, splat("%stride_b", bk), type_of((bk,), "i32")))
    prog.emit("%s = tile.outer add %s, %s : %s, %s" % (
        boff, kb, rn, type_of((bk,), "i32"), type_of((bn,), "i32")))
    at = prog.load(pa, aoff, amask, (bm, bk), dt, ba, ga)
    bt = prog.load(pb, boff, bmask, (bk, bn), dt, bb, gb)
    d = prog.fresh("d")
    prog.emit("%s = tile.dot %s, %s, %s : %s, %s -> %s" % (
        d, at.name, bt.name, acc, type_of((bm, bk), dt),
        type_of((bk, bn), dt), type_of((bm, bn), acc_dt)))
    prog.emit("scf.yield %s : %s" % (d, type_of((bm, bn), acc_dt)))
    prog.indent = outer
    prog.emit("}")
    # Products of multiples of 1/8 in [-2, 2], summed over k: exact in f32;
    # of integers in [-8, 8]: exact in i32.
    if dt == "i8":
        res = Val(acc + "_out", (bm, bn), "i32", 64.0 * k, 1.0, 0)
    else:
        res = Val(acc + "_out", (bm, bn), "f32", 4.0 * k, 2.0**-6, 0)
    chain = Chain(prog, (bm, bn), [res])
    chain.grow(rng.randint(0, 4))
    out = chain.pool[-1]
    coff = prog.fresh("coff")
    crow = prog.fresh("crow")
    prog.emit("%s = arith.muli %s, %s : %s" % (
        crow, rm, splat("%N", bm), type_of((bm,), "i32")))
    prog.emit("%s = tile.outer add %s, %s : %s, %s" % (
        coff, crow, rn, type_of((bm,), "i32"), type_of((bn,), "i32")))
    cmask = prog.fresh("cmask")
    prog.emit("%s = tile.outer and %s, %s : %s, %s" % (
        cmask, mok, nok, type_of((bm,), "i1"), type_of((bn,), "i1")))
    pc = prog.add_output("c", out.dt, m * n, out)
    prog.store(pc, coff, cmask, out)
    for name in ("M", "N", "K"):
        prog.param(name, "i32")
    prog.param("stride_a", "i32", " {tile.divisibility = 8 : i32}")
    prog.param("stride_b", "i32", " {tile.divisibility = 8 : i32}")
    prog.args += [str(m), str(n), str(k), str(sa), str(sb)]
    prog.features.add("dot-%s-%dx%dx%d" % (dt, bm, bn, bk))
    grid = "%d,%d" % (-(-m // bm), -(-n // bn))
    # mma.sync wants 4 warps or fewer for 16-row tiles; let the pass choose.
    return grid, "tile.kernel, tile.num_warps = 4 : i32"


# Atomic kinds by element type (docs/dialect.md) whose result does not
# depend on the order the programs run in.
ATOMIC_KINDS = {
    "i32": ["add", "max", "min", "umax", "umin", "and", "or", "xor"],
    "i64": ["add", "max", "min", "umax", "umin", "and", "or", "xor"],
    # max/min of floats are lowered now (test/GPU/diff-cases.txt's fminmax)
    # but not generated: adding kinds would change every seed's programs.
    "f32": ["fadd"],
    "f64": ["fadd"],
    "f16": ["fadd"],
    "bf16": ["fadd"],
}


def gen_atomic(prog):
    """Each program combines a tile computed from its inputs into `acc`
    with tile.atomic_rmw: at its own elements (xchg allowed; the old values
    are stored too) or, contended, at the first `block` elements, which
    every program combines into."""
    rng = prog.rng
    block = rng.choice([16, 32, 64, 128, 256, 12, 48, 100])
    programs = rng.randint(1, 5)
    n = rng.randint(max(1, block * (programs - 1) + 1), block * programs)
    dt = rng.choice(list(ATOMIC_KINDS))
    unique = rng.random() < 0.4
    kinds = ATOMIC_KINDS[dt]
    if unique and BITS[dt] >= 32:
        kinds = kinds + ["xchg"]  # 32- and 64-bit only
    kind = rng.choice(kinds)
    x, xb, xg = prog.add_input("x", dt, n, exact_values=True)
    acc_n = n if unique else block
    acc, ab, ag = prog.add_input("acc", dt, acc_n, exact_values=True)
    offs, mask = block_indices(prog, block)
    shape = (block,)
    chain = Chain(prog, shape, [prog.load(x, offs, mask, shape, dt, xb, xg)])
    chain.grow(rng.randint(0, 3))
    # Both runs must combine the very same values, and sums stay exact.
    v = chain.pick(lambda c: c.same and c.dt == dt and
                   (kind != "fadd" or (c.exact and fits_exactly(
                       dt, c.bound * programs + ab, min(c.gran, ag)))))
    if v is None:
        return None
    if kind == "add" and v.bound * programs + ab > MAX_BOUND[dt]:
        return None
    if unique:
        where = offs
    else:
        where = prog.fresh("local")
        prog.emit("%s = tile.range 0, %d : %s" % (
            where, block, type_of((block,), "i32")))
    ptrs = prog.fresh("p")
    prog.emit("%s = tile.addptr %s, %s : !tile.ptr<%s>, %s" % (
        ptrs, acc, where, dt, type_of(shape, "i32")))
    old = prog.fresh("old")
    prog.emit("%s = tile.atomic_rmw %s %s, %s, %s : %s" % (
        old, kind, ptrs, v.name, mask, ptr_type(shape, dt)))
    prog.features.add("atomic-%s-%s-%s" % (
        kind, dt, "unique" if unique else "contended"))
    if unique:
        # Each element is combined once: the old values are acc's inputs.
        p = prog.add_output("old", dt, n)
        prog.store(p, offs, mask, Val(old, shape, dt, ab, ag, 0))
    prog.param("n", "i32")
    prog.args.append(str(n))
    return "%d" % programs, kernel_attrs(prog)


def generate(seed, index):
    """Program `index` of `seed`:
    (name, text, grid, args, inputs, features)."""
    rng = random.Random("%d:%d" % (seed, index))
    name = "gen_%d_%d" % (seed, index)
    for attempt in range(20):
        prog = Program(rng, name)
        kind = rng.choices(["1d", "2d", "dot", "atomic"],
                           weights=[38, 42, 14, 6])[0]
        made = {"1d": gen_1d, "2d": gen_2d, "dot": gen_dot,
                "atomic": gen_atomic}[kind](prog)
        if made is None:
            continue
        grid, attrs = made
        prog.features.add(kind)
        return name, prog.text(attrs), grid, prog.args, prog.inputs, \
            sorted(prog.features)
    raise RuntimeError("no program after 20 attempts")


# --- files -------------------------------------------------------------------

def bf16_bits(value):
    """The bf16 nearest to value (ties to even), as its 16 bits."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    rounding = 0x7FFF + ((bits >> 16) & 1)
    return ((bits + rounding) >> 16) & 0xFFFF


def npy_bytes(dt, values):
    """A 1-D .npy file of `values` in dtype dt (version 1.0, C order)."""
    descr = DTYPES[dt]["npy"]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (
        descr, len(values))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    if dt == "bf16":
        data = struct.pack("<%dH" % len(values),
                           *[bf16_bits(v) for v in values])
    else:
        code = {"f32": "f", "f16": "e", "i32": "i", "i8": "b", "i64": "q",
                "f64": "d"}[dt]
        data = struct.pack("<%d%s" % (len(values), code), *values)
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
            header.encode("latin1") + data)


def program_files(seed, index):
    """Program `index` of `seed` as its files: (name, .tile text, grid,
    specs, {input file name: .npy bytes}, features). The specs name each
    input as in=FILE. scripts/diff-batch.py regenerates inputs with this on
    the GPU machine, so they are bit for bit those the interpreter ran."""
    name, text, grid, args, inputs, features = generate(seed, index)
    tile = ("// scripts/gen-tile-programs.py gen --seed %d --first %d "
            "--count 1\n// features: %s\n" % (seed, index, " ".join(features))
            + text)
    files = {}
    for spec in args:
        if spec.startswith("in="):
            files[spec[3:]] = npy_bytes(*inputs[spec[3:-4]])
    return name, tile, grid, args, files, features


def write_programs(seed, first, count, out):
    """Writes the programs and cases.txt; returns [(name, features)]."""
    programs = os.path.join(out, "programs")
    os.makedirs(programs, exist_ok=True)
    made = []
    lines = ["# Generated by scripts/gen-tile-programs.py --seed %d "
             "--first %d --count %d" % (seed, first, count)]
    for index in range(first, first + count):
        name, tile_text, grid, args, files, features = program_files(seed,
                                                                     index)
        tile = os.path.join(programs, name + ".tile")
        with open(tile, "w") as f:
            f.write(tile_text)
        inputs_dir = os.path.join(programs, name)
        os.makedirs(inputs_dir, exist_ok=True)
        specs = []
        for spec in args:
            if spec.startswith("in="):
                path = os.path.join(inputs_dir, spec[3:])
                with open(path, "wb") as f:
                    f.write(files[spec[3:]])
                spec = "in=" + path
            specs.append(spec)
        lines.append("%s %s %s %s" % (name, tile, grid, " ".join(specs)))
        made.append((name, features))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return made


# --- the driver --------------------------------------------------------------

def corrupt_expected(case_dir):
    """Moves element 0 of each *.expected.npy of case_dir far off."""
    for name in os.listdir(case_dir):
        if not name.endswith(".expected.npy"):
            continue
        path = os.path.join(case_dir, name)
        with open(path, "r+b") as f:
            data = bytearray(f.read())
            start = 10 + struct.unpack("<H", bytes(data[8:10]))[0]
            header = bytes(data[10:start]).decode("latin1")
            ints = {"'<i4'": "<i", "'|i1'": "<b", "'<i8'": "<q"}
            code = next((c for d, c in ints.items() if d in header), None)
            if code is not None:
                value = struct.unpack_from(code, data, start)[0]
                value = value + 1 if value < 100 else value - 1
                struct.pack_into(code, data, start, value)
            elif "'<u2'" in header:   # bf16 bits
                bits = struct.unpack_from("<H", data, start)[0]
                value = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
                value += max(1.0, abs(value))
                struct.pack_into("<H", data, start, bf16_bits(value))
            else:
                code = "e" if "'<f2'" in header else \
                    "d" if "'<f8'" in header else "f"
                value = struct.unpack_from("<" + code, data, start)[0]
                value += max(1.0, abs(value))
                struct.pack_into("<" + code, data, start, value)
            f.seek(0)
            f.write(data)


def simulate(case_dir, build, cache):
    """Runs the folder's command on the simulator: (passed, output)."""
    with open(os.path.join(case_dir, "command")) as f:
        words = f.read().split()
    env = dict(os.environ, TILEC_LIBCUDA=os.path.join(
        build, "lib", "libtilec_fake_cuda.so"), TILEC_FAKE_CUDA_SIMULATE="1",
        TILEC_CACHE_DIR=cache, TILEC_RUNTIME_PTXAS="off")
    proc = subprocess.run([os.path.join(build, "bin", words[0])] + words[1:],
                          cwd=case_dir, capture_output=True, text=True,
                          env=env, timeout=600)
    return proc.returncode == 0, proc.stdout + proc.stderr


def run(args):
    out = os.path.abspath(args.output)
    build = os.path.abspath(args.build)
    if os.path.exists(out):
        sys.exit("gen-tile-programs: error: %s exists; remove it or choose "
                 "another -o" % out)
    made = write_programs(args.seed, args.first, args.count, out)
    cases = os.path.join(out, "cases")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "make-gpu-cases.py"),
         "--build", build, "--cases", os.path.join(out, "cases.txt"),
         "-o", cases] + ["--tilec-flag=" + f for f in args.tilec_flag],
        capture_output=True, text=True)
    # make-gpu-cases goes on past a failing case and names it on stderr.
    errors = {}
    for block in proc.stderr.split("make-gpu-cases: error: ")[1:]:
        for name, _ in made:
            if (": case %s: " % name) in block.split("\n", 1)[0]:
                errors[name] = block.strip()
    if proc.returncode != 0 and not errors:
        sys.exit("gen-tile-programs: make-gpu-cases failed:\n%s%s" % (
            proc.stdout, proc.stderr))
    cache = os.path.join(out, "cache")
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for name, _ in made:
            if name not in errors and args.corrupt:
                corrupt_expected(os.path.join(cases, name))
            if name not in errors:
                futures[name] = pool.submit(
                    simulate, os.path.join(cases, name), build, cache)
        for name, _ in made:
            if name in errors:
                results[name] = (False, "make-gpu-cases: " + errors[name])
            else:
                try:
                    results[name] = futures[name].result()
                except subprocess.TimeoutExpired:
                    results[name] = (False, "the simulator ran past 600 s")
    failed = 0
    for name, features in made:
        passed, output = results[name]
        if passed:
            print("PASS %s (%s)" % (name, " ".join(features)))
            if not args.keep:
                shutil.rmtree(os.path.join(cases, name), ignore_errors=True)
            continue
        failed += 1
        print("FAIL %s (%s)" % (name, " ".join(features)))
        for line in output.strip().splitlines()[-8:]:
            print("    " + line)
        folder = os.path.join(cases, name)
        print("    program: %s" % os.path.join(out, "programs",
                                             name + ".tile"))
        if os.path.isdir(folder):
            print("    reproduce: cd %s && TILEC_LIBCUDA=%s "
                  "TILEC_FAKE_CUDA_SIMULATE=1 %s/bin/$(cat command)" % (
                      folder, os.path.join(build, "lib",
                                           "libtilec_fake_cuda.so"), build))
    print("gen-tile-programs: seed %d, programs %d..%d: %d passed, "
          "%d failed" % (args.seed, args.first, args.first + args.count - 1,
                         len(made) - failed, failed))
    if failed:
        print("gen-tile-programs: the failures are kept in %s" % out)
        sys.exit(1)
    if not args.keep:
        shutil.rmtree(out)


def main():
    parser = argparse.ArgumentParser(
        description="Random tile programs, tested differentially.")
    parser.add_argument("mode", choices=["gen", "run"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("-o", "--output", default="difftest-out")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", action="store_true",
                        help="keep the folders of programs that pass")
    parser.add_argument("--corrupt", action="store_true",
                        help="change the interpreter's results before the "
                        "GPU runs compare with them: every program must fail")
    parser.add_argument("--tilec-flag", action="append", default=[],
                        metavar="FLAG",
                        help="run: a flag for tilec (repeatable), e.g. "
                        "--max-unrolled-elements=2 to run the programs' "
                        "tiles in chunks")
    args = parser.parse_args()
    if args.mode == "gen":
        os.makedirs(args.output, exist_ok=True)
        for name, features in write_programs(args.seed, args.first,
                                             args.count, args.output):
            print("%s %s" % (name, " ".join(features)))
    else:
        run(args)


if __name__ == "__main__":
    main()
