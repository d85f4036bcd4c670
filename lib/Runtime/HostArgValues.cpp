//===- HostArgValues.cpp - launch arguments from command-line specs -------===//

#include "tilec/Runtime/HostArgValues.h"

using namespace tilec;
using namespace tilec::runtime;

ArgValue runtime::hostArgValue(const HostArg &h, const ParamInfo &param,
                               uint64_t address, const TensorDescSpec &desc,
                               TensorDescArg &descArg) {
  if (param.kind == ParamInfo::Kind::TensorDesc) {
    descArg =
        tensorDesc(pointerArg(param.type, address), desc.shape, desc.strides);
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
