//===- TileAttrs.td - layout attributes of the tile dialect -*- tablegen -*-===//
//
// Distributed layouts: how the elements of a tile are spread over the threads
// of a program. The layout pass attaches one to every tile type as its
// encoding; the GPU lowering reads them to decide what each thread computes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked"> {
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
    #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32],
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

def Tile_SliceLayoutAttr : Tile_Attr<"SliceLayout", "slice"> {
  let summary = "the parent layout with one dimension removed";
  let description = [{
    The layout of a tile that is `parent`'s tile with dimension `dim` taken
    away, e.g. the result of a reduction along `dim`: the element at index
    `i` sits in every thread that holds, in the parent, an element whose
    index is `i` with any value inserted at `dim`. Expanding `dim` back
    (`tile.expand_dims`) gives a tile of layout `parent` with no data
    movement.

    ```mlir
    #tile.slice<{dim = 1, parent = #blocked}>
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

#endif // TILE_ATTRS_TD
