//===- Params.cpp - tunable parameters of the text form -------------------===//
//
// Parameters are substituted into the text before parsing because MLIR types
// have static shapes: `tensor<${BLOCK_M}x64xf32>` must become a type the
// parser knows, and no MLIR-level mechanism rewrites a type from an
// attribute without re-verifying every op by hand. The scan below is a small
// lexer that knows just enough of MLIR's syntax (comments and string
// literals, where `$` means nothing, except in the strings of `tile.grid`,
// `tile.extent` and `tile.shape`, which are expressions over the kernel's
// arguments) to
// find the declaration and the uses, so that every mistake is reported at
// its place in the original text before the substituted text is parsed.
//
//===----------------------------------------------------------------------===//

#include "tilec/Params.h"
#include "tilec/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using tilec::TileParam;
using tilec::TileParams;

namespace {

bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// A located error found by the scan: the offset into the text.
struct ScanError {
  size_t offset;
  std::string message;
};

/// A use `$NAME` or `${NAME}` at [offset, offset + length).
struct Use {
  size_t offset, length;
  std::string name;
};

struct Scanner {
  StringRef text;
  TileParams &params;
  std::vector<Use> uses;
  std::vector<ScanError> errors;

  void error(size_t offset, std::string message) {
    errors.push_back({offset, std::move(message)});
  }

  void lineColumn(size_t offset, unsigned &line, unsigned &column) const {
    StringRef before = text.take_front(offset);
    line = 1 + before.count('\n');
    size_t nl = before.rfind('\n');
    column = 1 + (nl == StringRef::npos ? offset : offset - nl - 1);
  }

  size_t skipSpace(size_t i) const {
    while (i < text.size() && llvm::isSpace(text[i]))
      ++i;
    return i;
  }

  /// Parses `= {NAME = [V, ...], ...}` after `tile.params` at `at`; false
  /// after an error (the rest of the declaration is not scanned).
  bool parseDeclaration(size_t at, size_t &i) {
    if (params.line != 0) {
      error(at, "a second 'tile.params' declaration (one per file: the "
                "first is at line " +
                    std::to_string(params.line) + ")");
      return false;
    }
    lineColumn(at, params.line, params.column);
    auto expect = [&](char c, const char *what) {
      i = skipSpace(i);
      if (i < text.size() && text[i] == c) {
        ++i;
        return true;
      }
      error(i, std::string("expected ") + what + " in the tile.params "
                                                 "declaration");
      return false;
    };
    if (!expect('=', "'='") || !expect('{', "'{'"))
      return false;
    i = skipSpace(i);
    if (i < text.size() && text[i] == '}') {
      error(at, "'tile.params' declares no parameter");
      return false;
    }
    while (true) {
      i = skipSpace(i);
      size_t nameAt = i;
      if (i >= text.size() || !isIdentStart(text[i])) {
        error(i, "expected a parameter name (an identifier) in the "
                 "tile.params declaration");
        return false;
      }
      while (i < text.size() && isIdentChar(text[i]))
        ++i;
      TileParam p;
      p.name = text.slice(nameAt, i).str();
      lineColumn(nameAt, p.line, p.column);
      if (params.find(p.name)) {
        error(nameAt, "parameter '" + p.name + "' is declared twice");
        return false;
      }
      if (!expect('=', "'='") || !expect('[', "'[' (the list of values)"))
        return false;
      while (true) {
        i = skipSpace(i);
        size_t valueAt = i;
        bool negative = i < text.size() && text[i] == '-';
        if (negative)
          ++i;
        size_t digits = i;
        while (i < text.size() && llvm::isDigit(text[i]))
          ++i;
        int64_t value = 0;
        if (i == digits ||
            text.slice(digits, i).getAsInteger(10, value)) {
          error(valueAt, "parameter '" + p.name +
                             "': expected an integer value");
          return false;
        }
        if (negative || value == 0) {
          error(valueAt, "parameter '" + p.name + "': value " +
                             text.slice(valueAt, i).str() +
                             " is not positive");
          return false;
        }
        if (llvm::is_contained(p.values, value)) {
          error(valueAt, "parameter '" + p.name + "': value " +
                             std::to_string(value) + " is listed twice");
          return false;
        }
        p.values.push_back(value);
        i = skipSpace(i);
        if (i < text.size() && text[i] == ',') {
          ++i;
          continue;
        }
        if (!expect(']', "',' or ']'"))
          return false;
        break;
      }
      if (failed(checkReserved(p, nameAt)))
        return false;
      params.declared.push_back(std::move(p));
      i = skipSpace(i);
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      return expect('}', "',' or '}'");
    }
  }

