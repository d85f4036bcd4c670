//===- Passes.td - tile-level transformations --------------*- tablegen -*-===//

#ifndef TILEC_TRANSFORMS_PASSES_TD
#define TILEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Attach a distributed layout to every tile of every kernel";
  let description = [{
    Gives each tile type of each kernel a distributed layout encoding.
    Tiles tied by elementwise ops, memory ops and loop-carried values share
    one layout; a group that loads or stores memory gets a `#tilegpu.blocked`
    layout whose per-thread vector follows the contiguity and alignment the
    axis analysis proves (up to 16 bytes), lanes and warps along the
    contiguous dimension first. A dot that mma.sync can run (f16/bf16
    operands; M >= 16, N >= 8, K >= 16) gets a `#tilegpu.mma` accumulator and
    `#tilegpu.dot_operand` operands, and the loads and stores of those tiles
    keep blocked layouts of their own, meeting the dot through
    `tile.convert_layout`; other dots get FMA operand layouts. On a target
    with wgmma (`arch=sm_90a`) a bf16/f16 dot with an f32 accumulator whose
    shape fits gets the version 3 (warpgroup) `#tilegpu.mma` instead. Broadcasts,
    unit-dimension insertions and reductions derive their source (or
    result) layout from the other side (`#tilegpu.slice`); where two derived
    layouts disagree a `tile.convert_layout` is inserted.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", /*default=*/"4",
           "Warps per program of kernels without tile.num_warps">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "GPU target the layouts are for (tilec::Target)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::tilegpu::TileGPUDialect"];
}

def TileRemoveLayoutConversions
    : Pass<"tile-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "Recompute cheap tiles in the layout their users need";
  let description = [{
    Replaces `tile.convert_layout` of a tile computed only from index
    arithmetic (ranges, splats, constants, integer and pointer arithmetic,
    comparisons, broadcasts) by a copy of that computation in the target
    layout, avoiding a trip through shared memory; folds chains of
    conversions and conversions to the same layout.
  }];
}

