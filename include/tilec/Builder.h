//===- Builder.h - build tile kernels from C++ ------------------*- C++ -*-===//
//
// The C++ embedding of the tile language: a Kernel builds one tile kernel
// (a `func.func` with `tile.kernel`) through Values with value semantics,
// operators and functions that read like Triton. C++ is the meta-language:
// block sizes, dtypes and variants are ordinary C++ values.
//
//   tilec::Kernel k("coscos");
//   auto x = k.pointer("x", tilec::f32, 16);
//   auto y = k.pointer("y", tilec::f32, 16);
//   auto n = k.scalar("n", tilec::i32);
//   auto offs = k.programId(0) * 1024 + k.range(1024);
//   k.store(y + offs, cos(cos(k.load(x + offs, offs < n))), offs < n);
//   tilec::CompileResult r = k.compile(); // needs "tilec/Pipeline.h"
//
// Errors: every misuse throws tilec::BuildError carrying the user's call site
// (std::source_location, also the MLIR location of the ops built there), the
// API entry that failed and the shapes and dtypes involved. A kernel that
// threw is unusable afterwards: later calls throw again; nothing invalid
// reaches a pass. docs/builder.md is the tutorial.
//
// This header includes no MLIR header: the IR lives behind KernelImpl.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_BUILDER_H
#define TILEC_BUILDER_H

#include "tilec/DType.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tilec {

// Pipeline.h defines these; include it to call Kernel::compile.
struct PipelineOptions;
struct CompileResult;

namespace detail {
struct KernelImpl;
struct Access;
} // namespace detail

using SourceLoc = std::source_location;

//===----------------------------------------------------------------------===//
// Errors and call sites
//===----------------------------------------------------------------------===//

/// A misuse of the builder, a verifier diagnostic or a pipeline failure, at
/// the user's source line. what() is "file:line:col: op: message".
class BuildError : public std::runtime_error {
public:
  BuildError(std::string file, unsigned line, unsigned column, std::string op,
             std::string message);
  const std::string &file() const { return file_; }
  unsigned line() const { return line_; }
  unsigned column() const { return column_; }
  /// The API entry that failed ("tile.dot", "operator+", "softmax", ...).
  const std::string &op() const { return op_; }
  /// The message without location and op.
  const std::string &message() const { return message_; }

private:
  std::string file_;
  unsigned line_, column_;
  std::string op_, message_;
};

/// Makes a composite function report its caller's line: while a CallSite is
/// alive on this thread, every op built (and every error raised) takes its
/// location, naming `name` as the op. Nested CallSites defer to the outermost,
/// so `softmax` built from `max`, `exp` and `sum` reports the user's line.
///
///   Value myNorm(Value x, tilec::SourceLoc loc = tilec::SourceLoc::current())
///   {
///     tilec::CallSite site("myNorm", loc);
///     return x / sqrt(x * x + 1);   // ops located at the caller's line
///   }
class CallSite {
public:
  explicit CallSite(std::string_view name,
                    SourceLoc loc = SourceLoc::current());
  ~CallSite();
  CallSite(const CallSite &) = delete;
  CallSite &operator=(const CallSite &) = delete;

  /// Lifts the active CallSite while user code runs inside a composite (a
  /// kernel generator calling the user's body), so that code reports its own
  /// lines.
  class Suspend {
  public:
    Suspend();
    ~Suspend();
    Suspend(const Suspend &) = delete;
    Suspend &operator=(const Suspend &) = delete;

  private:
    const CallSite *saved_;
  };

  std::string_view name() const { return name_; }
  const SourceLoc &loc() const { return loc_; }

private:
  std::string name_;
  SourceLoc loc_;
  bool owner_;
};

/// Throws a BuildError for `op` at `loc`, or at the active CallSite's
/// location (naming it) when one is active: how composite functions report
/// misuse before they build anything.
[[noreturn]] void buildError(std::string_view op, const std::string &message,
                             SourceLoc loc = SourceLoc::current());

class Kernel;
struct Padding;
class Operand;

