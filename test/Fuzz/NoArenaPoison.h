//===- NoArenaPoison.h - no ASan poisoning in LLVM's inline allocators ----===//
//
// Force-included (-include) into every file of the fuzz build that uses
// MLIR (TILEC_FUZZ with the compiler, scripts/fuzz.sh's build-fuzz-mlir).
// Debian's MLIR and LLVM shared libraries are not built with AddressSanitizer,
// but their headers are: in a file compiled with -fsanitize=address,
// llvm/Support/Compiler.h turns on LLVM_ADDRESS_SANITIZER_BUILD, and the
// inline code of LLVM's allocators (BumpPtrAllocator and what builds on it,
// as MLIR's context and uniquers do) poisons the arena memory it has not
// handed out yet. The uninstrumented libraries later hand that memory out
// without unpoisoning it, and their own correct reads of it are reported as
// use-after-poison (the parser's first StringAttr did it). Defining the two
// calls away here, after Compiler.h declared them, keeps the arenas
// unpoisoned in tilec's files as in the libraries'; ASan still checks every
// heap, stack and global access of tilec's code.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_FUZZ_NOARENAPOISON_H
#define TILEC_TEST_FUZZ_NOARENAPOISON_H

#ifdef __cplusplus
#include "llvm/Support/Compiler.h"
#include <sanitizer/asan_interface.h>
#undef __asan_poison_memory_region
#undef __asan_unpoison_memory_region
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif

#endif // TILEC_TEST_FUZZ_NOARENAPOISON_H