  /// The reserved names take only what the compile options take.
  LogicalResult checkReserved(const TileParam &p, size_t at) {
    for (int64_t v : p.values) {
      if (p.name == "num_warps" && (v > 32 || !llvm::isPowerOf2_64(v))) {
        error(at, "parameter 'num_warps': value " + std::to_string(v) +
                      " is not a power of two in [1, 32]");
        return failure();
      }
      if (p.name == "num_stages" && v > 8) {
        error(at, "parameter 'num_stages': value " + std::to_string(v) +
                      " is not in [1, 8]");
        return failure();
      }
    }
    return success();
  }

  void scan() {
    size_t i = 0;
    while (i < text.size()) {
      char c = text[i];
      if (c == '/' && text.substr(i).starts_with("//")) {
        size_t nl = text.find('\n', i);
        i = nl == StringRef::npos ? text.size() : nl;
        continue;
      }
      if (c == '"') {
        skipString(i, /*withUses=*/false);
        continue;
      }
      // The strings of a grid rule, an extent or a shape are expressions
      // over the kernel's arguments in which a parameter's value is a
      // constant ("cdiv(N, ${BLOCK_N})"), so their uses are substituted too.
      if (c == 't') {
        StringRef rule;
        for (StringRef word : {"tile.grid", "tile.extent", "tile.shape"})
          if (startsWord(i, word))
            rule = word;
        if (!rule.empty()) {
          i += rule.size();
          scanRuleStrings(i);
          continue;
        }
      }
      if (c == 't' && text.substr(i).starts_with("tile.params") &&
          (i == 0 || (!isIdentChar(text[i - 1]) && text[i - 1] != '.')) &&
          (i + 11 >= text.size() || !isIdentChar(text[i + 11]))) {
        size_t at = i;
        i += 11;
        if (!parseDeclaration(at, i))
          return;
        continue;
      }
      if (c == '$') {
        scanUse(i);
        continue;
      }
      ++i;
    }
  }

  /// Whether `word` starts at `i` as a whole attribute name (not the tail
  /// or the head of a longer one).
  bool startsWord(size_t i, StringRef word) const {
    size_t end = i + word.size();
    return text.substr(i).starts_with(word) &&
           (i == 0 || (!isIdentChar(text[i - 1]) && text[i - 1] != '.')) &&
           (end >= text.size() || !isIdentChar(text[end]));
  }

  /// A use `$NAME` or `${NAME}` at `i` (a '$'); `i` ends past it.
  void scanUse(size_t &i) {
    size_t at = i++;
    bool braced = i < text.size() && text[i] == '{';
    if (braced)
      ++i;
    size_t start = i;
    while (i < text.size() && isIdentChar(text[i]))
      ++i;
    if (i == start || !isIdentStart(text[start])) {
      error(at, "expected a parameter name after '$' (write ${NAME} "
                "or $NAME)");
      return;
    }
    std::string name = text.slice(start, i).str();
    if (braced) {
      if (i >= text.size() || text[i] != '}') {
        error(at, "'${" + name + "' is not closed with '}'");
        return;
      }
      ++i;
    }
    uses.push_back({at, i - at, name});
  }

  /// The string literal at `i` (a '"'); `i` ends past it. Its `$` are uses
  /// when `withUses`, else text.
  void skipString(size_t &i, bool withUses) {
    for (++i; i < text.size() && text[i] != '"' && text[i] != '\n';) {
      if (text[i] == '\\') {
        i += 2;
        continue;
      }
      if (withUses && text[i] == '$') {
        scanUse(i);
        continue;
      }
      ++i;
    }
    ++i;
  }

