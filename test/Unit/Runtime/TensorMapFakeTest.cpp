//===- TensorMapFakeTest.cpp - descriptor launches on the stand-in driver -===//
//
// Tensor descriptor parameters end to end against FakeCuda.cpp: the map the
// runtime has cuTensorMapEncodeTiled encode (decoded from the fake's
// recognizable layout: CUDA's dimension order, byte strides, box, swizzle),
// passed by value (the fake's cuLaunchKernel refuses 128-byte parameters that
// are not 64-byte aligned maps it encoded), the per-module cache (counted
// encodes: hits, misses on a changed pointer, shape or stride), bound
// launches and graphs, refusals that encode and launch nothing, the driver's
// own refusal, and the fake's validation of each Driver API rule.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <optional>
#include <vector>

using namespace tilec::runtime;

namespace {

const bool kFakeDriverSet = (setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, 1),
                             setenv("TILEC_RUNTIME_PTXAS", "off", 1), true);

template <typename F> F hook(const char *name) {
  void *handle = dlopen(TILEC_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(handle, nullptr) << "the fake driver is not loaded";
  auto f = reinterpret_cast<F>(dlsym(handle, name));
  EXPECT_NE(f, nullptr) << name;
  return f;
}
int encodes() { return hook<int (*)()>("fake_tensorMapEncodeCount")(); }
int launches() { return hook<int (*)()>("fake_launchCount")(); }
std::vector<uint64_t> param(int launch, int index) {
  size_t size = 0;
  const unsigned char *p = hook<const unsigned char *(*)(int, int, size_t *)>(
      "fake_launchParam")(launch, index, &size);
  std::vector<uint64_t> q((size + 7) / 8);
  std::memcpy(q.data(), p, size);
  if (size != 128)
    ADD_FAILURE() << "parameter " << index << " has " << size << " bytes";
  return q;
}

const char *kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma(.param .u64 c, .param .align 64 .b8 a_desc[128],
  .param .align 64 .b8 b_desc[128], .param .u32 k)
{ ret; }
.visible .entry five(.param .align 64 .b8 d0[128],
  .param .align 64 .b8 d1[128], .param .align 64 .b8 d2[128],
  .param .align 64 .b8 d3[128], .param .align 64 .b8 d4[128])
{ ret; }
.visible .entry plain(.param .u32 n) { ret; }
)";

std::string desc(const char *name, const char *extra = "") {
  return std::string(R"({"name": ")") + name +
         R"(", "kind": "tensor_desc", "type": "f16", "rank": 2,
            "block": [64, 64], "swizzle": 128)" +
         extra + "}";
}

std::string metadata() {
  return R"({"format": "tilec-kernels", "version": 1, "target": "sm_90",
    "kernels": [
    {"name": "tma", "num_warps": 4, "threads_per_program": 128,
     "shared_bytes": 0, "params": [
      {"name": "c", "kind": "ptr", "type": "f32"},
      {"name": "a_desc", "kind": "tensor_desc", "type": "bf16", "rank": 2,
       "block": [128, 64], "swizzle": 128, "fill": "zero"},
      {"name": "b_desc", "kind": "tensor_desc", "type": "bf16", "rank": 3,
       "block": [1, 64, 32], "swizzle": 64, "fill": "nan"},
      {"name": "k", "kind": "scalar", "type": "i32"}]},
    {"name": "five", "num_warps": 1, "threads_per_program": 32,
     "shared_bytes": 0, "params": [)" +
         desc("d0") + "," + desc("d1") + "," + desc("d2") + "," + desc("d3") +
         "," + desc("d4") + R"(]},
    {"name": "plain", "num_warps": 1, "threads_per_program": 32,
     "shared_bytes": 0, "params": [
      {"name": "n", "kind": "scalar", "type": "i32"}]}]})";
}

/// The fake's map layout (FakeCuda.cpp, "tensor maps").
struct Decoded {
  uint64_t address, dim[5], stride[4];
  unsigned box[5], type, rank, interleave, swizzle, l2, fill;
};
Decoded decode(const std::vector<uint64_t> &q) {
  Decoded d;
  d.address = q[1];
  for (int i = 0; i < 5; ++i) {
    d.dim[i] = q[2 + i];
    d.box[i] = unsigned(q[11] >> (12 * i)) & 0xfff;
  }
  for (int i = 0; i < 4; ++i)
    d.stride[i] = q[7 + i];
  d.type = unsigned(q[12] >> 20) & 0xff;
  d.rank = unsigned(q[12] >> 28) & 0xf;
  d.interleave = unsigned(q[12] >> 32) & 0xf;
  d.swizzle = unsigned(q[12] >> 36) & 0xf;
  d.l2 = unsigned(q[12] >> 40) & 0xf;
  d.fill = unsigned(q[12] >> 44) & 0xf;
  return d;
}

