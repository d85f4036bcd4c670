// RUN: tile-opt %s -split-input-file -verify-diagnostics

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @not_barriers() {
  %bars = tilegpu.local_alloc : !tilegpu.smem<3x1x2xi64, #plain>
  // expected-error @+1 {{'tilegpu.mbarrier_init' op expects a buffer of i64 mbarriers (slots of 1x1xi64), got '!tilegpu.smem<3x1x2xi64}}
  tilegpu.mbarrier_init %bars {count = 1 : i32} : !tilegpu.smem<3x1x2xi64, #plain>
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @count() {
  %bars = tilegpu.local_alloc : !tilegpu.smem<1x1x1xi64, #plain>
  // expected-error @+1 {{'tilegpu.mbarrier_init' op arrival count must be in [1, 2^20), got 0}}
  tilegpu.mbarrier_init %bars {count = 0 : i32} : !tilegpu.smem<1x1x1xi64, #plain>
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @bytes(%s: i32) {
  %bars = tilegpu.local_alloc : !tilegpu.smem<1x1x1xi64, #plain>
  // expected-error @+1 {{'tilegpu.mbarrier_expect' op transaction bytes must be in [1, 2^20), got 0}}
  tilegpu.mbarrier_expect %bars[%s] {bytes = 0 : i32} : !tilegpu.smem<1x1x1xi64, #plain>
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @slot_shape(%d: !tile.tensordesc<tensor<128x64xbf16>>, %i: i32) {
  %bars = tilegpu.local_alloc : !tilegpu.smem<1x1x1xi64, #plain>
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x64x64xbf16, #nvmma>
  // expected-error @+1 {{'tilegpu.tma_load' op slot of '!tilegpu.smem<1x64x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>' is not the descriptor's block 'tensor<128x64xbf16>'}}
  tilegpu.tma_load %d[%i, %i] into %buf[%i], %bars[%i] : !tile.tensordesc<tensor<128x64xbf16>> into !tilegpu.smem<1x64x64xbf16, #nvmma>, !tilegpu.smem<1x1x1xi64, #plain>
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
func.func @slot_swizzle(%d: !tile.tensordesc<tensor<128x64xbf16>>, %i: i32) {
  %bars = tilegpu.local_alloc : !tilegpu.smem<1x1x1xi64, #plain>
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x128x64xbf16, #nvmma>
  // expected-error @+1 {{'tilegpu.tma_load' op needs a slot in #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}> (the TMA boxes' arrangement), got #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>}}
  tilegpu.tma_load %d[%i, %i] into %buf[%i], %bars[%i] : !tile.tensordesc<tensor<128x64xbf16>> into !tilegpu.smem<1x128x64xbf16, #nvmma>, !tilegpu.smem<1x1x1xi64, #plain>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @store_offsets(%d: !tile.tensordesc<tensor<128x64xbf16>>, %i: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x128x64xbf16, #nvmma>
  // expected-error @+1 {{'tilegpu.tma_store' op has 1 offsets for a 2-D descriptor}}
  tilegpu.tma_store %d[%i] from %buf[%i] : !tile.tensordesc<tensor<128x64xbf16>> from !tilegpu.smem<1x128x64xbf16, #nvmma>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @store_reduce_kind(%d: !tile.tensordesc<tensor<128x64xbf16>>, %i: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x128x64xbf16, #nvmma>
  // expected-error @+1 {{'tilegpu.tma_store' op reduce add needs i32 elements, got bf16}}
  tilegpu.tma_store %d[%i, %i] from %buf[%i] reduce add : !tile.tensordesc<tensor<128x64xbf16>> from !tilegpu.smem<1x128x64xbf16, #nvmma>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @local_store(%v: tensor<128x32xbf16>, %i: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x128x64xbf16, #nvmma>
  // expected-error @+1 {{'tilegpu.local_store' op value 'tensor<128x32xbf16>' is not a slot of}}
  tilegpu.local_store %v into %buf[%i] : tensor<128x32xbf16> into !tilegpu.smem<1x128x64xbf16, #nvmma>
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @arrive_not_barriers(%s: i32) {
  %bars = tilegpu.local_alloc : !tilegpu.smem<3x1x2xi64, #plain>
  // expected-error @+1 {{'tilegpu.mbarrier_arrive' op expects a buffer of i64 mbarriers (slots of 1x1xi64), got '!tilegpu.smem<3x1x2xi64}}
  tilegpu.mbarrier_arrive %bars[%s] : !tilegpu.smem<3x1x2xi64, #plain>
  return
}

// -----

func.func @budget() {
  // expected-error @+1 {{'tilegpu.warp_specialize' op consumer_registers must be a multiple of 8 in [24, 256], got 233}}
  tilegpu.warp_specialize producer {
  } consumer {
  } {consumer_registers = 233 : i32, producer_registers = 40 : i32}
  return
}

// -----

func.func @small_budget() {
  // expected-error @+1 {{'tilegpu.warp_specialize' op producer_registers must be a multiple of 8 in [24, 256], got 16}}
  tilegpu.warp_specialize producer {
  } consumer {
  } {consumer_registers = 232 : i32, producer_registers = 16 : i32}
  return
}

// -----

func.func @region_args() {
  // expected-error @+1 {{'tilegpu.warp_specialize' op regions take no arguments}}
  tilegpu.warp_specialize producer {
  ^bb0(%x: i32):
  } consumer {
  } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
  return
}

// -----

func.func @turn_step() attributes {tile.num_warps = 8 : i32} {
  tilegpu.warp_specialize producer {
  } consumer {
    // expected-error @+1 {{'tilegpu.warpgroup_turn' op step must be start, wait, pass or finish, got 'go'}}
    tilegpu.warpgroup_turn "go"
  } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
  return
}

// -----

func.func @turn_producer() attributes {tile.num_warps = 8 : i32} {
  tilegpu.warp_specialize producer {
    // expected-error @+1 {{'tilegpu.warpgroup_turn' op must be on the consumer side of its tilegpu.warp_specialize}}
    tilegpu.warpgroup_turn "wait"
  } consumer {
  } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
  return
}

// -----

func.func @turn_outside() {
  // expected-error @+1 {{'tilegpu.warpgroup_turn' op must be inside a tilegpu.warp_specialize}}
  tilegpu.warpgroup_turn "wait"
  return
}

// -----

func.func @turn_warps() attributes {tile.num_warps = 12 : i32} {
  tilegpu.warp_specialize producer {
  } consumer {
    // expected-error @+1 {{'tilegpu.warpgroup_turn' op takes turns between two consumer warpgroups (tile.num_warps = 8), the kernel has 12 warps}}
    tilegpu.warpgroup_turn "wait"
  } {consumer_registers = 160 : i32, producer_registers = 40 : i32}
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @store_warpgroups_count(%d: !tile.tensordesc<tensor<64x128xf32>>, %i: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x64x128xf32, #nvmma>
  // expected-error @+1 {{'tilegpu.tma_store' op names 2 warpgroups for the 4 TMA boxes of 'tensor<64x128xf32>'}}
  tilegpu.tma_store %d[%i, %i] from %buf[%i] warpgroups [0, 1] : !tile.tensordesc<tensor<64x128xf32>> from !tilegpu.smem<1x64x128xf32, #nvmma>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @store_warpgroups_range(%d: !tile.tensordesc<tensor<64x128xf32>>, %i: i32)
    attributes {tile.num_warps = 8 : i32} {
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x64x128xf32, #nvmma>
  // expected-error @+1 {{'tilegpu.tma_store' op warpgroup 2 is not one of the program's 2 (four warps each)}}
  tilegpu.tma_store %d[%i, %i] from %buf[%i] warpgroups [0, 1, 2, 1] : !tile.tensordesc<tensor<64x128xf32>> from !tilegpu.smem<1x64x128xf32, #nvmma>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @multicast_count(%d: !tile.tensordesc<tensor<64x128xbf16>>, %i: i32)
    attributes {tile.kernel, tile.num_ctas = 2 : i32} {
  %buf = tilegpu.local_alloc : !tilegpu.smem<2x64x128xbf16, #nvmma>
  %bar = tilegpu.local_alloc : !tilegpu.smem<2x1x1xi64, #plain>
  // expected-error @+1 {{'tilegpu.tma_load' op multicast 4 differs from the kernel's tile.num_ctas 2}}
  tilegpu.tma_load %d[%i, %i] into %buf[%i], %bar[%i] {multicast = 4 : i32} : !tile.tensordesc<tensor<64x128xbf16>> into !tilegpu.smem<2x64x128xbf16, #nvmma>, !tilegpu.smem<2x1x1xi64, #plain>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @multicast_value(%d: !tile.tensordesc<tensor<64x128xbf16>>, %i: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<2x64x128xbf16, #nvmma>
  %bar = tilegpu.local_alloc : !tilegpu.smem<2x1x1xi64, #plain>
  // expected-error @+1 {{'tilegpu.tma_load' op multicast must be 2 or 4, got 3}}
  tilegpu.tma_load %d[%i, %i] into %buf[%i], %bar[%i] {multicast = 3 : i32} : !tile.tensordesc<tensor<64x128xbf16>> into !tilegpu.smem<2x64x128xbf16, #nvmma>, !tilegpu.smem<2x1x1xi64, #plain>
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @arrive_cluster(%i: i32) attributes {tile.kernel} {
  %bar = tilegpu.local_alloc : !tilegpu.smem<2x1x1xi64, #plain>
  // expected-error @+1 {{'tilegpu.mbarrier_arrive' op cluster 2 differs from the kernel's tile.num_ctas 1}}
  tilegpu.mbarrier_arrive %bar[%i] {cluster = 2 : i32} : !tilegpu.smem<2x1x1xi64, #plain>
  return
}

// -----

func.func @cluster_barrier_alone() attributes {tile.kernel} {
  // expected-error @+1 {{'tilegpu.cluster_barrier' op needs a kernel whose programs run in clusters (tile.num_ctas 2 or 4)}}
  tilegpu.cluster_barrier
  return
}

// -----

#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @arrive_cluster_value(%i: i32) {
  %bar = tilegpu.local_alloc : !tilegpu.smem<2x1x1xi64, #plain>
  // expected-error @+1 {{'tilegpu.mbarrier_arrive' op cluster must be 2 or 4, got 8}}
  tilegpu.mbarrier_arrive %bar[%i] {cluster = 8 : i32} : !tilegpu.smem<2x1x1xi64, #plain>
  return
}
