//===- TileInterfaces.td - interfaces of the tile dialect --*- tablegen -*-===//
//
// What an op knows about the layouts of its tiles, so that layout assignment
// needs no list of ops: each op says it here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INTERFACES_TD
#define TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_LayoutRelationOpInterface : OpInterface<"LayoutRelationOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    How the layouts of an op's tiles relate, for tile-assign-layouts: which
    tiles share one layout, which derive theirs from another's (a
    broadcast's, a reduction's slice, a dot's operands) and which are free
    (the op moves data through shared memory). The op reports them to a
    `LayoutRelations` recorder. The default: every tile operand and result
    shares one layout (elementwise ops). A region-free op that neither
    implements this nor is `Elementwise` and touches two tiles or more is an
    error in the pass.
  }];
  let methods = [
    InterfaceMethod<[{
        Records what the op says about its tiles' layouts.
      }],
      "void", "relateLayouts", (ins "::mlir::tile::LayoutRelations &":$rel),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{ rel.sameLayoutAll($_op); }]>,
  ];
}

#endif // TILE_INTERFACES_TD