//===----------------------------------------------------------------------===//
// Value
//===----------------------------------------------------------------------===//

/// A scalar or a tile (a statically shaped block of elements) of a kernel
/// under construction; a cheap handle, copied freely. Its element type is a
/// DType or a pointer to one.
///
/// Padding: a tile read with a mask remembers the mask; lanes where it is
/// false are *padding*, not part of the logical tensor. Elementwise ops carry
/// the padding along; the reductions of tilec::ops (sum, max, mean, softmax,
/// layer_norm, ...) exclude it. Kernel::reduce sees every lane, as Triton's
/// tl.reduce does.
class Value {
public:
  Value() = default;

  /// True for a default-constructed Value.
  bool isNull() const { return !value_; }
  /// The kernel this value belongs to.
  Kernel kernel(SourceLoc loc = SourceLoc::current()) const;
  /// The tile's shape; {} for a scalar.
  std::vector<int64_t> shape(SourceLoc loc = SourceLoc::current()) const;
  int64_t rank(SourceLoc loc = SourceLoc::current()) const;
  /// The element type; for pointers, the pointee type.
  DType dtype(SourceLoc loc = SourceLoc::current()) const;
  bool isPointer(SourceLoc loc = SourceLoc::current()) const;
  /// The type as errors spell it: "128x64xf32", "i32", "128x!tile.ptr<f16>".
  std::string typeStr(SourceLoc loc = SourceLoc::current()) const;
  /// Identity (operator== builds a comparison).
  bool sameAs(const Value &other) const { return value_ == other.value_; }

  /// Elementwise conversion, as PyTorch's Tensor.to(dtype): float<->float
  /// rounds to nearest, float->int truncates, anything->i1 tests != 0, i1->x
  /// gives 0 or 1.
  Value to(DType type, SourceLoc loc = SourceLoc::current()) const;
  /// Reinterprets the bits (same width), or retypes pointers.
  Value bitcast(DType type, SourceLoc loc = SourceLoc::current()) const;
  /// Inserts a unit dimension at `axis` (negative counts from the end).
  Value expandDims(int axis, SourceLoc loc = SourceLoc::current()) const;
  /// Repeats the tile to `shape` under NumPy rules (a scalar is splat).
  Value broadcastTo(const std::vector<int64_t> &shape,
                    SourceLoc loc = SourceLoc::current()) const;
  /// Same elements in row-major order, another shape.
  Value reshape(const std::vector<int64_t> &shape,
                SourceLoc loc = SourceLoc::current()) const;
  /// Permutes dimensions: result dimension i is source dimension order[i];
  /// an empty order reverses them.
  Value trans(const std::vector<int> &order = {},
              SourceLoc loc = SourceLoc::current()) const;

  /// The padding masks (see the class comment); their conjunction is true on
  /// the lanes that belong to the tensor.
  std::vector<Padding> padding(SourceLoc loc = SourceLoc::current()) const;
  bool hasPadding() const { return !pads_.empty(); }
  /// This value with lanes where `valid` is false marked as padding.
  /// `valid` is an i1 tile broadcastable to this value. `count`, optional, is
  /// the number of valid lanes along the one axis `valid` varies on; means
  /// use it instead of counting the mask.
  Value maskedBy(const Value &valid, const Value &count,
                 SourceLoc loc = SourceLoc::current()) const;
  Value maskedBy(const Value &valid,
                 SourceLoc loc = SourceLoc::current()) const;
  /// This value with every lane part of the tensor.
  Value withoutPadding() const;

private:
  friend struct detail::Access;
  std::shared_ptr<detail::KernelImpl> kernel_;
  const void *value_ = nullptr;
  /// Padding masks: (mask, count) handles; see Value::maskedBy.
  std::vector<std::pair<const void *, const void *>> pads_;
};

/// One padding mask of a Value: lanes where `valid` is false are padding;
/// `count` (may be null) is the number of valid lanes along the axis `valid`
/// varies on.
struct Padding {
  Value valid;
  Value count;
};

