//===- TensorDescTest.cpp - tensor descriptors on the host ----------------===//
//
// The metadata of tensor_desc parameters (every malformed field with its
// message), the checks of TensorDescArg against a parameter and the Driver
// API's rules (every message), the conversion to CUDA's dimension order, and
// packArgs passing a descriptor by value. The driver's part (encoding, the
// cache, launches) is in TensorMapFakeTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Args.h"

#include <cuda.h>

#include <gtest/gtest.h>

#include <cstring>

using namespace tilec::runtime;

namespace {

/// The docs/metadata.md example of a descriptor parameter, in a kernel.
const char *kDescParam = R"({"name": "a_desc", "kind": "tensor_desc",
  "type": "bf16", "rank": 2, "block": [128, 64], "swizzle": 128,
  "fill": "zero"})";

std::string document(const std::string &param) {
  return R"({"format": "tilec-kernels", "version": 1, "target": "sm_90a",
    "kernels": [{"name": "gemm", "num_warps": 4, "threads_per_program": 128,
    "shared_bytes": 0, "params": [
      {"name": "c", "kind": "ptr", "type": "f32", "divisibility": 16},
      )" +
         param + R"(,
      {"name": "k", "kind": "scalar", "type": "i32"}]}]})";
}

/// kDescParam with `from` replaced by `to`.
std::string editParam(const std::string &from, const std::string &to) {
  std::string s = kDescParam;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    s.replace(at, from.size(), to);
  return document(s);
}

std::string error(const std::string &json) {
  auto m = parseMetadata(json);
  EXPECT_FALSE(m.ok()) << json;
  return m.message();
}

const std::string kWhere =
    "invalid kernel metadata: kernels[0] 'gemm': params[1] 'a_desc': ";

KernelMetadata gemm(const std::string &param = kDescParam) {
  auto m = parseMetadata(document(param));
  EXPECT_TRUE(m.ok()) << m.message();
  return m.ok() ? m->kernels[0] : KernelMetadata();
}

TEST(TensorDescMetadata, ParsesTheDocumentedParameter) {
  KernelMetadata k = gemm();
  ASSERT_EQ(k.params.size(), 3u);
  const ParamInfo &p = k.params[1];
  EXPECT_EQ(p.kind, ParamInfo::Kind::TensorDesc);
  EXPECT_EQ(p.type, DType::BF16);
  EXPECT_EQ(p.desc.rank, 2);
  EXPECT_EQ(p.desc.block[0], 128);
  EXPECT_EQ(p.desc.block[1], 64);
  EXPECT_EQ(p.desc.swizzle, 128);
  EXPECT_FALSE(p.desc.nanFill);
  EXPECT_EQ(p.abiBytes(), 128u);
  EXPECT_EQ(k.tensorDescCount(), 1u);
  EXPECT_EQ(k.signature(),
            "c: ptr<f32>, a_desc: tensor_desc<bf16, 128x64>, k: i32");
}

TEST(TensorDescMetadata, Defaults) {
  // No swizzle, zero fill; a rank-1 descriptor of f32.
  KernelMetadata k = gemm(R"({"name": "v", "kind": "tensor_desc",
    "type": "f32", "rank": 1, "block": [256]})");
  EXPECT_EQ(k.params[1].desc.swizzle, 0);
  EXPECT_FALSE(k.params[1].desc.nanFill);
  k = gemm(R"({"name": "v", "kind": "tensor_desc", "type": "f16",
    "rank": 5, "block": [1, 2, 3, 4, 8], "fill": "nan", "swizzle": 32,
    "divisibility": 1})");
  EXPECT_EQ(k.params[1].desc.rank, 5);
  EXPECT_TRUE(k.params[1].desc.nanFill);
  EXPECT_EQ(k.params[1].desc.block[4], 8);
}