  /// After `tile.grid`, `tile.extent` or `tile.shape` at `i`: the uses in its
  /// value, one string or a list of strings (`= "n"`, `= ["cdiv(M, ${BLOCK_M})",
  /// ...]`).
  /// Anything else is left to the main scan (and to the verifier).
  void scanRuleStrings(size_t &i) {
    size_t j = skipSpace(i);
    if (j >= text.size() || text[j] != '=')
      return;
    j = skipSpace(j + 1);
    if (j < text.size() && text[j] == '"') {
      skipString(j, /*withUses=*/true);
      i = j;
      return;
    }
    if (j >= text.size() || text[j] != '[')
      return;
    ++j;
    while (true) {
      j = skipSpace(j);
      if (j >= text.size() || text[j] != '"')
        break;
      skipString(j, /*withUses=*/true);
      j = skipSpace(j);
      if (j < text.size() && text[j] == ',') {
        ++j;
        continue;
      }
      break;
    }
    i = j;
  }

  /// Checks the uses against the declaration; marks the used.
  void checkUses() {
    for (const Use &u : uses) {
      auto it = llvm::find_if(params.declared, [&](const TileParam &p) {
        return p.name == u.name;
      });
      if (it != params.declared.end()) {
        it->used = true;
        continue;
      }
      if (params.declared.empty()) {
        error(u.offset, "'$" + u.name +
                            "' uses a parameter but the file declares none "
                            "(declare it in tile.params = {" +
                            u.name + " = [...]})");
        continue;
      }
      std::string names;
      for (const TileParam &p : params.declared)
        names += (names.empty() ? "" : ", ") + p.name;
      error(u.offset, "unknown parameter '" + u.name +
                          "' (tile.params declares " + names + ")");
    }
    // A declared parameter nothing reads would tune nothing: a typo, or a
    // use that was deleted.
    for (const TileParam &p : params.declared)
      if (!p.used && !TileParams::isReserved(p.name))
        errors.push_back({offsetOf(p), "parameter '" + p.name +
                                           "' is declared but never used "
                                           "(write ${" +
                                           p.name + "} where it goes)"});
  }

  size_t offsetOf(const TileParam &p) const {
    size_t offset = 0;
    for (unsigned line = 1; line < p.line; ++line)
      offset = text.find('\n', offset) + 1;
    return offset + p.column - 1;
  }

  /// Applies the --param assignments; the rest take their first value.
  void choose(const std::map<std::string, int64_t> &assign) {
    for (const auto &[name, value] : assign) {
      const TileParam *p = params.find(name);
      if (!p) {
        std::string names;
        for (const TileParam &d : params.declared)
          names += (names.empty() ? "" : ", ") + d.name;
        errors.push_back(
            {params.line ? offsetOf(params.line, params.column) : 0,
             "--param " + name + "=" + std::to_string(value) +
                 ": no such parameter (" +
                 (names.empty() ? std::string("the file declares none")
                                : "tile.params declares " + names) +
                 ")"});
        continue;
      }
      if (!llvm::is_contained(p->values, value)) {
        errors.push_back({offsetOf(*p), "--param " + name + "=" +
                                            std::to_string(value) +
                                            ": not one of the declared "
                                            "values [" +
                                            llvm::join(llvm::map_range(
                                                           p->values,
                                                           [](int64_t v) {
                                                             return std::to_string(
                                                                 v);
                                                           }),
                                                       ", ") +
                                            "]"});
        continue;
      }
      params.chosen[name] = value;
    }
    for (const TileParam &p : params.declared)
      params.chosen.emplace(p.name, p.values.front());
  }

  size_t offsetOf(unsigned line, unsigned column) const {
    TileParam p;
    p.line = line;
    p.column = column;
    return offsetOf(p);
  }

  std::string substituted() const {
    std::string out;
    size_t at = 0;
    for (const Use &u : uses) {
      out += text.slice(at, u.offset);
      out += std::to_string(params.chosen.at(u.name));
      at = u.offset + u.length;
    }
    out += text.substr(at);
    return out;
  }

