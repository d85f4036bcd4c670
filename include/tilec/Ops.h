//===- Ops.h - PyTorch's operators on tiles, fused --------------*- C++ -*-===//
//
// The op library (lib/OpLibrary, CMake target TilecOpLibrary), not dialect
// ops: the `tile` and `tilegpu` ops are in include/tilec/Dialect.
//
// PyTorch's operators with their names and semantics, as functions of tile
// Values: composing them (`gelu(x + bias)`, `softmax(x * scale + mask)`,
// `rms_norm(x + residual, w)`) builds ONE kernel whose intermediates stay in
// registers. The kernel generators at the bottom (pointwiseKernel,
// rowwiseKernel, matmulKernel) handle the indexing, masking and loads: each
// input is read once, each output written once, and the user's C++ lambda
// says what to compute; attentionKernel builds a whole flash attention.
//
// Numerics, as PyTorch on CUDA: f16/bf16 math and reductions run in f32 and
// round once at the end; padding lanes (see tilec::Value) are excluded from
// max/min/sum/mean/var/softmax/norms, means divide by the true count; softmax
// subtracts the row max. Everything here is built on the public Builder API
// only: it doubles as the worked example of writing one's own fused ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_OPS_H
#define TILEC_OPS_H

#include "tilec/Builder.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::ops {

// Elementwise math shared with the builder (same semantics as PyTorch's).
using tilec::abs;
using tilec::ceil;
using tilec::cos;
using tilec::erf;
using tilec::exp;
using tilec::exp2;
using tilec::exp2Ftz;
using tilec::floor;
using tilec::log;
using tilec::log1p;
using tilec::log2;
using tilec::maximum;
using tilec::minimum;
using tilec::pow;
using tilec::rsqrt;
using tilec::sin;
using tilec::sqrt;
using tilec::tanh;
using tilec::where;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Value add(const Operand &a, const Operand &b,
          SourceLoc loc = SourceLoc::current());
Value sub(const Operand &a, const Operand &b,
          SourceLoc loc = SourceLoc::current());
Value mul(const Operand &a, const Operand &b,
          SourceLoc loc = SourceLoc::current());
/// True division (torch.div): integers divide as f32.
Value div(const Operand &a, const Operand &b,
          SourceLoc loc = SourceLoc::current());
Value neg(const Value &x, SourceLoc loc = SourceLoc::current());
Value relu(const Value &x, SourceLoc loc = SourceLoc::current());
/// torch.nn.functional.gelu: approximate is "none" (erf) or "tanh".
Value gelu(const Value &x, std::string_view approximate = "none",
           SourceLoc loc = SourceLoc::current());
Value sigmoid(const Value &x, SourceLoc loc = SourceLoc::current());
Value silu(const Value &x, SourceLoc loc = SourceLoc::current());
/// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
Value softplus(const Value &x, double beta = 1.0, double threshold = 20.0,
               SourceLoc loc = SourceLoc::current());
