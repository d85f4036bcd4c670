//===- Passes.h - test passes of the analyses -------------------*- C++ -*-===//

#ifndef TILEC_ANALYSIS_PASSES_H
#define TILEC_ANALYSIS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tilec {
#define GEN_PASS_DECL
#include "tilec/Analysis/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tilec/Analysis/Passes.h.inc"
} // namespace tilec

#endif // TILEC_ANALYSIS_PASSES_H
