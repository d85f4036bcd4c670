//===- Count.cpp - countLaunch: boxes of programs, split ------------------===//
//
// Starts from the whole grid as one box and evaluates it abstractly. A box
// whose evaluation is definite contributes its counts times its size; an
// indefinite one is split in two along its longest axis. Boxes of one
// program are always definite (their only uncertainty is loaded data,
// bounded or refused by the evaluator), so the loop ends; kernels whose
// programs differ only at the data's edges take O(log grid) evaluations.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Analyzer.h"

#include "Evaluator.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <map>

using namespace mlir;
using namespace tilec::perfmodel;

std::string tilec::perfmodel::paramName(func::FuncOp func, unsigned i) {
  if (auto name = dyn_cast<NameLoc>(func.getArgument(i).getLoc()))
    return name.getName().str();
  return "arg" + std::to_string(i);
}

std::vector<std::string> tilec::perfmodel::kernelNames(ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<func::FuncOp>())
    if (tile::isKernel(func))
      names.push_back(func.getName().str());
  return names;
}

namespace {

std::string paramTypeText(Type type) {
  if (auto ptr = dyn_cast<tile::PointerType>(type))
    return "ptr<" + elementTypeName(ptr.getPointeeType()) + ">";
  return elementTypeName(type);
}

std::string signature(func::FuncOp func) {
  std::string s;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    s += (i ? ", " : "") + paramName(func, i) + ": " +
         paramTypeText(func.getArgument(i).getType());
  return s;
}

unsigned elementBytes(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return std::max(1u, i.getWidth() / 8);
  if (auto f = dyn_cast<FloatType>(type))
    return f.getWidth() / 8;
  return 8; // pointers to pointers
}

/// The kind of a tile.dot for the counts: operand type or f32 precision.
std::string dotKind(tile::DotOp dot) {
  Type e = getElementTypeOrSelf(dot.getA().getType());
  if (e.isF32()) {
    switch (dot.getPrecision()) {
    case tile::InputPrecision::ieee:
      return "ieee";
    case tile::InputPrecision::tf32x3:
      return "tf32x3";
    case tile::InputPrecision::tf32:
      return "tf32";
    }
  }
  if (isa<Float8E4M3FNType, Float8E5M2Type>(e))
    return "fp8";
  return elementTypeName(e);
}

/// The element type an op is counted under: its operands' for compares,
/// else its result's.
std::string countedType(Operation *op) {
  if (isa<arith::CmpIOp, arith::CmpFOp>(op))
    return elementTypeName(op->getOperand(0).getType());
  if (op->getNumResults())
    return elementTypeName(op->getResult(0).getType());
  return "none";
}

} // namespace

