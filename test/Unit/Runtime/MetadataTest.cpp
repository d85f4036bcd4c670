//===- MetadataTest.cpp - parsing docs/metadata.md documents --------------===//

#include "tilec/Runtime/Metadata.h"
#include "tilec/Target/Chip.h"

#include <gtest/gtest.h>

using namespace tilec::runtime;

namespace {

/// The example of docs/metadata.md.
const char *kSoftmax = R"({
  "format": "tilec-kernels",
  "version": 1,
  "target": "sm_90",
  "kernels": [
    {
      "name": "softmax",
      "num_warps": 16,
      "threads_per_program": 512,
      "shared_bytes": 0,
      "params": [
        {"name": "x", "kind": "ptr", "type": "f32", "divisibility": 16},
        {"name": "y", "kind": "ptr", "type": "f32", "divisibility": 16},
        {"name": "n_cols", "kind": "scalar", "type": "i32", "divisibility": 16}
      ]
    }
  ]
})";

/// kSoftmax with the first `from` replaced by `to`.
std::string edit(const std::string &from, const std::string &to) {
  std::string s = kSoftmax;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    s.replace(at, from.size(), to);
  return s;
}

/// Two replacements, the second in the first's result.
std::string edit(const std::string &from, const std::string &to,
                 const std::string &from2, const std::string &to2) {
  std::string s = edit(from, to);
  size_t at = s.find(from2);
  EXPECT_NE(at, std::string::npos) << from2;
  if (at != std::string::npos)
    s.replace(at, from2.size(), to2);
  return s;
}

std::string error(const std::string &json) {
  auto m = parseMetadata(json);
  EXPECT_FALSE(m.ok()) << json;
  return m.message();
}

TEST(Metadata, ParsesTheDocumentedExample) {
  auto m = parseMetadata(kSoftmax);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->version, 1);
  EXPECT_EQ(m->target, "sm_90");
  ASSERT_EQ(m->kernels.size(), 1u);
  const KernelMetadata &k = m->kernels[0];
  EXPECT_EQ(k.name, "softmax");
  EXPECT_EQ(k.numWarps, 16);
  EXPECT_EQ(k.threadsPerProgram, 512);
  EXPECT_EQ(k.sharedBytes, 0);
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[0].kind, ParamInfo::Kind::Pointer);
  EXPECT_EQ(k.params[0].type, DType::F32);
  EXPECT_EQ(k.params[0].divisibility, 16);
  EXPECT_EQ(k.params[2].name, "n_cols");
  EXPECT_EQ(k.params[2].kind, ParamInfo::Kind::Scalar);
  EXPECT_EQ(k.params[2].type, DType::I32);
  EXPECT_EQ(k.signature(), "x: ptr<f32>, y: ptr<f32>, n_cols: i32");
  EXPECT_EQ(m->find("softmax"), &m->kernels[0]);
  EXPECT_EQ(m->find("other"), nullptr);
  EXPECT_EQ(m->kernelNames(), "softmax");
}

TEST(Metadata, DefaultsUnknownKeysAndAbi) {
  auto m = parseMetadata(R"({"format": "tilec-kernels", "version": 1,
    "target": "sm_90a", "future_field": [1, 2], "kernels": [
    {"name": "k", "num_warps": 1, "threads_per_program": 32,
     "shared_bytes": 65536, "extra": {}, "params": [
       {"name": "flag", "kind": "scalar", "type": "i1"},
       {"name": "h", "kind": "scalar", "type": "f16"},
       {"name": "p", "kind": "ptr", "type": "f8E4M3FN"},
       {"name": "n", "kind": "scalar", "type": "i64", "divisibility": 8}]},
    {"name": "empty", "num_warps": 32, "threads_per_program": 1024,
     "shared_bytes": 0, "params": []}]})");
  ASSERT_TRUE(m.ok()) << m.message();
  ASSERT_EQ(m->kernels.size(), 2u);
  const auto &p = m->kernels[0].params;
  EXPECT_EQ(p[0].divisibility, 1); // absent: 1
  EXPECT_EQ(p[0].abiBytes(), 4u);  // i1 widened to 32 bits
  EXPECT_EQ(p[1].abiBytes(), 2u);
  EXPECT_EQ(p[2].abiBytes(), 8u);
  EXPECT_EQ(p[3].abiBytes(), 8u);
  EXPECT_EQ(m->kernels[0].sharedBytes, 65536);
  EXPECT_EQ(m->kernelNames(), "k, empty");
  auto none = parseMetadata(
      R"({"format": "tilec-kernels", "version": 1, "target": "sm_80",
          "kernels": []})");
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_EQ(none->kernelNames(), "none");
}