/// An operand that may be a Value or a C++ number. Numbers are *weak*, as
/// Python scalars in PyTorch: `x * 2` keeps x's dtype; a float number with an
/// integer tile gives f32.
class Operand {
public:
  Operand(const Value &value, SourceLoc loc = SourceLoc::current())
      : kind_(Kind::Value), value_(value), loc_(loc) {}
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Operand(T number, SourceLoc loc = SourceLoc::current()) : loc_(loc) {
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::Bool;
      int_ = number;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::Float;
      float_ = static_cast<double>(number);
    } else if constexpr (std::is_unsigned_v<T>) {
      kind_ = Kind::Unsigned;
      uint_ = static_cast<uint64_t>(number);
    } else {
      kind_ = Kind::Int;
      int_ = static_cast<int64_t>(number);
    }
  }

  enum class Kind { Value, Bool, Int, Unsigned, Float };
  Kind kind() const { return kind_; }
  const Value &value() const { return value_; }
  int64_t intValue() const { return int_; }
  uint64_t unsignedValue() const { return uint_; }
  double floatValue() const { return float_; }
  const SourceLoc &loc() const { return loc_; }

private:
  Kind kind_;
  Value value_;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double float_ = 0;
  SourceLoc loc_;
};

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

struct KernelOptions {
  /// Warps per program (`tile.num_warps`): any count in [1, 32]; 0 sets
  /// none, so the layout pass chooses (docs/pipeline.md, "Layouts of any
  /// shape": 4 for a 3072-wide bf16 row of 16-byte vectors).
  int numWarps = 4;
  /// `tile.approx_math`: erf in ten instructions, absolute error under
  /// 5e-7 (Support/ApproxErf.h), for outputs in bf16/f16 or that tolerate it.
  bool approxMath = false;
  /// `tile.num_stages`: software-pipelining stages of the kernel's loops
  /// (1: none), in [1, 8]; 0 sets none, so the pipeline's default (3)
  /// applies. Fewer stages, less shared memory.
  int numStages = 0;
  /// `tile.pingpong`: a warp-specialized kernel's two consumer warpgroups
  /// take turns issuing their loops' products (8 warps, sm_90a;
  /// docs/pipeline.md, "Tensor descriptors").
  bool pingpong = false;
  /// `tile.num_ctas`: programs per thread-block cluster along the grid's x
  /// axis (1, 2 or 4; sm_90): the launch's x must be a multiple of it, and
  /// a warp-specialized TMA ring's blocks that every program of a cluster
  /// loads alike are multicast (docs/pipeline.md, "Clusters").
  int numCtas = 1;
};

/// PTX cache operators and eviction hints of loads and stores.
enum class Cache { none, ca, cg, cs, cv, wb, wt };
enum class Evict { normal, evictFirst, evictLast };
struct LoadOptions {
  Cache cache = Cache::none;
  Evict evict = Evict::normal;
  bool isVolatile = false;
};
struct StoreOptions {
  Cache cache = Cache::none;
  Evict evict = Evict::normal;
};

/// Read-modify-write of Kernel::atomic. `add` on floats is a float add;
/// `umax`/`umin` compare as unsigned.
enum class AtomicKind {
  add,
  max,
  min,
  umax,
  umin,
  bitAnd,
  bitOr,
  bitXor,
  xchg
};
enum class MemSem { relaxed, acquire, release, acqRel };
enum class MemScope { cta, gpu, sys };
struct AtomicOptions {
  MemSem sem = MemSem::acqRel;
  MemScope scope = MemScope::gpu;
};

/// How a dot of f32 operands uses the tensor cores (tile.dot's precision).
enum class Precision { ieee, tf32, tf32x3 };

/// Built-in combiners of Kernel::reduce and Kernel::scan. `max`/`min` on
/// floats ignore NaN (maxnumf), as Triton's tl.max does.
enum class Combine { sum, prod, max, min, bitAnd, bitOr, bitXor };

/// A kernel parameter as the metadata describes it.
struct ParamInfo {
  std::string name;
  bool isPointer;
  DType dtype; ///< the pointee type for pointers, element type of descriptors
  int divisibility;
  /// A tensor descriptor's block shape (outermost first); empty for others.
  std::vector<int64_t> block = {};
};

