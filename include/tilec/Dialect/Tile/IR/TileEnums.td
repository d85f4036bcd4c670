//===- TileEnums.td - enums of the tile dialect ------------*- tablegen -*-===//

#ifndef TILE_ENUMS_TD
#define TILE_ENUMS_TD

include "mlir/IR/EnumAttr.td"
include "tilec/Dialect/Tile/IR/TileDialect.td"

class Tile_I32Enum<string name, string description, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, description, cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
class Tile_EnumAttr<string mnemonic, Tile_I32Enum enumInfo>
    : EnumAttr<Tile_Dialect, enumInfo, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

/// PTX cache operators of ld/st (`.ca`, `.cg`, ...); `none` lets ptxas choose.
def Tile_CacheModifier : Tile_I32Enum<"CacheModifier", "cache modifier", [
  I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"ca", 1>,
  I32EnumAttrCase<"cg", 2>, I32EnumAttrCase<"cs", 3>,
  I32EnumAttrCase<"cv", 4>, I32EnumAttrCase<"wb", 5>,
  I32EnumAttrCase<"wt", 6>]>;
def Tile_CacheModifierAttr : Tile_EnumAttr<"cache", Tile_CacheModifier>;

/// L2/L1 eviction priority hint of a memory access.
def Tile_EvictionPolicy : Tile_I32Enum<"EvictionPolicy", "eviction policy", [
  I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"evict_first", 1>,
  I32EnumAttrCase<"evict_last", 2>]>;
def Tile_EvictionPolicyAttr : Tile_EnumAttr<"evict", Tile_EvictionPolicy>;

/// The read-modify-write operation of tile.atomic_rmw.
def Tile_RMWKind : Tile_I32Enum<"RMWKind", "atomic read-modify-write kind", [
  I32EnumAttrCase<"Add", 0, "add">, I32EnumAttrCase<"FAdd", 1, "fadd">,
  I32EnumAttrCase<"Max", 2, "max">, I32EnumAttrCase<"Min", 3, "min">,
  I32EnumAttrCase<"UMax", 4, "umax">, I32EnumAttrCase<"UMin", 5, "umin">,
  I32EnumAttrCase<"And", 6, "and">, I32EnumAttrCase<"Or", 7, "or">,
  I32EnumAttrCase<"Xor", 8, "xor">, I32EnumAttrCase<"Xchg", 9, "xchg">]>;
def Tile_RMWKindAttr : Tile_EnumAttr<"rmw", Tile_RMWKind>;

/// The elementwise operation of tile.outer.
def Tile_OuterKind : Tile_I32Enum<"OuterKind", "outer operation", [
  I32EnumAttrCase<"Add", 0, "add">, I32EnumAttrCase<"Sub", 1, "sub">,
  I32EnumAttrCase<"Mul", 2, "mul">, I32EnumAttrCase<"And", 3, "and">,
  I32EnumAttrCase<"Or", 4, "or">, I32EnumAttrCase<"Xor", 5, "xor">]>;
def Tile_OuterKindAttr : Tile_EnumAttr<"outer", Tile_OuterKind>;

/// The arith op of tile.each, named as arith names it.
def Tile_EachKind : Tile_I32Enum<"EachKind", "elementwise arith op", [
  I32EnumAttrCase<"addi", 0>, I32EnumAttrCase<"subi", 1>, I32EnumAttrCase<"muli", 2>,
  I32EnumAttrCase<"divsi", 3>, I32EnumAttrCase<"divui", 4>, I32EnumAttrCase<"remsi", 5>,
  I32EnumAttrCase<"remui", 6>, I32EnumAttrCase<"andi", 7>, I32EnumAttrCase<"ori", 8>,
  I32EnumAttrCase<"xori", 9>, I32EnumAttrCase<"maxsi", 10>, I32EnumAttrCase<"minsi", 11>,
  I32EnumAttrCase<"maxui", 12>, I32EnumAttrCase<"minui", 13>, I32EnumAttrCase<"shli", 14>,
  I32EnumAttrCase<"shrsi", 15>, I32EnumAttrCase<"shrui", 16>, I32EnumAttrCase<"addf", 17>,
  I32EnumAttrCase<"subf", 18>, I32EnumAttrCase<"mulf", 19>, I32EnumAttrCase<"divf", 20>,
  I32EnumAttrCase<"remf", 21>, I32EnumAttrCase<"maxnumf", 22>, I32EnumAttrCase<"minnumf", 23>,
  I32EnumAttrCase<"maximumf", 24>, I32EnumAttrCase<"minimumf", 25>, I32EnumAttrCase<"cmpi", 26>,
  I32EnumAttrCase<"cmpf", 27>]>;
def Tile_EachKindAttr : Tile_EnumAttr<"each", Tile_EachKind>;

/// Memory ordering of an atomic.
def Tile_MemSemantic : Tile_I32Enum<"MemSemantic", "memory semantic", [
  I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
  I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>]>;
def Tile_MemSemanticAttr : Tile_EnumAttr<"sem", Tile_MemSemantic>;

/// Which threads an atomic is ordered with: the program, the GPU, the system.
def Tile_MemScope : Tile_I32Enum<"MemScope", "memory scope", [
  I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"gpu", 1>,
  I32EnumAttrCase<"sys", 2>]>;
def Tile_MemScopeAttr : Tile_EnumAttr<"scope", Tile_MemScope>;

/// How a dot of f32 operands may use the tensor cores.
def Tile_InputPrecision : Tile_I32Enum<"InputPrecision", "input precision", [
  I32EnumAttrCase<"ieee", 0>, I32EnumAttrCase<"tf32", 1>,
  I32EnumAttrCase<"tf32x3", 2>]>;
def Tile_InputPrecisionAttr : Tile_EnumAttr<"precision", Tile_InputPrecision>;

#endif // TILE_ENUMS_TD
