//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
//
// The dialect, its pointer type and the type constraints shared by its ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Block-level SPMD tile programs for GPUs";
  let description = [{
    A kernel runs as a grid of *programs*; each program computes on *tiles*:
    statically shaped builtin tensors (`tensor<128x64xf32>`) that the compiler
    distributes over the program's threads. `arith` and `math` ops apply to
    tiles elementwise. Global memory is reached through `!tile.ptr<T>` values
    and tiles of them (`tensor<128x!tile.ptr<f32>>`).

    Kernels are `func.func` ops carrying the unit attribute `tile.kernel`
    (and optionally `tile.num_warps`); their parameters are scalars
    (i1/i32/i64/f16/bf16/f32), pointers or tensor descriptors, and may carry `tile.divisibility`
    hints. A tile's tensor type may carry a layout encoding attribute (one of
    the `tilegpu` dialect's); the layout pass attaches them, the ops here
    ignore them when they check shapes.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// Marks a func.func as a kernel.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("tile.kernel");
    }
    /// Warps per program of a kernel (an i32).
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tile.num_warps");
    }
    /// Software pipelining depth of a kernel's loops (an i32; 1 = none).
    static constexpr ::llvm::StringLiteral getNumStagesAttrName() {
      return ::llvm::StringLiteral("tile.num_stages");
    }
    /// Programs per thread-block cluster of a kernel (an i32: 1, 2 or 4):
    /// its programs run in clusters of that many consecutive programs
    /// along the grid's x axis (sm_90), whose warp-specialized rings share
    /// the descriptor blocks they all load (TMA multicast).
    static constexpr ::llvm::StringLiteral getNumCtasAttrName() {
      return ::llvm::StringLiteral("tile.num_ctas");
    }
    /// Whether a kernel's TMA-fed dot loop may be warp-specialized (a bool;
    /// default true on sm_90a): a producer warpgroup issues the copies.
    static constexpr ::llvm::StringLiteral getWarpSpecializeAttrName() {
      return ::llvm::StringLiteral("tile.warp_specialize");
    }
    /// A warp-specialized kernel whose two consumer warpgroups take turns
    /// issuing their loops' products (unit): one's softmax runs while the
    /// other's wgmma do (FlashAttention-3's ping-pong).
    static constexpr ::llvm::StringLiteral getPingPongAttrName() {
      return ::llvm::StringLiteral("tile.pingpong");
    }
    /// A kernel whose math may use tilec's shorter approximations (unit):
    /// erf with an absolute error under 5e-7 (Support/ApproxErf.h).
    static constexpr ::llvm::StringLiteral getApproxMathAttrName() {
      return ::llvm::StringLiteral("tile.approx_math");
    }
    /// Parameter hint: the value (or address, for pointers) is a multiple of N.
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() {
      return ::llvm::StringLiteral("tile.divisibility");
    }
  }];
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Pointer", "ptr"> {
  let summary = "pointer into global memory";
  let description = [{
    The address of a value of type `pointeeType` in the device's global
    memory. Arithmetic on pointers is `tile.addptr`, in units of elements.

    ```mlir
    !tile.ptr<f32>
    tensor<128x!tile.ptr<bf16>>
    ```
  }];
  let parameters = (ins "Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let genVerifyDecl = 1;
}

def Tile_TensorDescType : Tile_Type<"TensorDesc", "tensordesc"> {
  let summary = "a tensor in global memory read and written in blocks";
  let description = [{
    A kernel parameter naming a 1- to 5-D tensor in global memory (base
    address, shape and strides, given at launch) that
    `tile.descriptor_load` / `tile.descriptor_store` access one block of
    `blockType`'s shape at a time, bounds-checked element by element (reads
    outside the tensor give zero, writes outside it are dropped), as
    Triton's `make_tensor_descriptor`. On sm_90a the runtime passes it as a
    TMA `CUtensorMap`; elsewhere as the base address, shape and strides
    (docs/metadata.md).

    The block's dimensions are 1 to 256 elements and its innermost one
    spans a multiple of 16 bytes (the TMA's box rules); its element type is
    an integer of 8 to 64 bits or a float.

    ```mlir
    !tile.tensordesc<tensor<128x64xbf16>>
    ```
  }];
  let parameters = (ins "RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getBlockType().getRank(); }
    ::mlir::Type getElementType() const {
      return getBlockType().getElementType();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64],
                           "floating-point">;
def Tile_Ptr : DialectType<Tile_Dialect,
    CPred<"::llvm::isa<::mlir::tile::PointerType>($_self)">, "pointer">;
def Tile_Scalar : AnyTypeOf<[Tile_Int, Tile_Float, Tile_Ptr], "scalar">;
def Tile_TensorDesc : DialectType<Tile_Dialect,
    CPred<"::llvm::isa<::mlir::tile::TensorDescType>($_self)">,
    "tensor descriptor", "::mlir::tile::TensorDescType">;

def Tile_Tensor : RankedTensorOf<[Tile_Int, Tile_Float, Tile_Ptr]>;
def Tile_IntTensor : RankedTensorOf<[Tile_Int]>;
def Tile_BoolTensor : RankedTensorOf<[I1]>;
def Tile_PtrTensor : RankedTensorOf<[Tile_Ptr]>;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;

def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor], "scalar or tile">;
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor],
                             "integer or tile of integers">;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTensor], "i1 or tile of i1">;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor],
                             "pointer or tile of pointers">;
def Tile_NumLike : AnyTypeOf<[Tile_Int, Tile_Float, Tile_IntTensor,
                              Tile_FloatTensor], "number or tile of numbers">;

#endif // TILE_DIALECT_TD
