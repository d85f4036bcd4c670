//===- LaunchRules.cpp - reading a kernel's grid and extent rules ---------===//
//
// The tile dialect's verifier checks the attributes' shapes; the expressions
// name parameters, and only the front end knows their names (NameLoc, see
// Frontend.h), so they are parsed here, before the pipeline rewrites the
// signature, with the one parser the runtime uses (support/GridRule.h).
//
//===----------------------------------------------------------------------===//

#include "LaunchRules.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Support/GridRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

FailureOr<tilec::LaunchRules>
tilec::readLaunchRules(func::FuncOp kernel, ArrayRef<std::string> names) {
  std::vector<std::string> whats;
  std::vector<grid::ParamRef> refs;
  whats.reserve(names.size());
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    bool integer = type.isInteger(32) || type.isInteger(64);
    std::string what;
    if (isa<tile::PointerType>(type)) {
      what = "a pointer";
    } else {
      llvm::raw_string_ostream os(what);
      os << "an " << type << " scalar";
    }
    whats.push_back(what);
    refs.push_back({names[i], integer, whats.back()});
  }
  auto check = [&](StringRef text, const Twine &where)
      -> FailureOr<grid::Expr> {
    auto e = grid::parse(std::string_view(text.data(), text.size()), refs);
    if (!e.ok())
      return kernel.emitOpError() << where << ": " << e.message();
    return std::move(*e);
  };

  LaunchRules rules;
  if (Attribute g = kernel->getAttr("tile.grid")) {
    SmallVector<StringRef> dims;
    if (auto one = dyn_cast<StringAttr>(g))
      dims.push_back(one.getValue());
    else
      for (Attribute a : cast<ArrayAttr>(g))
        dims.push_back(cast<StringAttr>(a).getValue());
    static const char *axes[] = {"x", "y", "z"};
    for (auto [d, text] : llvm::enumerate(dims)) {
      FailureOr<grid::Expr> ok =
          check(text, Twine("'tile.grid' (") + axes[d] + ")");
      if (failed(ok))
        return failure();
      rules.grid.dims.push_back(std::move(*ok));
    }
  }
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    rules.outputs.push_back(
        kernel.getArgAttr(i, "tile.output") != nullptr);
    rules.extents.emplace_back();
    if (auto extent = kernel.getArgAttrOfType<StringAttr>(
            i, "tile.extent")) {
      FailureOr<grid::Expr> ok =
          check(extent.getValue(), "'tile.extent' of parameter '" +
                                       Twine(names[i]) + "'");
      if (failed(ok))
        return failure();
      rules.extents.back() = std::move(*ok);
    }
  }
  return rules;
}
