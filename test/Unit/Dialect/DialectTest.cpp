//===- DialectTest.cpp - the tile dialect's C++ helpers -------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/InitAll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {
class DialectTest : public ::testing::Test {
protected:
  DialectTest() {
    DialectRegistry registry;
    tilec::registerTilecDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(DialectTest, PointeeTypeKeepsShape) {
  Builder b(&context);
  auto ptr = tile::PointerType::get(&context, b.getF16Type());
  auto tiles = RankedTensorType::get({4, 8}, ptr);
  EXPECT_EQ(tile::getPointeeTypeSameShape(tiles),
            RankedTensorType::get({4, 8}, b.getF16Type()));
  EXPECT_EQ(tile::getPointeeTypeSameShape(ptr), b.getF16Type());
  EXPECT_EQ(tile::getI1SameShape(tiles),
            RankedTensorType::get({4, 8}, b.getI1Type()));
  EXPECT_FALSE(tile::getPointeeTypeSameShape(b.getF32Type()));
}

TEST_F(DialectTest, LoadBuilderInfersResult) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto ptrType = RankedTensorType::get(
      {16}, tile::PointerType::get(&context, b.getF32Type()));
  // A block argument gives the builder a value of the pointer tile type.
  Block block;
  Value ptrs = block.addArgument(ptrType, loc);
  b.setInsertionPointToStart(&block);
  auto load = tile::LoadOp::create(b, loc, ptrs);
  EXPECT_EQ(load.getType(), RankedTensorType::get({16}, b.getF32Type()));
  EXPECT_TRUE(succeeded(verify(load)));
  load->erase();
}
} // namespace
