// RUN: tile-opt --split-input-file --tile-async-dots %s | FileCheck %s

// tile-async-dots: attention's step, S = Q K^T then O += P V, then the
// softmax of S. Both dots issue and commit only; S's wait lets P V's group
// run (pending 1, one dot between) and keeps Q's registers; the
// accumulator's wait is where the rescale reads it, after the softmax.

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvk = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#s = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#o = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#qa = #tilegpu.dot_operand<{opIdx = 0, parent = #s, kWidth = 2}>
#pa = #tilegpu.dot_operand<{opIdx = 0, parent = #o, kWidth = 2}>

// CHECK-LABEL: func.func @attention_step
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot %[[Q:[^,]*]], %{{.*}}[%{{.*}}], %{{.*}} {async}
// CHECK-NEXT: %[[O:.*]] = tilegpu.warpgroup_dot %[[P:[^,]*]], %{{.*}}[%{{.*}}], %{{.*}} {async}
// CHECK-NEXT: %[[SD:.*]] = tilegpu.warpgroup_wait %[[S]] keep(%[[Q]] : tensor<64x128xbf16, #dot_op>) {pending = 1 : i32}
// CHECK-NEXT: arith.mulf %[[SD]]
// CHECK: math.exp2
// CHECK: %[[OD:.*]] = tilegpu.warpgroup_wait %[[O]] keep(%[[P]] : tensor<64x64xbf16, #dot_op1>) {pending = 0 : i32}
// CHECK-NEXT: arith.mulf %[[OD]]
// CHECK-NEXT: tile.store
func.func @attention_step(%q: tensor<64x128xbf16, #qa>, %p: tensor<64x64xbf16, #pa>,
                          %acc: tensor<64x128xf32, #o>, %zero: tensor<64x64xf32, #s>,
                          %scale: tensor<64x64xf32, #s>, %alpha: tensor<64x128xf32, #o>,
                          %slot: i32, %ps: tensor<64x64x!tile.ptr<f32>, #s>,
                          %po: tensor<64x128x!tile.ptr<f32>, #o>) {
  %k = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvk>
  %v = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %s = tilegpu.warpgroup_dot %q, %k[%slot], %zero : tensor<64x128xbf16, #qa>, !tilegpu.smem<3x128x64xbf16, #nvk> -> tensor<64x64xf32, #s>
  %o = tilegpu.warpgroup_dot %p, %v[%slot], %acc : tensor<64x64xbf16, #pa>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #o>
  %s2 = arith.mulf %s, %scale : tensor<64x64xf32, #s>
  %e = math.exp2 %s2 : tensor<64x64xf32, #s>
  %o2 = arith.mulf %o, %alpha : tensor<64x128xf32, #o>
  tile.store %ps, %e : tensor<64x64x!tile.ptr<f32>, #s>
  tile.store %po, %o2 : tensor<64x128x!tile.ptr<f32>, #o>
  return
}

// A dot whose result is read at once, or across nothing but splats and
// scalar arithmetic, keeps its own wait.
// CHECK-LABEL: func.func @read_at_once
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: async
// CHECK-NOT: tilegpu.warpgroup_wait
// CHECK: return
func.func @read_at_once(%q: tensor<64x128xbf16, #qa>, %zero: tensor<64x64xf32, #s>,
                        %f: f32, %slot: i32, %ps: tensor<64x64x!tile.ptr<f32>, #s>) {
  %k = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvk>
  %s = tilegpu.warpgroup_dot %q, %k[%slot], %zero : tensor<64x128xbf16, #qa>, !tilegpu.smem<3x128x64xbf16, #nvk> -> tensor<64x64xf32, #s>
  %g = arith.mulf %f, %f : f32
  %c = tile.splat %g : f32 -> tensor<64x64xf32, #s>
  %s2 = arith.mulf %s, %c : tensor<64x64xf32, #s>
  tile.store %ps, %s2 : tensor<64x64x!tile.ptr<f32>, #s>
  return
}

