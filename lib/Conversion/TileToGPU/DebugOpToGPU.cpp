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
using namespace mlir::tile::gpu_lowering;

namespace {

/// printf's conversion and argument for one lowered scalar.
std::pair<std::string, Value> formatArg(OpBuilder &b, Location loc, Value v,
                                        bool hex) {
  Type t = v.getType();
  if (isa<LLVM::LLVMPointerType>(t))
    return {"0x%llx", LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v)};
  if (auto f = dyn_cast<FloatType>(t)) {
    if (hex) {
      Value bits = arith::BitcastOp::create(
          b, loc, b.getIntegerType(f.getWidth()), v);
      if (f.getWidth() < 32)
        bits = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
      return {f.getWidth() == 64 ? "0x%llx" : "0x%x", bits};
    }
    if (f.getWidth() < 32)
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return {"%f", v};
  }
  unsigned w = t.getIntOrFloatBitWidth();
  if (w == 64)
    return {hex ? "0x%llx" : "%lld", v};
  if (w < 32)
    v = w == 1 ? (Value)arith::ExtUIOp::create(b, loc, b.getI32Type(), v)
               : (Value)arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  return {hex ? "0x%x" : "%d", v};
}

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
    std::string prefix = escapePercent(op.getPrefix());
    // Scalars: one line per thread.
    std::string fmt = "pid (%d, %d, %d) " + prefix;
    SmallVector<Value> args(pid);
    bool anyScalar = op.getArgs().empty();
    for (auto [arg, range] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      if (isa<RankedTensorType>(arg.getType()))
        continue;
      auto [conv, v] = formatArg(rewriter, loc, range[0], op.getHex());
      fmt += (anyScalar ? " " : " ") + conv;
      args.push_back(v);
      anyScalar = true;
    }
    if (anyScalar)
      gpu::PrintfOp::create(rewriter, loc, fmt + "\n", args);
    // Tiles: one line per element, from its owner.
    for (auto [arg, range] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      FailureOr<DistributedLayout> layout = getLayoutOrError(op, type);
      if (failed(layout))
        return failure();
      Value owner = emitOwnerPredicate(rewriter, loc, *layout);
      auto idx = emitIndices(rewriter, loc, *layout);
      for (auto [i, v] : llvm::enumerate(range)) {
        std::string line = "pid (%d, %d, %d) idx (";
        SmallVector<Value> lineArgs(pid);
        for (auto [d, ix] : llvm::enumerate(idx[i])) {
          line += d ? ", %d" : "%d";
          lineArgs.push_back(ix);
        }
        auto [conv, val] = formatArg(rewriter, loc, v, op.getHex());
        line += ") " + prefix + " " + conv + "\n";
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