TEST(Metadata, TargetsAreKnownChips) {
  // The metadata's target is looked up in tilec/Target/Chip.h's table, the
  // compiler's too: what tilec writes, the runtime reads.
  for (const tilec::Chip &chip : tilec::knownChips()) {
    std::string doc = R"({"format": "tilec-kernels", "version": 1,
                          "target": ")" +
                      std::string(chip.name) + R"(", "kernels": []})";
    auto m = parseMetadata(doc);
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m->target, chip.name);
  }
  const tilec::Chip *h200 = tilec::findChip("sm_90a");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->ccMajor(), 9);
  EXPECT_EQ(h200->ccMinor(), 0);
  EXPECT_TRUE(h200->runsOn(9, 0));
  EXPECT_FALSE(h200->runsOn(10, 0)); // arch-specific: exactly sm_90
  const tilec::Chip *a100 = tilec::findChip("sm_80");
  ASSERT_NE(a100, nullptr);
  EXPECT_TRUE(a100->runsOn(9, 0));
  EXPECT_FALSE(a100->runsOn(7, 5));
  for (const char *bad : {"sm_", "sm_9", "sm_120", "compute_90", "sm_90A"}) {
    EXPECT_EQ(tilec::findChip(bad), nullptr) << bad;
    auto b = tilec::lookupChip(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.message(), "unknown GPU target '" + std::string(bad) +
                               "' (known: sm_80, sm_89, sm_90, sm_90a, "
                               "sm_100a)");
  }
}

TEST(Metadata, DocumentErrors) {
  EXPECT_EQ(error("{"),
            "invalid kernel metadata: not JSON: line 1, column 2: syntax "
            "error while parsing object key - unexpected end of input; "
            "expected string literal");
  // A key twice: which one would count is not for the reader to guess.
  EXPECT_EQ(
      error(edit("\"num_warps\": 16,", "\"num_warps\": 16, \"num_warps\": 8,")),
      "invalid kernel metadata: not JSON: duplicate key \"num_warps\" in "
      "kernels[0]");
  EXPECT_EQ(error("[1]"), "invalid kernel metadata: the document is an "
                          "array, not an object");
  EXPECT_EQ(error(edit("\"format\": \"tilec-kernels\",", "")),
            "invalid kernel metadata: missing \"format\"");
  EXPECT_EQ(error(edit("\"tilec-kernels\"", "3")),
            "invalid kernel metadata: \"format\" is 3, not a string");
  EXPECT_EQ(error(edit("\"tilec-kernels\"", "\"triton\"")),
            "invalid kernel metadata: \"format\" is \"triton\", not "
            "\"tilec-kernels\"");
  EXPECT_EQ(error(edit("\"version\": 1,", "")),
            "invalid kernel metadata: missing \"version\"");
  EXPECT_EQ(error(edit("\"version\": 1", "\"version\": \"1\"")),
            "invalid kernel metadata: \"version\" is \"1\", not a number");
  EXPECT_EQ(error(edit("\"version\": 1", "\"version\": 1.5")),
            "invalid kernel metadata: \"version\" is 1.5, not a whole number "
            "of 1 or more");
  EXPECT_EQ(error(edit("\"version\": 1", "\"version\": 2")),
            "invalid kernel metadata: \"version\" is 2; this runtime reads "
            "version 1 (use a runtime and tilec of one release)");
  EXPECT_EQ(error(edit("\"target\": \"sm_90\",", "")),
            "invalid kernel metadata: missing \"target\"");
  EXPECT_EQ(error(edit("\"sm_90\"", "\"\"")),
            "invalid kernel metadata: \"target\" is empty");
  EXPECT_EQ(error(edit("\"sm_90\"", "\"gfx942\"")),
            "invalid kernel metadata: \"target\": unknown GPU target "
            "'gfx942' (known: sm_80, sm_89, sm_90, sm_90a, sm_100a)");
  EXPECT_EQ(error(edit("\"kernels\": [", "\"kernels\": 7, \"x\": [")),
            "invalid kernel metadata: \"kernels\" is 7, not an array");
  EXPECT_EQ(error(R"({"format": "tilec-kernels", "version": 1,
                     "target": "sm_90"})"),
            "invalid kernel metadata: missing \"kernels\"");
}

