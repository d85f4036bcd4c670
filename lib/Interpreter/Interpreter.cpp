//===- Interpreter.cpp - runKernel: checks, buffers and the grid loop -----===//
//
// Before running anything, the kernel and every function it calls are
// checked once: each op must be one the interpreter executes and each value
// of a type it represents, so that an unsupported op is reported at its
// location even on a path the run would not take. Then the arguments are
// checked against the kernel's signature and the programs run in order.
//
//===----------------------------------------------------------------------===//

#include "tilec/Interpreter.h"
#include "Executor.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

/// True for the element types tiles can hold.
static bool isSupportedElementType(Type type) {
  if (auto ptr = dyn_cast<tile::PointerType>(type))
    return dtypeOf(ptr.getPointeeType()).has_value() ||
           isa<tile::PointerType>(ptr.getPointeeType());
  return isa<IndexType>(type) || dtypeOf(type).has_value();
}

static bool isSupportedType(Type type) {
  if (auto desc = dyn_cast<tile::TensorDescType>(type))
    return isSupportedElementType(desc.getElementType());
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.hasStaticShape() &&
           isSupportedElementType(tensor.getElementType());
  return isSupportedElementType(type);
}

/// Tiles larger than this are refused rather than allocated (Triton's limit
/// is 2^20 elements; the GPU path has no use for more).
static constexpr int64_t kMaxTileElements = int64_t(1) << 24;

/// Checks that every op of `func` and of the functions it calls can run.
static LogicalResult checkSupported(func::FuncOp kernel) {
  llvm::SetVector<Operation *> funcs;
  funcs.insert(kernel);
  for (size_t i = 0; i < funcs.size(); ++i) {
    auto func = cast<func::FuncOp>(funcs[i]);
    if (!func.getBody().hasOneBlock())
      return func.emitError()
             << "@" << func.getSymName()
             << " has several blocks; the CPU interpreter runs structured "
                "control flow only";
    // Pre-order, so that a region of several blocks is reported as such
    // rather than through the branch ops inside it.
    WalkResult result = func->walk<WalkOrder::PreOrder>([&](Operation *op)
                                                            -> WalkResult {
      if (op == funcs[i])
        return WalkResult::advance();
      bool isTerminator =
          isa<scf::YieldOp, scf::ConditionOp, func::ReturnOp, tile::YieldOp>(
              op);
      if (!isTerminator && !hasHandler(op)) {
        emitError(op->getLoc())
            << "the CPU interpreter does not support '" << op->getName() << "'";
        return WalkResult::interrupt();
      }
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                op->getResultTypes())) {
        if (!isSupportedType(type)) {
          emitError(op->getLoc())
              << "the CPU interpreter does not support values of type " << type
              << " ('" << op->getName() << "')";
          return WalkResult::interrupt();
        }
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (tensor && tensor.getNumElements() > kMaxTileElements) {
          emitError(op->getLoc())
              << "tile " << type << " has " << tensor.getNumElements()
              << " elements; the CPU interpreter handles at most "
              << kMaxTileElements;
          return WalkResult::interrupt();
        }
      }
      for (Region &region : op->getRegions())
        if (region.getBlocks().size() > 1) {
          emitError(op->getLoc())
              << "'" << op->getName()
              << "' has a region of several blocks; the CPU interpreter "
                 "runs structured control flow only";
          return WalkResult::interrupt();
        }
      if (auto call = dyn_cast<func::CallOp>(op))
        if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                op, call.getCalleeAttr()))
          if (!callee.isExternal())
            funcs.insert(callee);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}