/// How Kernel::str prints the module.
struct PrintOptions {
  /// `%x` instead of `%arg0` for parameters.
  bool paramNames = true;
  /// Print each op's location (the C++ line that built it).
  bool locations = false;
};

/// A tile kernel under construction. A handle: copies refer to the same
/// kernel. Ops are appended in program order at the current insertion point
/// (the kernel body, or the body of a loop, if or combiner being built).
class Kernel {
public:
  /// A new kernel named `name` (a C identifier: the PTX entry's name).
  explicit Kernel(std::string name, KernelOptions options = {},
                  SourceLoc loc = SourceLoc::current());

  const std::string &name() const;
  int numWarps() const;
  std::vector<ParamInfo> params() const;

  //--- Parameters, appended in call order ----------------------------------

  /// A `!tile.ptr<pointee>` parameter; `divisibility` promises the address
  /// in bytes is a multiple of it (the runtime checks at launch).
  Value pointer(std::string name, DType pointee, int divisibility = 1,
                SourceLoc loc = SourceLoc::current());
  /// A scalar parameter of type i1, i32, i64, f16, bf16 or f32;
  /// `divisibility` (integers only) promises a multiple of it.
  Value scalar(std::string name, DType type, int divisibility = 1,
               SourceLoc loc = SourceLoc::current());
  /// The launch grid's rule (`tile.grid`, docs/dialect.md): 1 to 3
  /// expressions (x, y, z) over the integer parameters declared so far,
  /// e.g. `k.setGrid({"cdiv(n, 1024)"})`; checked here (a BuildError at the
  /// call). Written into the metadata, so the runtime and the PyTorch
  /// operators launch without a grid.
  void setGrid(const std::vector<std::string> &dims,
               SourceLoc loc = SourceLoc::current());

  /// Marks pointer parameter `pointer` written by the kernel
  /// (`tile.output`): PyTorch's operator declares it mutated, and one whose
  /// shape is known (setShape) is allocated and returned by the operator
  /// (docs/pytorch.md). A BuildError at the call for anything but a
  /// pointer parameter of this kernel.
  void markOutput(const Value &pointer, SourceLoc loc = SourceLoc::current());
  /// The sizes of the dense tensor pointer or descriptor parameter `param`
  /// addresses (`tile.shape`), outermost first: expressions over the
  /// integer parameters declared so far, as in setGrid, e.g.
  /// `k.setShape(c, {"M", "N"})`. A descriptor's rank must match. Bindings
  /// with sized tensors check it (PyTorch, DLPack, the runtime's
  /// descriptors); a pointer's extent is the sizes' product.
  void setShape(const Value &param, const std::vector<std::string> &sizes,
                SourceLoc loc = SourceLoc::current());

  /// Where bindings that are given tensors take integer scalar parameter
  /// `scalar` from (`tile.from`): `"a.size(0)"`, `"c.stride(0)"` (in
  /// elements) or `"x.numel()"` of a pointer or descriptor parameter
  /// declared so far (a negative dimension counts from the last).
  /// PyTorch's operator then computes it instead of taking it, and a
  /// pointer whose strides it takes need only be dense in its other
  /// dimensions (docs/pytorch.md). A BuildError at the call for anything
  /// else.
  void setFrom(const Value &scalar, const std::string &source,
               SourceLoc loc = SourceLoc::current());

  /// A `!tile.tensordesc<tensor<block x element>>` parameter: a tensor in
  /// global memory read and written one block at a time (descriptorLoad,
  /// descriptorStore), given at launch as the runtime's TensorDescArg. The
  /// block has 1 to 5 dimensions of 1 to 256 elements, the innermost
  /// spanning a multiple of 16 bytes.
  Value tensorDesc(std::string name, DType element,
                   const std::vector<int64_t> &block,
                   SourceLoc loc = SourceLoc::current());

  //--- Program identity and constants --------------------------------------

