//===- Hopper.h - sm_90a's matrix descriptors, swizzles and mbarriers -*- C++
//-*-===//
//
// The arithmetic of the simulator's sm_90a instructions that depends on no
// thread, written from the PTX ISA's definitions: the 64-bit shared-memory
// matrix descriptor of wgmma.mma_async and the address of every operand
// element it describes, the swizzle patterns that wgmma and the Tensor
// Memory Accelerator apply to shared-memory addresses, and the mbarrier
// object's phases, arrivals and transaction count. Sm90.cpp runs the
// instructions on these; test/Unit/PtxSim/HopperTest.cpp checks them
// against addresses computed by hand from the ISA's tables.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_PTXSIM_HOPPER_H
#define TILEC_TEST_PTXSIM_HOPPER_H

#include <cstdint>
#include <string>

namespace ptxsim::hopper {

/// `addr` after a swizzle of `bytes` (0: none, 32, 64 or 128): the index
/// of its 16-byte chunk within a `bytes`-wide span (address bits 4 up,
/// log2(bytes / 16) of them) is XORed with as many bits from bit 7 up, the
/// span's row within the pattern. The pattern repeats every 8 * bytes (256,
/// 512, 1024) bytes; both wgmma's operand reads and the TMA's shared-memory
/// side apply it to the address itself.
uint64_t swizzle(uint64_t addr, unsigned bytes);

/// A decoded wgmma matrix descriptor; offsets in bytes.
struct MatrixDescriptor {
  uint64_t start = 0;
  uint64_t leading = 0; ///< leading dimension byte offset
  uint64_t stride = 0;  ///< stride dimension byte offset
  unsigned swizzle = 0; ///< 0 (none), 32, 64 or 128
};

/// Decodes the descriptor of the PTX ISA's "Matrix Descriptor Format":
/// bits 0-13 the start address, 16-29 the leading and 32-45 the stride
/// dimension byte offsets (each the value >> 4), 49-51 the matrix base
/// offset, 62-63 the swizzle mode (0 none, 1 128B, 2 64B, 3 32B). Returns
/// "" or why it is refused: a nonzero base offset (for a pattern that does
/// not start on its 8 * swizzle-byte boundary) and set reserved bits are
/// not modelled.
std::string decodeDescriptor(uint64_t bits, MatrixDescriptor &out);

/// The shared-memory address of element (mn, k) of a wgmma operand of
/// `elemBytes`-wide elements: A is M x K (mn its row), B is K x N (mn its
/// column). `mnMajor` is the operand's imm-trans (1: MN-major, 0:
/// K-major). With t = 16 / elemBytes elements per 16 bytes and s the
/// swizzle's width, the ISA's canonical layouts place it at
///   K-major, none:     start + (mn%8)*16 + (mn/8)*SBO + (k%t)*e + (k/t)*LBO
///   K-major, s:        start + (mn%8)*s  + (mn/8)*SBO + k*e (LBO unused)
///   MN-major, none:    start + (mn%t)*e + (mn/t)*SBO + (k%8)*16 + (k/8)*LBO
///   MN-major, s:       start + (mn%(s/e))*e + (mn/(s/e))*LBO
///                            + (k%8)*s + (k/8)*SBO
/// and then swizzles the sum (`swizzle` above).
uint64_t operandAddress(const MatrixDescriptor &d, bool mnMajor, unsigned mn,
                        unsigned k, unsigned elemBytes);

/// An mbarrier object (PTX ISA, "Contents of the mbarrier object"): its
/// current phase, the arrivals still pending in it, the arrivals each phase
/// expects and the transaction count. A phase completes when its pending
/// arrivals and its transaction count are both zero; the next phase then
/// expects as many arrivals again. The operations return "" or what broke
/// the ISA's rules (counts out of their ranges, more arrivals than the
/// phase expects).
class MBarrier {
public:
  /// mbarrier.init: `count` in [1, 2^20 - 1], phase 0.
  std::string init(uint64_t count);
  /// The arrive-on operation: `count` arrivals in the current phase.
  std::string arrive(uint64_t count);
  /// expect-tx: the current phase's transaction count grows by `bytes`.
  std::string expectTx(uint64_t bytes);
  /// complete-tx: `bytes` of the current phase's transactions are done.
  std::string completeTx(uint64_t bytes);

  /// try_wait.parity / test_wait.parity: whether the phase of parity
  /// `parity` completed, that is the current phase has the other parity
  /// (the ISA's operand names the current phase or the one before it).
  bool parityCompleted(unsigned parity) const {
    return (phase & 1) != (parity & 1);
  }
  /// The state that mbarrier.arrive returns: the phase it arrived in.
  uint64_t state() const { return kStateTag | phase; }
  /// try_wait / test_wait with an arrive's state: whether that phase
  /// completed. Returns "" or why `state` is no state of this object's
  /// current or previous phase.
  std::string stateCompleted(uint64_t state, bool &completed) const;

  uint64_t phase = 0;   ///< phases completed since init
  int64_t pending = 0;  ///< arrivals still expected in this phase
  int64_t expected = 0; ///< arrivals each phase expects
  int64_t tx = 0;       ///< transaction count (bytes)

  static constexpr int64_t kMaxCount = (int64_t(1) << 20) - 1;
  static constexpr uint64_t kStateTag = uint64_t(0x5eed) << 48;

private:
  void completeIfDone();
};

} // namespace ptxsim::hopper

#endif // TILEC_TEST_PTXSIM_HOPPER_H
