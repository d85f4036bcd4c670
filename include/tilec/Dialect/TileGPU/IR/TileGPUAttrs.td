//===- TileGPUAttrs.td - layout attributes of tilegpu ------*- tablegen -*-===//
//
// Distributed layouts: how the elements of a tile are spread over the threads
// of a program. The layout pass attaches one to every tile type as its
// encoding; the GPU lowering reads them to decide what each thread computes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_ATTRS_TD
#define TILEGPU_ATTRS_TD

include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedLayoutAttr : TileGPU_Attr<"BlockedLayout", "blocked"> {
  let summary = "tile split into per-thread blocks, threads, warps";
  let description = [{
    Along each dimension `d` a thread holds `sizePerThread[d]` consecutive
    elements; `threadsPerWarp[d]` threads of a warp and `warpsPerCTA[d]` warps
    of the program are laid next to each other, and the pattern repeats until
    the tile is covered. A tile smaller than one repetition is replicated
    (several threads hold the same element). `order` lists the dimensions from
    the fastest-varying: lanes and warps are numbered along `order[0]` first,
    and a thread's elements are enumerated in that order too, so its
    `sizePerThread[order[0]]` elements along the fastest dimension are
    consecutive (one vector access when memory is contiguous there).
    Products: threadsPerWarp = 32, warpsPerCTA = the program's warps.

    ```mlir
    #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32],
                   warpsPerCTA = [4], order = [0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
            `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    /// Warps of the program the layout is made for.
    unsigned getNumWarps() const;
  }];
}

def TileGPU_SliceLayoutAttr : TileGPU_Attr<"SliceLayout", "slice"> {
  let summary = "the parent layout with one dimension removed";
  let description = [{
    The layout of a tile that is `parent`'s tile with dimension `dim` taken
    away, e.g. the result of a reduction along `dim`: the element at index
    `i` sits in every thread that holds, in the parent, an element whose
    index is `i` with any value inserted at `dim`. Expanding `dim` back
    (`tile.expand_dims`) gives a tile of layout `parent` with no data
    movement.

    ```mlir
    #tilegpu.slice<{dim = 1, parent = #blocked}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "Attribute":$parent);
  let assemblyFormat = [{
    `<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const;
  }];
}

def TileGPU_MmaLayoutAttr : TileGPU_Attr<"MmaLayout", "mma"> {
  let summary = "accumulator layout of the tensor cores (mma.sync, wgmma)";
  let description = [{
    The layout of a 2-D accumulator computed by `mma.sync.m16n8kK`
    (`versionMajor = 2`, sm_80+). A warp holds `instrShape` = 16x8 tiles:
    lane `l` holds rows `l / 4` and `l / 4 + 8`, columns `2 * (l % 4)` and
    `+ 1` of each. The warps, `warpsPerCTA` = [along M, along N] (warp id =
    m * warpsPerCTA[1] + n), tile the accumulator in 16x8 steps, and the
    pattern repeats (strided by 16 * warpsPerCTA[0] rows and
    8 * warpsPerCTA[1] columns) until the tile is covered. A thread's two
    consecutive columns are consecutive elements (one 2-element vector).

    `versionMajor = 3` is the accumulator of sm_90a's warpgroup MMA
    (`wgmma.mma_async.m64nNk16`, `instrShape = [64, N]`, N a multiple of 8
    up to 256): `warpsPerCTA = [w, 1]` with w a multiple of 4, warpgroup
    g (warps 4g .. 4g + 3) computing rows 64g .. 64g + 63 of every
    16w-row block. Its thread-to-element map is that of version 2 with the
    same warpsPerCTA (wgmma's D fragment is mma.sync's m16n8 C fragment
    repeated along N, warp w of a warpgroup at rows 16w), so everything but
    the dot itself treats both alike.

    ```mlir
    #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
    #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
    ```
  }];
  let parameters = (ins "unsigned":$versionMajor,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `{` `versionMajor` `=` $versionMajor `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `instrShape` `=` `[` $instrShape `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return 2; }
    unsigned getNumWarps() const {
      return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
    }
  }];
}

def TileGPU_DotOperandLayoutAttr
    : TileGPU_Attr<"DotOperandLayout", "dot_operand"> {
  let summary = "layout of an mma.sync operand (A or B) in registers";
  let description = [{
    Operand `opIdx` (0: A, MxK; 1: B, KxN) of a dot whose accumulator has
    the #tilegpu.mma layout `parent`, as mma.sync reads it from registers:
    each thread holds `kWidth` consecutive K values per 32-bit register
    (2 for f16/bf16). With g = lane / 4 and t = lane % 4, for one
    m16n8k16 step A holds (row g or g + 8, k = 2t + {0, 1} or + 8) and B
    holds (k = 2t + {0, 1} or + 8, column g), the operand fragments of the
    PTX ISA. Warps take the parent's M (A) or N (B) coordinate; the warps
    along the other accumulator dim hold copies. Tiles larger than one
    step repeat along M or N as the parent does and along K every 16.

    ```mlir
    #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,`
            `kWidth` `=` $kWidth `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return 2; }
    MmaLayoutAttr getMmaParent() const {
      return ::llvm::cast<MmaLayoutAttr>(getParent());
    }
  }];
}

def TileGPU_SharedLayoutAttr : TileGPU_Attr<"SharedLayout", "shared"> {
  let summary = "swizzled placement of a tile in shared memory";
  let description = [{
    A 2-D tile stored row by row along `order` (order[0] the contiguous
    dim), in chunks of `vec` elements (16 bytes). The chunk index within a
    row is XORed with `(row / perPhase) % maxPhase`, so that the 8 rows an
    `ldmatrix` reads (one chunk each) fall in different banks.

    ```mlir
    #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,`
            `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_NvmmaSharedLayoutAttr : TileGPU_Attr<"NvmmaSharedLayout", "nvmma_shared"> {
  let summary = "shared memory layout that wgmma reads through a descriptor";
  let description = [{
    A 2-D tile of 16-bit elements in the swizzled arrangement the tensor
    cores' matrix descriptors describe (CUTLASS's Swizzle<B, 4, 3>; PTX ISA
    "shared memory matrix layout"): `order[0]` is the contiguous dim, cut
    into atoms of `swizzle` bytes (`swizzle / 2` elements); the atoms are
    stored one after the other, each holding that column range of every
    row, `swizzle` bytes per row. Within an atom, the 16-byte chunk index
    of row `r` is XORed with `(r / (128 / swizzle)) % (swizzle / 16)`.
    With one atom per row (a 64-element 16-bit row and `swizzle = 128`)
    this is `#tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8}>`.
    `swizzle` is 128, 64 or 32; slots start 1024-byte aligned.

    ```mlir
    #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzle,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `swizzle` `=` $swizzle `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TILEGPU_ATTRS_TD