TEST(Metadata, KernelErrors) {
  EXPECT_EQ(error(R"({"format": "tilec-kernels", "version": 1,
                     "target": "sm_90", "kernels": ["softmax"]})"),
            "invalid kernel metadata: kernels[0]: is \"softmax\", not an "
            "object");
  EXPECT_EQ(error(edit("\"name\": \"softmax\",", "")),
            "invalid kernel metadata: kernels[0]: missing \"name\"");
  EXPECT_EQ(error(edit("\"name\": \"softmax\"", "\"name\": \"\"")),
            "invalid kernel metadata: kernels[0]: \"name\" is empty");
  EXPECT_EQ(error(edit("\"num_warps\": 16,", "")),
            "invalid kernel metadata: kernels[0] 'softmax': missing "
            "\"num_warps\"");
  EXPECT_EQ(error(edit("\"num_warps\": 16", "\"num_warps\": 0")),
            "invalid kernel metadata: kernels[0] 'softmax': \"num_warps\" is "
            "0, not a whole number from 1 to 32");
  EXPECT_EQ(error(edit("\"num_warps\": 16", "\"num_warps\": 64")),
            "invalid kernel metadata: kernels[0] 'softmax': \"num_warps\" is "
            "64, not a whole number from 1 to 32");
  EXPECT_EQ(error(edit("\"threads_per_program\": 512,", "")),
            "invalid kernel metadata: kernels[0] 'softmax': missing "
            "\"threads_per_program\"");
  EXPECT_EQ(error(edit("\"threads_per_program\": 512",
                       "\"threads_per_program\": 2048")),
            "invalid kernel metadata: kernels[0] 'softmax': "
            "\"threads_per_program\" is 2048, not a whole number from 1 to "
            "1024");
  EXPECT_EQ(error(edit("\"threads_per_program\": 512",
                       "\"threads_per_program\": 256")),
            "invalid kernel metadata: kernels[0] 'softmax': "
            "\"threads_per_program\" is 256 but num_warps 16 means 512 "
            "threads");
  EXPECT_EQ(error(edit("\"shared_bytes\": 0,", "")),
            "invalid kernel metadata: kernels[0] 'softmax': missing "
            "\"shared_bytes\"");
  EXPECT_EQ(error(edit("\"shared_bytes\": 0", "\"shared_bytes\": -4")),
            "invalid kernel metadata: kernels[0] 'softmax': \"shared_bytes\" "
            "is -4, not a whole number of bytes (0 or more)");
  EXPECT_EQ(error(edit("\"shared_bytes\": 0", "\"shared_bytes\": 1e3")),
            "invalid kernel metadata: kernels[0] 'softmax': \"shared_bytes\" "
            "is 1000, not a whole number of bytes (0 or more)");
  EXPECT_EQ(error(edit("\"params\": [", "\"params\": {}, \"p\": [")),
            "invalid kernel metadata: kernels[0] 'softmax': \"params\" is an "
            "object, not an array");
  EXPECT_EQ(error(edit("\"params\": [", "\"p\": [")),
            "invalid kernel metadata: kernels[0] 'softmax': missing "
            "\"params\"");
  EXPECT_EQ(error(edit("\"shared_bytes\": 0", "\"shared_bytes\": 0, "
                                                 "\"num_ctas\": 3")),
            "invalid kernel metadata: kernels[0] 'softmax': \"num_ctas\" "
            "must be 1, 2 or 4, got 3");
  EXPECT_EQ(error(edit("\"shared_bytes\": 0", "\"shared_bytes\": 0, "
                                                 "\"num_ctas\": 8")),
            "invalid kernel metadata: kernels[0] 'softmax': \"num_ctas\" is "
            "8, not 1, 2 or 4");
  std::string twice = kSoftmax;
  size_t open = twice.find("    {\n      \"name\"");
  size_t close = twice.rfind("    }");
  std::string kernel = twice.substr(open, close + 5 - open);
  twice.insert(close + 5, ",\n" + kernel);
  EXPECT_EQ(error(twice),
            "invalid kernel metadata: kernels[1] 'softmax': a kernel named "
            "'softmax' comes earlier (kernels[0])");
}