/// torch.clamp: either bound may be absent; NaN propagates.
Value clamp(const Value &x, const std::optional<Operand> &min,
            const std::optional<Operand> &max = std::nullopt,
            SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Reductions along a dimension (negative dims count from the end)
//===----------------------------------------------------------------------===//

/// torch.sum: f16/bf16 accumulate in f32 and round back; integers and i1
/// sum as i64.
Value sum(const Value &x, int dim, bool keepdim = false,
          SourceLoc loc = SourceLoc::current());
/// torch.mean (floats only): sum / number of non-padding lanes.
Value mean(const Value &x, int dim, bool keepdim = false,
           SourceLoc loc = SourceLoc::current());
/// torch.amax / torch.amin: NaN propagates.
Value max(const Value &x, int dim, bool keepdim = false,
          SourceLoc loc = SourceLoc::current());
Value min(const Value &x, int dim, bool keepdim = false,
          SourceLoc loc = SourceLoc::current());
/// torch.argmax / argmin: the first index of the extreme value (NaN counts
/// as the maximum), as i32.
Value argmax(const Value &x, int dim, bool keepdim = false,
             SourceLoc loc = SourceLoc::current());
Value argmin(const Value &x, int dim, bool keepdim = false,
             SourceLoc loc = SourceLoc::current());
/// torch.var (floats only), two-pass: sum((x - mean)^2) / (N - correction).
Value var(const Value &x, int dim, int correction = 1, bool keepdim = false,
          SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// torch.softmax, stable: exp(x - max) / sum(exp(x - max)).
Value softmax(const Value &x, int dim, SourceLoc loc = SourceLoc::current());
Value log_softmax(const Value &x, int dim,
                  SourceLoc loc = SourceLoc::current());
/// torch.nn.functional.layer_norm over the last dimension, biased variance.
Value layer_norm(const Value &x, const std::optional<Value> &weight = {},
                 const std::optional<Value> &bias = {},
                 const Operand &eps = 1e-5,
                 SourceLoc loc = SourceLoc::current());
/// torch.nn.functional.rms_norm over the last dimension:
/// x / sqrt(mean(x^2) + eps) * weight; eps defaults to the dtype's epsilon.
Value rms_norm(const Value &x, const std::optional<Value> &weight = {},
               const std::optional<Operand> &eps = std::nullopt,
               SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Matmul of tiles
//===----------------------------------------------------------------------===//

/// torch.matmul of two 2-D tiles held by one program: accumulates in f32
/// (i32 for i8) and returns the promoted input dtype.
Value matmul(const Value &a, const Value &b,
             SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Random numbers (Philox 4x32-10, bit-compatible with Triton's tl.rand)
//===----------------------------------------------------------------------===//

/// Philox 4x32 with 10 rounds (Random123's philox4x32_10, Triton's
/// tl.philox): the counter is (c0, c1, c2, c3), i32 tiles (broadcast
/// together), the key (seed low 32 bits, seed high 32 bits); `seed` is an
/// i32 or i64 scalar or a number. Returns the four output words.
std::vector<Value> philox(const Operand &seed, const Value &c0, const Value &c1,
                          const Value &c2, const Value &c3,
                          SourceLoc loc = SourceLoc::current());
/// philox with the counter (offsets, 0, 0, 0), as tl.randint4x.
std::vector<Value> randint4x(const Operand &seed, const Value &offsets,
                             SourceLoc loc = SourceLoc::current());
/// The first of randint4x.
Value randint(const Operand &seed, const Value &offsets,
              SourceLoc loc = SourceLoc::current());
/// Uniform f32 in [0, 1), as tl.rand(seed, offsets).
Value rand(const Operand &seed, const Value &offsets,
           SourceLoc loc = SourceLoc::current());
/// Standard normal f32 (Box-Muller on two of randint4x), as tl.randn.
Value randn(const Operand &seed, const Value &offsets,
            SourceLoc loc = SourceLoc::current());
/// torch.nn.functional.dropout with a counter-based mask: zeroes x where
/// rand(seed, offsets) <= p and scales the rest by 1 / (1 - p). Same seed and
/// offsets, same mask (a backward pass regenerates it).
Value dropout(const Value &x, double p, const Operand &seed,
              const Value &offsets, bool training = true,
              SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Kernel generators
//===----------------------------------------------------------------------===//

/// One argument of a generated kernel.
struct Arg {
  enum class Kind {
    Input,       ///< a tensor read by the kernel
    Output,      ///< a tensor written by the kernel
    ColumnInput, ///< rowwise/matmul: a [n_cols] tensor, broadcast over rows
    RowOutput,   ///< rowwise: a [n_rows] tensor, one value per row
    Scalar,      ///< a scalar parameter
  };
  std::string name;
  DType dtype;
  Kind kind;
};
inline Arg input(std::string name, DType dtype) {
  return {std::move(name), dtype, Arg::Kind::Input};
}
inline Arg output(std::string name, DType dtype) {
  return {std::move(name), dtype, Arg::Kind::Output};
}
inline Arg columnInput(std::string name, DType dtype) {
  return {std::move(name), dtype, Arg::Kind::ColumnInput};
}
inline Arg rowOutput(std::string name, DType dtype) {
  return {std::move(name), dtype, Arg::Kind::RowOutput};
}
inline Arg scalar(std::string name, DType dtype) {
  return {std::move(name), dtype, Arg::Kind::Scalar};
}

/// An argument name as Block::operator[] takes it, with the caller's line
/// for errors.
struct Name {
  Name(const char *text, SourceLoc loc = SourceLoc::current())
      : text(text), loc(loc) {}
  Name(std::string_view text, SourceLoc loc = SourceLoc::current())
      : text(text), loc(loc) {}
  std::string_view text;
  SourceLoc loc;
};

/// The block of data one program of a generated kernel works on, handed to
/// the user's body.
class Block {
public:
  /// The tile of input `name` (loaded once, before the body, masked, with
  /// its padding), or the scalar parameter `name` (the generator's own, such
  /// as n_cols, included).
  Value operator[](Name name) const;
  /// Writes `value` (broadcast to the block, converted to the output's
  /// dtype) to output `name`; each output is written exactly once.
  void store(std::string_view name, const Operand &value,
             SourceLoc loc = SourceLoc::current());
  /// The kernel being built.
  Kernel kernel() const;
  /// The flat (row-major) element index of each lane, i32: dropout offsets.
  Value index() const;
  /// rowwise and matmul: the row and column indices, as tiles that broadcast
  /// against the block (a scalar row for one row per program).
  Value rows(SourceLoc loc = SourceLoc::current()) const;
  Value cols(SourceLoc loc = SourceLoc::current()) const;

  struct Impl;
  explicit Block(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
  std::shared_ptr<Impl> impl_;
};

struct PointwiseConfig {
  int blockSize = 1024;
  int numWarps = 4;
  /// Divisibility hint of every pointer parameter (bytes).
  int ptrDivisibility = 16;
};
/// An elementwise kernel over flat tensors of `n` elements: parameters are
/// `args` in order, then `n` (i32). Grid: (cdiv(n, blockSize)).
Kernel pointwiseKernel(std::string name, const std::vector<Arg> &args,
                       const PointwiseConfig &config,
                       const std::function<void(Block &)> &body,
                       SourceLoc loc = SourceLoc::current());

struct RowwiseConfig {
  /// Columns per program: at least n_cols (a row is reduced in one piece);
  /// any positive count (3072 and 5000 as well as powers of two).
  int blockCols = 1024;
  /// Rows per program (any positive count); 1 gives 1-D row tiles, more
  /// gives [rows, cols] tiles.
  int rowsPerProgram = 1;
  /// Warps (KernelOptions::numWarps): 0 lets the layout pass choose.
  int numWarps = 4;
  int ptrDivisibility = 16;
  /// Divisibility hint of n_cols (1: none).
  int colsDivisibility = 1;
};
/// A kernel over row-major [n_rows, n_cols] tensors (rows contiguous,
/// n_cols <= blockCols): parameters are `args` in order, then `n_rows` and
/// `n_cols` (i32). Grid: (cdiv(n_rows, rowsPerProgram)).
Kernel rowwiseKernel(std::string name, const std::vector<Arg> &args,
                     const RowwiseConfig &config,
                     const std::function<void(Block &)> &body,
                     SourceLoc loc = SourceLoc::current());

struct MatmulConfig {
  DType aType = DType::BF16, bType = DType::BF16, cType = DType::BF16;
  /// The tile of C one program computes and the K step; 0 takes the one of
  /// defaultMatmulTile(target).
  int blockM = 0, blockN = 0, blockK = 0;
  int numWarps = 8;
  Precision precision = Precision::tf32;
  int ptrDivisibility = 16;
  /// Divisibility hint of the row strides.
  int strideDivisibility = 16;
  /// Programs take their tiles in groups of `groupM` tile rows, column by
  /// column (Triton's L2-friendly order); 1: in launch order.
  int groupM = 8;
  /// The chip the kernel will be compiled for ("sm_90a"; empty: tilec's
  /// default, sm_90): it picks the default tile. The kernel itself does not
  /// record it (compile with the same chip).
  std::string target;
  /// Persistent programs: launch a 1-D grid of P programs (the SM count:
  /// cuDeviceGetAttribute's MULTIPROCESSOR_COUNT); program p computes
  /// tiles p, p + P, ... of the groupM order, looping inside the kernel.
  bool persistent = false;
  /// A and B as tensor descriptors (`!tile.tensordesc` blocks of blockM x
  /// blockK and blockK x blockN, read by descriptorLoad: the TMA on sm_90);
  /// the parameters stride_am and stride_bk stay (unused: the descriptors
  /// carry the strides) so that every GEMM variant has one signature.
  bool descriptors = false;
  /// Split-K: grid axis 2 splits the K loop into numPrograms(2) slices of
  /// whole K steps; slice z writes its f32 partial tile to `c + z * M *
  /// stride_cm` (c is then an f32 workspace, cType must be F32, and
  /// splitKReduceKernel sums the slices into the output). No epilogue
  /// arguments and no `persistent` (the epilogue belongs after the sum).
  bool splitK = false;
  /// Programs per cluster (1, 2 or 4; KernelOptions::numCtas), with
  /// `descriptors`: the programs of a cluster take `numCtas` vertically
  /// adjacent tiles of one column (tile rows numCtas * q + rank), so that
  /// B's block is the same in all of them at every K step and on sm_90a
  /// each copies 1 / numCtas of it into all (TMA multicast). The grid's x
  /// is rounded up to whole clusters (a row past M stores nothing); a
  /// persistent grid must be a multiple of numCtas.
  int numCtas = 1;
  /// B given as N x K, row-major (K contiguous: torch.nn.Linear's weight,
  /// torch._scaled_mm's `b.t()`); the kernel multiplies by its transpose.
  /// stride_bk is then B's row stride (between its N rows).
  bool bTransposed = false;
  /// Per-tensor scales: f32 pointers scale_a and scale_b after c (one
  /// element each, on the device, as PyTorch keeps them) whose product
  /// multiplies the accumulator before the epilogue (torch._scaled_mm's
  /// scale_a and scale_b).
  bool scales = false;
};

/// The second kernel of a split-K plan: out[r, c] = sum over s < splits of
/// ws[s][r][c] (ws f32, S x M x N contiguous: row stride N), cast to
/// `cType`, stored with row stride stride_cm. Deterministic (the slices are
/// summed in order, no atomics). Parameters: ws, c, M, N, stride_cm,
/// splits. Grid: (M, cdiv(N, blockN)).
struct SplitKReduceConfig {
  DType cType = DType::BF16;
  int blockN = 1024; ///< columns per program (a power of two)
  int numWarps = 4;
  int ptrDivisibility = 16;
  int strideDivisibility = 16;
};
Kernel splitKReduceKernel(std::string name, const SplitKReduceConfig &config,
                          SourceLoc loc = SourceLoc::current());

/// A matmul tile: C's rows and columns per program, the K step.
struct MatmulTile {
  int m, n, k;
};
/// matmulKernel's tile when the config names none, for 16-bit operands on
/// 8 warps: on sm_90a (wgmma) 128x256, K step 32: two warpgroups of
/// m64n256k16, the accumulator half the register file, no spills (bf16
/// 8192^3: 493 TFLOP/s against 439 for 128x128x64 on the H200,
/// docs/performance.md); elsewhere (mma.sync) 128x128, K step 64, where
/// 128x256 spills. An unknown chip is a BuildError naming the known ones.
MatmulTile defaultMatmulTile(std::string_view target,
                             SourceLoc loc = SourceLoc::current());
/// C = epilogue(A * B): A is M x K, B is K x N (N x K with bTransposed), C
/// M x N, row-major with row strides. The epilogue receives the f32 (i32)
/// accumulator tile (times scale_a * scale_b with `scales`), with the
/// edges as padding, and the block (Input args are M x N with C's stride,
/// ColumnInput args [N]); its result is stored to C. Parameters: a, b, c,
/// [scale_a, scale_b,] `epilogueArgs`, M, N, K, stride_am, stride_bk,
/// stride_cm. fp8 operands (F8E4M3FN, F8E5M2; the two may differ) need
/// `descriptors` and `bTransposed` (wgmma reads fp8 K-major only) and an
/// sm_90a compilation; their default K step is 128 (a 128-byte row).
/// Grid: (cdiv(M, blockM), cdiv(N, blockN)) with the config's tile or
/// defaultMatmulTile(config.target), declared as the kernel's grid rule
/// (`tile.grid`: the runtime and the PyTorch operators launch without a
/// grid); which program takes which tile follows `groupM`. With
/// `persistent`: any 1-D grid (P programs loop over the tiles in that
/// order); with `splitK` the third axis is the caller's: neither declares
/// a rule.
Kernel matmulKernel(std::string name, const MatmulConfig &config,
                    const std::vector<Arg> &epilogueArgs,
                    const std::function<Value(Value, Block &)> &epilogue,
                    SourceLoc loc = SourceLoc::current());

struct AttentionConfig {
  /// Q, K, V and O: bf16 or f16 (lse is f32).
  DType dtype = DType::BF16;
  int headDim = 64;
  /// Queries per program and keys per step (powers of two, blockM a
  /// multiple of blockN).
  int blockM = 128, blockN = 64;
  int numWarps = 4;
  /// Pipelining stages (KernelOptions::numStages; 0: the default, 3).
  int numStages = 0;
  /// attentionBwdDkDvKernel only: also write dS (the store-dS variant of
  /// the backward, for attentionBwdDqFromDsKernel).
  bool storeDs = false;
  /// The backward with dQ accumulated by the dK/dV kernel
  /// (FlashAttention-2's atomics, 5 products instead of the separate dQ
  /// kernel's 7): attentionBwdPreprocessKernel also zeroes `dq_acc` (f32,
  /// [batch * heads, seq, headDim], contiguous), attentionBwdDkDvKernel
  /// adds each block's dS K into it (f32 atomic adds; dQ^T = K^T dS^T, so
  /// that on sm_90a wgmma reads K^T in place and dS^T staged through
  /// shared memory), and attentionBwdDqConvertKernel writes dq = scale *
  /// dq_acc in `dtype`. The order of the adds varies from run to run: dQ
  /// is not bitwise deterministic.
  bool dqAtomic = false;
  /// attentionBwdDkDvKernel with dqAtomic and descriptors: `dq_acc` is a
  /// 3-D f32 tensor descriptor ([batch * heads, seq, headDim], block [1,
  /// blockM, headDim]) and each step's dQ block is added by one TMA
  /// reduce-add from shared memory (Kernel::descriptorAtomicAdd) instead
  /// of per-element atomics.
  bool dqReduce = false;
  /// attentionKernel only: q, k and v are 4-D tensor descriptors ([batch,
  /// heads, seq, headDim] with any strides, the last 1) instead of pointers
  /// and strides. On sm_90 their blocks come by TMA; on sm_90a Q is read
  /// by both products' wgmma from shared memory and a producer warpgroup
  /// keeps K and V coming (tile-lower-descriptors). Needs sm_90 or later.
  bool descriptors = false;
  /// attentionKernel with descriptors only: each step issues S = Q K_n^T
  /// and the previous block's P V back to back and runs the softmax of S
  /// beside P V (FlashAttention-3's overlap within a warpgroup); the loops
  /// carry P, and one more (masked) step adds the last block's P V.
  bool overlapSoftmax = false;
  /// With overlapSoftmax: FlashAttention-3's order within the step. The
  /// loops carry P in f32 and its rescale factor; each step rescales O and
  /// converts P before it issues the products, so that nothing of the
  /// softmax waits for P V's group (ptxas then keeps that wait after the
  /// exponentials at 232 registers, with 132 bytes of spills at head_dim
  /// 128 and 128 keys a step). Off by default until measured on the GPU:
  /// the default carries P in the 16-bit dtype and rescales O after the
  /// softmax, as measured in the eleventh session.
  bool rescaleFirst = false;
  /// attentionKernel with descriptors on 8 warps: the two consumer
  /// warpgroups take turns issuing their steps' products
  /// (KernelOptions::pingpong), so that one's softmax runs while the
  /// other's wgmma do; with overlapSoftmax, FlashAttention-3's schedule.
  bool pingpong = false;
  int ptrDivisibility = 16;
  /// Divisibility hint of the strides.
  int strideDivisibility = 16;
};
/// Flash attention forward (examples/attention.tile, any head_dim):
/// torch.nn.functional.scaled_dot_product_attention(q, k, v,
/// is_causal=causal, scale=scale, enable_gqa=True) for [batch, heads, seq,
/// headDim] q and o and [batch, heads / group, seq, headDim] k and v (the
/// last dim contiguous, the others strided), and lse = logsumexp of the
/// scaled scores over the visible keys ([batch, heads, seq], contiguous).
/// PyTorch's default scale is 1 / sqrt(headDim). Online softmax in f32
/// with exp2, both products on tensor cores, P in `dtype`. Parameters: q,
/// k, v, o, lse, batch, seq, heads, group, then (batch, head, seq) strides
/// of q, k, v, o, then scale (f32) and causal (i1). With
/// `config.descriptors`: q, k, v (4-D tensor descriptors of blocks [1, 1,
/// blockM or blockN, headDim]), o, lse, batch, seq, heads, group, the
/// strides of o, scale, causal. Grid (its tile.grid): (cdiv(seq, blockM),
/// batch * heads); batch is read by the grid and shapes only. The kernel
/// declares its tensors' shapes, o and lse as outputs and where its
/// integers come from (tile.from: q's sizes, group = q.size(1) /
/// k.size(1), the tensors' strides), so that a binding given tensors takes
/// only q, k, v, scale and causal (PyTorch: `name(q, k, v, scale, causal)
/// -> (o, lse)`, docs/pytorch.md).
Kernel attentionKernel(std::string name, const AttentionConfig &config,
                       SourceLoc loc = SourceLoc::current());

/// Flash attention backward (FlashAttention-2), three kernels run in order,
/// for the forward of attentionKernel with the same config (dtype, headDim;
/// the blocks may differ) and its saved lse. P is recomputed block by block
/// from lse; nothing of size seq x seq is stored. Shapes and strides as the
/// forward's: q, o, do, dq are [batch, heads, seq, headDim], k, v, dk, dv
/// [batch, heads / group, seq, headDim] (last dim contiguous), lse and delta
/// [batch, heads, seq] contiguous f32. Each kernel declares these shapes,
/// its integers' sources (tile.from) and its grid (tile.grid), as the
/// forward does: bindings given tensors (PyTorch) pass the tensors alone.
///
/// 1. delta = rowsum(dO * O) in f32. Parameters: o, do, delta, batch, seq,
///    heads, (batch, head, seq) strides of o and do. Grid: (cdiv(seq,
///    blockM), batch * heads).
Kernel attentionBwdPreprocessKernel(std::string name,
                                    const AttentionConfig &config,
                                    SourceLoc loc = SourceLoc::current());
/// 2. dK and dV: one program per blockN keys of one K/V head; it loops over
///    the `group` query heads that read that head (so GQA's sum over the
///    group needs no atomics) and their blocks of blockM queries (causal:
///    from the block of its first key). Parameters: q, k, v, do, lse, delta,
///    dk, dv, batch, seq, heads, group, strides of q, k, v, do, dk, dv,
///    scale (f32), causal (i1). Grid: (cdiv(seq, blockN), batch * (heads /
///    group)).
Kernel attentionBwdDkDvKernel(std::string name, const AttentionConfig &config,
                              SourceLoc loc = SourceLoc::current());
/// With config.dqAtomic the preprocess kernel takes `dq_acc` after delta
/// (zeroed by it), the dK/dV kernel takes it after dv (and adds dQ into
/// it), and instead of 3. this writes dq: one program per blockM queries of
/// one head. Parameters: dq_acc, dq, batch, seq, heads, (batch, head, seq)
/// strides of dq, scale. Grid: (cdiv(seq, blockM), batch * heads).
Kernel attentionBwdDqConvertKernel(std::string name,
                                   const AttentionConfig &config,
                                   SourceLoc loc = SourceLoc::current());
/// 3. dQ: one program per blockM queries of one head, looping over the K/V
///    blocks (causal: up to its last query). Parameters: q, k, v, do, lse,
///    delta, dq, batch, seq, heads, group, strides of q, k, v, do, dq, scale,
///    causal. Grid: (cdiv(seq, blockM), batch * heads).
Kernel attentionBwdDqKernel(std::string name, const AttentionConfig &config,
                            SourceLoc loc = SourceLoc::current());
/// The store-dS variant (the rematerialization trade-off's other side):
/// with config.storeDs the dK/dV kernel takes one more pointer after dv,
/// ds, [batch * heads, seq, seq] in `dtype`, contiguous, and writes dS
/// (unscaled; zeros where not visible; blocks past the causal diagonal
/// unwritten); then dQ = scale * dS K is this matmul, which recomputes
/// nothing; both take the same config (blockM: their query blocks must be
/// the same for the causal blocks written to be the ones read). dS in bf16
/// is seq^2 x batch x heads x 2 bytes: 4.3 GB at B4 H32 S4096.
/// Parameters: k, ds, dq, batch, seq, heads, group, strides of k and dq,
/// scale, causal. Grid: (cdiv(seq, blockM), batch * heads).
Kernel attentionBwdDqFromDsKernel(std::string name,
                                  const AttentionConfig &config,
                                  SourceLoc loc = SourceLoc::current());

/// A tensor as PyTorch describes it: element type, sizes and strides in
/// elements (empty strides: contiguous, row-major).
struct TensorSpec {
  DType dtype = DType::BF16;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

struct SdpaOptions {
  /// is_causal: key j visible to query i when j <= i (top-left).
  bool causal = false;
  /// Absent: PyTorch's default, 1 / sqrt(head_dim).
  std::optional<double> scale;
  /// The kernels read q, k, v and do through tensor descriptors
  /// (AttentionConfig::descriptors: TMA and warp-specialized wgmma on
  /// sm_90a, the fast path there; sm_90 or later): a launch passes them as
  /// 4-D descriptors of the tensors with their strides (the runtime's
  /// tensorDesc) instead of pointers and strides.
  bool descriptors = false;
};

/// The (batch, head, seq) strides of a [batch, heads, seq, head_dim]
/// tensor, as the attention kernels take them (i32 scalars).
struct AttentionStrides {
  int32_t batch, head, seq;
};

/// scaled_dot_product_attention's kernels and how to launch them: the
/// forward (attentionKernel) and the three backward kernels, their grids,
/// and the scalar parameters that follow the pointers. The outputs o, lse,
/// delta and the gradients are the caller's buffers: o, do and dq are
/// contiguous [batch, heads, seq, head_dim], dk and dv contiguous [batch,
/// kvHeads, seq, head_dim], lse and delta [batch * heads, seq] f32.
struct SdpaPlan {
  int64_t batch, heads, kvHeads, seq, headDim;
  bool causal;
  float scale;
  /// SdpaOptions::descriptors: the kernels take q, k, v (and do) as
  /// tensor descriptors, not pointers and strides.
  bool descriptors;
  AttentionConfig forwardConfig, preprocessConfig, dkdvConfig, dqConfig;
  Kernel forward, backwardPreprocess, backwardDkDv, backwardDq;
  /// The grids (x, y) of the four kernels.
  std::array<int64_t, 2> forwardGrid, preprocessGrid, dkdvGrid, dqGrid;
  /// q, k and v as given; o (= do = dq) and dk (= dv) contiguous.
  AttentionStrides q, k, v, o, dk;
};

/// torch.nn.functional.scaled_dot_product_attention(q, k, v,
/// is_causal=options.causal, scale=options.scale, enable_gqa=True), forward
/// and backward, for q of [batch, heads, seq, head_dim] and k, v of [batch,
/// kvHeads, seq, head_dim] with any strides whose last is 1: checks the
/// shapes (head_dim 16..256, a power of two; heads a multiple of kvHeads;
/// k's and v's seq equal to q's, the one seq the kernels take), dtypes (all
/// bf16 or all f16) and strides (i32, the kernels' index type; with
/// descriptors also multiples of 16 bytes, the TMA's rule, and head_dim at
/// most 128), and builds the kernels named `name`_fwd, _bwd_pre, _bwd_dkdv,
/// _bwd_dq. Errors name the tensor and dimension, at the caller's line.
SdpaPlan scaled_dot_product_attention(const TensorSpec &q, const TensorSpec &k,
                                      const TensorSpec &v,
                                      const SdpaOptions &options = {},
                                      std::string name = "sdpa",
                                      SourceLoc loc = SourceLoc::current());

} // namespace tilec::ops

#endif // TILEC_OPS_H
