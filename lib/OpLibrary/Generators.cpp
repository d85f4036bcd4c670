//===- Generators.cpp - pointwise, rowwise and matmul kernels -------------===//
//
// A generator declares the parameters, computes the block's indices and
// masks, loads every input once (before the body: loads dominate every use),
// runs the user's body with its CallSite suspended (so the body's ops carry
// the body's own lines) and checks that every output was written exactly once
// and every input used. Padding masks carry count hints (n_cols, ...) so that
// means divide by a parameter rather than by a counted mask.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tilec/Target/Target.h"

namespace tilec::ops {

namespace {
/// One argument of the kernel being generated, as the block sees it.
struct Entry {
  Arg arg;
  Value param; ///< the pointer or scalar parameter
  Value tile;  ///< inputs: the loaded tile
  bool used = false;
  bool stored = false;
};
} // namespace

struct Block::Impl {
  Impl(Kernel kernel, std::string generator)
      : kernel(std::move(kernel)), generator(std::move(generator)) {}

  Kernel kernel;
  std::string generator;
  std::vector<Entry> entries;
  Value index, rows, cols;
  /// Stores `value` to output `e`; set by the generator.
  std::function<void(Entry &, const Operand &)> storeOutput;

  Entry *find(std::string_view name) {
    for (Entry &e : entries)
      if (e.arg.name == name)
        return &e;
    return nullptr;
  }
  std::string names() const {
    std::string s;
    for (const Entry &e : entries)
      s += (s.empty() ? "" : ", ") + e.arg.name;
    return s;
  }
};

/// The state of a generator's block, with a new kernel.
static std::shared_ptr<Block::Impl> newBlock(std::string name, int numWarps,
                                             std::string generator,
                                             int numCtas = 1) {
  KernelOptions options;
  options.numWarps = numWarps;
  options.numCtas = numCtas;
  return std::make_shared<Block::Impl>(Kernel(std::move(name), options),
                                       std::move(generator));
}

static const char *kindName(Arg::Kind kind) {
  switch (kind) {
  case Arg::Kind::Input:
    return "input";
  case Arg::Kind::Output:
    return "output";
  case Arg::Kind::ColumnInput:
    return "columnInput";
  case Arg::Kind::RowOutput:
    return "rowOutput";
  case Arg::Kind::Scalar:
    return "scalar";
  }
  return "?";
}

static bool isTensorInput(Arg::Kind kind) {
  return kind == Arg::Kind::Input || kind == Arg::Kind::ColumnInput;
}
static bool isOutput(Arg::Kind kind) {
  return kind == Arg::Kind::Output || kind == Arg::Kind::RowOutput;
}

Value Block::operator[](Name name) const {
  CallSite site("Block", name.loc);
  Entry *e = impl_->find(name.text);
  if (!e)
    buildError("Block", "no argument named '" + std::string(name.text) +
                            "' (arguments: " + impl_->names() + ")");
  if (isOutput(e->arg.kind))
    buildError("Block", "'" + e->arg.name + "' is an " + kindName(e->arg.kind) +
                            "; write it with Block::store");
  e->used = true;
  return e->arg.kind == Arg::Kind::Scalar ? e->param : e->tile;
}

void Block::store(std::string_view name, const Operand &value, SourceLoc loc) {
  CallSite site("Block::store", loc);
  Entry *e = impl_->find(name);
  if (!e)
    buildError("Block::store", "no output named '" + std::string(name) +
                                   "' (arguments: " + impl_->names() + ")");
  if (!isOutput(e->arg.kind))
    buildError("Block::store", "'" + e->arg.name + "' is an " +
                                   kindName(e->arg.kind) + ", not an output");
  if (e->stored)
    buildError("Block::store",
               "output '" + e->arg.name + "' is already written");
  e->stored = true;
  impl_->storeOutput(*e, value);
}

Kernel Block::kernel() const { return impl_->kernel; }

Value Block::index() const { return impl_->index; }

Value Block::rows(SourceLoc loc) const {
  if (impl_->rows.isNull())
    buildError("Block::rows",
               "a " + impl_->generator + " block has no rows; use index()",
               loc);
  return impl_->rows;
}

Value Block::cols(SourceLoc loc) const {
  if (impl_->cols.isNull())
    buildError("Block::cols",
               "a " + impl_->generator + " block has no columns; use index()",
               loc);
  return impl_->cols;
}

/// Checks the arguments' names and kinds for generator `gen`.
static void checkArgs(const std::vector<Arg> &args, std::string_view gen,
                      std::initializer_list<Arg::Kind> allowed) {
  for (const Arg &a : args) {
    bool ok = false;
    for (Arg::Kind k : allowed)
      ok |= a.kind == k;
    if (!ok)
      buildError(gen, std::string("argument '") + a.name + "' is a " +
                          kindName(a.kind) + ", which " + std::string(gen) +
                          " does not take");
  }
}

static void checkPositive(int value, std::string_view gen,
                          std::string_view what) {
  if (value < 1 || (value & (value - 1)))
    buildError(gen, std::string(what) +
                        " must be a positive power of two, "
                        "got " +
                        std::to_string(value));
}

/// Any count: the layout pass covers row tiles of 3072 or 5000 (and rows
/// per program of 3 or 12) as well as powers of two.
static void checkCount(int value, std::string_view gen, std::string_view what) {
  if (value < 1)
    buildError(gen, std::string(what) + " must be positive, got " +
                        std::to_string(value));
}

/// Declares the parameters of `args` in order.
static void declareParams(Block::Impl &b, const std::vector<Arg> &args,
                          int ptrDivisibility) {
  for (const Arg &a : args) {
    Entry e{a, {}, {}};
    e.param = a.kind == Arg::Kind::Scalar
                  ? b.kernel.scalar(a.name, a.dtype)
                  : b.kernel.pointer(a.name, a.dtype, ptrDivisibility);
    b.entries.push_back(e);
  }
}

/// Registers a parameter the generator adds (n, n_cols, ...) so the body can
/// read it as a scalar.
static void addImplicit(Block::Impl &b, const std::string &name,
                        const Value &param) {
  Entry e{{name, param.dtype(), Arg::Kind::Scalar}, param, {}};
  e.used = true; // never required
  b.entries.push_back(e);
}

/// Runs the body as user code, then checks outputs and inputs.
static void runBody(Block &block, Block::Impl &b,
                    const std::function<void(Block &)> &body) {
  {
    CallSite::Suspend user;
    body(block);
  }
  for (const Entry &e : b.entries) {
    if (isOutput(e.arg.kind) && !e.stored)
      buildError(b.generator, "output '" + e.arg.name + "' is never written");
    if (!isOutput(e.arg.kind) && !e.used)
      buildError(b.generator,
                 "argument '" + e.arg.name + "' is declared but never used");
  }
}

Kernel pointwiseKernel(std::string name, const std::vector<Arg> &args,
                       const PointwiseConfig &config,
                       const std::function<void(Block &)> &body,
                       SourceLoc loc) {
  CallSite site("pointwiseKernel", loc);
  checkArgs(args, "pointwiseKernel",
            {Arg::Kind::Input, Arg::Kind::Output, Arg::Kind::Scalar});
  checkPositive(config.blockSize, "pointwiseKernel", "blockSize");
  auto impl = newBlock(std::move(name), config.numWarps, "pointwiseKernel");
  Block::Impl &b = *impl;
  Kernel &k = b.kernel;
  declareParams(b, args, config.ptrDivisibility);
  Value n = k.scalar("n", DType::I32);
  addImplicit(b, "n", n);
  Value offs = k.programId(0) * config.blockSize + k.range(config.blockSize);
  Value mask = offs < n;
  b.index = offs;
  for (Entry &e : b.entries)
    if (e.arg.kind == Arg::Kind::Input)
      e.tile = k.load(e.param + offs, mask);
  b.storeOutput = [&k, offs, mask](Entry &e, const Operand &v) {
    k.store(e.param + offs, v, mask);
  };
  Block block(impl);
  runBody(block, b, body);
  return k;
}

Kernel rowwiseKernel(std::string name, const std::vector<Arg> &args,
                     const RowwiseConfig &config,
                     const std::function<void(Block &)> &body, SourceLoc loc) {
  CallSite site("rowwiseKernel", loc);
  checkArgs(args, "rowwiseKernel",
            {Arg::Kind::Input, Arg::Kind::Output, Arg::Kind::ColumnInput,
             Arg::Kind::RowOutput, Arg::Kind::Scalar});
  checkCount(config.blockCols, "rowwiseKernel", "blockCols");
  checkCount(config.rowsPerProgram, "rowwiseKernel", "rowsPerProgram");
  auto impl = newBlock(std::move(name), config.numWarps, "rowwiseKernel");
  Block::Impl &b = *impl;
  Kernel &k = b.kernel;
  declareParams(b, args, config.ptrDivisibility);
  Value nRows = k.scalar("n_rows", DType::I32);
  Value nCols = k.scalar("n_cols", DType::I32, config.colsDivisibility);
  addImplicit(b, "n_rows", nRows);
  addImplicit(b, "n_cols", nCols);

  const int bm = config.rowsPerProgram, bn = config.blockCols;
  Value pid = k.programId(0);
  Value cols = k.range(bn);
  Value colMask = cols < nCols;
  // Row offsets in i64: n_rows * n_cols may pass 2^31 elements.
  if (bm == 1) {
    // One row per program: 1-D tiles of the row. Programs past n_rows (a
    // grid rounded up) touch no memory.
    Value inRows = pid < nRows;
    Value mask = colMask & inRows;
    Value rowStart = pid.to(DType::I64) * nCols;
    b.rows = pid;
    b.cols = cols;
    b.index = pid * nCols + cols;
    for (Entry &e : b.entries) {
      if (e.arg.kind == Arg::Kind::Input)
        e.tile = k.load(e.param + rowStart + cols, mask)
                     .withoutPadding()
                     .maskedBy(colMask, nCols);
      else if (e.arg.kind == Arg::Kind::ColumnInput)
        e.tile = k.load(e.param + cols, mask)
                     .withoutPadding()
                     .maskedBy(colMask, nCols);
    }
    b.storeOutput = [&k, pid, rowStart, cols, mask, inRows](Entry &e,
                                                           const Operand &v) {
      if (e.arg.kind == Arg::Kind::Output) {
        k.store(e.param + rowStart + cols, v, mask);
        return;
      }
      // One row: a scalar, or a 1-element tile (a keepdim reduction).
      if (v.kind() == Operand::Kind::Value && v.value().rank() != 0 &&
          v.value().shape() != std::vector<int64_t>{1})
        buildError("Block::store", "row output '" + e.arg.name +
                                       "' takes one value per row (a scalar "
                                       "or a 1-element tile here), got " +
                                       v.value().typeStr());
      k.store(e.param + pid, v, inRows);
    };
  } else {
    // Several rows per program: [rows, cols] tiles, padded in both.
    Value rows = pid * bm + k.range(bm);
    Value rowMask = rows < nRows;
    Value rows2 = rows.expandDims(1), rowMask2 = rowMask.expandDims(1);
    Value cols2 = cols.expandDims(0), colMask2 = colMask.expandDims(0);
    Value rowCount = minimum(nRows - pid * bm, bm);
    Value rowStarts = rows2.to(DType::I64) * nCols;
    Value mask = rowMask2 & colMask2;
    b.rows = rows2;
    b.cols = cols2;
    b.index = rows2 * nCols + cols2;
    for (Entry &e : b.entries) {
      if (e.arg.kind == Arg::Kind::Input)
        e.tile = k.load(e.param + rowStarts + cols2, mask)
                     .withoutPadding()
                     .maskedBy(rowMask2, rowCount)
                     .maskedBy(colMask2, nCols);
      else if (e.arg.kind == Arg::Kind::ColumnInput)
        e.tile = k.load(e.param + cols, colMask)
                     .withoutPadding()
                     .maskedBy(colMask, nCols);
    }
    b.storeOutput = [&k, bm, rows, rowMask, rowStarts, cols2,
                     mask](Entry &e, const Operand &v) {
      if (e.arg.kind == Arg::Kind::Output) {
        k.store(e.param + rowStarts + cols2, v, mask);
        return;
      }
      Operand perRow = v;
      if (v.kind() == Operand::Kind::Value) {
        std::vector<int64_t> shape = v.value().shape();
        if (shape == std::vector<int64_t>{bm, 1})
          perRow = v.value().reshape({bm});
        else if (!shape.empty() && shape != std::vector<int64_t>{bm})
          buildError("Block::store", "row output '" + e.arg.name +
                                         "' takes one value per row (" +
                                         std::to_string(bm) + " or " +
                                         std::to_string(bm) + "x1 here), got " +
                                         v.value().typeStr());
      }
      k.store(e.param + rows, perRow, rowMask);
    };
  }
  Block block(impl);
  runBody(block, b, body);
  return k;
}

/// defaultMatmulTile's choice; errors name `gen`, the caller's generator.
static MatmulTile matmulTileFor(std::string_view target,
                                std::string_view gen) {
  llvm::Expected<Target> t =
      Target::get(target.empty() ? Target::kDefaultChip : target);
  if (!t)
    buildError(gen, "target: " + llvm::toString(t.takeError()));
  // wgmma keeps the accumulator in registers with no operand copies there:
  // 128 f32 per thread for 128x256 leaves room for the cp.async staging at
  // K step 32 (at 64 its pointer tiles spill). mma.sync's operand
  // fragments take registers too: 128x256 spills there, and K step 64
  // gave 3% over 32 (docs/performance.md).
  if (t->hasWgmma())
    return {128, 256, 32};
  return {128, 128, 64};
}

static bool isFp8(DType t) {
  return t == DType::F8E4M3FN || t == DType::F8E5M2;
}

MatmulTile defaultMatmulTile(std::string_view target, SourceLoc loc) {
  CallSite site("defaultMatmulTile", loc);
  return matmulTileFor(target, "defaultMatmulTile");
}

Kernel matmulKernel(std::string name, const MatmulConfig &configIn,
                    const std::vector<Arg> &epilogueArgs,
                    const std::function<Value(Value, Block &)> &epilogue,
                    SourceLoc loc) {
  CallSite site("matmulKernel", loc);
  checkArgs(epilogueArgs, "matmulKernel",
            {Arg::Kind::Input, Arg::Kind::Output, Arg::Kind::ColumnInput,
             Arg::Kind::Scalar});
  // Zeros take the target's default tile (each dimension on its own).
  MatmulConfig config = configIn;
  const bool fp8 = isFp8(config.aType) || isFp8(config.bType);
  if (!config.blockM || !config.blockN || !config.blockK) {
    MatmulTile tile = matmulTileFor(config.target, "matmulKernel");
    if (fp8) // one 128-byte swizzle atom a row of each block
      tile.k = 128;
    config.blockM = config.blockM ? config.blockM : tile.m;
    config.blockN = config.blockN ? config.blockN : tile.n;
    config.blockK = config.blockK ? config.blockK : tile.k;
  }
  checkPositive(config.blockM, "matmulKernel", "blockM");
  // blockN need not be a power of two (128 x 192 fills whole waves where
  // 128 and 256 do not): the accumulator's instructions are 8 columns wide
  // (wgmma's N, mma.sync's n8) and B's staged rows whole 16-byte copies.
  if (config.blockN < 16 || config.blockN % 16)
    buildError("matmulKernel", "blockN must be a positive multiple of 16, "
                               "got " +
                                   std::to_string(config.blockN));
  checkPositive(config.blockK, "matmulKernel", "blockK");
  if (config.groupM < 1)
    buildError("matmulKernel",
               "groupM must be at least 1, got " + std::to_string(config.groupM));
  if (config.aType != config.bType &&
      !(isFp8(config.aType) && isFp8(config.bType)))
    buildError("matmulKernel",
               std::string("aType and bType differ (") +
                   std::string(dtypeName(config.aType)) + " and " +
                   std::string(dtypeName(config.bType)) + ")");
  if (fp8 && (!config.descriptors || !config.bTransposed))
    buildError("matmulKernel",
               "fp8 operands need descriptors and bTransposed: wgmma reads "
               "fp8 A and B K-major only, from the TMA's slots (B given as "
               "N x K, as torch._scaled_mm's b.t())");
  if (config.splitK) {
    if (config.cType != DType::F32)
      buildError("matmulKernel",
                 std::string("splitK writes f32 partial sums: cType must be "
                             "f32 (splitKReduceKernel casts), got ") +
                     std::string(dtypeName(config.cType)));
    if (!epilogueArgs.empty() || config.persistent)
      buildError("matmulKernel", "splitK takes no epilogue arguments and no "
                                 "persistent programs: the epilogue belongs "
                                 "after the slices are summed");
  }
  const int ctas = config.numCtas;
  if (ctas != 1 && ctas != 2 && ctas != 4)
    buildError("matmulKernel",
               "numCtas must be 1, 2 or 4, got " + std::to_string(ctas));
  if (ctas > 1 && (!config.descriptors || config.splitK))
    buildError("matmulKernel", "numCtas " + std::to_string(ctas) +
                                   " shares B's blocks through tensor "
                                   "descriptors: it needs descriptors and no "
                                   "splitK");
  auto impl =
      newBlock(std::move(name), config.numWarps, "matmulKernel", ctas);
  Block::Impl &b = *impl;
  Kernel &k = b.kernel;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int bm = config.blockM, bn = config.blockN, bk = config.blockK;
  Value a = config.descriptors ? k.tensorDesc("a", config.aType, {bm, bk})
                               : k.pointer("a", config.aType, pd);
  const bool bt = config.bTransposed;
  Value bp = config.descriptors
                 ? k.tensorDesc("b", config.bType,
                                bt ? std::vector<int64_t>{bn, bk}
                                   : std::vector<int64_t>{bk, bn})
                 : k.pointer("b", config.bType, pd);
  Value c = k.pointer("c", config.cType, pd);
  Value scaleA, scaleB, scale;
  if (config.scales) {
    scaleA = k.pointer("scale_a", DType::F32, 4);
    scaleB = k.pointer("scale_b", DType::F32, 4);
  }
  declareParams(b, epilogueArgs, pd);
  Value M = k.scalar("M", DType::I32), N = k.scalar("N", DType::I32),
        K = k.scalar("K", DType::I32);
  Value strideAm = k.scalar("stride_am", DType::I32, sd);
  Value strideBk = k.scalar("stride_bk", DType::I32, sd);
  Value strideCm = k.scalar("stride_cm", DType::I32, sd);
  addImplicit(b, "M", M);
  addImplicit(b, "N", N);
  addImplicit(b, "K", K);
  // The tensors' shapes, and the sizes and row strides taken from them by
  // bindings that are given tensors (PyTorch's operator is then
  // `name(a, b, ...) -> c`). Split-K's c is its slices' workspace.
  k.setShape(a, {"M", "K"});
  k.setShape(bp, bt ? std::vector<std::string>{"N", "K"}
                    : std::vector<std::string>{"K", "N"});
  k.setFrom(M, "a.size(0)");
  k.setFrom(N, bt ? "b.size(0)" : "b.size(1)");
  k.setFrom(K, "a.size(1)");
  k.setFrom(strideAm, "a.stride(0)");
  k.setFrom(strideBk, "b.stride(0)");
  if (!config.splitK) {
    k.setShape(c, {"M", "N"});
    k.markOutput(c);
    k.setFrom(strideCm, "c.stride(0)");
    // With c marked, bindings take unmarked pointers for inputs: the
    // epilogue's outputs are marked too.
    for (const Entry &e : b.entries)
      if (isOutput(e.arg.kind))
        k.markOutput(e.param);
  }
  // The grid's rule, so that the runtime and the PyTorch operators launch
  // without one; persistent programs (the SM count) and split-K (the
  // caller's split count) have none.
  // In clusters the tile rows are rounded up to whole clusters.
  if (!config.persistent && !config.splitK)
    k.setGrid({ctas > 1 ? std::to_string(ctas) + " * cdiv(cdiv(M, " +
                              std::to_string(bm) + "), " +
                              std::to_string(ctas) + ")"
                        : "cdiv(M, " + std::to_string(bm) + ")",
               "cdiv(N, " + std::to_string(bn) + ")"});

  // The scales' product, once per program (not per tile: a persistent
  // program's loop would keep reloading it, and ptxas spilled then).
  if (config.scales)
    scale = k.load(scaleA) * k.load(scaleB);
  // Split-K: program z of grid axis 2 takes K steps [z * per, (z + 1) *
  // per) of the cdiv(K, bk) steps, per = cdiv(steps, splits): whole steps,
  // so only the last slice meets K's edge (masked or zero-filled as
  // without split-K); a slice past K runs no step and writes zeros.
  Value kBegin, kEnd;
  if (config.splitK) {
    Value steps = cdiv(K, bk);
    Value per = cdiv(steps, k.numPrograms(2)) * bk;
    kBegin = minimum(k.programId(2) * per, K);
    kEnd = minimum(kBegin + per, K);
  }
  // One output tile (pidM, pidN): the K loop, the epilogue, the store.
  auto tile = [&](Value pidM, Value pidN) {
    Value rm = pidM * bm + k.range(bm), rn = pidN * bn + k.range(bn);
    Value rk = k.range(bk);
    Value rm2 = rm.expandDims(1), rn2 = rn.expandDims(0);
    Value rkA = rk.expandDims(0), rkB = rk.expandDims(1);
    Value rowMask = rm2 < M, colMask = rn2 < N;
    Value rowCount = minimum(M - pidM * bm, bm);
    if (ctas > 1) // a cluster's row past M: none
      rowCount = maximum(rowCount, 0);
    Value colCount = minimum(N - pidN * bn, bn);
    b.rows = rm2;
    b.cols = rn2;
    b.index = rm2 * N + rn2;

    // The K loop of examples/matmul.tile: pointers step along K; the last
    // step masks k >= K with zeros, which add nothing to the dot.
    DType accType = config.aType == DType::I8 ? DType::I32 : DType::F32;
    Operand lo = config.splitK ? Operand(kBegin) : Operand(0);
    Operand hi = config.splitK ? Operand(kEnd) : Operand(K);
    std::vector<Value> loop;
    if (config.descriptors) {
      // The TMA reads zeros past the tensors' edges: no masks. The offsets
      // come from the induction variable alone, as tile-lower-descriptors
      // needs to stage both blocks in its ring.
      Value m0 = pidM * bm, n0 = pidN * bn;
      loop = k.forLoop(lo, hi, bk, {k.zeros({bm, bn}, accType)},
                       [&](Value kk, std::vector<Value> carried) {
                         Value at = k.descriptorLoad(a, {m0, kk});
                         // N x K blocks read transposed in place.
                         Value btile =
                             bt ? k.descriptorLoad(bp, {n0, kk}).trans()
                                : k.descriptorLoad(bp, {kk, n0});
                         return std::vector<Value>{k.dot(
                             at, btile, carried[0], config.precision)};
                       });
    } else {
      Value a0 = a + rm2 * strideAm + rkA;
      // B^T's (k, n) is B's (n, k): K contiguous, rows strideBk apart.
      Value b0 = bt ? bp + rn2 * strideBk + rkB : bp + rkB * strideBk + rn2;
      // Pointers to B advance by a K step: bk elements along a row of an
      // N x K B, bk rows of a K x N one.
      Value bStep = bt ? Value(k.constant(bk, DType::I32)) : strideBk * bk;
      if (config.splitK) {
        a0 = a0 + kBegin;
        b0 = bt ? b0 + kBegin : b0 + kBegin * strideBk;
      }
      loop = k.forLoop(lo, hi, bk, {k.zeros({bm, bn}, accType), a0, b0},
                       [&](Value kk, std::vector<Value> carried) {
                         Value left = K - kk;
                         Value at =
                             k.load(carried[1], rowMask & (rkA < left), 0);
                         Value bt =
                             k.load(carried[2], (rkB < left) & colMask, 0);
                         Value acc =
                             k.dot(at, bt, carried[0], config.precision);
                         return std::vector<Value>{acc, carried[1] + bk,
                                                   carried[2] + bStep};
                       });
    }
    Value acc = loop[0];
    if (config.scales)
      acc = acc * scale;
    acc = acc.maskedBy(rowMask, rowCount).maskedBy(colMask, colCount);

    Value tileMask = rowMask & colMask;
    Value cRowStarts = rm2 * strideCm;
    Value cBase = c;
    if (config.splitK) // slice z's partial tiles, M rows further each
      cBase = c + k.programId(2).to(DType::I64) * M.to(DType::I64) *
                      strideCm.to(DType::I64);
    for (Entry &e : b.entries) {
      if (e.arg.kind == Arg::Kind::Input)
        e.tile = k.load(e.param + cRowStarts + rn2, tileMask)
                     .withoutPadding()
                     .maskedBy(rowMask, rowCount)
                     .maskedBy(colMask, colCount);
      else if (e.arg.kind == Arg::Kind::ColumnInput)
        e.tile = k.load(e.param + rn, rn < N)
                     .withoutPadding()
                     .maskedBy(rn < N, colCount);
    }
    b.storeOutput = [&k, cRowStarts, rn2, tileMask](Entry &e,
                                                    const Operand &v) {
      k.store(e.param + cRowStarts + rn2, v, tileMask);
    };
    Block block(impl);
    Value out;
    runBody(block, b, [&](Block &blk) { out = epilogue(acc, blk); });
    if (out.isNull())
      buildError("matmulKernel", "the epilogue returned a null Value");
    k.store(cBase + cRowStarts + rn2, out, tileMask);
  };
  // Tile t of the npm x npn tiles of C, in launch order (t = x + y * npm)
  // or remapped to groups of groupM tile rows swept column by column, so
  // that concurrent programs share A and B tiles in L2 (as
  // examples/matmul.tile).
  auto tileAt = [&](Value t, Value npm, Value npn) {
    if (config.groupM == 1) {
      tile(t % npm, t / npm);
      return;
    }
    Value width = npn * config.groupM;
    Value firstM = (t / width) * config.groupM;
    Value size = minimum(npm - firstM, config.groupM);
    Value inGroup = t % width;
    tile(firstM + inGroup % size, inGroup / size);
  };
  if (ctas > 1) {
    // Clusters of `ctas` programs along x take `ctas` vertically adjacent
    // tiles of one column: cluster tile u (a group of ctas tile rows by a
    // column, in the grouped order of groupM / ctas such groups) gives
    // rank r the tile (ctas * q + r, n). B's offsets and every loop's
    // bounds then depend on the cluster alone, as tile-lower-descriptors
    // needs to multicast B (ClusterUniformity).
    Value rank = k.programId(0) % ctas, cluster = k.programId(0) / ctas;
    Value npm = (M + (bm - 1)) / bm, npn = (N + (bn - 1)) / bn;
    Value npq = (npm + (ctas - 1)) / ctas;
    int groupQ = std::max(1, config.groupM / ctas);
    auto clusterTile = [&](Value u) {
      Value q, n;
      if (groupQ == 1) {
        q = u % npq;
        n = u / npq;
      } else {
        Value width = npn * groupQ;
        Value first = (u / width) * groupQ;
        Value size = minimum(npq - first, groupQ);
        Value inGroup = u % width;
        q = first + inGroup % size;
        n = inGroup / size;
      }
      tile(q * ctas + rank, n);
    };
    if (config.persistent)
      k.forLoop(cluster, npq * npn, k.numPrograms(0) / ctas,
                [&](Value u) { clusterTile(u); });
    else
      clusterTile(cluster + k.programId(1) * (k.numPrograms(0) / ctas));
  } else if (config.persistent) {
    // Programs 0 .. P-1 (P = the grid, the SM count) take tiles p, p + P,
    // p + 2P, ...: each program stays resident and walks the grouped
    // order, so the programs running at once still share L2 tiles.
    Value npm = (M + (bm - 1)) / bm, npn = (N + (bn - 1)) / bn;
    k.forLoop(k.programId(0), npm * npn, k.numPrograms(0),
              [&](Value t) { tileAt(t, npm, npn); });
  } else if (config.groupM > 1) {
    Value npm = k.numPrograms(0), npn = k.numPrograms(1);
    tileAt(k.programId(0) + k.programId(1) * npm, npm, npn);
  } else {
    tile(k.programId(0), k.programId(1));
  }
  return k;
}

Kernel splitKReduceKernel(std::string name, const SplitKReduceConfig &config,
                          SourceLoc loc) {
  CallSite site("splitKReduceKernel", loc);
  checkPositive(config.blockN, "splitKReduceKernel", "blockN");
  Kernel k(std::move(name), {config.numWarps});
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  Value ws = k.pointer("ws", DType::F32, pd);
  Value c = k.pointer("c", config.cType, pd);
  Value M = k.scalar("M", DType::I32), N = k.scalar("N", DType::I32, sd);
  Value strideCm = k.scalar("stride_cm", DType::I32, sd);
  Value splits = k.scalar("splits", DType::I32);
  // Program (row, column block): contiguous loads from each slice and one
  // contiguous store, so both vectorize.
  Value row = k.programId(0);
  Value cols = k.programId(1) * config.blockN + k.range(config.blockN);
  Value mask = (cols < N) & (row < M);
  Value rowStart = row.to(DType::I64) * N.to(DType::I64);
  Value slice = M.to(DType::I64) * N.to(DType::I64);
  Value sum = k.forLoop(0, splits, 1, k.zeros({config.blockN}, DType::F32),
                        [&](Value s, Value acc) {
                          Value at = ws + s.to(DType::I64) * slice + rowStart;
                          return acc + k.load(at + cols, mask, 0);
                        });
  k.store(c + row.to(DType::I64) * strideCm.to(DType::I64) + cols, sum, mask);
  return k;
}

} // namespace tilec::ops