TEST(Metadata, ParamErrors) {
  const std::string where =
      "invalid kernel metadata: kernels[0] 'softmax': params[2]";
  EXPECT_EQ(error(edit("{\"name\": \"n_cols\", \"kind\": \"scalar\", "
                       "\"type\": \"i32\", \"divisibility\": 16}",
                       "[]")),
            where + ": is an array, not an object");
  EXPECT_EQ(error(edit("\"name\": \"n_cols\", ", "")),
            where + ": missing \"name\"");
  EXPECT_EQ(error(edit("\"name\": \"n_cols\"", "\"name\": 5")),
            where + ": \"name\" is 5, not a string");
  EXPECT_EQ(error(edit("\"name\": \"n_cols\"", "\"name\": \"x\"")),
            "invalid kernel metadata: kernels[0] 'softmax': params[2] 'x': a "
            "parameter named 'x' comes earlier (params[0])");
  EXPECT_EQ(error(edit("\"kind\": \"scalar\", ", "")),
            where + " 'n_cols': missing \"kind\"");
  EXPECT_EQ(error(edit("\"kind\": \"scalar\"", "\"kind\": \"tensor\"")),
            where + " 'n_cols': \"kind\" is \"tensor\", not \"ptr\", "
                    "\"scalar\" or \"tensor_desc\"");
  EXPECT_EQ(error(edit("\"type\": \"i32\", ", "")),
            where + " 'n_cols': missing \"type\"");
  EXPECT_EQ(error(edit("\"type\": \"i32\"", "\"type\": \"int\"")),
            where + " 'n_cols': \"type\" is \"int\", not one of i1 i8 i16 "
                    "i32 i64 f16 bf16 f32 f64 f8E4M3FN f8E5M2");
  EXPECT_EQ(error(edit("\"type\": \"i32\"", "\"type\": \"f64\"")),
            where + " 'n_cols': a scalar of type f64 is not in the kernel ABI "
                    "(scalars are i1 i32 i64 f16 bf16 f32)");
  EXPECT_EQ(error(edit("\"type\": \"i32\"", "\"type\": \"i8\"")),
            where + " 'n_cols': a scalar of type i8 is not in the kernel ABI "
                    "(scalars are i1 i32 i64 f16 bf16 f32)");
  EXPECT_EQ(error(edit("\"type\": \"i32\", \"divisibility\": 16",
                       "\"type\": \"i32\", \"divisibility\": 0")),
            where + " 'n_cols': \"divisibility\" is 0, not a whole number of "
                    "1 or more");
  EXPECT_EQ(error(edit("\"type\": \"i32\", \"divisibility\": 16",
                       "\"type\": \"i32\", \"divisibility\": \"16\"")),
            where + " 'n_cols': \"divisibility\" is \"16\", not a number");
  EXPECT_EQ(error(edit("\"type\": \"i32\", \"divisibility\": 16",
                       "\"type\": \"f32\", \"divisibility\": 16")),
            where + " 'n_cols': \"divisibility\" 16 applies to integers and "
                    "pointers, not to f32 scalars");
  EXPECT_EQ(error(edit("\"type\": \"i32\", \"divisibility\": 16",
                       "\"type\": \"i1\", \"divisibility\": 2")),
            where + " 'n_cols': \"divisibility\" 2 applies to integers and "
                    "pointers, not to i1 scalars");
  // A divisibility of 1 on a float is the default, and harmless.
  EXPECT_TRUE(parseMetadata(edit("\"type\": \"i32\", \"divisibility\": 16",
                                 "\"type\": \"f32\", \"divisibility\": 1"))
                  .ok());
}