  void emit(MLIRContext &context, StringRef bufferName) const {
    for (const ScanError &e : errors) {
      unsigned line, column;
      lineColumn(e.offset, line, column);
      emitError(FileLineColLoc::get(&context, bufferName, line, column))
          << e.message;
    }
  }
};

} // namespace

const TileParam *TileParams::find(StringRef name) const {
  for (const TileParam &p : declared)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::string TileParams::describeChosen() const {
  std::string out;
  for (const TileParam &p : declared) {
    auto it = chosen.find(p.name);
    if (it == chosen.end())
      continue;
    out += (out.empty() ? "" : ", ") + p.name + "=" + std::to_string(it->second);
  }
  return out;
}

bool TileParams::isReserved(StringRef name) {
  return name == "num_warps" || name == "num_stages";
}

LogicalResult tilec::scanTileParams(StringRef text, StringRef bufferName,
                                    MLIRContext &context, TileParams &params) {
  params = TileParams();
  Scanner scanner{text, params, {}, {}};
  scanner.scan();
  if (scanner.errors.empty())
    scanner.checkUses();
  if (scanner.errors.empty())
    scanner.choose({});
  scanner.emit(context, bufferName);
  return failure(!scanner.errors.empty());
}

OwningOpRef<ModuleOp> tilec::parseTileSourceWithParams(
    StringRef text, StringRef bufferName, llvm::SourceMgr &sourceMgr,
    MLIRContext &context, const std::map<std::string, int64_t> &assign,
    TileParams &params) {
  params = TileParams();
  Scanner scanner{text, params, {}, {}};
  scanner.scan();
  if (scanner.errors.empty())
    scanner.checkUses();
  if (scanner.errors.empty())
    scanner.choose(assign);
  if (!scanner.errors.empty()) {
    // The diagnostics show the original lines.
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), SMLoc());
    scanner.emit(context, bufferName);
    return nullptr;
  }
  // Substitution keeps every line where it was, so parser errors keep
  // their line; columns past a use on its line are those of the
  // substituted line, which the diagnostic prints.
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(scanner.substituted(), bufferName),
      SMLoc());
  ParamsDiagnosticNote note(context, params, bufferName);
  return parseTileSource(sourceMgr, context);
}

OwningOpRef<ModuleOp> tilec::parseTileFileWithParams(
    StringRef path, llvm::SourceMgr &sourceMgr, MLIRContext &context,
    const std::map<std::string, int64_t> &assign, TileParams &params,
    std::string &readError) {
  readError.clear();
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!file) {
    readError =
        "cannot read '" + path.str() + "': " + file.getError().message();
    return nullptr;
  }
  return parseTileSourceWithParams((*file)->getBuffer(),
                                   (*file)->getBufferIdentifier(), sourceMgr,
                                   context, assign, params);
}

tilec::ParamsDiagnosticNote::ParamsDiagnosticNote(MLIRContext &context,
                                                  const TileParams &params,
                                                  StringRef bufferName)
    : context_(context) {
  if (params.declared.empty())
    return;
  std::string text = params.describeChosen();
  Location where =
      FileLineColLoc::get(&context, bufferName, params.line, params.column);
  id_ = context.getDiagEngine().registerHandler(
      [text, where](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          diag.attachNote(where) << "with the parameters " << text;
        return failure(); // the tool's handler prints it
      });
  active_ = true;
}

tilec::ParamsDiagnosticNote::~ParamsDiagnosticNote() {
  if (active_)
    context_.getDiagEngine().eraseHandler(id_);
}

bool tilec::parseParamAssignment(StringRef text,
                                 std::map<std::string, int64_t> &assign,
                                 std::string &error) {
  auto [name, value] = text.split('=');
  int64_t v = 0;
  if (!text.contains('=') || name.empty() ||
      !llvm::all_of(name, isIdentChar) || !isIdentStart(name[0]) ||
      value.getAsInteger(10, v)) {
    error = "--param expects NAME=VALUE (an integer), got '" + text.str() +
            "'";
    return false;
  }
  if (!assign.emplace(name.str(), v).second) {
    error = "--param " + name.str() + " is given twice";
    return false;
  }
  return true;
}
