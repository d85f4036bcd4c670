//===- WarpgroupDotOpToGPU.cpp - tilegpu.warpgroup_dot on wgmma (sm_90a) --===//
//
// tilegpu.warpgroup_dot reads B, and A unless A is a register tile, from
// shared memory slots in a #tilegpu.nvmma_shared layout through 64-bit
// matrix descriptors (PTX ISA, "matrix descriptor format"):
//   bits  0-13  start address >> 4
//   bits 16-29  leading byte offset >> 4: the stride between atoms along
//               the contiguous dim (rows * swizzle bytes)
//   bits 32-45  stride byte offset >> 4: between groups of 8 rows
//               (8 * swizzle bytes)
//   bits 49-51  base offset (0: slots are 1024-byte aligned)
//   bits 62-63  swizzle: 1 = 128 bytes, 2 = 64, 3 = 32
// as Triton and CUTLASS build them. Element (slow r, fast c) of a slot sits
// at atom c / atomLen, row r of it, so the instruction starting at
// (r0, c0) starts at (c0 / atomLen) * rows * atomLen + r0 * atomLen +
// c0 % atomLen elements: for a K-major operand c0 is the k16 step (32
// bytes further within a 128-byte row), for an M/N-major one r0 is.
//
// Warpgroup g (warps 4g .. 4g + 3) issues, for every 16 * warps-row block
// b and N-instruction n, one wgmma.mma_async.m64nNk16 per 16 of K (for fp8
// operands m64nNk32 per 32 of K, for f32 ones m64nNk8 .tf32 per 8 of K,
// both read K-major: e4m3 or e5m2, mixed too; tf32 reads the f32 bits as
// stored, the tensor cores dropping the low 13 of the mantissa) on rows
// 16 * warps * b + 64g; its accumulator registers are the thread's
// elements of the version 3 layout (mma.sync's m16n8 C fragment repeated
// along N: register 4j + 2h + e is row l/4 + 8h, column 8j + 2(l%4) + e).
// A register A tile (the accumulator layout's dot_operand, as mma.sync
// reads it) gives each instruction the warp's A fragment of its 16 rows
// and k16 step as four b32 registers; nvvm.wgmma.mma_async takes A only
// through a descriptor, so that form is inline PTX.
// wgmma.fence before, one commit_group after, and wait_group `pending`
// (0: the dot is complete when the op returns). tilegpu.warpgroup_wait is
// wait_group N as inline PTX whose outputs are the accumulator registers
// (tied to its inputs), so that their readers come after it.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// How one operand's slot is read by wgmma.
struct OperandDesc {
  Value addr;          ///< the slot's shared address (i32)
  /// The descriptor's low word at `addr`: start address >> 4 (bits 0-13)
  /// and LBO (bits 16-29), computed once per dot (see descriptor()).
  Value lowWord;
  int64_t rows = 0;    ///< along the slow dim
  int64_t atomLen = 0; ///< elements per atom row
  int64_t elemBytes = 2;
  bool kMajor = true;  ///< contiguous dim is K
  uint64_t fields = 0; ///< LBO, SBO and swizzle bits

  /// Element offset of the instruction block whose outer (M or N)
  /// coordinate starts at `outer` and K at `k`.
  int64_t offset(int64_t outer, int64_t k) const {
    int64_t fast = kMajor ? k : outer, slow = kMajor ? outer : k;
    return (fast / atomLen) * rows * atomLen + slow * atomLen + fast % atomLen;
  }
};

OperandDesc describe(OpBuilder &b, Location loc, SharedMemType type,
                     Value buffer, Value slot, unsigned kDim) {
  auto layout = cast<NvmmaSharedLayoutAttr>(type.getLayout());
  OperandDesc d;
  d.elemBytes = getStorageBytes(type.getElementType());
  unsigned fast = layout.getOrder()[0];
  int64_t swizzle = layout.getSwizzle();
  d.rows = type.getSlotShape()[1 - fast];
  d.atomLen = swizzle / d.elemBytes;
  d.kMajor = fast == kDim;
  int64_t slotBytes = type.getSlotElements() * d.elemBytes;
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), buffer);
  d.addr = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(b, loc, slot, i32Val(b, loc, slotBytes)));
  uint64_t lbo = d.rows * swizzle, sbo = 8 * swizzle;
  uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  d.fields =
      ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | mode << 62;
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, d.addr, i32Val(b, loc, 4)),
      i32Val(b, loc, 0x3FFF));
  d.lowWord = arith::OrIOp::create(
      b, loc, start, i32Val(b, loc, int64_t(d.fields & 0xFFFFFFFF)));
  return d;
}