// The wait goes no further than an op that may write memory (a copy into
// a slot the group may still read) or the end of the block: here the
// copy, with the exp2 before it overlapping the group.
// CHECK-LABEL: func.func @stops_at_writes
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot {{.*}} {async}
// CHECK-NEXT: math.exp2
// CHECK-NEXT: %[[SD:.*]] = tilegpu.warpgroup_wait %[[S]] keep({{.*}}) {pending = 0 : i32}
// CHECK-NEXT: tilegpu.async_copy
// CHECK: tile.store %{{.*}}, %[[SD]]
func.func @stops_at_writes(%q: tensor<64x128xbf16, #qa>, %zero: tensor<64x64xf32, #s>,
                           %x: tensor<64x64xf32, #s>, %slot: i32,
                           %ptrs: tensor<128x64x!tile.ptr<bf16>, #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>,
                           %ps: tensor<64x64x!tile.ptr<f32>, #s>) {
  %k = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvk>
  %s = tilegpu.warpgroup_dot %q, %k[%slot], %zero : tensor<64x128xbf16, #qa>, !tilegpu.smem<3x128x64xbf16, #nvk> -> tensor<64x64xf32, #s>
  %e = math.exp2 %x : tensor<64x64xf32, #s>
  tilegpu.async_copy %ptrs into %k[%slot] : tensor<128x64x!tile.ptr<bf16>, #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>> into !tilegpu.smem<3x128x64xbf16, #nvk>
  tile.store %ps, %e : tensor<64x64x!tile.ptr<f32>, #s>
  tile.store %ps, %s : tensor<64x64x!tile.ptr<f32>, #s>
  return
}

// A dot that keeps its group in flight across iterations (the GEMM loop's
// pending = 1) is left alone.
// CHECK-LABEL: func.func @in_flight_kept
// CHECK: tilegpu.warpgroup_dot {{.*}} {pending = 1 : i32}
// CHECK-NOT: async
func.func @in_flight_kept(%acc: tensor<64x128xf32, #o>, %x: tensor<64x128xf32, #o>, %slot: i32,
                          %po: tensor<64x128x!tile.ptr<f32>, #o>) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x64x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %d = tilegpu.warpgroup_dot %a[%slot], %b[%slot], %acc {pending = 1 : i32} : !tilegpu.smem<3x64x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #o>
  %e = math.exp2 %x : tensor<64x128xf32, #o>
  %w = tilegpu.warpgroup_wait %d {pending = 0 : i32} : tensor<64x128xf32, #o>
  tile.store %po, %e : tensor<64x128x!tile.ptr<f32>, #o>
  tile.store %po, %w : tensor<64x128x!tile.ptr<f32>, #o>
  return
}

// A dot between that stays synchronous (its result is read at once) waits
// for every group: the first dot's wait then asks for none in flight.
// CHECK-LABEL: func.func @after_synchronous_dot
// CHECK: %[[O:.*]] = tilegpu.warpgroup_dot {{.*}} {async}
// CHECK: math.exp2
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot
// CHECK-NOT: async
// CHECK-NEXT: arith.mulf %[[S]]
// CHECK: tilegpu.warpgroup_wait %[[O]] keep({{.*}}) {pending = 0 : i32}
func.func @after_synchronous_dot(%q: tensor<64x128xbf16, #qa>, %p: tensor<64x64xbf16, #pa>,
                                 %acc: tensor<64x128xf32, #o>, %zero: tensor<64x64xf32, #s>,
                                 %scale: tensor<64x64xf32, #s>, %alpha: tensor<64x128xf32, #o>,
                                 %slot: i32) -> (tensor<64x64xf32, #s>, tensor<64x128xf32, #o>) {
  %k = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvk>
  %v = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %o = tilegpu.warpgroup_dot %p, %v[%slot], %acc : tensor<64x64xbf16, #pa>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #o>
  %e = math.exp2 %alpha : tensor<64x128xf32, #o>
  %s = tilegpu.warpgroup_dot %q, %k[%slot], %zero : tensor<64x128xbf16, #qa>, !tilegpu.smem<3x128x64xbf16, #nvk> -> tensor<64x64xf32, #s>
  %s2 = arith.mulf %s, %scale : tensor<64x64xf32, #s>
  %o2 = arith.mulf %o, %e : tensor<64x128xf32, #o>
  return %s2, %o2 : tensor<64x64xf32, #s>, tensor<64x128xf32, #o>
}