  /// This program's index along grid axis 0, 1 or 2 (i32).
  Value programId(int axis, SourceLoc loc = SourceLoc::current());
  /// The number of programs along grid axis 0, 1 or 2 (i32).
  Value numPrograms(int axis, SourceLoc loc = SourceLoc::current());
  /// The i32 tile [0, 1, ..., size - 1].
  Value range(int64_t size, SourceLoc loc = SourceLoc::current());
  /// The i32 tile [start, ..., end - 1].
  Value range(int64_t start, int64_t end, SourceLoc loc = SourceLoc::current());
  /// A scalar constant of type `type`.
  Value constant(const Operand &value, DType type,
                 SourceLoc loc = SourceLoc::current());
  /// A tile of `shape` whose elements are all `value` (a number or scalar).
  Value full(const std::vector<int64_t> &shape, const Operand &value,
             DType type, SourceLoc loc = SourceLoc::current());
  Value zeros(const std::vector<int64_t> &shape, DType type,
              SourceLoc loc = SourceLoc::current());

  //--- Memory ---------------------------------------------------------------

  /// Loads through a pointer or a tile of pointers. Where `mask` is false
  /// nothing is read and the lane is `other` (undefined without it) and
  /// padding (see Value). ptr, mask and other broadcast together; a number
  /// `other` takes the pointee type.
  Value load(const Value &ptr, const std::optional<Value> &mask = {},
             const std::optional<Operand> &other = {},
             const LoadOptions &options = {},
             SourceLoc loc = SourceLoc::current());
  /// Stores `value` (broadcast to the pointers and converted to the pointee
  /// type within its kind: float to float, integer to integer) where `mask`
  /// holds.
  void store(const Value &ptr, const Operand &value,
             const std::optional<Value> &mask = {},
             const StoreOptions &options = {},
             SourceLoc loc = SourceLoc::current());
  /// The block of descriptor `desc` at `offsets` (i32 scalars or numbers,
  /// elements, outermost first); elements outside the tensor read as 0.
  /// A block of more than two dims loads without its leading dims of 1 (a
  /// [1, 1, 64, 128] block of a [batch, heads, seq, dim] tensor is a 64x128
  /// tile), and descriptorStore takes it so.
  Value descriptorLoad(const Value &desc, const std::vector<Operand> &offsets,
                       SourceLoc loc = SourceLoc::current());
  /// Writes `value` (the block's shape, converted to its element type within
  /// its kind) to the block at `offsets`; elements outside are dropped.
  void descriptorStore(const Value &desc, const std::vector<Operand> &offsets,
                       const Operand &value,
                       SourceLoc loc = SourceLoc::current());
  /// Adds `value` into the block at `offsets`, atomically per element (the
  /// TMA's reduction, Triton's `desc.atomic_add`; elements outside are
  /// dropped): descriptors of f32, f16, bf16 or i32.
  void descriptorAtomicAdd(const Value &desc,
                           const std::vector<Operand> &offsets,
                           const Operand &value,
                           SourceLoc loc = SourceLoc::current());
  /// Atomic read-modify-write; returns the old values.
  Value atomic(AtomicKind kind, const Value &ptr, const Operand &value,
               const std::optional<Value> &mask = {},
               const AtomicOptions &options = {},
               SourceLoc loc = SourceLoc::current());
  Value atomicAdd(const Value &ptr, const Operand &value,
                  const std::optional<Value> &mask = {},
                  const AtomicOptions &options = {},
                  SourceLoc loc = SourceLoc::current());
  Value atomicMax(const Value &ptr, const Operand &value,
                  const std::optional<Value> &mask = {},
                  const AtomicOptions &options = {},
                  SourceLoc loc = SourceLoc::current());
  Value atomicMin(const Value &ptr, const Operand &value,
                  const std::optional<Value> &mask = {},
                  const AtomicOptions &options = {},
                  SourceLoc loc = SourceLoc::current());
  Value atomicXchg(const Value &ptr, const Operand &value,
                   const std::optional<Value> &mask = {},
                   const AtomicOptions &options = {},
                   SourceLoc loc = SourceLoc::current());
  /// `old = *ptr; if (old == cmp) *ptr = value; return old`, elementwise.
  Value atomicCAS(const Value &ptr, const Operand &cmp, const Operand &value,
                  const AtomicOptions &options = {},
                  SourceLoc loc = SourceLoc::current());