def TilePipelineLoops : Pass<"tile-pipeline-loops", "::mlir::ModuleOp"> {
  let summary = "Software-pipeline the loads that feed mma dots in loops";
  let description = [{
    In each scf.for of a kernel, the tile.loads whose only use is a
    conversion to a #tilegpu.dot_operand layout become asynchronous copies
    (cp.async) into a shared memory buffer of `num-stages` slots, issued
    `num-stages - 1` iterations ahead: before the loop the first stages are
    started; each iteration waits for its own slot (tilegpu.async_wait, which
    also synchronizes the program), starts the copy for the iteration
    `num-stages - 1` ahead into the slot the previous iteration read, and
    reads its operands with tilegpu.local_load (ldmatrix). Copies for
    iterations past the end are masked off; after the loop every copy is
    waited for. The address computation of the loads (its backward slice in
    the loop, including loop-carried pointers) is cloned to run ahead; a
    loop whose load addresses depend on anything else (a load, the
    accumulator) is left alone, as are loads with a non-zero `other`.
    Kernels may set `tile.num_stages` (1: no pipelining).
  }];
  let options = [
    Option<"numStages", "num-stages", "int", /*default=*/"3",
           "Slots of the shared memory buffers (1: do not pipeline)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "GPU target (tilec::Target): pipelines only where it has "
           "cp.async">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileLowerDescriptors : Pass<"tile-lower-descriptors", "::mlir::ModuleOp"> {
  let summary = "Tensor descriptor loads and stores through the TMA";
  let description = [{
    On TMA targets (sm_90 and later), a wgmma dot in an scf.for whose two
    operands are descriptor loads reads them from a ring of swizzled
    shared memory slots filled by TMA copies completing on an mbarrier per
    slot, `num-stages` (or `num-stages + 1`) slots deep: by a producer
    warpgroup added to the program (tilegpu.warp_specialize; empty
    mbarriers return the slots) for the kernel's first such loop when it
    can, else by thread 0 between the dots; every
    other descriptor load is one TMA copy into a slot of its own, waited
    for and read back with tilegpu.local_load, and every descriptor store a
    tilegpu.local_store and a TMA store. On other targets every descriptor
    access is an error. The schedule is written at the top of
    LowerDescriptors.cpp. Kernels may set `tile.num_stages`.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", /*default=*/"3",
           "Slots of the descriptor pipelines (1: one slot per load)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "GPU target (tilec::Target)">,
    Option<"warpSpecializeByDefault", "warp-specialize", "bool",
           /*default=*/"true",
           "Warp-specialize a kernel's first TMA-fed wgmma loop unless the "
           "kernel says tile.warp_specialize = false">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileAsyncDots : Pass<"tile-async-dots", "::mlir::ModuleOp"> {
  let summary = "Let wgmma dots run until their result is read";
  let description = [{
    A tilegpu.warpgroup_dot that waits for its own group (pending = 0)
    becomes `async` when the ops after it in its block do not read its
    result: a tilegpu.warpgroup_wait before the first op that reads it (or
    may write memory, or ends the block) completes it there, with
    `pending` the number of dots issued in between and a register A
    operand kept alive through the wait. Work between the dot and that op
    (attention's softmax of S while P V's wgmma runs) then overlaps the
    tensor cores. The schedule and its conditions are written at the top
    of AsyncDots.cpp.
  }];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect"];
}

def TileLoopLargeTiles : Pass<"tile-loop-large-tiles", "::mlir::ModuleOp"> {
  let summary = "Compute tiles of many elements per thread in a loop over "
                "chunks";
  let description = [{
    The GPU lowering emits straight-line code per element a thread holds,
    so its code, and LLVM's time on it (superlinear in the length of a
    block), grow with the elements per thread. Where a tile of a blocked
    layout (or a slice of one) holds more than `max-elements-per-thread` of
    them, the connected ops of its block that
    compute it (elementwise arith/math, ranges, splats, broadcasts, unit
    dims, pointer arithmetic, loads, stores, atomics, layout conversions,
    reductions) run instead in `scf.for` loops over chunks of one
    dimension: tiles of the same layouts, one chunk's worth of that
    dimension each, at most `chunk-elements-per-thread` elements per thread
    where the layouts allow. A thread then holds the same elements as
    before, a chunk at a time. A reduction along the chunked dimension
    combines the chunks element by element into an accumulator tile (the
    combiner applied to tiles) and reduces that once after its loop; the
    chunked ops that use its result run in a later loop, which computes
    again what they need of the earlier ones (softmax: three loops, each
    loading the row), and every write runs in the last loop. A tile whose
    ops cannot run in chunks (dots, scans, reshapes, prints, an atomic
    whose old values a reduction needs, a load after a write that would
    run in an earlier loop, ...) stays as it was, with a warning saying
    why. Kernels without such tiles are left alone, and so are the tensor
    cores' tiles (#tilegpu.mma, #tilegpu.dot_operand), whose size the
    dot's instructions set.
  }];
  let options = [
    Option<"maxElementsPerThread", "max-elements-per-thread", "int64_t",
           /*default=*/"128",
           "Tiles with more elements per thread than this run in chunks "
           "(0: never)">,
    Option<"chunkElementsPerThread", "chunk-elements-per-thread", "int64_t",
           /*default=*/"32",
           "Elements per thread a chunk holds at most, where the layouts "
           "allow (capped by max-elements-per-thread)">,
    Option<"maxUnchunkedElementsPerThread",
           "max-unchunked-elements-per-thread", "int64_t", /*default=*/"512",
           "A tile that cannot run in chunks and holds more elements per "
           "thread than this is an error instead of a warning (0: no "
           "limit)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileHoistLoads : Pass<"tile-hoist-loads", "::mlir::ModuleOp"> {
  let summary = "Issue loads as early as their operands and memory allow";
  let description = [{
    Moves each non-volatile `tile.load` up its block to just after the last
    op that defines one of its operands, may write memory, or is a load
    (loads keep their order). A load that
    follows a reduction (barriers, shuffles) in the source then overlaps its
    memory latency with that work instead of waiting for it: in layernorm
    the weight and bias loads start with the row's load.
  }];
}

#endif // TILEC_TRANSFORMS_PASSES_TD