FailureOr<LaunchCounts> tilec::perfmodel::countLaunch(
    ModuleOp module, llvm::StringRef kernelName, std::array<int64_t, 3> grid,
    std::vector<LaunchArg> &args, const CountOptions &options) {
  auto func = module.lookupSymbol<func::FuncOp>(kernelName);
  if (!func || !tile::isKernel(func)) {
    std::string names;
    for (const std::string &n : kernelNames(module))
      names += (names.empty() ? "" : ", ") + n;
    return emitError(module.getLoc())
           << "no kernel named '" << kernelName
           << "' (kernels here: " << (names.empty() ? "none" : names) << ")";
  }
  const int64_t limits[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 1 || grid[i] > limits[i])
      return emitError(func.getLoc()) << "grid (" << grid[0] << ", " << grid[1]
                                      << ", " << grid[2] << "): "
                                      << "xyz"[i] << " must be in [1, "
                                      << limits[i] << "] (CUDA's limits)";
  unsigned numParams = func.getNumArguments();
  if (args.size() != numParams)
    return emitError(func.getLoc())
           << "kernel '" << kernelName << "' takes " << numParams
           << " arguments (" << signature(func) << ") but " << args.size()
           << (args.size() == 1 ? " was" : " were") << " given";

  std::vector<AVRef> params;
  std::vector<BufferInfo> buffers(numParams);
  for (unsigned i = 0; i < numParams; ++i) {
    Type type = func.getArgument(i).getType();
    LaunchArg &arg = args[i];
    arg.name = paramName(func, i);
    std::string where = "kernel '" + kernelName.str() + "', parameter '" +
                        arg.name + "' (#" + std::to_string(i) + ")";
    AV v;
    if (auto desc = dyn_cast<tile::TensorDescType>(type)) {
      arg.type = elementTypeName(desc.getElementType());
      if (!arg.isBuffer || arg.shape.empty())
        return emitError(func.getLoc())
               << where << " is a tensor descriptor of " << arg.type
               << ": give its buffer size and tensor (n=COUNT,shape=D0xD1..)";
      if (int64_t(arg.shape.size()) != desc.getRank())
        return emitError(func.getLoc())
               << where << " is a rank-" << desc.getRank()
               << " tensor descriptor but shape= has " << arg.shape.size()
               << " dimensions";
      unsigned bytes = elementBytes(desc.getElementType());
      if (arg.buffer.empty())
        arg.buffer = arg.name;
      BufferInfo info{arg.name, arg.count * bytes, bytes, arg.shape,
                      arg.strides};
      if (info.strides.empty()) {
        info.strides.assign(arg.shape.size(), 1);
        for (size_t d = arg.shape.size() - 1; d-- > 0;)
          info.strides[d] = info.strides[d + 1] * arg.shape[d + 1];
      }
      buffers[i] = std::move(info);
      v.kind = AVKind::Ptr;
      v.width = bytes;
      v.v = {Iv::of(0)};
      v.buf = {int32_t(i)};
    } else if (auto ptr = dyn_cast<tile::PointerType>(type)) {
      arg.type = elementTypeName(ptr.getPointeeType());
      if (!arg.isBuffer)
        return emitError(func.getLoc())
               << where << " is a pointer to " << arg.type
               << ": give its buffer size (n=COUNT), not a value";
      unsigned bytes = elementBytes(ptr.getPointeeType());
      uint64_t total;
      if (__builtin_mul_overflow(arg.count, uint64_t(bytes), &total) ||
          total > (uint64_t(1) << 62))
        return emitError(func.getLoc())
               << where << ": a buffer of " << arg.count << " elements of "
               << arg.type << " is too large";
      if (arg.buffer.empty())
        arg.buffer = arg.name;
      buffers[i] = {arg.name, total, bytes, {}, {}};
      v.kind = AVKind::Ptr;
      v.width = bytes;
      v.v = {Iv::of(0)};
      v.buf = {int32_t(i)};
    } else {
      arg.type = elementTypeName(type);
      if (arg.isBuffer)
        return emitError(func.getLoc())
               << where << " is a " << arg.type
               << " scalar: give a value, not a buffer";
      if (isa<FloatType>(type)) {
        v.kind = AVKind::Float;
        if (!arg.isFloat) {
          arg.isFloat = true;
          arg.floatValue = double(arg.intValue);
        }
      } else {
        if (arg.isFloat) {
          char value[32];
          std::snprintf(value, sizeof value, "%g", arg.floatValue);
          return emitError(func.getLoc()) << where << " is an integer ("
                                          << arg.type << ") but got " << value;
        }
        unsigned width = cast<IntegerType>(type).getWidth();
        Iv range = topOf(width);
        if (arg.intValue < range.lo || arg.intValue > range.hi)
          return emitError(func.getLoc()) << where << ": value " << arg.intValue
                                          << " does not fit in " << arg.type;
        if (auto d = func.getArgAttrOfType<IntegerAttr>(
                i, tile::TileDialect::getDivisibilityAttrName()))
          if (d.getInt() > 1 && arg.intValue % d.getInt() != 0)
            return emitError(func.getLoc())
                   << where << ": value " << arg.intValue
                   << " is not a multiple of " << d.getInt()
                   << " (the divisibility the kernel was compiled for; "
                      "the runtime refuses such a launch)";
        v.kind = AVKind::Int;
        v.width = width;
        v.v = {Iv::of(arg.intValue)};
      }
    }
    params.push_back(std::make_shared<const AV>(std::move(v)));
  }

  Evaluator evaluator(func, grid, params, buffers);
  using Box = std::array<Iv, 3>;
  std::vector<Box> boxes = {
      {Iv{0, grid[0] - 1}, Iv{0, grid[1] - 1}, Iv{0, grid[2] - 1}}};
  Tally total;
  uint64_t evaluations = 0;
  const uint64_t programs = uint64_t(grid[0]) * grid[1] * grid[2];
  uint64_t counted = 0;
  while (!boxes.empty()) {
    Box box = boxes.back();
    boxes.pop_back();
    if (++evaluations > options.maxEvaluations)
      return emitError(func.getLoc())
             << "counting needs more than " << options.maxEvaluations
             << " program evaluations (its programs differ in more than "
                "their edges; last difference: "
             << evaluator.reason() << ")";
    Tally one;
    switch (evaluator.evaluate(box, one)) {
    case Evaluator::Outcome::Failed:
      return failure();
    case Evaluator::Outcome::Definite: {
      uint64_t size = uint64_t(box[0].hi - box[0].lo + 1) *
                      uint64_t(box[1].hi - box[1].lo + 1) *
                      uint64_t(box[2].hi - box[2].lo + 1);
      if (!total.addScaled(one, size))
        return emitError(func.getLoc()) << "counts overflow 64 bits";
      counted += size;
      if (options.progress)
        options.progress(counted, programs, evaluations);
      break;
    }
    case Evaluator::Outcome::Indefinite: {
      int axis = 0;
      for (int i = 1; i < 3; ++i)
        if (box[i].hi - box[i].lo > box[axis].hi - box[axis].lo)
          axis = i;
      Box upper = box;
      int64_t mid = box[axis].lo + (box[axis].hi - box[axis].lo) / 2;
      box[axis].hi = mid;
      upper[axis].lo = mid + 1;
      boxes.push_back(upper);
      boxes.push_back(box);
      break;
    }
    }
  }

  LaunchCounts counts;
  counts.grid = grid;
  counts.evaluations = evaluations;
  std::map<std::pair<std::string, std::string>, uint64_t> ops;
  for (const auto &[op, n] : total.ops) {
    std::string name = op->getName().getStringRef().str();
    // tile.approx_math's f32 erf is a different instruction sequence
    // (Support/ApproxErf.h): counted apart, with its own cost.
    if (isa<math::ErfOp>(op) && countedType(op) == "f32")
      if (auto kernel = op->getParentOfType<func::FuncOp>();
          kernel && kernel->hasAttr(tile::TileDialect::getApproxMathAttrName()))
        name = "math.erf.approx";
    ops[{name, countedType(op)}] += n;
  }
  for (const auto &[key, n] : ops)
    counts.ops.push_back({key.first, key.second, n});
  std::map<std::string, DotCount> dots;
  for (const auto &[op, d] : total.dots) {
    DotCount &dc = dots[dotKind(cast<tile::DotOp>(op))];
    dc.flops += d.first;
    dc.useful += d.second;
  }
  for (auto &[kind, dc] : dots) {
    dc.kind = kind;
    counts.dots.push_back(dc);
  }
  for (unsigned i = 0; i < numParams; ++i) {
    if (!args[i].isBuffer)
      continue;
    const BufferTally &t =
        total.buffers.size() > i ? total.buffers[i] : BufferTally();
    unsigned eb = buffers[i].elementBytes;
    BufferTraffic b;
    b.name = args[i].name;
    b.type = args[i].type;
    b.elementBytes = eb;
    b.elements = args[i].count;
    b.loaded = t.loaded / eb;
    b.stored = t.stored / eb;
    b.atomics = t.atomics / eb;
    b.maskedLoads = t.maskedLoads / eb;
    b.maskedStores = t.maskedStores / eb;
    counts.buffers.push_back(b);
  }
  counts.notes.assign(total.notes.begin(), total.notes.end());
  return counts;
}