TEST(Metadata, GridExtentAndOutput) {
  auto m = parseMetadata(
      edit("\"shared_bytes\": 0,", "\"shared_bytes\": 0, \"grid\": "
                                   "[\"cdiv(n_cols, 16)\", \"n_cols\"],"));
  ASSERT_TRUE(m.ok()) << m.message();
  const KernelMetadata &k = m->kernels[0];
  ASSERT_EQ(k.grid.dims.size(), 2u);
  EXPECT_EQ(k.grid.text(), "[\"cdiv(n_cols, 16)\", \"n_cols\"]");
  EXPECT_FALSE(k.params[0].output);
  EXPECT_FALSE(k.params[0].extent.has_value());

  auto out = parseMetadata(edit(
      "{\"name\": \"y\", \"kind\": \"ptr\", \"type\": \"f32\",",
      "{\"name\": \"y\", \"kind\": \"ptr\", \"type\": \"f32\", "
      "\"output\": true, \"extent\": \"n_cols * 2\","));
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_TRUE(out->kernels[0].params[1].output);
  ASSERT_TRUE(out->kernels[0].params[1].extent.has_value());
  EXPECT_EQ(out->kernels[0].params[1].extent->text(), "n_cols * 2");
  EXPECT_TRUE(out->kernels[0].grid.empty());

  auto withGrid = [](const std::string &grid) {
    return edit("\"shared_bytes\": 0,",
                "\"shared_bytes\": 0, \"grid\": " + grid + ",");
  };
  EXPECT_EQ(error(withGrid("[]")),
            "invalid kernel metadata: kernels[0] 'softmax': \"grid\" has 0 "
            "entries, not 1 to 3 (x, y, z)");
  EXPECT_EQ(error(withGrid("\"n_cols\"")),
            "invalid kernel metadata: kernels[0] 'softmax': \"grid\" is "
            "\"n_cols\", not an array of 1 to 3 strings (x, y, z)");
  EXPECT_EQ(error(withGrid("[\"1\", \"1\", \"1\", \"1\"]")),
            "invalid kernel metadata: kernels[0] 'softmax': \"grid\" has 4 "
            "entries, not 1 to 3 (x, y, z)");
  EXPECT_EQ(error(withGrid("[4]")),
            "invalid kernel metadata: kernels[0] 'softmax': \"grid\"[0] is 4, "
            "not a string");
  EXPECT_EQ(error(withGrid("[\"cdiv(rows, 1)\"]")),
            "invalid kernel metadata: kernels[0] 'softmax': \"grid\"[0] at "
            "character 6 of \"cdiv(rows, 1)\": unknown parameter 'rows' (the "
            "kernel's integer parameters: n_cols)");
  EXPECT_EQ(error(withGrid("[\"x\"]")),
            "invalid kernel metadata: kernels[0] 'softmax': \"grid\"[0] at "
            "character 1 of \"x\": parameter 'x' is a pointer; a grid or "
            "extent rule reads i32 and i64 scalar parameters only");
  const std::string y =
      "{\"name\": \"y\", \"kind\": \"ptr\", \"type\": \"f32\",";
  EXPECT_EQ(error(edit(y, y + " \"output\": 1,")),
            "invalid kernel metadata: kernels[0] 'softmax': params[1] 'y': "
            "\"output\" is 1, not true or false");
  EXPECT_EQ(error(edit(y, y + " \"extent\": \"n_cols +\",")),
            "invalid kernel metadata: kernels[0] 'softmax': params[1] 'y': "
            "\"extent\" at character 9 of \"n_cols +\": expected a number, "
            "a parameter or '(' but the expression ends");
  const std::string n = "{\"name\": \"n_cols\", \"kind\": \"scalar\",";
  EXPECT_EQ(error(edit(n, n + " \"extent\": \"1\",")),
            "invalid kernel metadata: kernels[0] 'softmax': params[2] "
            "'n_cols': \"extent\" applies to pointers only");
  EXPECT_EQ(error(edit(n, n + " \"output\": true,")),
            "invalid kernel metadata: kernels[0] 'softmax': params[2] "
            "'n_cols': \"output\" applies to pointers and tensor "
            "descriptors only");
}

} // namespace

