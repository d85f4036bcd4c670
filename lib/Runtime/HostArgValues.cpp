//===- HostArgValues.cpp - launch arguments from command-line specs -------===//

#include "tilec/Runtime/HostArgValues.h"

using namespace tilec;
using namespace tilec::runtime;

Expected<HostArg> runtime::parseHostArgFor(const std::string &spec,
                                           const ParamInfo &param) {
  HostParam p;
  p.name = param.name;
  p.isPointer = param.kind != ParamInfo::Kind::Scalar;
  p.dtype = param.type;
  std::string buffer = spec;
  TensorDescSpec desc;
  if (param.kind == ParamInfo::Kind::TensorDesc) {
    buffer.clear();
    std::string e = splitTensorDescSpec(spec, param.name, buffer, desc);
    if (!e.empty())
      return Status::error(e);
  }
  Expected<HostArg> arg = parseHostArg(buffer, p);
  if (!arg.ok()) {
    // Quote the spec as the user wrote it, not its buffer part.
    std::string message = arg.message(), quoted = "('" + buffer + "')";
    if (size_t at = message.find(quoted); at != std::string::npos)
      message.replace(at, quoted.size(), "('" + spec + "')");
    return Status::error(message);
  }
  arg->desc = std::move(desc);
  return arg;
}

ArgValue runtime::hostArgValue(const HostArg &h, const ParamInfo &param,
                               uint64_t address, TensorDescArg &descArg) {
  if (param.kind == ParamInfo::Kind::TensorDesc) {
    descArg = tensorDesc(pointerArg(param.type, address), h.desc.shape,
                         h.desc.strides);
    return makeArg(descArg);
  }
  if (h.isBuffer)
    return pointerArg(param.type, address);
  if (isFloat(h.dtype))
    return makeArg(h.floatValue);
  if (h.dtype == DType::I1)
    return makeArg(h.intValue != 0);
  return makeArg(int64_t(h.intValue));
}

uint64_t runtime::tensorSpan(const TensorDescArg &d) {
  uint64_t span = 1;
  for (int i = 0; i < d.rank && i < kMaxTensorRank; ++i)
    span += uint64_t(d.shape[i] - 1) * uint64_t(d.strides[i]);
  return span;
}