/// True when the kernel or a function it calls has an atomic that programs
/// use to synchronize (a lock or a flag): data it guards may then pass
/// between programs through plain loads and stores.
static bool synchronizesPrograms(func::FuncOp kernel) {
  llvm::SetVector<Operation *> funcs;
  funcs.insert(kernel);
  for (size_t i = 0; i < funcs.size(); ++i) {
    WalkResult result = funcs[i]->walk([&](Operation *op) {
      if (isa<tile::AtomicCASOp>(op))
        return WalkResult::interrupt();
      if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
        if (rmw.getKind() == tile::RMWKind::Xchg)
          return WalkResult::interrupt();
      if (auto call = dyn_cast<func::CallOp>(op))
        if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                op, call.getCalleeAttr()))
          funcs.insert(callee);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

static std::string argName(const Arg &arg, unsigned index) {
  if (!arg.name().empty())
    return "%" + arg.name();
  return "argument " + std::to_string(index);
}

/// A parameter's name as the kernel metadata gives it (lib/Pipeline's
/// collectKernels): the source's SSA name (the name the caller gave the
/// argument, or the argument's NameLoc), else "argN".
static std::string paramName(func::FuncOp kernel, const Arg &arg,
                             unsigned index) {
  if (!arg.name().empty())
    return arg.name();
  if (auto name = dyn_cast<NameLoc>(kernel.getArgument(index).getLoc()))
    return name.getName().str();
  return "arg" + std::to_string(index);
}

/// Binds a tensor descriptor: its buffer, then a tile of the base pointer,
/// the shape and the strides (what DescriptorLoadOp's interpreter reads).
/// The checks are the GPU runtime's (lib/Runtime/TensorDesc.cpp) in its
/// words, so that a kernel the GPU would refuse is refused here too.
static LogicalResult bindTensorDesc(func::FuncOp kernel,
                                    tile::TensorDescType desc, const Arg &arg,
                                    unsigned index, const std::string &name,
                                    Memory &memory,
                                    SmallVectorImpl<TileRef> &tiles) {
  auto fail = [&]() {
    return kernel.emitError()
           << "kernel '" << kernel.getSymName() << "', parameter '"
           << paramName(kernel, arg, index) << "' (#" << index << "): ";
  };
  std::optional<DType> element = dtypeOf(desc.getElementType());
  if (!arg.isTensorDesc() || !element || *element != arg.dtype())
    return fail() << "expects a tensor descriptor of "
                  << desc.getElementType() << " (rank " << desc.getRank()
                  << ") but got "
                  << (arg.isTensorDesc() ? "one of "
                      : arg.isBuffer()   ? "a buffer of "
                                         : "a scalar ")
                  << dtypeName(arg.dtype());
  const std::vector<int64_t> &shape = arg.descShape(),
                             &strides = arg.descStrides();
  int64_t rank = desc.getRank();
  if (int64_t(shape.size()) != rank || strides.size() != shape.size())
    return fail() << "expects a rank-" << rank << " tensor but got rank "
                  << shape.size() << " (strides: " << strides.size() << ")";
  int64_t size = dtypeSize(arg.dtype());
  for (int64_t d = 0; d < rank; ++d) {
    if (shape[d] < 1 || shape[d] > (int64_t(1) << 32))
      return fail() << "shape[" << d << "] is " << shape[d]
                    << ", not in [1, 2^32] (shape is outermost dimension "
                       "first)";
    if (d == rank - 1 && strides[d] != 1)
      return fail() << "strides[" << d << "] is " << strides[d]
                    << ": the innermost dimension must be contiguous (stride "
                       "1; strides are in elements, outermost dimension "
                       "first)";
    if (d < rank - 1 && (strides[d] < 1 || (strides[d] * size) % 16 != 0))
      return fail() << "strides[" << d << "] is " << strides[d]
                    << " elements (" << strides[d] * size
                    << " bytes), not a multiple of 16 bytes";
  }
  if (!arg.data() && arg.count())
    return kernel.emitError()
           << name << " is a null buffer of " << arg.count() << " elements";
  Buffer buffer;
  buffer.name = name;
  buffer.dtype = arg.dtype();
  buffer.data = static_cast<uint8_t *>(arg.data());
  buffer.count = arg.count();
  buffer.bytes = arg.count() * size;
  if (arg.isOutput())
    buffer.written.assign(buffer.bytes, 0);
  auto t = makeTile({1 + 2 * rank}, IntegerType::get(kernel.getContext(), 64));
  t->ints[0] = memory.addBuffer(std::move(buffer));
  llvm::copy(shape, t->ints.begin() + 1);
  llvm::copy(strides, t->ints.begin() + 1 + rank);
  tiles.push_back(std::move(t));
  return success();
}

/// Turns the arguments into tiles (buffers into pointers to them), checking
/// them against the kernel's parameter types.
static LogicalResult bindArguments(func::FuncOp kernel, ArrayRef<Arg> args,
                                   Memory &memory,
                                   SmallVectorImpl<TileRef> &tiles) {
  auto params = kernel.getArgumentTypes();
  if (params.size() != args.size())
    return kernel.emitError()
           << "@" << kernel.getSymName() << " takes " << params.size()
           << " argument" << (params.size() == 1 ? "" : "s") << ", but "
           << args.size() << (args.size() == 1 ? " was" : " were") << " passed";
  for (auto [index, param, arg] : llvm::enumerate(params, args)) {
    std::string name = argName(arg, index);
    if (auto desc = dyn_cast<tile::TensorDescType>(param)) {
      if (failed(bindTensorDesc(kernel, desc, arg, index, name, memory,
                                tiles)))
        return failure();
      continue;
    }
    if (arg.isTensorDesc())
      return kernel.emitError()
             << name << " of @" << kernel.getSymName() << " is " << param
             << ": pass a " << (isa<tile::PointerType>(param) ? "buffer" : "scalar")
             << ", not a tensor descriptor";
    auto ptrType = dyn_cast<tile::PointerType>(param);
    if (ptrType && !arg.isBuffer())
      return kernel.emitError()
             << name << " of @" << kernel.getSymName() << " is " << param
             << ": pass a buffer, not a scalar";
    if (!ptrType && arg.isBuffer())
      return kernel.emitError()
             << name << " of @" << kernel.getSymName() << " is " << param
             << ": pass a scalar, not a buffer";
    if (ptrType) {
      std::optional<DType> pointee = dtypeOf(ptrType.getPointeeType());
      if (!pointee || *pointee != arg.dtype())
        return kernel.emitError()
               << name << " of @" << kernel.getSymName() << " is " << param
               << ", but the buffer holds " << dtypeName(arg.dtype());
      if (!arg.data() && arg.count())
        return kernel.emitError()
               << name << " is a null buffer of " << arg.count() << " elements";
      Buffer buffer;
      buffer.name = name;
      buffer.dtype = arg.dtype();
      buffer.data = static_cast<uint8_t *>(arg.data());
      buffer.count = arg.count();
      buffer.bytes = arg.count() * dtypeSize(arg.dtype());
      if (arg.isOutput())
        buffer.written.assign(buffer.bytes, 0);
      tiles.push_back(
          makeIntScalar(param, memory.addBuffer(std::move(buffer))));
      continue;
    }
    std::optional<DType> expected = dtypeOf(param);
    if (!expected)
      return kernel.emitError() << "the CPU interpreter does not support "
                                   "kernel parameters of type "
                                << param;
    if (*expected != arg.dtype())
      return kernel.emitError()
             << name << " of @" << kernel.getSymName() << " is " << param
             << ", but the scalar passed is " << dtypeName(arg.dtype());
    // The GPU runtime refuses an integer that breaks the kernel's
    // divisibility hint (lib/Runtime/Args.cpp): the oracle refuses it too,
    // in the runtime's words, so a differential test never compares a run
    // the GPU would not make.
    if (auto div = kernel.getArgAttrOfType<IntegerAttr>(
            index, tile::TileDialect::getDivisibilityAttrName());
        div && isInteger(arg.dtype()) && arg.intValue() % div.getInt() != 0)
      return kernel.emitError()
             << "kernel '" << kernel.getSymName() << "', parameter '"
             << paramName(kernel, arg, index) << "' (#" << index << "): value "
             << arg.intValue() << " is not a multiple of " << div.getInt()
             << " (the divisibility the kernel was compiled for)";
    tiles.push_back(isFloat(arg.dtype())
                        ? makeFloatScalar(param, arg.floatValue())
                        : makeIntScalar(param, arg.intValue()));
  }
  return success();
}

static LogicalResult checkGrid(func::FuncOp kernel, const Grid &grid) {
  // CUDA's limits: x < 2^31, y and z < 2^16.
  if (grid.x < 1 || grid.y < 1 || grid.z < 1 || grid.x > INT32_MAX ||
      grid.y > 65535 || grid.z > 65535)
    return kernel.emitError()
           << "invalid grid (" << grid.x << ", " << grid.y << ", " << grid.z
           << "): each dimension must be at least 1, x at most 2^31 - 1, y "
              "and z at most 65535";
  // As on the GPU: the programs run in whole clusters along x.
  if (int ctas = mlir::tile::getNumCtas(kernel); grid.x % ctas)
    return kernel.emitError()
           << "invalid grid (" << grid.x << ", " << grid.y << ", " << grid.z
           << "): x must be a multiple of " << ctas
           << ": the kernel's programs run in clusters of " << ctas
           << " along x (tile.num_ctas)";
  return success();
}

FailureOr<RunStats> tilec::runKernel(ModuleOp module, StringRef kernelName,
                                     const Grid &grid, ArrayRef<Arg> args,
                                     const RunOptions &options) {
  // Handlers rely on the verifier's guarantees (shapes, types); modules
  // built in C++ may not have been verified yet.
  if (failed(verify(module)))
    return failure();
  auto kernel = module.lookupSymbol<func::FuncOp>(kernelName);
  if (!kernel) {
    InFlightDiagnostic diag = emitError(module.getLoc())
                              << "no function @" << kernelName
                              << " in the module";
    SmallVector<StringRef> kernels;
    module.walk([&](func::FuncOp f) {
      if (tile::isKernel(f))
        kernels.push_back(f.getSymName());
    });
    if (!kernels.empty()) {
      diag << "; its kernels: ";
      llvm::interleaveComma(kernels, diag,
                            [&](StringRef k) { diag << "@" << k; });
    }
    return failure();
  }
  if (!tile::isKernel(kernel))
    return kernel.emitError() << "@" << kernelName
                              << " is not a kernel (it lacks the "
                                 "tile.kernel attribute)";
  if (kernel.isExternal())
    return kernel.emitError() << "kernel @" << kernelName << " has no body";
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitError()
           << "kernel @" << kernelName
           << " has several blocks; the CPU interpreter runs structured "
              "control flow only";
  if (failed(checkGrid(kernel, grid)) || failed(checkSupported(kernel)))
    return failure();

  Memory memory;
  SmallVector<TileRef> tiles;
  if (failed(bindArguments(kernel, args, memory, tiles)))
    return failure();

  RunStats stats;
  Executor executor(memory, grid, options, stats);
  executor.checkRaces = options.checkRaces && !synchronizesPrograms(kernel) &&
                        grid.x * grid.y * grid.z < int64_t(UINT32_MAX);
  const uint64_t total = uint64_t(grid.x) * grid.y * grid.z;
  for (int64_t z = 0; z < grid.z; ++z)
    for (int64_t y = 0; y < grid.y; ++y)
      for (int64_t x = 0; x < grid.x; ++x) {
        if (failed(executor.runProgram(kernel, tiles, {x, y, z})))
          return failure();
        ++stats.programs;
        if (options.onProgramDone)
          options.onProgramDone(stats.programs, total);
      }
  return stats;
}
