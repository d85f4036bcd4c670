//===- FuzzHooks.h - what a fuzz target may tell the standalone driver ----===//
//
// The standalone driver (FuzzDriver.cpp) runs any libFuzzer target without
// libFuzzer and without coverage. Two optional hooks, weak so that a target
// may leave them out, give it what coverage would: how far an input went
// (the driver keeps mutants that went deep as new bases, so that it mutates
// valid programs rather than only the seeds) and how to reproduce an input
// with the tools (printed beside each finding).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_FUZZ_FUZZHOOKS_H
#define TILEC_TEST_FUZZ_FUZZHOOKS_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tilec::fuzz {

/// How far the last input went through the target, 0 (refused at once) to
/// 15 (all the way). Called in the process that ran the input, after
/// LLVMFuzzerTestOneInput returned.
[[gnu::weak]] int inputDepth();

/// A line saying how to reproduce `data` outside the fuzzer (the tool and
/// its options); empty if the bytes are the tool's input as they are.
[[gnu::weak]] std::string describeInput(const uint8_t *data, size_t size);

} // namespace tilec::fuzz

#endif // TILEC_TEST_FUZZ_FUZZHOOKS_H