/// The descriptor of the block at element offset `elems` (plus `dynBytes`):
/// the slot's low word plus the offset in 16-byte units, beside the
/// constant high word (SBO, swizzle mode). Slots are 1024-byte aligned
/// (tilec::smem), block offsets and `dynBytes` multiples of 16 bytes and
/// the shared window below 2^18 bytes, so the start field (bits 0-13) takes
/// the sum without a carry: one 32-bit add per wgmma instead of the
/// descriptor's whole encoding (five uniform instructions each in the
/// attention forward's SASS).
Value descriptor(OpBuilder &b, Location loc, const OperandDesc &d,
                 int64_t elems, Value dynBytes) {
  int64_t bytes = elems * d.elemBytes;
  assert(bytes % 16 == 0 && "wgmma blocks start at 16-byte multiples");
  Value low = arith::AddIOp::create(b, loc, d.lowWord,
                                    i32Val(b, loc, bytes >> 4));
  if (dynBytes)
    low = arith::AddIOp::create(
        b, loc, low,
        arith::ShRUIOp::create(b, loc, dynBytes, i32Val(b, loc, 4)));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), low);
  Value high = arith::ConstantOp::create(
      b, loc,
      b.getI64IntegerAttr(static_cast<int64_t>(d.fields & ~0xFFFFFFFFull)));
  return arith::OrIOp::create(b, loc, wide, high);
}

