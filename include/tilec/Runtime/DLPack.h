//===- DLPack.h - DLPack tensors as kernel arguments ------------*- C++ -*-===//
//
// Any DLPack producer (PyTorch's to_dlpack, JAX, CuPy, ...) hands over a
// `DLManagedTensor*`; its `dl_tensor` passes to a pointer parameter:
//
//   DLManagedTensor *t = ...;
//   kernel.launch(stream, x, y, t, n);       // or Grid(...) first
//
// At launch the runtime checks it against the parameter, with the kernel and
// parameter in the message: a CUDA (or CUDA managed) tensor, the
// parameter's dtype with one lane, the address (data + byte_offset) a
// multiple of the parameter's divisibility, compact row-major strides (the
// kernels index dense memory), and at least the parameter's extent
// (`tile.extent`) in elements. The device ordinal is not compared with the
// kernel's context. The tensor must outlive the launch call; ownership
// stays with the caller (the runtime never calls `deleter`).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_DLPACK_H
#define TILEC_RUNTIME_DLPACK_H

#include "tilec/Runtime/Args.h"

#include <dlpack/dlpack.h>

// In the global namespace, DLTensor's: the launch templates find makeArg by
// argument-dependent lookup, which searches the argument type's namespace.
inline tilec::runtime::ArgValue makeArg(const DLTensor &t) {
  tilec::runtime::ArgValue a;
  a.kind = tilec::runtime::ArgValue::Kind::DLTensor;
  a.dlTensor = &t;
  return a;
}
inline tilec::runtime::ArgValue makeArg(const DLManagedTensor *t) {
  return makeArg(t->dl_tensor);
}
// Exact matches, so that the deleted tilec::runtime::makeArg(T *) is not
// chosen for pointers.
inline tilec::runtime::ArgValue makeArg(DLManagedTensor *t) {
  return makeArg(t->dl_tensor);
}
inline tilec::runtime::ArgValue makeArg(DLTensor *t) { return makeArg(*t); }
inline tilec::runtime::ArgValue makeArg(const DLTensor *t) {
  return makeArg(*t);
}

#endif // TILEC_RUNTIME_DLPACK_H