class TensorMaps : public ::testing::Test {
protected:
  void SetUp() override {
    auto c = Context::create(0);
    ASSERT_TRUE(c.ok()) << c.message();
    ctx.emplace(std::move(*c));
    LoadOptions o;
    o.useCache = false;
    auto m = Module::loadPtx(*ctx, kPtx, metadata(), o);
    ASSERT_TRUE(m.ok()) << m.message();
    module.emplace(std::move(*m));
    auto k = module->kernel("tma");
    ASSERT_TRUE(k.ok()) << k.message();
    tma.emplace(*k);
    auto a = DeviceBuffer<BFloat16>::allocate(*ctx, 200 * 80);
    auto b = DeviceBuffer<BFloat16>::allocate(*ctx, 4 * 100 * 48);
    auto out = DeviceBuffer<float>::allocate(*ctx, 16);
    ASSERT_TRUE(a.ok() && b.ok() && out.ok());
    A.emplace(std::move(*a));
    B.emplace(std::move(*b));
    C.emplace(std::move(*out));
  }
  Status launch(const TensorDescArg &a, const TensorDescArg &b) {
    return tma->launch(nullptr, Grid(2, 1), *C, a, b, 64);
  }
  std::optional<Context> ctx;
  std::optional<Module> module;
  std::optional<Kernel> tma;
  std::optional<DeviceBuffer<BFloat16>> A, B;
  std::optional<DeviceBuffer<float>> C;
};