/// One wgmma.mma_async with A from registers (four b32 per thread: the
/// mma.sync A fragment of the warp's 16 rows) and B through `descB`, as
/// inline PTX: nvvm.wgmma.mma_async takes A only as a descriptor. The
/// accumulator registers are outputs tied to inputs.
Value wgmmaRegisterA(OpBuilder &b, Location loc, Type accType,
                     ArrayRef<Value> acc, ArrayRef<Value> aRegs, Value descB,
                     int64_t instrN, bool bf16, bool transB) {
  MLIRContext *ctx = b.getContext();
  size_t n = acc.size();
  std::string ab = bf16 ? "bf16" : "f16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                     std::to_string(n + 5) + ", 0;\nwgmma.mma_async.sync." +
                     "aligned.m64n" + std::to_string(instrN) + "k16.f32." +
                     ab + "." + ab + " {";
  for (size_t i = 0; i < n; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {";
  for (size_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(n + i);
  text += "}, $" + std::to_string(n + 4) + ", p, 1, 1, " +
          std::string(transB ? "1" : "0") + ";\n}";
  std::string constraints;
  for (size_t i = 0; i < n; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l,r";
  for (size_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(aRegs.begin(), aRegs.end());
  operands.push_back(descB);
  operands.push_back(i32Val(b, loc, 1)); // scale-d: d = a * b + d
  operands.append(acc.begin(), acc.end());
  return LLVM::InlineAsmOp::create(
             b, loc, accType, operands, b.getStringAttr(text),
             b.getStringAttr(constraints),
             /*has_side_effects=*/b.getUnitAttr(),
             /*is_align_stack=*/UnitAttr(),
             LLVM::TailCallKindAttr::get(ctx, LLVM::TailCallKind::None),
             LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

/// `text` as inline PTX whose outputs are the f32 registers `acc`, tied to
/// them as inputs, and that also reads `extra` (b32 registers it keeps
/// alive): the accumulators pass through it, so LLVM orders their reads
/// and writes around it (nvvm's wgmma.fence and wait.group have no
/// operands).
SmallVector<Value> throughAsm(OpBuilder &b, Location loc, StringRef text,
                              ValueRange acc, ValueRange extra = {}) {
  MLIRContext *ctx = b.getContext();
  std::string constraints;
  for (size_t i = 0; i < acc.size(); ++i)
    constraints += "=f,";
  for (size_t i = 0; i < acc.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < acc.size() ? "," : "");
  SmallVector<Value> operands(acc.begin(), acc.end());
  for (Value r : extra) {
    operands.push_back(r);
    constraints += ",r";
  }
  Type f32 = b.getF32Type();
  Type resType = acc.size() == 1 ? f32
                                 : LLVM::LLVMStructType::getLiteral(
                                       ctx, SmallVector<Type>(acc.size(), f32));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resType, operands, b.getStringAttr(text),
      b.getStringAttr(constraints),
      /*has_side_effects=*/b.getUnitAttr(),
      /*is_align_stack=*/UnitAttr(),
      LLVM::TailCallKindAttr::get(ctx, LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
  SmallVector<Value> out;
  if (acc.size() == 1)
    out.push_back(asmOp.getResult(0));
  else
    for (size_t i = 0; i < acc.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return out;
}

/// Register A: the thread's elements of 16-row block `blk` and k16 step
/// `ks` (sub-row sm, sub-column sk of the dot_operand layout) packed two
/// per b32 in mma.sync's A order: (row g, k 2t..), (g + 8, 2t..),
/// (g, 2t + 8..), (g + 8, 2t + 8..). The dot and the warpgroup_wait that
/// keeps them build the same values (LLVM's CSE then makes them one).
SmallVector<Value> registerAFragment(OpBuilder &b, Location loc,
                                     RankedTensorType type, ValueRange elems,
                                     int64_t blk, int64_t ks) {
  DistributedLayout al = *DistributedLayout::get(type);
  auto pairType = VectorType::get({2}, type.getElementType());
  SmallVector<Value> regs;
  for (int64_t ek = 0; ek < 2; ++ek)
    for (int64_t em = 0; em < 2; ++em) {
      int64_t sm = 2 * blk + em, sk = 4 * ks + 2 * ek;
      Value v = LLVM::UndefOp::create(b, loc, pairType);
      for (int64_t h = 0; h < 2; ++h)
        v = LLVM::InsertElementOp::create(
            b, loc, v, elems[al.getElemNumber({sm, sk + h})],
            i32Val(b, loc, h));
      regs.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
    }
  return regs;
}

struct WarpgroupDotOpLowering : public OpConversionPattern<WarpgroupDotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpgroupDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Types, layouts and shapes: WarpgroupDotOp::verify.
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto cType = cast<RankedTensorType>(op.getType());
    auto mma = cast<MmaLayoutAttr>(cType.getEncoding());
    DistributedLayout cl = *DistributedLayout::get(cType);
    auto aSmem = dyn_cast<SharedMemType>(op.getA().getType());
    auto aRegType = dyn_cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<SharedMemType>(op.getB().getType());
    OperandDesc a;
    if (aSmem)
      a = describe(rewriter, loc, aSmem, adaptor.getA()[0],
                   adaptor.getASlot()[0], /*kDim=*/1);
    OperandDesc bd = describe(rewriter, loc, bType, adaptor.getB()[0],
                              adaptor.getBSlot()[0], /*kDim=*/0);

    int64_t warps = mma.getWarpsPerCTA()[0];
    int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
    int64_t k = aSmem ? aSmem.getSlotShape()[1] : aRegType.getDimSize(1);
    int64_t instrN = mma.getInstrShape()[1];
    int64_t blockRows = 16 * warps;
    Type elemType =
        aSmem ? aSmem.getElementType() : aRegType.getElementType();
    bool bf16 = elemType.isBF16();
    // Elements of K per instruction: 32 bytes of them (register A tiles
    // are 16-bit: the verifier).
    int64_t kStep = aSmem ? 32 / a.elemBytes : 16;

    // The warpgroup's 64 rows: a byte offset of A that only depends on
    // the warp (uniform within the warpgroup).
    Value aRowBytes;
    if (aSmem) {
      Value tid =
          NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
      Value group =
          arith::ShRUIOp::create(rewriter, loc, tid, i32Val(rewriter, loc, 7));
      Value groupRow = arith::MulIOp::create(rewriter, loc, group,
                                             i32Val(rewriter, loc, 64));
      // Row r0 of A moves the start by r0 * atomLen elements (K-major) or,
      // in 64-row atoms (M-major, atomLen 64), by r0 / 64 atoms.
      aRowBytes =
          a.kMajor ? arith::MulIOp::create(
                         rewriter, loc, groupRow,
                         i32Val(rewriter, loc, a.atomLen * a.elemBytes))
                         .getResult()
                   : arith::MulIOp::create(rewriter, loc, group,
                                           i32Val(rewriter, loc,
                                                  (64 / a.atomLen) * a.rows *
                                                      a.atomLen * a.elemBytes))
                         .getResult();
    }
    // Register A's fragments, packed before the fence: registers written
    // between two wgmmas of a group make ptxas inject a warpgroup.arrive
    // there (C7519).
    std::vector<std::vector<SmallVector<Value>>> aRegs;
    if (!aSmem)
      for (int64_t blk = 0; blk < m / blockRows; ++blk) {
        aRegs.emplace_back();
        for (int64_t ks = 0; ks < k / 16; ++ks)
          aRegs.back().push_back(registerAFragment(
              rewriter, loc, aRegType, adaptor.getA(), blk, ks));
      }

    Type f32 = rewriter.getF32Type();
    Type accType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(instrN / 2, f32));
    auto wgmmaType = [&](Type t) {
      if (isa<Float8E4M3FNType>(t))
        return NVVM::WGMMATypes::e4m3;
      if (isa<Float8E5M2Type>(t))
        return NVVM::WGMMATypes::e5m2;
      if (t.isF32()) // read at tf32 precision
        return NVVM::WGMMATypes::tf32;
      return t.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    };
    auto typeA = wgmmaType(elemType), typeB = wgmmaType(bType.getElementType());
    auto layoutA = a.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    auto layoutB = bd.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, instrN, kStep);

    // The fence with the accumulators passing through it: any copy LLVM
    // makes of them (a zero shared by every register) lands before it, as
    // the PTX ISA asks of registers the wgmma reads (else ptxas injects a
    // warpgroup.arrive, C7519, and the PTX simulator refuses it).
    SmallVector<Value> acc = throughAsm(rewriter, loc,
                                        "wgmma.fence.sync.aligned;",
                                        adaptor.getC());
    for (int64_t blk = 0; blk < m / blockRows; ++blk) {
      for (int64_t ni = 0; ni < n / instrN; ++ni) {
        // Register i: row l/4 + 8 * ((i / 2) % 2), column 8 * (i / 4) +
        // 2 * (l % 4) + i % 2 of the instruction's 64 x instrN block.
        SmallVector<int64_t> elems;
        for (int64_t i = 0; i < instrN / 2; ++i)
          elems.push_back(cl.getElemNumber(
              {2 * blk + (i / 2) % 2, 2 * (ni * instrN / 8 + i / 4) + i % 2}));
        Value d;
        if (aSmem) {
          d = LLVM::UndefOp::create(rewriter, loc, accType);
          for (auto [i, e] : llvm::enumerate(elems))
            d = LLVM::InsertValueOp::create(rewriter, loc, d, acc[e], i);
        }
        for (int64_t ks = 0; ks < k / kStep; ++ks) {
          Value descB = descriptor(rewriter, loc, bd,
                                   bd.offset(ni * instrN, kStep * ks), Value());
          if (!aSmem) {
            SmallVector<Value> in;
            for (auto [i, e] : llvm::enumerate(elems))
              in.push_back(ks ? Value(LLVM::ExtractValueOp::create(
                                    rewriter, loc, d, i))
                              : acc[e]);
            d = wgmmaRegisterA(rewriter, loc, accType, in, aRegs[blk][ks],
                               descB, instrN, bf16, !bd.kMajor);
            continue;
          }
          Value descA = descriptor(rewriter, loc, a,
                                   a.offset(blk * blockRows, kStep * ks),
                                   aRowBytes);
          d = NVVM::WgmmaMmaAsyncOp::create(
              rewriter, loc, accType, d, descA, descB, shape, typeA, typeB,
              NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA,
              layoutB, /*satfinite=*/nullptr);
        }
        for (auto [i, e] : llvm::enumerate(elems))
          acc[e] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (!op.getAsync())
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
    replaceWithValues(rewriter, op, acc);
    return success();
  }
};

/// wgmma.wait_group N, with the accumulator registers passing through it
/// (outputs tied to inputs): nvvm.wgmma.wait.group has no operands, so
/// nothing would keep LLVM from reading the registers before it.
struct WarpgroupWaitOpLowering : public OpConversionPattern<WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> keep;
    // The kept register A tiles: the b32 registers wgmma reads, as inputs
    // the asm does not use, so nothing reuses them before the wait.
    for (auto [kept, elems] : llvm::zip(op.getKeep(), adaptor.getKeep())) {
      auto type = cast<RankedTensorType>(kept.getType());
      auto parent = cast<MmaLayoutAttr>(
          cast<DotOperandLayoutAttr>(type.getEncoding()).getParent());
      int64_t blockRows = 16 * parent.getWarpsPerCTA()[0];
      for (int64_t blk = 0; blk < type.getDimSize(0) / blockRows; ++blk)
        for (int64_t ks = 0; ks < type.getDimSize(1) / 16; ++ks)
          llvm::append_range(keep, registerAFragment(rewriter, op.getLoc(),
                                                     type, elems, blk, ks));
    }
    SmallVector<Value> out = throughAsm(
        rewriter, op.getLoc(),
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) +
            ";",
        adaptor.getAcc(), keep);
    replaceWithValues(rewriter, op, out);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateWarpgroupDotPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  patterns.add<WarpgroupDotOpLowering, WarpgroupWaitOpLowering>(
      tc, patterns.getContext());
}