  //--- Dot, reductions, scans -----------------------------------------------

  /// `a * b + acc` for an MxK tile `a` and a KxN tile `b`; without `acc` it
  /// starts from zeros of f32 (i32 for i8 operands).
  Value dot(const Value &a, const Value &b,
            const std::optional<Value> &acc = {},
            Precision precision = Precision::tf32,
            SourceLoc loc = SourceLoc::current());

  /// Reduces `x` along `axis` (negative counts from the end); a 1-D tile
  /// reduces to a scalar unless keepDims. Every lane takes part (padding
  /// too).
  Value reduce(const Value &x, int axis, Combine combine, bool keepDims = false,
               SourceLoc loc = SourceLoc::current());
  /// Same with a combiner written in C++: it receives two scalars (the
  /// accumulated value, a new value) and returns their combination. It must
  /// be associative and commutative and may use only its arguments and
  /// numbers.
  Value reduce(const Value &x, int axis,
               const std::function<Value(Value, Value)> &combiner,
               bool keepDims = false, SourceLoc loc = SourceLoc::current());
  /// Reduces several tiles of one shape together (value and index for an
  /// argmax): the combiner takes the accumulated scalars, then the new ones.
  std::vector<Value>
  reduce(const std::vector<Value> &xs, int axis,
         const std::function<std::vector<Value>(std::vector<Value>,
                                                std::vector<Value>)> &combiner,
         bool keepDims = false, SourceLoc loc = SourceLoc::current());

  /// Inclusive prefix scan along `axis` (from the end with `reverse`).
  Value scan(const Value &x, int axis, Combine combine, bool reverse = false,
             SourceLoc loc = SourceLoc::current());
  Value scan(const Value &x, int axis,
             const std::function<Value(Value, Value)> &combiner,
             bool reverse = false, SourceLoc loc = SourceLoc::current());
  std::vector<Value>
  scan(const std::vector<Value> &xs, int axis,
       const std::function<std::vector<Value>(std::vector<Value>,
                                              std::vector<Value>)> &combiner,
       bool reverse = false, SourceLoc loc = SourceLoc::current());

  //--- Control flow (scf) ---------------------------------------------------

  /// `for (iv = lo; iv < hi; iv += step) body(iv)`; bounds are integers
  /// (i32, or i64 if one is), `step` positive.
  void forLoop(const Operand &lo, const Operand &hi, const Operand &step,
               const std::function<void(Value)> &body,
               SourceLoc loc = SourceLoc::current());
  /// A loop carrying one value: body(iv, carried) returns the next one; the
  /// last is returned.
  Value forLoop(const Operand &lo, const Operand &hi, const Operand &step,
                const Value &init,
                const std::function<Value(Value, Value)> &body,
                SourceLoc loc = SourceLoc::current());
  /// A loop carrying several values.
  std::vector<Value> forLoop(
      const Operand &lo, const Operand &hi, const Operand &step,
      const std::vector<Value> &init,
      const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
      SourceLoc loc = SourceLoc::current());
  /// `while (cond(carried)) carried = body(carried)`; returns the last
  /// carried values. `cond` returns a scalar i1.
  std::vector<Value>
  whileLoop(const std::vector<Value> &init,
            const std::function<Value(std::vector<Value>)> &cond,
            const std::function<std::vector<Value>(std::vector<Value>)> &body,
            SourceLoc loc = SourceLoc::current());
  /// `if (cond) then()`; `cond` is a scalar i1 (for tiles, use where()).
  void ifThen(const Value &cond, const std::function<void()> &then,
              SourceLoc loc = SourceLoc::current());
  /// `if (cond) then() else otherwise()`. The branches return nothing, a
  /// Value or a std::vector<Value> (both the same types); so does this.
  template <typename Then, typename Else>
  auto ifThenElse(const Value &cond, Then &&then, Else &&otherwise,
                  SourceLoc loc = SourceLoc::current()) {
    using R = std::invoke_result_t<Then &>;
    if constexpr (std::is_void_v<R>) {
      ifImpl(
          cond,
          [&] {
            then();
            return std::vector<Value>{};
          },
          [&] {
            otherwise();
            return std::vector<Value>{};
          },
          loc);
    } else if constexpr (std::is_same_v<std::decay_t<R>, Value>) {
      return ifImpl(
          cond, [&] { return std::vector<Value>{then()}; },
          [&] { return std::vector<Value>{otherwise()}; }, loc)[0];
    } else {
      static_assert(std::is_same_v<std::decay_t<R>, std::vector<Value>>,
                    "ifThenElse branches return void, Value or "
                    "std::vector<Value>");
      return ifImpl(
          cond, [&] { return std::vector<Value>(then()); },
          [&] { return std::vector<Value>(otherwise()); }, loc);
    }
  }