// Warp-specialized consumers release each slot (mbarrier_arrive to the
// TMA producer) right after the dot that read it. A dot made async reads
// its slot until its wait: the release moves after the wait, and the wait
// for the next dot's slot to land (mbarrier_wait with a phase) runs beside
// the group. Two releases keep their order.
// CHECK-LABEL: func.func @releases_follow_the_wait
// CHECK: %[[O:.*]] = tilegpu.warpgroup_dot {{.*}} {async}
// CHECK-NEXT: tilegpu.mbarrier_wait %[[FULL:.*]][%{{.*}}], %{{.*}} :
// CHECK-NEXT: math.exp2
// CHECK-NEXT: %[[OD:.*]] = tilegpu.warpgroup_wait %[[O]] keep({{.*}}) {pending = 0 : i32}
// CHECK-NEXT: tilegpu.mbarrier_arrive %[[EMPTY:.*]][%c0_i32]
// CHECK-NEXT: tilegpu.mbarrier_arrive %[[EMPTY]][%c1_i32]
// CHECK-NEXT: arith.mulf %[[OD]]
func.func @releases_follow_the_wait(%p: tensor<64x64xbf16, #pa>,
                                    %acc: tensor<64x128xf32, #o>, %alpha: tensor<64x128xf32, #o>,
                                    %slot: i32, %phase: i32) -> tensor<64x128xf32, #o> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %bars = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64, #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
  %full = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64, #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
  %o = tilegpu.warpgroup_dot %p, %v[%slot], %acc : tensor<64x64xbf16, #pa>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #o>
  tilegpu.mbarrier_arrive %bars[%c0] : !tilegpu.smem<3x1x1xi64, #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
  tilegpu.mbarrier_arrive %bars[%c1] : !tilegpu.smem<3x1x1xi64, #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
  tilegpu.mbarrier_wait %full[%slot], %phase : !tilegpu.smem<3x1x1xi64, #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
  %e = math.exp2 %alpha : tensor<64x128xf32, #o>
  %o2 = arith.mulf %o, %e : tensor<64x128xf32, #o>
  return %o2 : tensor<64x128xf32, #o>
}

// -----

// A register A operand is read by its group until the wait: an op reading
// its registers (here the tile it was converted from, as the attention
// backward's dS^T is read again for dQ while dK = dS^T Q runs) comes after
// the wait, which the group's result itself would not need yet. Global
// atomics write no slot a group reads: the wait passes them.
#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#o = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#pa = #tilegpu.dot_operand<{opIdx = 0, parent = #o, kWidth = 2}>
#s = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>

// CHECK-LABEL: func.func @register_a_read
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %[[A:[^,]*]], %{{.*}} {async}
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[W:.*]] = tilegpu.warpgroup_wait %[[D]] keep(%[[A]] : {{.*}}) {pending = 0 : i32}
// CHECK-NEXT: arith.extf
// CHECK-NEXT: math.exp2
func.func @register_a_read(%p: tensor<64x64xbf16, #s>, %acc: tensor<64x128xf32, #o>,
                           %x: tensor<64x64xf32, #s>, %slot: i32,
                           %ps: tensor<64x64x!tile.ptr<f32>, #s>,
                           %po: tensor<64x128x!tile.ptr<f32>, #o>) {
  %v = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %pa = tile.convert_layout %p : tensor<64x64xbf16, #s> -> tensor<64x64xbf16, #pa>
  %o = tilegpu.warpgroup_dot %pa, %v[%slot], %acc : tensor<64x64xbf16, #pa>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #o>
  %y = arith.mulf %x, %x : tensor<64x64xf32, #s>
  %w = arith.extf %p : tensor<64x64xbf16, #s> to tensor<64x64xf32, #s>
  %e = math.exp2 %y : tensor<64x64xf32, #s>
  tile.store %ps, %w : tensor<64x64x!tile.ptr<f32>, #s>
  tile.store %po, %o : tensor<64x128x!tile.ptr<f32>, #o>
  return
}

// CHECK-LABEL: func.func @beside_atomics
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}} {async}
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: tile.atomic_rmw
// CHECK-NEXT: %[[W:.*]] = tilegpu.warpgroup_wait %[[D]]
// CHECK-NEXT: tile.store %{{.*}}, %[[W]]
func.func @beside_atomics(%pa: tensor<64x64xbf16, #pa>, %acc: tensor<64x128xf32, #o>,
                          %x: tensor<64x64xf32, #s>, %slot: i32,
                          %pq: tensor<64x64x!tile.ptr<f32>, #s>,
                          %po: tensor<64x128x!tile.ptr<f32>, #o>) {
  %v = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %o = tilegpu.warpgroup_dot %pa, %v[%slot], %acc : tensor<64x64xbf16, #pa>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #o>
  %y = arith.mulf %x, %x : tensor<64x64xf32, #s>
  %old = tile.atomic_rmw fadd %pq, %y sem = relaxed : tensor<64x64x!tile.ptr<f32>, #s>
  tile.store %po, %o : tensor<64x128x!tile.ptr<f32>, #o>
  return
}
