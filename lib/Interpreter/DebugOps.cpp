//===- DebugOps.cpp - tile.print and tile.assert --------------------------===//
//
// tile.print writes one line per element (per argument), like Triton's
// device_print: `pid (x, y, z) idx [i, j] <prefix><value>`; programs run in
// order, so the output is deterministic. tile.assert stops the run at the
// first false element with the message, the program and the element.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

namespace {

void printElement(llvm::raw_ostream &os, Executor &ex, const Tile &t, int64_t i,
                  bool hex) {
  Type type = t.elementType;
  if (isa<tile::PointerType>(type)) {
    int64_t ptr = t.ints[i];
    os << ex.memory.buffer(ptr).name << " + " << Memory::byteOffset(ptr)
       << " bytes";
    return;
  }
  if (hex) {
    // tile.print takes no index values, so every type here has a dtype;
    // index would be 8 bytes.
    std::optional<tilec::DType> dtype = tilec::dtypeOf(type);
    uint64_t bits = t.isFloat() ? encodeFloat(t.floats[i], *dtype)
                                : unsignedInt(t.ints[i], intWidth(type));
    unsigned bytes = dtype ? tilec::dtypeSize(*dtype) : 8;
    os << llvm::format_hex(bits, 2 + 2 * bytes);
    return;
  }
  if (t.isFloat()) {
    int digits = type.isF64() ? 17 : type.isF32() ? 9 : 5;
    os << llvm::format("%.*g", digits, t.floats[i]);
  } else if (type.isInteger(1)) {
    os << (t.ints[i] ? 1 : 0);
  } else {
    os << t.ints[i];
  }
}

LogicalResult executePrint(Executor &ex, Operation *op) {
  auto print = cast<tile::PrintOp>(op);
  llvm::raw_ostream &os =
      ex.options.printStream ? *ex.options.printStream : llvm::outs();
  std::string pid =
      llvm::formatv("pid ({0}, {1}, {2})", ex.pid.x, ex.pid.y, ex.pid.z).str();
  auto args = print.getArgs();
  if (args.empty())
    os << pid << " " << print.getPrefix() << "\n";
  for (auto [k, arg] : llvm::enumerate(args)) {
    const Tile &t = ex.get(arg);
    for (int64_t i = 0, n = t.size(); i < n; ++i) {
      os << pid;
      if (!t.isScalar())
        os << " idx " << formatIndex(t.shape, i);
      os << " " << print.getPrefix();
      if (args.size() > 1)
        os << "(operand " << k << ") ";
      printElement(os, ex, t, i, print.getHex());
      os << "\n";
    }
  }
  os.flush();
  return success();
}

LogicalResult executeAssert(Executor &ex, Operation *op) {
  auto assertOp = cast<tile::AssertOp>(op);
  const Tile &cond = ex.get(assertOp.getCondition());
  int64_t failing = llvm::count(cond.ints, 0);
  if (!failing)
    return success();
  int64_t first = llvm::find(cond.ints, 0) - cond.ints.begin();
  InFlightDiagnostic diag = ex.error(op);
  diag << "assertion failed in " << ex.programText();
  if (!cond.isScalar())
    diag << " at element " << formatIndex(cond.shape, first);
  diag << ": " << assertOp.getMessage();
  if (failing > 1)
    diag << " (" << failing << " elements fail)";
  return diag;
}

} // namespace

void interp::registerDebugHandlers(HandlerTable &t) {
  addHandler<tile::PrintOp>(t, executePrint);
  addHandler<tile::AssertOp>(t, executeAssert);
}
