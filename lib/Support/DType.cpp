//===- DType.cpp - element types shared by tilec's C++ APIs ---------------===//

#include "tilec/DType.h"

#include <array>

namespace tilec {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  unsigned bits;
};
/// In enum order.
constexpr std::array<DTypeInfo, 11> kDTypes = {{
    {DType::I1, "i1", 1},
    {DType::I8, "i8", 8},
    {DType::I16, "i16", 16},
    {DType::I32, "i32", 32},
    {DType::I64, "i64", 64},
    {DType::F16, "f16", 16},
    {DType::BF16, "bf16", 16},
    {DType::F32, "f32", 32},
    {DType::F64, "f64", 64},
    {DType::F8E4M3FN, "f8E4M3FN", 8},
    {DType::F8E5M2, "f8E5M2", 8},
}};
const DTypeInfo &info(DType type) { return kDTypes[size_t(type)]; }
} // namespace

std::string_view dtypeName(DType type) { return info(type).name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &d : kDTypes)
    if (d.name == name)
      return d.type;
  return std::nullopt;
}

std::string_view allDTypeNames() {
  return "i1 i8 i16 i32 i64 f16 bf16 f32 f64 f8E4M3FN f8E5M2";
}

unsigned bitWidth(DType type) { return info(type).bits; }
size_t dtypeSize(DType type) { return (bitWidth(type) + 7) / 8; }
bool isFloat(DType type) { return type >= DType::F16; }
bool isInteger(DType type) { return type <= DType::I64; }

} // namespace tilec