namespace {

// One writer, one reader: every field the reader takes survives the file.
TEST(Metadata, WriteThenParseIsTheSameValue) {
  using tilec::runtime::KernelMetadata;
  using tilec::runtime::ModuleMetadata;
  using tilec::runtime::ParamInfo;
  ModuleMetadata m;
  m.target = "sm_90a";
  KernelMetadata k;
  k.name = "mixed";
  k.numWarps = 8;
  k.threadsPerProgram = 256;
  k.sharedBytes = 49152;
  k.numCtas = 2;
  ParamInfo x{.name = "x",
              .kind = ParamInfo::Kind::Pointer,
              .type = tilec::DType::BF16,
              .divisibility = 16};
  ParamInfo n{.name = "n",
              .kind = ParamInfo::Kind::Scalar,
              .type = tilec::DType::I64,
              .divisibility = 8};
  ParamInfo flag{.name = "flag",
                 .kind = ParamInfo::Kind::Scalar,
                 .type = tilec::DType::I1};
  ParamInfo desc{.name = "a_desc",
                 .kind = ParamInfo::Kind::TensorDesc,
                 .type = tilec::DType::F16};
  desc.desc.rank = 2;
  desc.desc.block[0] = 64;
  desc.desc.block[1] = 64;
  desc.desc.tile[0] = 64; // the kernel's block: four boxes wide
  desc.desc.tile[1] = 256;
  desc.desc.swizzle = 128;
  desc.desc.nanFill = true;
  // A descriptor the kernel stores through ("output", derived by tilec).
  ParamInfo stored = desc;
  stored.name = "c_desc";
  stored.output = true;
  k.params = {x, n, flag, desc, stored};
  k.resources = tilec::runtime::KernelResources{.registers = 168,
                                                .spillStoreBytes = 24,
                                                .spillLoadBytes = 16,
                                                .stackBytes = 40,
                                                .staticSharedBytes = 1024};
  m.kernels = {k, KernelMetadata{
                      .name = "empty", .numWarps = 1, .threadsPerProgram = 32}};
  std::string text = tilec::runtime::writeMetadata(m);
  auto back = parseMetadata(text);
  ASSERT_TRUE(back.ok()) << back.message() << "\n" << text;
  EXPECT_EQ(*back, m) << text;
  // Written again, the same bytes.
  EXPECT_EQ(tilec::runtime::writeMetadata(*back), text);
}

// The layout tilec's files have always had: one field per line.
TEST(Metadata, WrittenLayout) {
  tilec::runtime::ModuleMetadata m;
  m.target = "sm_90";
  tilec::runtime::KernelMetadata k{
      .name = "k", .numWarps = 1, .threadsPerProgram = 32};
  k.params.push_back({.name = "n",
                      .kind = ParamInfo::Kind::Scalar,
                      .type = tilec::DType::I32});
  m.kernels.push_back(k);
  EXPECT_EQ(tilec::runtime::writeMetadata(m), R"({
  "format": "tilec-kernels",
  "version": 1,
  "target": "sm_90",
  "kernels": [
    {
      "name": "k",
      "num_warps": 1,
      "threads_per_program": 32,
      "shared_bytes": 0,
      "params": [
        {
          "name": "n",
          "kind": "scalar",
          "type": "i32",
          "divisibility": 1
        }
      ]
    }
  ]
}
)");
}