TEST(TensorDescMetadata, Tile) {
  // The kernel's block: boxes side by side along the innermost dimension
  // (a 64 x 256 bf16 block is four 64 x 64 boxes); the box when absent.
  EXPECT_EQ(gemm().params[1].desc.tile[1], 64);
  KernelMetadata k = gemm(R"({"name": "a_desc", "kind": "tensor_desc",
    "type": "bf16", "rank": 2, "block": [64, 64], "tile": [64, 256],
    "swizzle": 128})");
  EXPECT_EQ(k.params[1].desc.block[1], 64);
  EXPECT_EQ(k.params[1].desc.tile[0], 64);
  EXPECT_EQ(k.params[1].desc.tile[1], 256);
  EXPECT_EQ(k.signature(),
            "c: ptr<f32>, a_desc: tensor_desc<bf16, 64x256>, k: i32");
  const std::string tiled = R"({"name": "a_desc", "kind": "tensor_desc",
    "type": "bf16", "rank": 2, "block": [64, 64], "tile": TILE,
    "swizzle": 128})";
  auto with = [&](const std::string &t) {
    std::string s = tiled;
    s.replace(s.find("TILE"), 4, t);
    return document(s);
  };
  EXPECT_EQ(error(with("[64, 100]")),
            kWhere + "\"tile\"[1] is 100, not a multiple of the box's 64");
  EXPECT_EQ(error(with("[32, 64]")),
            kWhere + "\"tile\"[0] is 32, not a multiple of the box's 64");
  EXPECT_EQ(error(with("[64]")),
            kWhere + "\"tile\" has 1 dimensions but \"rank\" is 2");
}

TEST(TensorDescMetadata, Errors) {
  EXPECT_EQ(error(editParam("\"bf16\"", "\"i1\"")),
            kWhere + "a tensor descriptor of i1 elements is not supported "
                     "(the TMA moves i8 i16 i32 i64 f16 bf16 f32 f64 "
                     "f8E4M3FN f8E5M2)");
  EXPECT_EQ(error(editParam("\"rank\": 2, ", "")), kWhere + "missing \"rank\"");
  EXPECT_EQ(error(editParam("\"rank\": 2", "\"rank\": 0")),
            kWhere + "\"rank\" is 0, not a rank from 1 to 5");
  EXPECT_EQ(error(editParam("\"rank\": 2", "\"rank\": 6")),
            kWhere + "\"rank\" is 6, not a rank from 1 to 5");
  EXPECT_EQ(error(editParam("\"block\": [128, 64], ", "")),
            kWhere + "missing \"block\"");
  EXPECT_EQ(error(editParam("[128, 64]", "128")),
            kWhere + "\"block\" is 128, not an array");
  EXPECT_EQ(error(editParam("[128, 64]", "[128, 64, 2]")),
            kWhere + "\"block\" has 3 dimensions but \"rank\" is 2");
  EXPECT_EQ(error(editParam("[128, 64]", "[0, 64]")),
            kWhere + "\"block\"[0] is 0, not a whole number from 1 to 256 "
                     "(the TMA's box limit)");
  EXPECT_EQ(error(editParam("[128, 64]", "[257, 64]")),
            kWhere + "\"block\"[0] is 257, not a whole number from 1 to 256 "
                     "(the TMA's box limit)");
  EXPECT_EQ(error(editParam("[128, 64]", "[128, \"64\"]")),
            kWhere + "\"block\"[1] is \"64\", not a whole number from 1 to "
                     "256 (the TMA's box limit)");
  EXPECT_EQ(error(editParam("[128, 64]", "[128, 4]")),
            kWhere + "the block's innermost dimension is 8 bytes (4 x bf16), "
                     "not a multiple of 16");
  EXPECT_EQ(error(editParam("[128, 64]", "[128, 128]")),
            kWhere + "the block's innermost dimension is 256 bytes (128 x "
                     "bf16), more than the 128-byte swizzle span");
  EXPECT_EQ(error(editParam("\"swizzle\": 128", "\"swizzle\": 32")),
            kWhere + "the block's innermost dimension is 128 bytes (64 x "
                     "bf16), more than the 32-byte swizzle span");
  EXPECT_EQ(error(editParam("\"swizzle\": 128", "\"swizzle\": 48")),
            kWhere + "\"swizzle\" is 48, not 0, 32, 64 or 128");
  EXPECT_EQ(error(editParam("\"swizzle\": 128", "\"swizzle\": 256")),
            kWhere + "\"swizzle\" is 256, not 0, 32, 64 or 128");
  EXPECT_EQ(error(editParam("\"swizzle\": 128", "\"swizzle\": \"128B\"")),
            kWhere + "\"swizzle\" is \"128B\", not a number");
  EXPECT_EQ(error(editParam("\"zero\"", "\"ones\"")),
            kWhere + "\"fill\" is \"ones\", not \"zero\" or \"nan\"");
  EXPECT_EQ(error(editParam("\"zero\"", "0")),
            kWhere + "\"fill\" is 0, not a string");
  EXPECT_EQ(error(document(R"({"name": "a_desc", "kind": "tensor_desc",
    "type": "i16", "rank": 1, "block": [64], "fill": "nan"})")),
            kWhere + "\"fill\" \"nan\" needs floating-point elements, not "
                     "i16");
  EXPECT_EQ(error(editParam("\"fill\"", "\"divisibility\": 16, \"fill\"")),
            kWhere + "\"divisibility\" applies to integers and pointers, not "
                     "to tensor descriptors (the TMA needs 16-byte alignment "
                     "anyway)");
}

