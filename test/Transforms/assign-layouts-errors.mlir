// RUN: tile-opt %s --allow-unregistered-dialect --tile-assign-layouts --verify-diagnostics

// Layout assignment knows an op's tiles from the op itself
// (tile::LayoutRelationOpInterface, or the Elementwise trait): an op with
// neither, here one of an unregistered dialect, is an error rather than
// silently one layout for all its tiles.
func.func @no_rule(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.load %ps : tensor<128x!tile.ptr<f32>>
  // expected-error @+1 {{'test.mystery' op has no layout rule: tile-assign-layouts relates the layouts of an op's tiles through tile::LayoutRelationOpInterface or the Elementwise trait}}
  %b = "test.mystery"(%a) : (tensor<128xf32>) -> tensor<128xf32>
  return
}
