//===- TileGPUOps.td - ops of the tilegpu dialect ----------*- tablegen -*-===//
//
// Shared memory buffers and the asynchronous copies that fill them: made
// after layout assignment (software pipelining), read by the GPU lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TILEGPU_OPS_TD
#define TILEGPU_OPS_TD

include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"
include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "tilec/Dialect/Tile/IR/TileEnums.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Shared memory and asynchronous copies (made after layout assignment)
//===----------------------------------------------------------------------===//

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [
    MemoryEffects<[MemAlloc]>]> {
  let summary = "a buffer in the program's shared memory";
  let description = [{
    Its contents are undefined until written; it lives until the kernel
    ends. The GPU lowering places it in the kernel's shared memory.

    ```mlir
    %buf = tilegpu.local_alloc : !tilegpu.smem<3x128x32xbf16, #shared>
    ```
  }];
  let results = (outs TileGPU_SharedMem:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TileGPU_AsyncCopyOp : TileGPU_Op<"async_copy", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a tile from global to shared memory";
  let description = [{
    Starts copying the element behind each pointer into slot `slot` of
    `buffer`, at the element's place in the tile (cp.async, 16 bytes per
    thread where the layout and alignment allow). Where `mask` is false
    nothing is read and the element becomes zero. The copy belongs to the
    calling thread's current group (`tilegpu.async_commit`) and is complete
    only after a `tilegpu.async_wait` that lets that group finish.

    ```mlir
    tilegpu.async_copy %ptrs, %mask into %buf[%slot]
        : tensor<128x32x!tile.ptr<bf16>, #blocked>, tensor<128x32xi1, #blocked>
          into !tilegpu.smem<3x128x32xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Optional<Tile_BoolTensor>:$mask,
                   TileGPU_SharedMem:$buffer, I32:$slot);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? `into` $buffer `[` $slot `]` attr-dict `:` type($ptr)
    (`,` type($mask)^)? `into` type($buffer)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitOp : TileGPU_Op<"async_commit", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "close the calling thread's current group of async copies";
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for async copies, then synchronize the program";
  let description = [{
    Waits until at most `pending` of the calling thread's committed groups
    are still in flight, then waits for every thread of the program
    (a barrier), so that all threads' completed copies are visible and
    every thread has finished reading what it read before. With
    `fence_async`, each thread orders its completed copies (generic proxy)
    before later reads through the async proxy (wgmma) first
    (`fence.proxy.async.shared::cta` before the barrier).

    ```mlir
    tilegpu.async_wait {pending = 1 : i32}
    tilegpu.async_wait {fence_async, pending = 1 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$fence_async);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load", [
    MemoryEffects<[MemRead]>]> {
  let summary = "read a tile from a slot of a shared memory buffer";
  let description = [{
    The tile in slot `slot` of `buffer`, distributed over the threads by
    the result's layout (ldmatrix for #tilegpu.dot_operand layouts).

    ```mlir
    %a = tilegpu.local_load %buf[%slot] : !tilegpu.smem<3x128x32xbf16, #shared>
        -> tensor<128x32xbf16, #dot_op>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$buffer, I32:$slot);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $buffer `[` $slot `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_TransViewOp : TileGPU_Op<"trans_view", [Pure]> {
  let summary = "a 2-D shared memory buffer viewed with its dims swapped";
  let description = [{
    The same bytes as `src`, each slot's two dims swapped: a slot of shape
    [R, C] whose contiguous dim is `order[0]` becomes a slot of shape
    [C, R] whose contiguous dim is the other index, with the same swizzle.
    Nothing moves: a K block staged as [keys, head_dim] (rows along
    head_dim) is read by a wgmma as K^T, [head_dim, keys] with head_dim
    contiguous, the K-major B operand of Q K^T; one buffer can feed dots
    that want it either way round.
    ```mlir
    %kt = tilegpu.trans_view %k : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
        -> !tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$src);
  let results = (outs TileGPU_SharedMem:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The view of `src` with its slots' dims swapped.
    static SharedMemType getTransposedType(SharedMemType src);
  }];
}

def TileGPU_WarpgroupDotOp : TileGPU_Op<"warpgroup_dot", [
    MemoryEffects<[MemRead]>]> {
  let summary = "d = a * b + c with b (and a) read from shared memory (wgmma)";
  let description = [{
    The matrix product of `a` (MxK) and slot `b_slot` of `b` (KxN), both
    f16 or bf16, added to the f32 accumulator `c` of #tilegpu.mma version 3
    layout: sm_90a's `wgmma.mma_async` per warpgroup, 64 rows and 16 of K
    per instruction. `b` is a buffer in a #tilegpu.nvmma_shared layout,
    read straight from shared memory through a matrix descriptor. `a` is
    either such a buffer too (with its slot `a_slot`) or a register tile
    in the #tilegpu.dot_operand layout (operand 0, kWidth 2) of the
    accumulator's layout: each warp then holds mma.sync's A fragments of
    its 16 rows, which are wgmma's register A (attention's P V, with P
    computed in registers). The slots must hold their data for the async
    proxy (a tilegpu.async_wait with `fence_async` after the copies). The
    op commits its wgmma group and waits until at most `pending` of the
    calling warpgroup's groups are still in flight (wgmma.wait_group
    `pending`). With `pending = 0` (the default) it is complete when it
    returns, so the slots may be overwritten after the next barrier. With
    `pending = 1` its own group may still be reading the slots (and A's
    registers) and writing the accumulator: the result may only feed the
    accumulator of the next warpgroup_dot (wgmma chains on the same
    registers) or a tilegpu.warpgroup_wait, and the slots it read may be
    overwritten only after the next warpgroup_dot has returned and a
    barrier followed. With `async` the op only issues and commits its
    group, waiting for none (tile-async-dots sets it): its result may only
    be read through a tilegpu.warpgroup_wait, which makes it complete
    (with A's registers among that wait's `keep` operands when A is a
    register tile); the slots must not be overwritten before that wait.

    ```mlir
    %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc
        : !tilegpu.smem<3x128x64xbf16, #nvmma>, !tilegpu.smem<3x64x128xbf16, #nvmma>
          -> tensor<128x128xf32, #mma>
    %e = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc {pending = 1 : i32}
        : !tilegpu.smem<3x128x64xbf16, #nvmma>, !tilegpu.smem<3x64x128xbf16, #nvmma>
          -> tensor<128x128xf32, #mma>
    %f = tilegpu.warpgroup_dot %p, %v[%s], %acc
        : tensor<128x64xbf16, #dot_op>, !tilegpu.smem<3x64x128xbf16, #nvmma>
          -> tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_SharedMem, Tile_Tensor]>:$a,
                   Optional<I32>:$a_slot, TileGPU_SharedMem:$b,
                   I32:$b_slot, Tile_Tensor:$c,
                   DefaultValuedAttr<I32Attr, "0">:$pending,
                   UnitAttr:$async);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a (`[` $a_slot^ `]`)? `,` $b `[` $b_slot `]` `,` $c attr-dict `:`
    type($a) `,` type($b) `->` type($result)
    custom<SameType>(ref(type($result)), type($c))
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpgroupWaitOp : TileGPU_Op<"warpgroup_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the calling warpgroup's wgmma groups";
  let description = [{
    Waits until at most `pending` of the calling warpgroup's committed
    wgmma groups are in flight (wgmma.wait_group `pending`) and returns
    `acc`, an accumulator those groups wrote: its registers are read only
    after the wait (they pass through the wait's inline PTX). `keep`
    names register tiles that the groups in flight still read (a register
    A operand, #tilegpu.dot_operand of a version 3 layout): the wait reads
    their registers, so they stay allocated and unchanged until it.

    ```mlir
    %done = tilegpu.warpgroup_wait %acc {pending = 0 : i32} : tensor<128x128xf32, #mma>
    %s = tilegpu.warpgroup_wait %acc keep(%p : tensor<128x64xbf16, #dot_op>)
        {pending = 1 : i32} : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins Tile_Tensor:$acc, Variadic<Tile_Tensor>:$keep,
                   I32Attr:$pending);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $acc (`keep` `(` $keep^ `:` type($keep) `)`)? attr-dict `:` type($acc)
    custom<SameType>(ref(type($acc)), type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA copies (sm_90a; made by tile-lower-descriptors)
//===----------------------------------------------------------------------===//

def TileGPU_MBarrierInitOp : TileGPU_Op<"mbarrier_init", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "initialize every slot of a buffer of mbarriers";
  let description = [{
    `barriers` is a buffer of `1x1xi64` slots, each one mbarrier object.
    Thread 0 initializes each with an arrival count of `count`
    (`mbarrier.init`), then makes the initialization visible to the async
    proxy (`fence.mbarrier_init`); a barrier of the whole program follows,
    so no thread uses an mbarrier before it is initialized.

    ```mlir
    tilegpu.mbarrier_init %bars {count = 1 : i32} : !tilegpu.smem<3x1x1xi64, #plain>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$barriers, I32Attr:$count);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def TileGPU_MBarrierExpectOp : TileGPU_Op<"mbarrier_expect", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "thread 0 announces the bytes a phase of an mbarrier awaits";
  let description = [{
    Thread 0 of the program (in a warp_specialize producer region: the
    one thread that runs it) adds `bytes` to the transaction count of the
    mbarrier in slot `slot` of `barriers`; the other threads do nothing.
    With `arrive` it also arrives on it (`mbarrier.arrive.expect_tx`: the
    mbarrier's one expected arrival, count 1), else only expects
    (`mbarrier.expect_tx`; the arrivals come from `tilegpu.mbarrier_wait`
    without a phase).

    ```mlir
    tilegpu.mbarrier_expect %bars[%s] {arrive, bytes = 32768 : i32} : !tilegpu.smem<3x1x1xi64, #plain>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$barriers, I32:$slot,
                   I32Attr:$bytes, UnitAttr:$arrive);
  let assemblyFormat = "$barriers `[` $slot `]` attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def TileGPU_MBarrierWaitOp : TileGPU_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for a phase of an mbarrier to complete";
  let description = [{
    With `phase` (0 or 1), every thread waits until the mbarrier's phase
    of that parity has completed (`mbarrier.try_wait.parity`, looped).
    Without it, every thread arrives on the mbarrier (initialized with the
    program's thread count) and waits for the phase it arrived on to
    complete (`mbarrier.arrive`, then `mbarrier.try_wait` on its state).
    Either way the TMA copies that completed the phase are visible after.

    ```mlir
    tilegpu.mbarrier_wait %bars[%s], %phase : !tilegpu.smem<3x1x1xi64, #plain>
    tilegpu.mbarrier_wait %bar[%c0] : !tilegpu.smem<1x1x1xi64, #plain>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$barriers, I32:$slot,
                   Optional<I32>:$phase);
  let assemblyFormat = [{
    $barriers `[` $slot `]` (`,` $phase^)? attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_TmaLoadOp : TileGPU_Op<"tma_load", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "thread 0 starts TMA copies of a descriptor block into a slot";
  let description = [{
    Thread 0 of the program (in a warp_specialize producer region: the
    one thread that runs it) starts copying the block of `desc` at
    `offsets` (elements, outermost first) into slot `slot` of `buffer`
    (`cp.async.bulk.tensor` to shared::cluster, one copy per box of
    tilegpu::getTmaBox, each box one atom of the slot's
    #tilegpu.nvmma_shared layout); the copies complete on the mbarrier in
    slot `barrier_slot` of `barriers` (complete_tx::bytes), whose
    transaction count must have been raised by the block's bytes
    (`tilegpu.mbarrier_expect`). Elements outside the tensor become zero.

    With `multicast = n` (the kernel's `tile.num_ctas`, 2 or 4) every
    program of the cluster loads the same block into the same slot: box
    `c` is copied by the program of cluster rank `c % n` alone, into the
    slot of all n programs (`.multicast::cluster`, ctaMask 2^n - 1), each
    destination's mbarrier at `barrier_slot` receiving the bytes it got;
    each program still expects the whole block's bytes.

    ```mlir
    tilegpu.tma_load %d[%m, %k] into %buf[%s], %bars[%s]
        : !tile.tensordesc<tensor<128x64xbf16>> into !tilegpu.smem<3x128x64xbf16, #nvmma>, !tilegpu.smem<3x1x1xi64, #plain>
    tilegpu.tma_load %d[%k, %n] into %buf[%s], %bars[%s] {multicast = 2 : i32}
        : !tile.tensordesc<tensor<64x256xbf16>> into !tilegpu.smem<3x64x256xbf16, #nvmma>, !tilegpu.smem<3x1x1xi64, #plain>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                   TileGPU_SharedMem:$buffer, I32:$slot,
                   TileGPU_SharedMem:$barriers, I32:$barrier_slot,
                   OptionalAttr<I32Attr>:$multicast);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `into` $buffer `[` $slot `]` `,` $barriers `[`
    $barrier_slot `]` attr-dict `:` qualified(type($desc)) `into`
    type($buffer) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_TmaStoreOp : TileGPU_Op<"tma_store", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "store a slot to a descriptor block through the TMA";
  let description = [{
    Every thread orders its writes of slot `slot` of `buffer` before the
    async proxy (`fence.proxy.async.shared::cta`), a barrier follows, then
    thread 0 copies the slot to the block of `desc` at `offsets`
    (`cp.async.bulk.tensor` from shared::cta, one copy per box), commits
    and waits until the copies have read the slot (`wait_group.read 0`).
    Elements outside the tensor are dropped. The slot may be written again
    after the next barrier. With `reduce KIND` the copy combines the slot
    with global memory (`cp.reduce.async.bulk.tensor`, `.add`; the tensor
    map's element type says which addition). With `async` thread 0 does not
    wait: a `tilegpu.tma_store_wait` must come before the slot is written
    again and before the program ends.

    With `warpgroups [g0, g1, ...]` (one per box of tilegpu::getTmaBox:
    the warpgroup, threads 128 g .. 128 g + 127, that wrote that box of the
    slot alone) each warpgroup fences, waits on a barrier of its own 128
    threads (named barrier 5 + g) and its first thread copies, commits and
    waits for its own boxes: no warpgroup waits for another's writes.

    ```mlir
    tilegpu.tma_store %d[%m, %n] from %buf[%c0]
        : !tile.tensordesc<tensor<128x64xbf16>> from !tilegpu.smem<1x128x64xbf16, #nvmma>
    tilegpu.tma_store %d[%m, %n] from %buf[%c0] reduce fadd
        : !tile.tensordesc<tensor<64x32xf32>> from !tilegpu.smem<1x64x32xf32, #nvmma>
    tilegpu.tma_store %d[%m, %n] from %buf[%c0] reduce fadd async
        warpgroups [0, 0, 1, 1]
        : !tile.tensordesc<tensor<64x128xf32>> from !tilegpu.smem<1x64x128xf32, #nvmma>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                   TileGPU_SharedMem:$buffer, I32:$slot,
                   OptionalAttr<Tile_RMWKindAttr>:$reduce, UnitAttr:$async,
                   OptionalAttr<DenseI32ArrayAttr>:$warpgroups);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `from` $buffer `[` $slot `]`
    custom<DescriptorReduce>($reduce) (`async` $async^)?
    (`warpgroups` $warpgroups^)? attr-dict `:`
    qualified(type($desc)) `from` type($buffer)
  }];
  let hasVerifier = 1;
}

def TileGPU_TmaStoreWaitOp : TileGPU_Op<"tma_store_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until the TMA stores have read their slots";
  let description = [{
    Thread 0 waits until every TMA store it issued has read its slot
    (`cp.async.bulk.wait_group.read 0`), the wait an `async`
    `tilegpu.tma_store` from `buffer` leaves for later; a barrier after it
    lets the others write the slots again. It names the buffer so that the
    buffer lives until the wait (the allocator places nothing else there
    while the TMA may still read it). With `warpgroups` (after stores with
    `warpgroups`) the first thread of each warpgroup waits for its own
    stores, then the warpgroup's 128 threads wait on their named barrier
    5 + g: the barrier is part of the op.

    ```mlir
    tilegpu.tma_store_wait %buf : !tilegpu.smem<1x64x32xf32, #nvmma>
    tilegpu.tma_store_wait %buf warpgroups : !tilegpu.smem<1x64x128xf32, #nvmma>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$buffer, UnitAttr:$warpgroups);
  let assemblyFormat =
      "$buffer (`warpgroups` $warpgroups^)? attr-dict `:` type($buffer)";
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "write a tile into a slot of a shared memory buffer";
  let description = [{
    Each thread writes its elements of `value` (a distributed layout) at
    their place in slot `slot` of `buffer`.

    ```mlir
    tilegpu.local_store %v into %buf[%c0] : tensor<128x64xbf16, #blocked> into !tilegpu.smem<1x128x64xbf16, #nvmma>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, TileGPU_SharedMem:$buffer,
                   I32:$slot);
  let assemblyFormat = [{
    $value `into` $buffer `[` $slot `]` attr-dict `:` type($value) `into`
    type($buffer)
  }];
  let hasVerifier = 1;
}

def TileGPU_MBarrierArriveOp : TileGPU_Op<"mbarrier_arrive", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "each warp arrives once on an mbarrier";
  let description = [{
    Lane 0 of every warp that runs the op arrives on the mbarrier in slot
    `slot` of `barriers` (`mbarrier.arrive`, release at CTA scope): the
    warp says it is done with what the mbarrier guards. An mbarrier that
    `n` warps release is initialized with count `n`. The warp's lanes must
    be converged (after a warp-synchronous op such as a warpgroup_dot's
    wait, every lane's reads are done when lane 0 arrives).

    With `cluster = n` (the kernel's `tile.num_ctas`) lane 0 arrives on
    the mbarrier at the same place in each of the cluster's n programs
    (`mapa`, then `mbarrier.arrive.release.cluster.shared::cluster`): the
    slot that multicast copies fill in all of them is released in all of
    them; such an mbarrier counts n arrivals per warp.

    ```mlir
    tilegpu.mbarrier_arrive %empty[%s] : !tilegpu.smem<4x1x1xi64, #plain>
    tilegpu.mbarrier_arrive %empty[%s] {cluster = 2 : i32} : !tilegpu.smem<4x1x1xi64, #plain>
    ```
  }];
  let arguments = (ins TileGPU_SharedMem:$barriers, I32:$slot,
                   OptionalAttr<I32Attr>:$cluster);
  let assemblyFormat = "$barriers `[` $slot `]` attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def TileGPU_ClusterBarrierOp : TileGPU_Op<"cluster_barrier", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a barrier of every thread of the cluster's programs";
  let description = [{
    Every thread of every program of the kernel's cluster (`tile.num_ctas`
    programs) arrives (release) and waits (acquire) until all have
    arrived (`barrier.cluster.arrive` / `barrier.cluster.wait`). After
    mbarrier initialization it keeps the other programs' multicast copies
    and remote arrivals from reaching an mbarrier not initialized yet; at
    the end of the kernel it keeps a program from exiting while another
    may still copy into its shared memory or arrive on its mbarriers.
    Every thread must reach it.

    ```mlir
    tilegpu.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TileGPU_WarpgroupTurnOp : TileGPU_Op<"warpgroup_turn", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the two consumer warpgroups take turns (ping-pong)";
  let description = [{
    In the consumer region of a tilegpu.warp_specialize with two consumer
    warpgroups (8 warps), a turn passes between them through the named
    barriers 2 and 3 (256 threads: one warpgroup waits, the other
    arrives), so that one warpgroup issues its products while the other
    runs its softmax (FlashAttention-3's ping-pong). `step` is one of:
    - `start`: warpgroup 1 gives warpgroup 0 the first turn
      (`bar.arrive 2, 256`);
    - `wait`: the warpgroup waits for its turn (`bar.sync 2 + g, 256`);
    - `pass`: the warpgroup gives the other its turn
      (`bar.arrive 3 - g, 256`);
    - `finish`: warpgroup 0 takes the turn warpgroup 1 passed last, so that
      every arrival is consumed (`bar.sync 2, 256`).
    Both warpgroups must run the same number of `wait` and `pass` steps.
    ```mlir
    tilegpu.warpgroup_turn "wait"
    ```
  }];
  let arguments = (ins StrAttr:$step);
  let assemblyFormat = "$step attr-dict";
  let hasVerifier = 1;
}

def TileGPU_WarpSpecializeOp : TileGPU_Op<"warp_specialize", [
    RecursiveMemoryEffects, SingleBlock, NoTerminator]> {
  let summary = "a producer warpgroup and the consumer warps of a program";
  let description = [{
    Splits the program's threads in two. The consumers are the kernel's
    `tile.num_warps` warps (threads 0 .. 32 * num_warps - 1): they run the
    `consumer` region, and every tile in it keeps the layout it was
    assigned for those warps. One more warpgroup (4 warps) is launched
    after them: its first thread runs the `producer` region, which holds
    only scalar code and the producer's TMA and mbarrier ops; the other
    three producer warps do nothing. Each side first moves its register
    budget with `setmaxnreg` (`producer_registers` for the producer
    warpgroup, `consumer_registers` for the consumers): the producer needs
    few, the consumers' accumulators many.

    The regions see the values of the program defined before the op. A
    barrier in the consumer region synchronizes the consumers alone (the
    named barrier 1 over their threads), never the producer. The two sides
    communicate only through mbarriers in shared memory.

    ```mlir
    tilegpu.warp_specialize producer {
      scf.for %k = %c0 to %K step %c64 { ... tilegpu.tma_load ... }
    } consumer {
      %acc = scf.for ... { tilegpu.mbarrier_wait ...; tilegpu.warpgroup_dot ... }
      tile.store %ptrs, %acc ...
    } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$producer_registers,
                   I32Attr:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = [{
    `producer` $producer `consumer` $consumer attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The warps the producer side adds to a program.
    static constexpr int kProducerWarps = 4;
    /// The name of the kernel attribute that counts the producer warps
    /// (so that the launch and the metadata count them too).
    static llvm::StringRef getProducerWarpsAttrName() {
      return "tilegpu.producer_warps";
    }
  }];
}

#endif // TILEGPU_OPS_TD