// --- arguments ----------------------------------------------------------

const auto A = DevicePtr<BFloat16>::fromAddress(0x7f0000100000);

/// The message of checking `arg` against gemm's a_desc.
std::string argError(const TensorDescArg &arg) {
  static const KernelMetadata k = gemm();
  TensorMapRequest r;
  Status s = checkTensorDesc(k, 1, arg, r);
  EXPECT_FALSE(s.ok());
  return s.message();
}

const std::string kArg = "kernel 'gemm', parameter 'a_desc' (#1): ";

TEST(TensorDescArg, ContiguousAndStrided) {
  TensorDescArg d = tensorDesc(A, {200, 77});
  EXPECT_EQ(d.rank, 2);
  EXPECT_EQ(d.strideCount, 2);
  EXPECT_EQ(d.type, DType::BF16);
  EXPECT_EQ(d.address, A.address);
  EXPECT_EQ(d.strides[0], 77);
  EXPECT_EQ(d.strides[1], 1);
  TensorDescArg e = tensorDesc(A, {4, 200, 77});
  EXPECT_EQ(e.strides[0], 200 * 77);
  TensorDescArg f = tensorDesc(A, {200, 77}, {80, 1});
  EXPECT_EQ(f.strides[0], 80);
  // From a pointer of a run-time type, as tools have them.
  int64_t shape[] = {3, 16};
  TensorDescArg g = tensorDesc(pointerArg(DType::F16, 0x1000), shape);
  EXPECT_EQ(g.type, DType::F16);
  EXPECT_EQ(g.address, 0x1000u);
  EXPECT_EQ(g.strides[0], 16);
}