  //--- Debugging ------------------------------------------------------------

  /// Prints `prefix` and the values from every program (tile.print).
  void print(std::string_view prefix, const std::vector<Value> &args = {},
             bool hex = false, SourceLoc loc = SourceLoc::current());
  /// Stops the kernel with `message` where `cond` is false (tile.assert).
  void deviceAssert(const Value &cond, std::string_view message,
                    SourceLoc loc = SourceLoc::current());

  //--- Results ----------------------------------------------------------------

  /// The module as text `tilec` and `tile-opt` read. Verifies first.
  std::string str(const PrintOptions &options = {},
                  SourceLoc loc = SourceLoc::current()) const;
  /// The verified module (owned by the kernel; valid while it lives).
  mlir::ModuleOp module(SourceLoc loc = SourceLoc::current()) const;
  /// Runs tilec's pipeline (tilec::compileModule) on a copy of the module
  /// with the default options: tile IR today, PTX and metadata once the
  /// backend provides them. Needs "tilec/Pipeline.h".
  CompileResult compile(SourceLoc loc = SourceLoc::current()) const;
  CompileResult compile(const PipelineOptions &options,
                        SourceLoc loc = SourceLoc::current()) const;

private:
  friend struct detail::Access;
  explicit Kernel(std::shared_ptr<detail::KernelImpl> impl)
      : impl_(std::move(impl)) {}
  std::vector<Value>
  ifImpl(const Value &cond, const std::function<std::vector<Value>()> &then,
         const std::function<std::vector<Value>()> &otherwise, SourceLoc loc);

  std::shared_ptr<detail::KernelImpl> impl_;
};

//===----------------------------------------------------------------------===//
// Operators and elementwise functions
//===----------------------------------------------------------------------===//
//
// Operands broadcast under NumPy rules (a scalar splats; expand_dims and
// broadcast are inserted) and promote as in PyTorch: bool < integer < float
// by kind, the wider type within a kind, f16 with bf16 gives f32, and a
// tile's dtype wins over a scalar's of the same kind. `/` and `%` on integers
// are C++'s (truncating); ops::div is true division. Comparisons give i1.
// `ptr + n` offsets pointers by elements (tile.addptr).

Value operator+(const Operand &a, const Operand &b);
Value operator-(const Operand &a, const Operand &b);
Value operator*(const Operand &a, const Operand &b);
Value operator/(const Operand &a, const Operand &b);
Value operator%(const Operand &a, const Operand &b);
Value operator&(const Operand &a, const Operand &b);
Value operator|(const Operand &a, const Operand &b);
Value operator^(const Operand &a, const Operand &b);
Value operator<<(const Operand &a, const Operand &b);
Value operator>>(const Operand &a, const Operand &b);
Value operator==(const Operand &a, const Operand &b);
Value operator!=(const Operand &a, const Operand &b);
Value operator<(const Operand &a, const Operand &b);
Value operator<=(const Operand &a, const Operand &b);
Value operator>(const Operand &a, const Operand &b);
Value operator>=(const Operand &a, const Operand &b);
Value operator-(const Operand &a);
/// Bitwise not of integers, logical not of i1.
Value operator~(const Operand &a);
Value operator!(const Operand &a);
Value &operator+=(Value &a, const Operand &b);
Value &operator-=(Value &a, const Operand &b);
Value &operator*=(Value &a, const Operand &b);
Value &operator/=(Value &a, const Operand &b);