TEST_F(TensorMaps, EncodedInCudaOrderAndPassedByValue) {
  int before = launches(), encoded = encodes();
  // A: 200 x 77 bf16 in rows of 80; B: 4 x 100 x 48, contiguous.
  Status s =
      launch(tensorDesc(*A, {200, 77}, {80, 1}), tensorDesc(*B, {4, 100, 48}));
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(launches(), before + 1);
  EXPECT_EQ(encodes(), encoded + 2);
  Decoded a = decode(param(before, 1));
  EXPECT_EQ(a.address, A->ptr().address);
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.type, unsigned(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16));
  EXPECT_EQ(a.dim[0], 77u);
  EXPECT_EQ(a.dim[1], 200u);
  EXPECT_EQ(a.stride[0], 160u);
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.interleave, unsigned(CU_TENSOR_MAP_INTERLEAVE_NONE));
  EXPECT_EQ(a.swizzle, unsigned(CU_TENSOR_MAP_SWIZZLE_128B));
  EXPECT_EQ(a.l2, unsigned(CU_TENSOR_MAP_L2_PROMOTION_L2_128B));
  EXPECT_EQ(a.fill, unsigned(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  Decoded b = decode(param(before, 2));
  EXPECT_EQ(b.rank, 3u);
  EXPECT_EQ(b.dim[0], 48u);
  EXPECT_EQ(b.dim[1], 100u);
  EXPECT_EQ(b.dim[2], 4u);
  EXPECT_EQ(b.stride[0], 96u);
  EXPECT_EQ(b.stride[1], 9600u);
  EXPECT_EQ(b.box[0], 32u);
  EXPECT_EQ(b.box[1], 64u);
  EXPECT_EQ(b.box[2], 1u);
  EXPECT_EQ(b.swizzle, unsigned(CU_TENSOR_MAP_SWIZZLE_64B));
  EXPECT_EQ(b.fill,
            unsigned(CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA));
}

TEST_F(TensorMaps, TheCacheEncodesEachDistinctArgumentOnce) {
  TensorDescArg a = tensorDesc(*A, {200, 80});
  TensorDescArg b = tensorDesc(*B, {4, 100, 48});
  int before = launches(), encoded = encodes();
  ASSERT_TRUE(launch(a, b).ok());
  EXPECT_EQ(encodes(), encoded + 2);
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(launch(a, b).ok());
  EXPECT_EQ(encodes(), encoded + 2) << "repeated launches hit the cache";
  EXPECT_EQ(param(before + 10, 1), param(before, 1));
  EXPECT_EQ(param(before + 10, 2), param(before, 2));

  // A changed pointer, shape or stride is a miss; each is then cached too.
  TensorDescArg moved = tensorDesc(A->ptr() + 8, {200, 72}, {80, 1});
  ASSERT_TRUE(launch(moved, b).ok());
  EXPECT_EQ(encodes(), encoded + 3);
  EXPECT_EQ(decode(param(launches() - 1, 1)).address, A->ptr().address + 16);
  TensorDescArg shorter = tensorDesc(*A, {199, 80});
  ASSERT_TRUE(launch(shorter, b).ok());
  EXPECT_EQ(encodes(), encoded + 4);
  EXPECT_EQ(decode(param(launches() - 1, 1)).dim[1], 199u);
  TensorDescArg padded = tensorDesc(*A, {100, 80}, {160, 1});
  ASSERT_TRUE(launch(padded, b).ok());
  EXPECT_EQ(encodes(), encoded + 5);
  EXPECT_EQ(decode(param(launches() - 1, 1)).stride[0], 320u);
  for (const TensorDescArg *x : {&a, &moved, &shorter, &padded})
    ASSERT_TRUE(launch(*x, b).ok());
  EXPECT_EQ(encodes(), encoded + 5);

  // The same tensor for another parameter is another map (another block):
  // the key includes the parameter.
  Kernel five = *module->kernel("five");
  auto h = DeviceBuffer<Half>::allocate(*ctx, 64 * 64);
  TensorDescArg d = tensorDesc(*h, {64, 64});
  ASSERT_TRUE(five.launch(nullptr, Grid(1), d, d, d, d, d).ok());
  EXPECT_EQ(encodes(), encoded + 10);
  ASSERT_TRUE(five.launch(nullptr, Grid(1), d, d, d, d, d).ok());
  EXPECT_EQ(encodes(), encoded + 10);
  // Five descriptors (more than a launch keeps on the stack) all arrive.
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(decode(param(launches() - 1, i)).address, h->ptr().address);

  // Another module of the same code has a cache of its own.
  LoadOptions o;
  o.useCache = false;
  auto other = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(
      other->kernel("tma")->launch(nullptr, Grid(1), *C, a, b, 64).ok());
  EXPECT_EQ(encodes(), encoded + 12);
}

TEST_F(TensorMaps, BoundLaunchesAndGraphsPassTheSameMap) {
  TensorDescArg a = tensorDesc(*A, {200, 80});
  TensorDescArg b = tensorDesc(*B, {4, 100, 48});
  int before = launches(), encoded = encodes();
  auto bound = tma->bind(*C, a, b, 64);
  ASSERT_TRUE(bound.ok()) << bound.message();
  EXPECT_EQ(encodes(), encoded + 2);
  // Moved, the bound launch still points at its own maps.
  BoundLaunch moved = std::move(*bound);
  ASSERT_TRUE(moved.launch(nullptr, Grid(1)).ok());
  ASSERT_TRUE(moved.launch(nullptr, Grid(1)).ok());
  EXPECT_EQ(encodes(), encoded + 2);
  EXPECT_EQ(decode(param(before, 1)).address, A->ptr().address);
  EXPECT_EQ(param(before + 1, 2), param(before, 2));

  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  auto graph = Graph::capture(*ctx, *stream, [&] {
    return tma->launch(*stream, Grid(1), *C, a, b, 64);
  });
  ASSERT_TRUE(graph.ok()) << graph.message();
  ASSERT_TRUE(graph->launch(*stream).ok());
  EXPECT_EQ(param(launches() - 1, 1), param(before, 1));
  EXPECT_EQ(encodes(), encoded + 2) << "the cache served the capture";
}

TEST_F(TensorMaps, RefusedArgumentsEncodeAndLaunchNothing) {
  int before = launches(), encoded = encodes();
  TensorDescArg b = tensorDesc(*B, {4, 100, 48});
  EXPECT_EQ(launch(tensorDesc(*A, {200, 77}), b).message(),
            "kernel 'tma', parameter 'a_desc' (#1): strides[0] is 77 elements "
            "(154 bytes), not a multiple of 16 bytes");
  EXPECT_EQ(
      launch(tensorDesc(A->ptr() + 1, {200, 72}, {80, 1}), b).message(),
      "kernel 'tma', parameter 'a_desc' (#1): base address 0x" +
          [&] {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%llx",
                          (unsigned long long)(A->ptr().address + 2));
            return std::string(buf);
          }() +
          " is not a multiple of 16 bytes (the TMA needs a 16-byte "
          "aligned tensor)");
  EXPECT_EQ(tma->launch(nullptr, Grid(1), *C, *A, b, 64).message(),
            "kernel 'tma', parameter 'a_desc' (#1): expects a tensor "
            "descriptor of bf16 (rank 2) but got a pointer to bf16");
  EXPECT_EQ(
      launch(tensorDesc(*A, {200, 80}), tensorDesc(*B, {400, 48})).message(),
      "kernel 'tma', parameter 'b_desc' (#2): expects a rank-3 tensor "
      "(block 1x64x32) but got rank 2");
  // The grid is checked after packing: the maps were encoded (and cached),
  // nothing launched.
  EXPECT_EQ(tma->launch(nullptr, Grid(0), *C, tensorDesc(*A, {200, 80}), b, 64)
                .message(),
            "kernel 'tma': grid (0, 1, 1) is empty: x, y and z must each be at "
            "least 1");
  EXPECT_EQ(launches(), before);
  EXPECT_EQ(encodes(), encoded + 2);
  auto bad = tma->bind(*C, tensorDesc(*A, {200, 77}), b, 64);
  EXPECT_EQ(bad.message(),
            "kernel 'tma', parameter 'a_desc' (#1): strides[0] is 77 elements "
            "(154 bytes), not a multiple of 16 bytes");
}

