//===- HostArgs.cpp - kernel arguments from command-line specs ------------===//
//
// The MLIR side of argument specs: a parameter's MLIR type becomes the
// HostParam that lib/Support parses specs against, and a parsed argument
// becomes the interpreter's Arg. A tensor descriptor's spec is a buffer
// spec plus shape= (and strides=), as tilec-gpu-run takes it. Buffers without a source are outputs,
// whose unwritten elements the memory checker reports when read.
//
//===----------------------------------------------------------------------===//

#include "tilec/Interpreter/HostArgs.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

using namespace tilec;

Arg tilec::toArg(HostArg &arg) {
  Arg result =
      !arg.isBuffer
          ? (isFloat(arg.dtype) ? Arg::scalar(arg.dtype, arg.floatValue)
                                : Arg::scalarInt(arg.dtype, arg.intValue))
      : arg.isOutput ? Arg::output(arg.data.data(), arg.count(), arg.dtype)
                     : Arg::buffer(arg.data.data(), arg.count(), arg.dtype);
  if (!arg.desc.shape.empty())
    result = Arg::tensorDesc(result, arg.desc.shape, arg.desc.strides);
  if (!arg.name.empty())
    result.named(arg.name);
  return result;
}

llvm::Expected<HostArg> tilec::parseHostArg(llvm::StringRef spec,
                                            mlir::Type paramType,
                                            llvm::StringRef name) {
  HostParam param;
  param.name = name.str();
  // A tensor descriptor takes a buffer spec plus its tensor's shape=.
  std::string bufferSpec = spec.str();
  TensorDescSpec desc;
  if (auto d = dyn_cast<mlir::tile::TensorDescType>(paramType)) {
    bufferSpec.clear();
    std::string e = splitTensorDescSpec(spec.str(), param.name, bufferSpec,
                                        desc);
    if (!e.empty())
      return llvm::createStringError(e);
    paramType = mlir::tile::PointerType::get(d.getContext(), d.getElementType());
  }
  auto ptr = dyn_cast<mlir::tile::PointerType>(paramType);
  param.isPointer = bool(ptr);
  std::optional<DType> dtype = dtypeOf(ptr ? ptr.getPointeeType() : paramType);
  if (!dtype)
    return llvm::createStringError("argument %" + name + " ('" + spec +
                                   "'): " + (ptr ? "buffers" : "parameters") +
                                   " of this type are not supported");
  param.dtype = *dtype;
  Expected<HostArg> arg = tilec::parseHostArg(bufferSpec, param);
  if (!arg.ok())
    return llvm::createStringError(arg.message());
  arg->spec = spec.str();
  arg->desc = std::move(desc);
  return std::move(*arg);
}
