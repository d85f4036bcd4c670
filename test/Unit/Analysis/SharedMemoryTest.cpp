//===- SharedMemoryTest.cpp - tilec::smem's sizes, alignments and limit ---===//
//
// The sizes the pipelining pass decides with are those the conversion
// places: worked out by hand here for the buffer types the matmul uses.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/SharedMemory.h"
#include "tilec/InitAll.h"
#include "tilec/Target/Target.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class SharedMemoryTest : public ::testing::Test {
protected:
  SharedMemoryTest() {
    DialectRegistry registry;
    tilec::registerTilecDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  tilegpu::SharedMemType smem(StringRef text) {
    auto type = dyn_cast_or_null<tilegpu::SharedMemType>(
        parseType(text, &context));
    EXPECT_TRUE(type) << text.str();
    return type;
  }
  MLIRContext context;
};

TEST_F(SharedMemoryTest, SlotBytes) {
  Builder b(&context);
  // 128x64 bf16: 8192 elements of 2 bytes.
  EXPECT_EQ(tilec::smem::slotBytes(
                RankedTensorType::get({128, 64}, b.getBF16Type())),
            16384);
  // Types under a byte take a byte each.
  EXPECT_EQ(tilec::smem::slotBytes(b.getI1Type(), 10), 10);
  EXPECT_EQ(tilec::smem::slotBytes(b.getF32Type(), 10), 40);
}

TEST_F(SharedMemoryTest, BuffersAndAlignment) {
  auto nvmma = smem("!tilegpu.smem<3x128x64xbf16, "
                    "#tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>");
  auto shared = smem("!tilegpu.smem<2x16x16xbf16, #tilegpu.shared<{vec = 8, "
                     "perPhase = 2, maxPhase = 4, order = [1, 0]}>>");
  ASSERT_TRUE(nvmma && shared);
  EXPECT_EQ(tilec::smem::bufferBytes(nvmma), 3 * 16384);
  EXPECT_EQ(tilec::smem::bufferBytes(shared), 2 * 16 * 16 * 2);
  EXPECT_EQ(tilec::smem::bufferAlignment(nvmma), 1024);
  EXPECT_EQ(tilec::smem::bufferAlignment(shared), 128);
}

TEST_F(SharedMemoryTest, LimitIsTheTargets) {
  auto sm90a = tilec::Target::get("sm_90a");
  auto sm89 = tilec::Target::get("sm_89");
  ASSERT_TRUE(bool(sm90a) && bool(sm89));
  EXPECT_TRUE(tilec::smem::fits(227 * 1024, *sm90a));
  EXPECT_FALSE(tilec::smem::fits(227 * 1024 + 1, *sm90a));
  EXPECT_TRUE(tilec::smem::fits(99 * 1024, *sm89));
  EXPECT_FALSE(tilec::smem::fits(100 * 1024, *sm89));
}

} // namespace
