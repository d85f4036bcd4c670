//===- MetadataWrite.cpp - kernel metadata as a JSON document -------------===//
//
// The one writer of docs/metadata.md's format (Metadata.cpp has the one
// reader). The layout, one field per line in the order of the docs, is what
// tilec has always written: metadata files diff line by line.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Metadata.h"
#include "tilec/Support/Json.h"

namespace tilec::runtime {

namespace {

const char *kindName(ParamInfo::Kind kind) {
  switch (kind) {
  case ParamInfo::Kind::Pointer:
    return "ptr";
  case ParamInfo::Kind::Scalar:
    return "scalar";
  case ParamInfo::Kind::TensorDesc:
    return "tensor_desc";
  }
  return "scalar";
}

json::Value shapeJson(const ParamInfo &p) {
  json::Value sizes = json::Value::array();
  for (const grid::Expr &e : p.shape)
    sizes.push_back(e.text());
  return sizes;
}

json::Value paramJson(const ParamInfo &p) {
  json::Value j = json::Value::object();
  j["name"] = p.name;
  j["kind"] = kindName(p.kind);
  j["type"] = std::string(dtypeName(p.type));
  if (p.kind != ParamInfo::Kind::TensorDesc) {
    j["divisibility"] = p.divisibility;
    if (p.output)
      j["output"] = true;
    if (p.extent)
      j["extent"] = p.extent->text();
    if (!p.shape.empty())
      j["shape"] = shapeJson(p);
    if (p.from)
      j["from"] = p.from->text;
    return j;
  }
  if (p.output)
    j["output"] = true;
  if (!p.shape.empty())
    j["shape"] = shapeJson(p);
  j["rank"] = p.desc.rank;
  json::Value block = json::Value::array();
  for (int d = 0; d < p.desc.rank && d < kMaxTensorRank; ++d)
    block.push_back(p.desc.block[d]);
  j["block"] = std::move(block);
  json::Value tile = json::Value::array();
  for (int d = 0; d < p.desc.rank && d < kMaxTensorRank; ++d)
    tile.push_back(p.desc.tile[d]);
  j["tile"] = std::move(tile);
  j["swizzle"] = p.desc.swizzle;
  j["fill"] = p.desc.nanFill ? "nan" : "zero";
  return j;
}

} // namespace

std::string writeMetadata(const ModuleMetadata &m) {
  json::Value doc = json::Value::object();
  doc["format"] = "tilec-kernels";
  doc["version"] = m.version;
  doc["target"] = m.target;
  json::Value kernels = json::Value::array();
  for (const KernelMetadata &k : m.kernels) {
    json::Value kj = json::Value::object();
    kj["name"] = k.name;
    kj["num_warps"] = k.numWarps;
    kj["threads_per_program"] = k.threadsPerProgram;
    kj["shared_bytes"] = k.sharedBytes;
    if (k.numCtas != 1)
      kj["num_ctas"] = k.numCtas;
    if (k.resources) {
      const KernelResources &r = *k.resources;
      json::Value rj = json::Value::object();
      rj["registers"] = r.registers;
      rj["spill_store_bytes"] = r.spillStoreBytes;
      rj["spill_load_bytes"] = r.spillLoadBytes;
      rj["stack_bytes"] = r.stackBytes;
      rj["static_shared_bytes"] = r.staticSharedBytes;
      kj["resources"] = std::move(rj);
    }
    if (!k.grid.dims.empty()) {
      json::Value grid = json::Value::array();
      for (const grid::Expr &d : k.grid.dims)
        grid.push_back(d.text());
      kj["grid"] = std::move(grid);
    }
    json::Value params = json::Value::array();
    for (const ParamInfo &p : k.params)
      params.push_back(paramJson(p));
    kj["params"] = std::move(params);
    kernels.push_back(std::move(kj));
  }
  doc["kernels"] = std::move(kernels);
  // Not json::write, whose one-line containers would change the layout
  // every metadata file so far has; `replace` keeps a name that is not
  // UTF-8 from throwing (U+FFFD instead).
  return doc.dump(2, ' ', /*ensure_ascii=*/false,
                  json::Value::error_handler_t::replace) +
         "\n";
}

} // namespace tilec::runtime