// ptxas's report, when tilec ran ptxas: optional, checked when present.
TEST(Metadata, Resources) {
  auto plain = parseMetadata(kSoftmax);
  ASSERT_TRUE(plain.ok()) << plain.message();
  EXPECT_FALSE(plain->kernels[0].resources);
  auto m = parseMetadata(edit(
      R"("shared_bytes": 0,)",
      R"("shared_bytes": 0, "resources": {"registers": 40,
         "spill_store_bytes": 8, "spill_load_bytes": 4, "stack_bytes": 16,
         "static_shared_bytes": 32, "newer_field": 1},)"));
  ASSERT_TRUE(m.ok()) << m.message();
  ASSERT_TRUE(m->kernels[0].resources);
  const KernelResources &r = *m->kernels[0].resources;
  EXPECT_EQ(r.registers, 40);
  EXPECT_EQ(r.spillStoreBytes, 8);
  EXPECT_EQ(r.spillLoadBytes, 4);
  EXPECT_EQ(r.stackBytes, 16);
  EXPECT_EQ(r.staticSharedBytes, 32);
  EXPECT_TRUE(r.spills());
  // Only the registers are required.
  auto least = parseMetadata(edit(R"("shared_bytes": 0,)",
                                  R"("shared_bytes": 0, "resources":
                                     {"registers": 27},)"));
  ASSERT_TRUE(least.ok()) << least.message();
  EXPECT_EQ(*least->kernels[0].resources, KernelResources{.registers = 27});
  EXPECT_FALSE(least->kernels[0].resources->spills());

  auto bad = [](const std::string &resources) {
    return error(edit(R"("shared_bytes": 0,)",
                      "\"shared_bytes\": 0, \"resources\": " + resources +
                          ","));
  };
  EXPECT_EQ(bad("[]"), "invalid kernel metadata: kernels[0] 'softmax': "
                       "\"resources\": is an array, not an object");
  EXPECT_EQ(bad("{}"), "invalid kernel metadata: kernels[0] 'softmax': "
                       "\"resources\": missing \"registers\"");
  EXPECT_EQ(bad(R"({"registers": 300})"),
            "invalid kernel metadata: kernels[0] 'softmax': \"resources\": "
            "\"registers\" is 300, not a whole number from 0 to 255");
  EXPECT_EQ(bad(R"({"registers": 30, "spill_load_bytes": -4})"),
            "invalid kernel metadata: kernels[0] 'softmax': \"resources\": "
            "\"spill_load_bytes\" is -4, not a whole number of bytes (0 or "
            "more)");
}

TEST(Metadata, PtxasReport) {
  auto r = tilec::runtime::parsePtxasReport(R"(ptxas info    : 0 bytes gmem
ptxas info    : Function properties for __internal_trig_reduction_slowpathd
    40 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'softmax' for 'sm_90'
ptxas info    : Function properties for softmax
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 27 registers, used 1 barriers, 32 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function 'matmul' for 'sm_90'
ptxas info    : Function properties for matmul
    6520 bytes stack frame, 17360 bytes spill stores, 15728 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 6520 bytes cumulative stack size)");
  // The device function has no register line: only the entries are kept.
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r["softmax"], (KernelResources{.registers = 27,
                                           .staticSharedBytes = 32}));
  EXPECT_EQ(r["matmul"], (KernelResources{.registers = 32,
                                          .spillStoreBytes = 17360,
                                          .spillLoadBytes = 15728,
                                          .stackBytes = 6520}));
  EXPECT_TRUE(tilec::runtime::parsePtxasReport("").empty());
  EXPECT_TRUE(tilec::runtime::parsePtxasReport(
                  "ptxas fatal   : Unresolved extern function 'f'\n")
                  .empty());
}