TEST(TensorDescArg, ConvertsToCudaOrder) {
  static const KernelMetadata k = gemm();
  TensorMapRequest r;
  // 200 rows of 77 bf16, rows padded to 80 elements (160 bytes).
  Status s = checkTensorDesc(k, 1, tensorDesc(A, {200, 77}, {80, 1}), r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(r.rank, 2u);
  EXPECT_EQ(r.address, A.address);
  EXPECT_EQ(r.globalDim[0], 77u); // CUDA's dimension 0: the innermost
  EXPECT_EQ(r.globalDim[1], 200u);
  EXPECT_EQ(r.globalStrides[0], 160u); // bytes
  EXPECT_EQ(r.boxDim[0], 64u);
  EXPECT_EQ(r.boxDim[1], 128u);
  EXPECT_EQ(r.elementStrides[0], 1u);
  EXPECT_EQ(r.elementStrides[1], 1u);
  EXPECT_EQ(r.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(r.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(r.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(r.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

  // Rank 3, 64-byte swizzle, NaN fill, f32.
  KernelMetadata k3 = gemm(R"({"name": "a_desc", "kind": "tensor_desc",
    "type": "f32", "rank": 3, "block": [2, 8, 16], "swizzle": 64,
    "fill": "nan"})");
  auto B = DevicePtr<float>::fromAddress(0x7f0000200000);
  s = checkTensorDesc(k3, 1, tensorDesc(B, {5, 30, 40}, {1600, 40, 1}), r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(r.globalDim[0], 40u);
  EXPECT_EQ(r.globalDim[1], 30u);
  EXPECT_EQ(r.globalDim[2], 5u);
  EXPECT_EQ(r.globalStrides[0], 160u);
  EXPECT_EQ(r.globalStrides[1], 6400u);
  EXPECT_EQ(r.boxDim[0], 16u);
  EXPECT_EQ(r.boxDim[1], 8u);
  EXPECT_EQ(r.boxDim[2], 2u);
  EXPECT_EQ(r.swizzle, CU_TENSOR_MAP_SWIZZLE_64B);
  EXPECT_EQ(r.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
}

TEST(TensorDescArg, DataTypes) {
  EXPECT_EQ(tensorMapDataType(DType::I8), CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(tensorMapDataType(DType::F8E4M3FN), CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(tensorMapDataType(DType::F8E5M2), CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(tensorMapDataType(DType::I16), CU_TENSOR_MAP_DATA_TYPE_UINT16);
  EXPECT_EQ(tensorMapDataType(DType::I32), CU_TENSOR_MAP_DATA_TYPE_INT32);
  EXPECT_EQ(tensorMapDataType(DType::I64), CU_TENSOR_MAP_DATA_TYPE_INT64);
  EXPECT_EQ(tensorMapDataType(DType::F16), CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(tensorMapDataType(DType::BF16), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(tensorMapDataType(DType::F32), CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(tensorMapDataType(DType::F64), CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
  EXPECT_EQ(tensorMapDataType(DType::I1), -1);
}

TEST(TensorDescArg, Errors) {
  EXPECT_EQ(
      argError(tensorDesc(DevicePtr<float>::fromAddress(A.address), {200, 64})),
      kArg + "expects a tensor descriptor of bf16 but got one of f32");
  EXPECT_EQ(argError(tensorDesc(A, {4, 200, 64})),
            kArg + "expects a rank-2 tensor (block 128x64) but got rank 3");
  EXPECT_EQ(argError(tensorDesc(A, {1, 2, 3, 4, 5, 6})),
            kArg + "expects a rank-2 tensor (block 128x64) but got rank 6");
  EXPECT_EQ(argError(tensorDesc(A, {200, 64}, {64, 1, 1})),
            kArg + "the tensor has 2 dimensions but 3 strides");
  EXPECT_EQ(argError(tensorDesc(A + 1, {200, 64})),
            kArg + "base address 0x7f0000100002 is not a multiple of 16 bytes "
                   "(the TMA needs a 16-byte aligned tensor)");
  EXPECT_EQ(argError(tensorDesc(A, {0, 64})),
            kArg + "shape[0] is 0, not in [1, 2^32] (shape is outermost "
                   "dimension first)");
  EXPECT_EQ(argError(tensorDesc(A, {200, (int64_t(1) << 32) + 1}, {0, 1})),
            kArg + "shape[1] is 4294967297, not in [1, 2^32] (shape is "
                   "outermost dimension first)");
  EXPECT_EQ(argError(tensorDesc(A, {200, 64}, {1, 200})),
            kArg + "strides[1] is 200: the innermost dimension must be "
                   "contiguous (stride 1; strides are in elements, outermost "
                   "dimension first)");
  EXPECT_EQ(argError(tensorDesc(A, {200, 64}, {0, 1})),
            kArg + "strides[0] is 0 elements, not positive");
  EXPECT_EQ(argError(tensorDesc(A, {200, 77})),
            kArg + "strides[0] is 77 elements (154 bytes), not a multiple of "
                   "16 bytes");
  EXPECT_EQ(argError(tensorDesc(A, {2, 64}, {int64_t(1) << 39, 1})),
            kArg + "strides[0] is 549755813888 elements, not below 2^40 "
                   "bytes");
  // The largest dimension and stride the driver takes pass.
  static const KernelMetadata k = gemm();
  TensorMapRequest r;
  EXPECT_TRUE(checkTensorDesc(k, 1,
                              tensorDesc(A, {int64_t(1) << 32, 64},
                                         {(int64_t(1) << 39) - 8, 1}),
                              r)
                  .ok());
}

/// Writes a map of the request's address and dims, and counts its calls.
struct StubEncoder final : TensorMapEncoder {
  int calls = 0;
  Status encode(const KernelMetadata &kernel, size_t index,
                const TensorDescArg &arg, TensorMapBytes &out) override {
    ++calls;
    TensorMapRequest r;
    TILEC_RETURN_IF_ERROR(checkTensorDesc(kernel, index, arg, r));
    std::memset(&out, 0, sizeof out);
    out.opaque[0] = r.address;
    out.opaque[1] = r.globalDim[0];
    out.opaque[2] = r.globalDim[1];
    return Status();
  }
};

TEST(TensorDescArg, PackedByValue) {
  static const KernelMetadata k = gemm();
  StubEncoder stub;
  TensorMapBytes maps[1];
  TensorMapSlots slots{&stub, maps};
  uint64_t words[3];
  void *pointers[3];
  auto c = DevicePtr<float>::fromAddress(0x7f0000300000);
  TensorDescArg a = tensorDesc(A, {200, 64});
  ArgValue args[] = {makeArg(c), makeArg(a), makeArg(int32_t(64))};
  Status s = packArgs(k, args, 3, words, pointers, &slots);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(stub.calls, 1);
  // The descriptor's entry points at the 128 bytes themselves, aligned.
  EXPECT_EQ(pointers[1], static_cast<void *>(&maps[0]));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pointers[1]) % 64, 0u);
  EXPECT_EQ(maps[0].opaque[0], A.address);
  EXPECT_EQ(maps[0].opaque[1], 64u);
  EXPECT_EQ(maps[0].opaque[2], 200u);
  EXPECT_EQ(pointers[0], static_cast<void *>(&words[0]));
  EXPECT_EQ(words[0], c.address);
  EXPECT_EQ(pointers[2], static_cast<void *>(&words[2]));

  // A pointer where a descriptor goes, and the other way round.
  args[1] = makeArg(A);
  EXPECT_EQ(packArgs(k, args, 3, words, pointers, &slots).message(),
            kArg + "expects a tensor descriptor of bf16 (rank 2) but got a "
                   "pointer to bf16");
  args[1] = makeArg(a);
  TensorDescArg f32 =
      tensorDesc(DevicePtr<float>::fromAddress(A.address), {200, 64});
  args[1] = makeArg(f32);
  EXPECT_EQ(packArgs(k, args, 3, words, pointers, &slots).message(),
            kArg + "expects a tensor descriptor of bf16 (rank 2) but got a "
                   "tensor descriptor of f32 (rank 2)");
  args[1] = makeArg(a);
  args[0] = makeArg(a);
  EXPECT_EQ(packArgs(k, args, 3, words, pointers, &slots).message(),
            "kernel 'gemm', parameter 'c' (#0): expects a pointer to f32 but "
            "got a tensor descriptor of bf16 (rank 2)");
  args[0] = makeArg(c);
  args[2] = makeArg(a);
  EXPECT_EQ(packArgs(k, args, 3, words, pointers, &slots).message(),
            "kernel 'gemm', parameter 'k' (#2): expects an i32 scalar but got "
            "a tensor descriptor of bf16 (rank 2)");
  args[2] = makeArg(int32_t(64));
  // The encoder's error comes back as it is; packing without map slots is
  // refused with a message rather than a crash.
  TensorDescArg odd = tensorDesc(A + 1, {200, 64});
  args[1] = makeArg(odd);
  EXPECT_EQ(packArgs(k, args, 3, words, pointers, &slots).message(),
            kArg + "base address 0x7f0000100002 is not a multiple of 16 bytes "
                   "(the TMA needs a 16-byte aligned tensor)");
  args[1] = makeArg(a);
  EXPECT_EQ(packArgs(k, args, 3, words, pointers).message(),
            kArg + "a tensor descriptor parameter needs a launch through "
                   "Kernel (packArgs was given no place for its map)");
}

/// checkLaunch: a launch's checks without a driver (the Meta implementation
/// of a PyTorch operator), descriptors through checkTensorDesc.
TEST(TensorDescArg, CheckLaunch) {
  static const KernelMetadata k = gemm();
  auto c = DevicePtr<float>::fromAddress(0x7f0000300000);
  TensorDescArg a = tensorDesc(A, {200, 64});
  ArgValue args[] = {makeArg(c), makeArg(a), makeArg(int32_t(64))};
  const Grid one(2, 3);
  Status s = checkLaunch(k, &one, args, 3);
  EXPECT_TRUE(s.ok()) << s.message();
  // The descriptor's, the scalars' and the grid's refusals, as a launch's.
  TensorDescArg odd = tensorDesc(A, {200, 77});
  args[1] = makeArg(odd);
  EXPECT_EQ(checkLaunch(k, &one, args, 3).message(),
            kArg + "strides[0] is 77 elements (154 bytes), not a multiple of "
                   "16 bytes");
  args[1] = makeArg(a);
  args[2] = makeArg(int64_t(1) << 40);
  EXPECT_EQ(checkLaunch(k, &one, args, 3).message(),
            "kernel 'gemm', parameter 'k' (#2): value 1099511627776 does not "
            "fit in i32");
  args[2] = makeArg(int32_t(64));
  const Grid empty(0);
  EXPECT_EQ(checkLaunch(k, &empty, args, 3).message(),
            "kernel 'gemm': grid (0, 1, 1) is empty: x, y and z must each be "
            "at least 1");
  // Without a rule, no grid is refused as ruleGrid refuses it.
  EXPECT_EQ(checkLaunch(k, nullptr, args, 3).message(),
            "kernel 'gemm' declares no grid rule (tile.grid): give the grid "
            "to the launch");
  // A rule that gives 0 programs launches nothing, so nothing else is
  // checked (an empty tensor's descriptor would be refused otherwise).
  auto rule = parseMetadata(R"j({"format": "tilec-kernels", "version": 1,
    "target": "sm_90a", "kernels": [{"name": "gemm", "num_warps": 4,
    "threads_per_program": 128, "shared_bytes": 0, "grid": ["cdiv(k, 64)"],
    "params": [
      {"name": "c", "kind": "ptr", "type": "f32", "divisibility": 16},
      )j" + std::string(kDescParam) + R"j(,
      {"name": "k", "kind": "scalar", "type": "i32"}]}]})j");
  ASSERT_TRUE(rule.ok()) << rule.message();
  const KernelMetadata ruled = rule->kernels[0];
  TensorDescArg none = tensorDesc(A, {0, 64});
  args[1] = makeArg(none);
  args[2] = makeArg(int32_t(0));
  s = checkLaunch(ruled, nullptr, args, 3);
  EXPECT_TRUE(s.ok()) << s.message();
  args[2] = makeArg(int32_t(64));
  EXPECT_EQ(checkLaunch(ruled, nullptr, args, 3).message(),
            kArg + "shape[0] is 0, not in [1, 2^32] (shape is outermost "
                   "dimension first)");
}

/// A descriptor with a shape rule (tile.shape): its sizes are checked at
/// the launch, after the encoder's own checks.
TEST(TensorDescArg, ShapeRule) {
  std::string param = kDescParam;
  param.insert(param.find("\"rank\""), "\"shape\": [\"k * 4\", \"64\"], ");
  auto m = parseMetadata(R"j({"format": "tilec-kernels", "version": 1,
    "target": "sm_90a", "kernels": [{"name": "gemm", "num_warps": 4,
    "threads_per_program": 128, "shared_bytes": 0, "params": [
      {"name": "c", "kind": "ptr", "type": "f32", "divisibility": 16},
      )j" + param + R"j(,
      {"name": "k", "kind": "scalar", "type": "i32"}]}]})j");
  ASSERT_TRUE(m.ok()) << m.message();
  const KernelMetadata k = m->kernels[0];
  auto c = DevicePtr<float>::fromAddress(0x7f0000300000);
  TensorDescArg a = tensorDesc(A, {200, 64});
  ArgValue args[] = {makeArg(c), makeArg(a), makeArg(int32_t(50))};
  const Grid one(1);
  Status s = checkLaunch(k, &one, args, 3);
  EXPECT_TRUE(s.ok()) << s.message();
  args[2] = makeArg(int32_t(49));
  EXPECT_EQ(checkLaunch(k, &one, args, 3).message(),
            kArg + "shape[0] is 200 but the kernel's shape [\"k * 4\", "
                   "\"64\"] says 196");
  // A rank the descriptor does not have is the encoder's refusal first.
  TensorDescArg flat = tensorDesc(A, {12800});
  args[1] = makeArg(flat);
  EXPECT_EQ(checkLaunch(k, &one, args, 3).message(),
            kArg + "expects a rank-2 tensor (block 128x64) but got rank 1");
  // The descriptor's rank must match the shape's in the metadata.
  param = kDescParam;
  param.insert(param.find("\"rank\""), "\"shape\": [\"k\"], ");
  auto bad = parseMetadata(R"j({"format": "tilec-kernels", "version": 1,
    "target": "sm_90a", "kernels": [{"name": "gemm", "num_warps": 4,
    "threads_per_program": 128, "shared_bytes": 0, "params": [
      )j" + param + R"j(,
      {"name": "k", "kind": "scalar", "type": "i32"}]}]})j");
  EXPECT_EQ(bad.message(), "invalid kernel metadata: kernels[0] 'gemm': "
                           "params[0] 'a_desc': \"shape\" has 1 sizes but "
                           "the descriptor's rank is 2");
}

} // namespace
