//===- TileOps.td - ops of the tile dialect ----------------*- tablegen -*-===//
//
// Every op has a summary, a description with an example, a readable assembly
// format and a verifier that names the shapes and types it rejects. Shapes are
// compared without layout encodings (a later pass attaches those), except
// where ODS says that two values have one type (AllTypesMatch): those agree
// in layout too, and the assembly format prints that type once.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileEnums.td"
include "tilec/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Every op with two tiles or more says how their layouts relate: the
// interface's default (all share one layout), or its own rule in
// TileLayoutRelations.cpp.
defvar Tile_LayoutRule = Tile_LayoutRelationOpInterface;
defvar Tile_OwnLayoutRule =
    DeclareOpInterfaceMethods<Tile_LayoutRelationOpInterface,
                              ["relateLayouts"]>;

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Program identity and index tiles
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program in the grid along one axis";
  let description = [{
    Returns the coordinate (0-based) of the running program along grid axis
    `axis` (0, 1 or 2), like Triton's `tl.program_id`.

    ```mlir
    %pid = tile.program_id 0
    ```
  }];
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs in the grid along one axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
}

def Tile_GroupedIdsOp : Tile_Op<"grouped_ids", [Pure]> {
  let summary = "tile coordinates of a linear program id in grouped order";
  let description = [{
    Maps a linear program index `pid` over an `num_m` x `num_n` grid of
    output tiles to the tile `(pid_m, pid_n)` it computes, in Triton's
    grouped (L2-friendly) order: `group` tile rows at a time are swept
    column by column, so that programs running at once share the A and B
    tiles of a matrix product (Triton's `tl.swizzle2d`). The last group has
    the rows that are left.

    ```mlir
    %pid_m, %pid_n = tile.grouped_ids %pid, %num_m, %num_n group 8
    ```

    Text shorthand: the front end (and canonicalization) expand it into
    the arith ops, with `width = group * num_n`:
    `first_m = pid / width * group`,
    `size = min(num_m - first_m, group)`,
    `pid_m = first_m + pid % width % size`, `pid_n = pid % width / size`.
  }];
  let arguments = (ins I32:$pid, I32:$num_m, I32:$num_n, I32Attr:$group);
  let results = (outs I32:$pid_m, I32:$pid_n);
  let assemblyFormat =
      "$pid `,` $num_m `,` $num_n `group` $group attr-dict";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_RangeOp : Tile_Op<"range", [Tile_LayoutRule, Pure,
    AttrSizedOperandSegments]> {
  let summary = "1-D tile of consecutive i32 values [start, end)";
  let description = [{
    The tile `[start, start + 1, ..., end - 1]`; its length `end - start`
    need not be a power of two. With `offset`, a scalar is added to every
    element: the offsets of a program's block in one op. With `block %b`,
    the offset is `b * (end - start)`: the `b`-th block of the length,
    Triton's `pid * BLOCK + tl.arange(0, BLOCK)`.

    ```mlir
    %offs = tile.range 0, 128 : tensor<128xi32>
    %offs = tile.range 0, 128 offset %start : tensor<128xi32>
    %offs = tile.range 0, 128 block %pid : tensor<128xi32>
    ```

    The offset and block forms are text shorthand: the front end (and
    canonicalization) expands them to `arith.muli` (block), `tile.range`,
    `tile.splat` and `arith.addi`, so the passes after it see the range
    alone.
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end, Optional<I32>:$offset,
                   Optional<I32>:$block);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end (`offset` $offset^)? "
                       "(`block` $block^)? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::IntegerAttr":$start,
                   "::mlir::IntegerAttr":$end), [{
      build($_builder, $_state, type, start, end, ::mlir::Value(),
            ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Tile_SplatOp : Tile_Op<"splat", [Tile_LayoutRule, Pure]> {
  let summary = "tile whose every element is one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Tile_OwnLayoutRule, Pure]> {
  let summary = "repeat a tile along its unit dimensions";
  let description = [{
    The result has the rank of the source; each dimension either equals the
    source's or the source's is 1 and is repeated.

    ```mlir
    %b = tile.broadcast %row : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Tile_OwnLayoutRule, Pure]> {
  let summary = "insert a dimension at `axis`";
  let description = [{
    The new dimension has size 1, or any size: the source repeated along
    it, Triton's `x[:, None]` broadcast to the shape of another tile.

    ```mlir
    %c = tile.expand_dims %x, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %r = tile.expand_dims %x, 1 : tensor<128xf32> -> tensor<128x64xf32>
    ```

    A size other than 1 is text shorthand: the front end (and
    canonicalization) expand it into the unit `tile.expand_dims` and a
    `tile.broadcast`, so the passes after it see unit dimensions only.
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_OuterOp : Tile_Op<"outer", [Pure]> {
  let summary = "combine a column and a row into a 2-D tile";
  let description = [{
    `result[i, j] = kind(lhs[i], rhs[j])` for 1-D `lhs` (M) and `rhs` (N):
    an M x N tile, Triton's `lhs[:, None] + rhs[None, :]` in one op. `add`,
    `sub` and `mul` take integers or floats, `and`, `or` and `xor`
    integers or i1 (masks). The result type follows from the operands.

    ```mlir
    %offs = tile.outer add %rows, %cols : tensor<128xi32>, tensor<64xi32>
    %mask = tile.outer and %rin, %cin : tensor<128xi1>, tensor<64xi1>
    ```

    Text shorthand: the front end (and canonicalization) expand it into
    `tile.expand_dims`, `tile.broadcast` of each side and the arith op, so
    the passes after it see those.
  }];
  let arguments = (ins Tile_OuterKindAttr:$kind, Tile_Tensor:$lhs,
                   Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_EachOp : Tile_Op<"each", [Pure]> {
  let summary = "an arith op between a tile and a scalar";
  let description = [{
    `result[i] = kind(lhs[i], rhs)` (or `kind(lhs, rhs[i])`): the binary
    arith op `kind`, named as arith names it, between a tile and one scalar
    of its element type, Triton's `x - m` for a tile `x` and a scalar `m`.
    `cmpi` and `cmpf` take arith's predicate first and give an i1 tile.
    The types say which operand is the scalar.

    ```mlir
    %d = tile.each subf %x, %max : tensor<4096xf32>, f32
    %mask = tile.each cmpi slt, %cols, %n : tensor<4096xi32>, i32
    %r = tile.each subf %one, %x : f32, tensor<4096xf32>
    ```

    Text shorthand: the front end (and canonicalization) expand it into
    `tile.splat` of the scalar and the arith op, so the passes after it see
    those.
  }];
  let arguments = (ins Tile_EachKindAttr:$kind, Tile_Value:$lhs,
                   Tile_Value:$rhs, OptionalAttr<I64Attr>:$predicate);
  let results = (outs Tile_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Tile_OwnLayoutRule, Pure]> {
  let summary = "same elements, row-major order, another shape";
  let description = [{
    ```mlir
    %r = tile.reshape %x : tensor<4x32xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Tile_OwnLayoutRule, Pure]> {
  let summary = "permute the dimensions of a tile";
  let description = [{
    Result dimension `i` is source dimension `order[i]`.

    ```mlir
    %t = tile.trans %x, [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$src `,` $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_JoinOp : Tile_Op<"join", [
    Tile_OwnLayoutRule, Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "stack two tiles along a new minor dimension of size 2";
  let description = [{
    ```mlir
    %j = tile.join %a, %b : tensor<64xf32> -> tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [
    Tile_OwnLayoutRule, Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "split a tile along its minor dimension of size 2";
  let description = [{
    The inverse of `tile.join`.

    ```mlir
    %a, %b = tile.split %j : tensor<64x2xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($lhs)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [
    Tile_OwnLayoutRule, Pure]> {
  let summary = "same tile, another distribution over threads";
  let description = [{
    Changes only the layout encoding of a tile; shape and element type stay.
    Inserted by the layout pass where two layouts meet.

    ```mlir
    %y = tile.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Tile_LayoutRule, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "advance pointers by a number of elements";
  let description = [{
    `ptr + offset`, in units of the pointee type, elementwise for tiles. The
    offset is a same-shaped integer tile (or an integer, for a pointer). A
    scalar pointer with a tile of offsets is the tile of pointers from one
    base, `splat(base) + offsets`:

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %p = tile.addptr %x, %offs : !tile.ptr<f32>, tensor<128xi32>
    ```

    The scalar-base form is text shorthand: the front end (and
    canonicalization) expands it to `tile.splat` and `tile.addptr`, so the
    passes after it see pointer tiles only.
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat =
      "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Tile_LayoutRule, Pure]> {
  let summary = "reinterpret pointers as pointers to another type";
  let description = [{
    ```mlir
    %q = tile.bitcast %p : !tile.ptr<f32> -> !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [Tile_OwnLayoutRule,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AttrSizedOperandSegments]> {
  let summary = "load from global memory, optionally masked";
  let description = [{
    Loads the element behind each pointer. Where `mask` is false nothing is
    read and the result takes `other` (undefined without `other`). Mask and
    other have the shape of the pointers; their types are implied by it.

    ```mlir
    %x = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>>
    %s = tile.load %q cache = cg evict = evict_last : !tile.ptr<f16>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr,
                   Optional<Tile_BoolLike>:$mask,
                   Optional<Tile_Value>:$other,
                   DefaultValuedAttr<Tile_CacheModifierAttr,
                       "::mlir::tile::CacheModifier::none">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicyAttr,
                       "::mlir::tile::EvictionPolicy::normal">:$evict,
                   UnitAttr:$isVolatile);
  let results = (outs Tile_Value:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "Value":$ptr, CArg<"Value", "{}">:$mask,
                   CArg<"Value", "{}">:$other)>
  ];
}

def Tile_StoreOp : Tile_Op<"store", [Tile_OwnLayoutRule,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store to global memory, optionally masked";
  let description = [{
    ```mlir
    tile.store %p, %y, %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$value,
                   Optional<Tile_BoolLike>:$mask,
                   DefaultValuedAttr<Tile_CacheModifierAttr,
                       "::mlir::tile::CacheModifier::none">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicyAttr,
                       "::mlir::tile::EvictionPolicy::normal">:$evict);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load one block of a tensor descriptor";
  let description = [{
    The block of the descriptor's block shape whose first element is at
    `offsets` (in elements, outermost dimension first, as Triton's
    `desc.load([m, k])`); elements outside the tensor read as zero. The
    offsets may be negative or past the end.

    ```mlir
    %a = tile.descriptor_load %d[%m, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $offsets `]` attr-dict `:` qualified(type($desc)) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store one block of a tensor descriptor, or reduce into it";
  let description = [{
    Writes `value` (of the descriptor's block shape) to the block whose
    first element is at `offsets` (elements, outermost first); elements
    outside the tensor are dropped. With `reduce KIND` each element is
    combined with the one in memory instead, atomically per element (the
    TMA's reduction, Triton's `desc.atomic_add`): `fadd` for f32, f16 and
    bf16, `add` for i32. Nothing is returned.

    ```mlir
    tile.descriptor_store %d[%m, %n], %c : !tile.tensordesc<tensor<128x128xbf16>>, tensor<128x128xbf16>
    tile.descriptor_store %d[%m, %n], %g reduce fadd : !tile.tensordesc<tensor<64x128xf32>>, tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                   Tile_Tensor:$value, OptionalAttr<Tile_RMWKindAttr>:$reduce);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `,` $value custom<DescriptorReduce>($reduce)
    attr-dict `:` qualified(type($desc)) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [Tile_OwnLayoutRule,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "atomic read-modify-write; returns the old values";
  let description = [{
    For each active element, atomically `*ptr = kind(*ptr, val)` and returns
    the value `*ptr` held before. `add`, `max`, `min`, `umax`, `umin`, `and`,
    `or`, `xor` take integers (`max`/`min` floats too), `fadd` floats, `xchg`
    anything of 32 or 64 bits. Defaults: `sem = acq_rel`, `scope = gpu`.

    ```mlir
    %old = tile.atomic_rmw fadd %p, %v, %m : tensor<64x!tile.ptr<f32>>
    %o = tile.atomic_rmw max %q, %i sem = relaxed scope = cta : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_RMWKindAttr:$kind, Tile_PtrLike:$ptr,
                   Tile_Value:$val, Optional<Tile_BoolLike>:$mask,
                   DefaultValuedAttr<Tile_MemSemanticAttr,
                       "::mlir::tile::MemSemantic::acq_rel">:$sem,
                   DefaultValuedAttr<Tile_MemScopeAttr,
                       "::mlir::tile::MemScope::gpu">:$scope);
  let results = (outs Tile_Value:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [Tile_OwnLayoutRule,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "atomic compare-and-swap; returns the old values";
  let description = [{
    For each element: `old = *ptr; if (old == cmp) *ptr = val; return old`.
    Elements are 16, 32 or 64 bits wide.

    ```mlir
    %old = tile.atomic_cas %lock, %zero, %one : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$cmp, Tile_Value:$val,
                   DefaultValuedAttr<Tile_MemSemanticAttr,
                       "::mlir::tile::MemSemantic::acq_rel">:$sem,
                   DefaultValuedAttr<Tile_MemScopeAttr,
                       "::mlir::tile::MemScope::gpu">:$scope);
  let results = (outs Tile_Value:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, scans, dot
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_OwnLayoutRule,
    Pure, SingleBlock, RecursiveMemoryEffects]> {
  let summary = "reduce tiles along one axis with a combiner region";
  let description = [{
    Reduces each source along `axis` with the combiner: a block taking the
    accumulated values then the new values (2N scalars for N sources) and
    yielding N scalars. Several sources reduce together, e.g. value and index
    for an argmax. The combiner must be associative and commutative; the
    order of combination is unspecified. The result drops `axis`; a 1-D
    source reduces to a scalar.

    ```mlir
    %s = tile.reduce(%x) axis = 1 : (tensor<4x128xf32>) -> tensor<4xf32> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.yield %c : f32
    }
    ```

    The commonest combiners have a name instead of the region (the parser
    builds the region; the printer prints the name when the region is
    exactly that one): `add`, `mul`, `max`, `min` (floats: `arith.addf`,
    `mulf`, `maxnumf`, `minnumf`; integers: `addi`, `muli`, `maxsi`,
    `minsi`), `umax`, `umin`, `and`, `or`, `xor` (integers), and `argmax`,
    `argmin` on a value tile and an index tile (the first index of the
    largest or smallest value):

    ```mlir
    %s = tile.reduce add(%x) axis = 1 : (tensor<4x128xf32>) -> tensor<4xf32>
    %v, %i = tile.reduce argmax(%x, %idx) axis = 0
        : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Value>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  // The combiner is a region or a name (TileCombiners.cpp).
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Tile_LayoutRule,
    Pure, SingleBlock, RecursiveMemoryEffects]> {
  let summary = "inclusive prefix scan along one axis";
  let description = [{
    Inclusive scan of each source along `axis` with the combiner (same
    signature as `tile.reduce`'s); `reverse` scans from the end. The results
    have the sources' types.

    ```mlir
    %c = tile.scan(%x) axis = 0 : (tensor<256xi32>) -> tensor<256xi32> {
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tile.yield %s : i32
    }
    %c = tile.scan add(%x) axis = 0 reverse : (tensor<256xi32>) -> tensor<256xi32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis,
                   UnitAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  // The combiner is a region or a name (TileCombiners.cpp).
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"ReduceOp, ScanOp">]> {
  let summary = "terminator of a reduce or scan combiner";
  let description = [{
    ```mlir
    tile.yield %sum, %idx : f32, i32
    ```
  }];
  let arguments = (ins Variadic<Tile_Scalar>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Tile_DotOp : Tile_Op<"dot", [
    Tile_OwnLayoutRule, Pure, AllTypesMatch<["c", "result"]>]> {
  let summary = "matrix product with accumulation: d = a * b + c";
  let description = [{
    `a` is MxK, `b` KxN, `c` and the result MxN. Operands are f16, bf16,
    f32, f8 (e4m3/e5m2) or i8, both of one type; the accumulator is f32, or
    f16 for f16 operands, or i32 for i8. For f32 operands `precision` chooses
    `ieee` (exact fp32 FMA), `tf32` (tensor cores, 10-bit mantissa) or
    `tf32x3`; the default is `tf32`, as in Triton.

    ```mlir
    %d = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16>
                                 -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c,
                   DefaultValuedAttr<Tile_InputPrecisionAttr,
                       "::mlir::tile::InputPrecision::tf32">:$precision);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) "
                       "`->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [Tile_OwnLayoutRule,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "print values from every program and thread";
  let description = [{
    Prints `prefix` followed by each argument (every element of a tile, with
    its program id and index), in hexadecimal when `hex` is set.

    ```mlir
    tile.print "x = " %x, %n : tensor<16xf32>, i32
    ```
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex,
                   Variadic<Tile_Value>:$args);
  let assemblyFormat =
      "$prefix (`hex` $hex^)? attr-dict ($args^ `:` type($args))?";
}

def Tile_AssertOp : Tile_Op<"assert", [Tile_OwnLayoutRule,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "abort the kernel when a condition is false";
  let description = [{
    If any element of `condition` is false, reports `message` with the
    program id and the element's index and stops the kernel.

    ```mlir
    tile.assert %inb, "index out of range" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat =
      "$condition `,` $message attr-dict `:` type($condition)";
}

#endif // TILE_OPS_TD