TEST(Metadata, Shape) {
  const std::string y =
      "{\"name\": \"y\", \"kind\": \"ptr\", \"type\": \"f32\",";
  auto m = parseMetadata(
      edit(y, y + " \"output\": true, \"shape\": [\"n_cols\", \"2\"],"));
  ASSERT_TRUE(m.ok()) << m.message();
  const ParamInfo &p = m->kernels[0].params[1];
  ASSERT_EQ(p.shape.size(), 2u);
  EXPECT_EQ(p.shape[0].text(), "n_cols");
  EXPECT_EQ(p.shape[1].text(), "2");
  EXPECT_TRUE(m->kernels[0].params[0].shape.empty());
  // Written back, read again: the same.
  auto again = parseMetadata(writeMetadata(*m));
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(*again, *m);

  std::string where = "invalid kernel metadata: kernels[0] 'softmax': ";
  EXPECT_EQ(error(edit(y, y + " \"shape\": \"n_cols\",")),
            where + "params[1] 'y': \"shape\" is \"n_cols\", not an array of "
                    "1 to 5 strings");
  EXPECT_EQ(error(edit(y, y + " \"shape\": [],")),
            where + "params[1] 'y': \"shape\" has 0 sizes, not 1 to 5");
  EXPECT_EQ(error(edit(y, y + " \"shape\": [\"1\", \"1\", \"1\", \"1\", "
                              "\"1\", \"1\"],")),
            where + "params[1] 'y': \"shape\" has 6 sizes, not 1 to 5");
  EXPECT_EQ(error(edit(y, y + " \"shape\": [2],")),
            where + "params[1] 'y': \"shape\"[0] is 2, not a string");
  EXPECT_EQ(error(edit(y, y + " \"shape\": [\"rows\"],")),
            where + "params[1] 'y': \"shape\"[0] at character 1 of \"rows\": "
                    "unknown parameter 'rows' (the kernel's integer "
                    "parameters: n_cols)");
  const std::string n = "{\"name\": \"n_cols\", \"kind\": \"scalar\",";
  EXPECT_EQ(error(edit(n, n + " \"shape\": [\"1\"],")),
            where + "params[2] 'n_cols': \"shape\" applies to pointers and "
                    "tensor descriptors only");
}

TEST(Metadata, From) {
  const std::string y =
      "{\"name\": \"y\", \"kind\": \"ptr\", \"type\": \"f32\",";
  const std::string n = "{\"name\": \"n_cols\", \"kind\": \"scalar\",";
  auto m = parseMetadata(edit(
      n, n + " \"from\": \"y.stride(-2)\",",
      y, y + " \"output\": true, \"shape\": [\"4\", \"n_cols\"],"));
  ASSERT_TRUE(m.ok()) << m.message();
  const ParamInfo &p = m->kernels[0].params[2];
  ASSERT_TRUE(p.from.has_value());
  EXPECT_EQ(p.from->kind, tilec::grid::Source::Kind::Stride);
  EXPECT_EQ(p.from->param, 1);
  EXPECT_EQ(p.from->dim, -2);
  EXPECT_FALSE(m->kernels[0].params[0].from.has_value());
  auto again = parseMetadata(writeMetadata(*m));
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(*again, *m);

  std::string where = "invalid kernel metadata: kernels[0] 'softmax': ";
  // y's shape has two sizes: its rank.
  EXPECT_EQ(error(edit(n, n + " \"from\": \"y.size(2)\",", y,
                       y + " \"shape\": [\"4\", \"n_cols\"],")),
            where + "params[2] 'n_cols': \"from\" at character 8 of "
                    "\"y.size(2)\": dimension 2 is out of range for 'y' (rank 2)");
  EXPECT_EQ(error(edit(n, n + " \"from\": \"n_cols.numel()\",")),
            where + "params[2] 'n_cols': \"from\" at character 1 of "
                    "\"n_cols.numel()\": parameter 'n_cols' is an i32 scalar, "
                    "not a tensor (a pointer or a tensor descriptor)");
  EXPECT_EQ(error(edit(n, n + " \"from\": 3,")),
            where + "params[2] 'n_cols': \"from\" is 3, not a string");
  EXPECT_EQ(error(edit(y, y + " \"from\": \"x.numel()\",")),
            where + "params[1] 'y': \"from\" applies to i32 and i64 scalars "
                    "only");
}

} // namespace