/// Elementwise math. Floats narrower than f32 are computed in f32 and rounded
/// back once (PyTorch's opmath); integers give f32, as in PyTorch.
Value exp(const Value &x, SourceLoc loc = SourceLoc::current());
Value exp2(const Value &x, SourceLoc loc = SourceLoc::current());
/// exp2 whose results below 2^-126 (f32 denormals) may be 0: math.exp2
/// with fastmath<afn>, one ex2.approx.ftz on the GPU instead of ex2.approx
/// and the three instructions around it that keep denormals (softmax's
/// exp2(s - max): attention's probabilities).
Value exp2Ftz(const Value &x, SourceLoc loc = SourceLoc::current());
Value log(const Value &x, SourceLoc loc = SourceLoc::current());
Value log2(const Value &x, SourceLoc loc = SourceLoc::current());
Value log1p(const Value &x, SourceLoc loc = SourceLoc::current());
Value sqrt(const Value &x, SourceLoc loc = SourceLoc::current());
Value rsqrt(const Value &x, SourceLoc loc = SourceLoc::current());
Value sin(const Value &x, SourceLoc loc = SourceLoc::current());
Value cos(const Value &x, SourceLoc loc = SourceLoc::current());
Value tanh(const Value &x, SourceLoc loc = SourceLoc::current());
Value erf(const Value &x, SourceLoc loc = SourceLoc::current());
Value floor(const Value &x, SourceLoc loc = SourceLoc::current());
Value ceil(const Value &x, SourceLoc loc = SourceLoc::current());
/// |x| in x's dtype (integers stay integers).
Value abs(const Value &x, SourceLoc loc = SourceLoc::current());
/// `x ** y` after promotion; an integral number `y` uses math.fpowi.
Value pow(const Operand &x, const Operand &y,
          SourceLoc loc = SourceLoc::current());
/// Elementwise max/min; NaN propagates (torch.maximum).
Value maximum(const Operand &a, const Operand &b,
              SourceLoc loc = SourceLoc::current());
Value minimum(const Operand &a, const Operand &b,
              SourceLoc loc = SourceLoc::current());
/// `a * b + c` rounded once (floats).
Value fma(const Operand &a, const Operand &b, const Operand &c,
          SourceLoc loc = SourceLoc::current());
/// The high 32 (64) bits of the unsigned product of two i32 (i64) operands.
Value umulhi(const Operand &a, const Operand &b,
             SourceLoc loc = SourceLoc::current());
/// `(a + b - 1) / b` on integers.
Value cdiv(const Operand &a, const Operand &b,
           SourceLoc loc = SourceLoc::current());
/// `cond ? a : b` elementwise; `cond` is i1; all three broadcast.
Value where(const Value &cond, const Operand &a, const Operand &b,
            SourceLoc loc = SourceLoc::current());

/// Stacks two tiles of one type along a new minor dimension of size 2.
Value join(const Value &a, const Value &b,
           SourceLoc loc = SourceLoc::current());
/// The inverse of join: splits the minor dimension of size 2.
std::pair<Value, Value> split(const Value &x,
                              SourceLoc loc = SourceLoc::current());
/// The dtype PyTorch's promotion gives when combining `operands` (as
/// torch.result_type); numbers are weak. Needs at least one Value.
DType resultType(const std::vector<Operand> &operands,
                 SourceLoc loc = SourceLoc::current());

/// Broadcasts two values to their common shape (NumPy rules).
std::pair<Value, Value> broadcast(const Value &a, const Value &b,
                                  SourceLoc loc = SourceLoc::current());

} // namespace tilec

#endif // TILEC_BUILDER_H
