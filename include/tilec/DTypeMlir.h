//===- DTypeMlir.h - tilec::DType <-> MLIR element types --------*- C++ -*-===//
//
// The MLIR side of include/tilec/DType.h, for the libraries that have MLIR
// (the builder, the interpreter); the runtime stays MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DTYPEMLIR_H
#define TILEC_DTYPEMLIR_H

#include "tilec/DType.h"

#include <optional>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace tilec {

/// The MLIR scalar type of `type` (i1 .. i64 signless, f16 .. f8E5M2).
mlir::Type mlirType(DType type, mlir::MLIRContext *context);
/// The dtype of an MLIR scalar type, if it has one.
std::optional<DType> dtypeOf(mlir::Type type);

} // namespace tilec

#endif // TILEC_DTYPEMLIR_H
