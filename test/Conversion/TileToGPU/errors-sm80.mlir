// RUN: tile-opt %s --convert-tile-to-gpu=chip=sm_80 --verify-diagnostics
// RUN: not tile-opt %s --convert-tile-to-gpu=chip=sm_70 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: error: unknown GPU target 'sm_70' (known: sm_80, sm_89, sm_90, sm_90a, sm_100a)

func.func @bf16_add_sm80(%x: !tile.ptr<bf16>, %v: bf16) attributes {tile.kernel} {
  // expected-error @below {{'tile.atomic_rmw' op atomic add of bf16 needs sm_90}}
  %o = tile.atomic_rmw fadd %x, %v : !tile.ptr<bf16>
  return
}
