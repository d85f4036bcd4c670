//===- LaunchRules.cpp - reading a kernel's grid, extent, shape rules -----===//
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
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

/// The expressions of a rule attribute: one string or an array of strings
/// (the dialect's verifier checked the form).
static SmallVector<StringRef> ruleStrings(Attribute rule) {
  SmallVector<StringRef> texts;
  if (auto one = dyn_cast<StringAttr>(rule))
    texts.push_back(one.getValue());
  else
    for (Attribute a : cast<ArrayAttr>(rule))
      texts.push_back(cast<StringAttr>(a).getValue());
  return texts;
}

FailureOr<tilec::LaunchRules>
tilec::readLaunchRules(func::FuncOp kernel, ArrayRef<std::string> names) {
  std::vector<std::string> whats;
  std::vector<grid::ParamRef> refs;
  whats.reserve(names.size());
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    bool integer = type.isInteger(32) || type.isInteger(64);
    std::string what;
    // A tensor's rank when known: a descriptor's, a pointer's shape's.
    int rank = -1;
    if (auto desc = dyn_cast<tile::TensorDescType>(type))
      rank = int(desc.getRank());
    else if (isa<tile::PointerType>(type))
      rank = 0;
    if (rank == 0)
      if (Attribute shape = kernel.getArgAttr(i, "tile.shape"))
        rank = int(ruleStrings(shape).size());
    if (isa<tile::PointerType>(type)) {
      what = "a pointer";
    } else if (isa<tile::TensorDescType>(type)) {
      what = "a tensor descriptor";
    } else {
      llvm::raw_string_ostream os(what);
      os << "an " << type << " scalar";
    }
    whats.push_back(what);
    refs.push_back({names[i], integer, whats.back(), rank});
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
    SmallVector<StringRef> dims = ruleStrings(g);
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
    rules.sources.emplace_back();
    if (auto from = kernel.getArgAttrOfType<StringAttr>(i, "tile.from")) {
      auto source = grid::parseSource(
          std::string_view(from.getValue().data(), from.getValue().size()),
          refs);
      if (!source.ok())
        return kernel.emitOpError()
               << "'tile.from' of parameter '" << names[i]
               << "': " << source.message();
      rules.sources.back() = std::move(*source);
    }
    rules.shapes.emplace_back();
    Attribute shape = kernel.getArgAttr(i, "tile.shape");
    if (!shape)
      continue;
    SmallVector<StringRef> sizes = ruleStrings(shape);
    std::string product;
    for (auto [d, text] : llvm::enumerate(sizes)) {
      FailureOr<grid::Expr> ok =
          check(text, "'tile.shape' of parameter '" + Twine(names[i]) +
                          "' (size " + Twine(d) + ")");
      if (failed(ok))
        return failure();
      rules.shapes.back().push_back(std::move(*ok));
      // "M * N", "(M + 1) * N": parentheses only around compound sizes.
      bool simple = llvm::all_of(text, [](char c) {
        return llvm::isAlnum(c) || c == '_';
      });
      product += (d ? " * " : "") +
                 (simple ? text.str() : "(" + text.str() + ")");
    }
    // A pointer reaches the product of its sizes (each parsed above, so the
    // product parses too).
    if (isa<tile::PointerType>(kernel.getArgumentTypes()[i])) {
      FailureOr<grid::Expr> extent = check(
          product, "'tile.shape' of parameter '" + Twine(names[i]) + "'");
      if (failed(extent))
        return failure();
      rules.extents.back() = std::move(*extent);
    }
  }
  return rules;
}
