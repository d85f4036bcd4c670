//===- DebugOpToGPU.cpp - tile.print and tile.assert ----------------------===//
//
// tile.print becomes gpu.printf (vprintf): scalars once per thread, tile
// elements once each (from their owner thread) with the program id and the
// element's index. tile.assert becomes cf.assert per element, which
// convert-gpu-to-nvvm turns into __assertfail with the op's location.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// printf's conversion and argument for one lowered scalar, in the
/// interpreter's format (lib/Interpreter/DebugOps.cpp): floats with 9
/// significant digits (f32; 5 for f16/bf16, 17 for f64), integers in
/// decimal, hex zero-padded to the type's size.
std::pair<std::string, Value> formatArg(OpBuilder &b, Location loc, Value v,
                                        bool hex) {
  Type t = v.getType();
  if (isa<LLVM::LLVMPointerType>(t))
    return {"0x%llx", LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v)};
  unsigned w = t.getIntOrFloatBitWidth();
  if (hex) {
    std::string digits = std::to_string(2 * std::max(1u, w / 8));
    if (auto f = dyn_cast<FloatType>(t))
      v = arith::BitcastOp::create(b, loc, b.getIntegerType(w), v);
    if (w == 64)
      return {"0x%0" + digits + "llx", v};
    if (w < 32)
      v = arith::ExtUIOp::create(b, loc, b.getI32Type(), v);
    return {"0x%0" + digits + "x", v};
  }
  if (auto f = dyn_cast<FloatType>(t)) {
    if (w < 32)
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return {w == 64 ? "%.17g" : w == 32 ? "%.9g" : "%.5g", v};
  }
  if (w == 64)
    return {"%lld", v};
  if (w < 32)
    v = w == 1 ? (Value)arith::ExtUIOp::create(b, loc, b.getI32Type(), v)
               : (Value)arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  return {"%d", v};
}

/// `s` with each '%' doubled, for a printf format.
std::string escapePercent(StringRef s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

/// tile.print -> gpu.printf lines.
struct PrintOpLowering : public OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> pid = {NVVM::BlockIdXOp::create(rewriter, loc, i32),
                              NVVM::BlockIdYOp::create(rewriter, loc, i32),
                              NVVM::BlockIdZOp::create(rewriter, loc, i32)};
    // The interpreter's lines (lib/Interpreter/DebugOps.cpp), so that the
    // two can be compared: one per element of each argument,
    //   pid (x, y, z)[ idx [i, j]] <prefix>[(operand k) ]<value>
    // (the GPU's come in no particular order).
    std::string prefix = escapePercent(op.getPrefix());
    // A scalar (or the bare prefix) is the program's, printed once: by
    // thread 0.
    Value first;
    auto printOnce = [&](const std::string &format, ValueRange args) {
      if (!first) {
        Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
        Value zero = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
        first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      tid, zero);
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, first, false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      gpu::PrintfOp::create(rewriter, loc, format, args);
    };
    if (op.getArgs().empty())
      printOnce("pid (%d, %d, %d) " + prefix + "\n", pid);
    bool several = op.getArgs().size() > 1;
    for (auto [k, arg, range] :
         llvm::enumerate(op.getArgs(), adaptor.getArgs())) {
      std::string operand =
          several ? "(operand " + std::to_string(k) + ") " : "";
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type) {
        auto [conv, v] = formatArg(rewriter, loc, range[0], op.getHex());
        SmallVector<Value> lineArgs(pid);
        lineArgs.push_back(v);
        printOnce("pid (%d, %d, %d) " + prefix + operand + conv + "\n",
                  lineArgs);
        continue;
      }
      // Tiles: one line per element, from its owner.
      FailureOr<DistributedLayout> layout = getLayoutOrError(op, type);
      if (failed(layout))
        return failure();
      // (Padding copies are no element of their own: not printed.)
      SmallVector<Value> owners = emitElementOwners(rewriter, loc, *layout);
      auto idx = emitIndices(rewriter, loc, *layout);
      for (auto [i, v] : llvm::enumerate(range)) {
        Value owner = owners[i];
        std::string line = "pid (%d, %d, %d) idx [";
        SmallVector<Value> lineArgs(pid);
        for (auto [d, ix] : llvm::enumerate(idx[i])) {
          line += d ? ", %d" : "%d";
          lineArgs.push_back(ix);
        }
        auto [conv, val] = formatArg(rewriter, loc, v, op.getHex());
        line += "] " + prefix + operand + conv + "\n";
        lineArgs.push_back(val);
        if (owner) {
          auto ifOp = scf::IfOp::create(rewriter, loc, owner, false);
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          gpu::PrintfOp::create(rewriter, loc, line, lineArgs);
        } else {
          gpu::PrintfOp::create(rewriter, loc, line, lineArgs);
        }
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.assert -> cf.assert per element.
struct AssertOpLowering : public OpConversionPattern<AssertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value c : adaptor.getCondition())
      cf::AssertOp::create(rewriter, op.getLoc(), c, op.getMessage());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateDebugPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  patterns.add<PrintOpLowering, AssertOpLowering>(tc, patterns.getContext());
}
