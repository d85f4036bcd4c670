//===- HostArgValues.h - launch arguments from command-line specs -*- C++ -*-===//
//
// The bridge between lib/Support's argument specs (HostArgs.h: what
// tilec-run and tilec-gpu-run parse from `--arg`) and the runtime's typed
// launch arguments: a parsed spec, the kernel parameter it is for and the
// device address its buffer got make one ArgValue. tilec-gpu-run and
// `tilec-tune measure --arg` share it, so a spec launches the same way in
// both.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_HOSTARGVALUES_H
#define TILEC_RUNTIME_HOSTARGVALUES_H

#include "tilec/Runtime/Args.h"
#include "tilec/Runtime/Metadata.h"
#include "tilec/Support/HostArgs.h"

namespace tilec::runtime {

/// Parses `spec` for kernel parameter `param`: a tensor descriptor's spec
/// is split into its buffer and its tensor (`h.desc`); an error quotes the
/// spec as given ("argument %x ('SPEC'): why").
Expected<HostArg> parseHostArgFor(const std::string &spec,
                                  const ParamInfo &param);

/// The ArgValue of `h` for parameter `param`: its buffer at device address
/// `address` (a tensor descriptor over it, of the tensor `h.desc`, is
/// built into `descArg`, which must live until the launch returns), or its
/// scalar (integers as int64 and floats as double; the launch converts
/// them to the parameter's type and checks their range).
ArgValue hostArgValue(const HostArg &h, const ParamInfo &param,
                      uint64_t address, TensorDescArg &descArg);

/// The elements a descriptor's tensor reaches, past the last one.
uint64_t tensorSpan(const TensorDescArg &d);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_HOSTARGVALUES_H
