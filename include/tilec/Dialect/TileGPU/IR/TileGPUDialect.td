//===- TileGPUDialect.td - the tilegpu dialect -------------*- tablegen -*-===//
//
// The GPU level of tile programs: layout encodings, shared memory buffers
// and the ops that stage tiles through them. Layout assignment and the
// passes after it produce this dialect; user kernels never spell it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_DIALECT_TD
#define TILEGPU_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "tilec/Dialect/Tile/IR/TileDialect.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::mlir::tilegpu";
  let summary = "Layouts, shared memory and asynchronous copies of tiles";
  let description = [{
    What a tile program becomes once it is bound to a GPU: every tile type
    carries a distributed layout encoding (`#tilegpu.blocked`,
    `#tilegpu.slice`, `#tilegpu.mma`, `#tilegpu.dot_operand`) that says
    which thread holds which element, and tiles may be staged through the
    program's shared memory (`!tilegpu.smem` buffers in a `#tilegpu.shared`
    layout) by asynchronous copies. It is to `tile` what Triton's `ttg` is
    to `tt`: the ops of `tile` keep working on tiles with these encodings,
    and this dialect adds the ops that only make sense after layouts are
    chosen.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

class TileGPU_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TileGPU_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def TileGPU_SharedMemType : TileGPU_Type<"SharedMem", "smem"> {
  let summary = "a buffer of tiles in the program's shared memory";
  let description = [{
    `shape[0]` tiles of `shape[1:]` elements, stored with the shared layout
    `layout` (a #tilegpu.shared). Made by `tilegpu.local_alloc` after layout
    assignment (software pipelining stages loop operands through one slot
    per stage); the GPU lowering gives it an offset in shared memory.

    ```mlir
    !tilegpu.smem<3x128x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2,
                                                maxPhase = 4, order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType, "Attribute":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements of one slot (a tile).
    int64_t getSlotElements() const;
    /// The shape of one slot.
    ArrayRef<int64_t> getSlotShape() const { return getShape().drop_front(); }
  }];
}

def TileGPU_SharedMem : DialectType<TileGPU_Dialect,
    CPred<"::llvm::isa<::mlir::tilegpu::SharedMemType>($_self)">,
    "shared memory buffer">;

#endif // TILEGPU_DIALECT_TD