TEST_F(TensorMaps, TheDriversRefusalNamesTheParameter) {
  setenv("TILEC_FAKE_CUDA_MODE", "refusemaps", 1);
  Status s = launch(tensorDesc(*A, {200, 80}), tensorDesc(*B, {4, 100, 48}));
  unsetenv("TILEC_FAKE_CUDA_MODE");
  EXPECT_EQ(s.message(),
            "kernel 'tma', parameter 'a_desc' (#1): cuTensorMapEncodeTiled "
            "failed: CUDA_ERROR_INVALID_VALUE (fake driver error)");
  // Nothing was cached: the same launch now encodes.
  int encoded = encodes();
  ASSERT_TRUE(
      launch(tensorDesc(*A, {200, 80}), tensorDesc(*B, {4, 100, 48})).ok());
  EXPECT_EQ(encodes(), encoded + 2);
}

TEST_F(TensorMaps, KernelsWithoutDescriptorsAreUnchanged) {
  Kernel plain = *module->kernel("plain");
  int encoded = encodes();
  ASSERT_TRUE(plain.launch(nullptr, Grid(1), 5).ok());
  EXPECT_EQ(encodes(), encoded);
}

// The fake must hold the runtime to the rules, or the tests above prove
// nothing: its cuLaunchKernel refuses a 128-byte parameter that is not a map
// it encoded, or not 64-byte aligned, and its cuTensorMapEncodeTiled each
// breach of a Driver API rule.
TEST_F(TensorMaps, TheFakeDriverEnforcesTheRules) {
  const Driver &d = ctx->driver();
  CUfunction f = tma->function();
  alignas(128) unsigned char storage[256] = {};
  uint64_t c = C->ptr().address;
  int32_t k = 64;
  CUtensorMap good;
  cuuint64_t dim[2] = {80, 200}, stride[1] = {160};
  cuuint32_t box[2] = {64, 128}, one[2] = {1, 1};
  auto encode = [&](CUtensorMap *map, CUtensorMapDataType type, unsigned rank,
                    uint64_t address, const cuuint64_t *dims,
                    const cuuint64_t *strides, const cuuint32_t *boxes,
                    const cuuint32_t *elementStrides,
                    CUtensorMapInterleave interleave,
                    CUtensorMapSwizzle swizzle, CUtensorMapFloatOOBfill fill) {
    return d.cuTensorMapEncodeTiled(
        map, type, rank, reinterpret_cast<void *>(address), dims, strides,
        boxes, elementStrides, interleave, swizzle,
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, fill);
  };
  const auto BF16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const auto NONE = CU_TENSOR_MAP_INTERLEAVE_NONE;
  const auto S128 = CU_TENSOR_MAP_SWIZZLE_128B;
  const auto ZERO = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  uint64_t base = A->ptr().address;
  ASSERT_EQ(
      encode(&good, BF16, 2, base, dim, stride, box, one, NONE, S128, ZERO),
      CUDA_SUCCESS);

  void *params[4] = {&c, &good, &good, &k};
  EXPECT_EQ(
      d.cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr),
      CUDA_SUCCESS);
  std::memcpy(storage, &good, 128);
  storage[40] ^= 1; // a changed byte
  params[1] = storage;
  EXPECT_EQ(
      d.cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr),
      CUDA_ERROR_INVALID_VALUE);
  std::memcpy(storage + 32, &good, 128); // the right bytes, 32-byte aligned
  params[1] = storage + 32;
  EXPECT_EQ(
      d.cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr),
      CUDA_ERROR_INVALID_VALUE);

  CUtensorMap m;
  const CUresult bad = CUDA_ERROR_INVALID_VALUE;
  auto misaligned = reinterpret_cast<CUtensorMap *>(storage + 32);
  EXPECT_EQ(encode(misaligned, BF16, 2, base, dim, stride, box, one, NONE, S128,
                   ZERO),
            bad);
  EXPECT_EQ(encode(&m, BF16, 0, base, dim, stride, box, one, NONE, S128, ZERO),
            bad);
  EXPECT_EQ(encode(&m, BF16, 6, base, dim, stride, box, one, NONE, S128, ZERO),
            bad);
  EXPECT_EQ(
      encode(&m, BF16, 2, base + 8, dim, stride, box, one, NONE, S128, ZERO),
      bad);
  EXPECT_EQ(encode(&m, BF16, 2, base, dim, stride, box, one,
                   CU_TENSOR_MAP_INTERLEAVE_16B, S128, ZERO),
            bad)
      << "interleave needs rank 3 or more";
  cuuint64_t dim3[3] = {80, 200, 1}, stride3[2] = {160, 32000};
  cuuint32_t box3[3] = {16, 8, 1}, one3[3] = {1, 1, 1};
  EXPECT_EQ(encode(&m, BF16, 3, base + 16, dim3, stride3, box3, one3,
                   CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_32B,
                   ZERO),
            bad)
      << "interleave 32B needs 32-byte alignment";
  EXPECT_EQ(encode(&m, BF16, 3, base, dim3, stride3, box3, one3,
                   CU_TENSOR_MAP_INTERLEAVE_32B, S128, ZERO),
            bad)
      << "interleave 32B needs swizzle 32B";
  EXPECT_EQ(encode(&m, BF16, 3, base, dim3, stride3, box3, one3,
                   CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_32B,
                   ZERO),
            CUDA_SUCCESS);
  cuuint64_t zeroDim[2] = {0, 200}, hugeDim[2] = {80, (1ull << 32) + 1};
  EXPECT_EQ(
      encode(&m, BF16, 2, base, zeroDim, stride, box, one, NONE, S128, ZERO),
      bad);
  EXPECT_EQ(
      encode(&m, BF16, 2, base, hugeDim, stride, box, one, NONE, S128, ZERO),
      bad);
  cuuint64_t oddStride[1] = {154}, hugeStride[1] = {1ull << 40};
  EXPECT_EQ(
      encode(&m, BF16, 2, base, dim, oddStride, box, one, NONE, S128, ZERO),
      bad);
  EXPECT_EQ(
      encode(&m, BF16, 2, base, dim, hugeStride, box, one, NONE, S128, ZERO),
      bad);
  cuuint32_t bigBox[2] = {64, 257}, oddBox[2] = {4, 128},
             wideBox[2] = {128, 128};
  EXPECT_EQ(
      encode(&m, BF16, 2, base, dim, stride, bigBox, one, NONE, S128, ZERO),
      bad);
  EXPECT_EQ(encode(&m, BF16, 2, base, dim, stride, oddBox, one, NONE,
                   CU_TENSOR_MAP_SWIZZLE_NONE, ZERO),
            bad)
      << "8 inner bytes are not a multiple of 16";
  EXPECT_EQ(
      encode(&m, BF16, 2, base, dim, stride, wideBox, one, NONE, S128, ZERO),
      bad)
      << "256 inner bytes exceed the 128-byte swizzle span";
  EXPECT_EQ(encode(&m, BF16, 2, base, dim, stride, wideBox, one, NONE,
                   CU_TENSOR_MAP_SWIZZLE_NONE, ZERO),
            CUDA_SUCCESS);
  EXPECT_EQ(encode(&m, BF16, 2, base, dim, stride, box, one, NONE,
                   CU_TENSOR_MAP_SWIZZLE_64B, ZERO),
            bad);
  cuuint32_t zeroStep[2] = {1, 0}, bigStep[2] = {9, 1};
  EXPECT_EQ(
      encode(&m, BF16, 2, base, dim, stride, box, zeroStep, NONE, S128, ZERO),
      bad);
  EXPECT_EQ(
      encode(&m, BF16, 2, base, dim, stride, box, bigStep, NONE, S128, ZERO),
      bad);
  EXPECT_EQ(encode(&m, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, base, dim, stride, box,
                   one, NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
            bad)
      << "NaN fill needs a float type";
}

} // namespace
