//===- Json.h - strict JSON reading and readable writing --------*- C++ -*-===//
//
// The MLIR-free code (the runtime's metadata, the performance model's files)
// reads and writes JSON with nlohmann/json; the compiler keeps llvm::json.
// What nlohmann leaves to its users is here: a parse that refuses what a
// hand-edited file should not contain (duplicate keys, absurd nesting) and
// reports errors as Status instead of exceptions, the words messages use
// for values, and a writer whose layout keeps files readable in diffs.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_JSON_H
#define TILEC_SUPPORT_JSON_H

#include "tilec/Support/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilec::json {

/// A document, parsed or being written; objects keep their members in
/// document (or insertion) order, so files read back as they were written.
using Value = nlohmann::ordered_json;

/// Deeper nesting than any of tilec's files needs.
inline constexpr unsigned kMaxDepth = 128;

/// Parses `text` as one RFC 8259 document. Syntax errors read "line L,
/// column C: ..." (nlohmann's words); a key twice in one object and nesting
/// deeper than kMaxDepth are errors too, naming where in the document
/// (`kernels[0].params[1]`) they are. Linear in the text: duplicates are
/// found in a hash set while each object is built.
Expected<Value> parse(std::string_view text);

/// "an object", "a string", ... for messages.
const char *kindName(const Value &value);

/// A value as messages show it: strings quoted, numbers as written
/// (fractions with %g), true/false, else its kind ("an array").
std::string show(const Value &value);

/// `text` as a JSON string literal, quotes included (bytes that are not
/// UTF-8 become U+FFFD).
std::string quote(std::string_view text);

/// The value as an int64 if it is a whole number written without fraction
/// or exponent that fits.
std::optional<int64_t> asInt64(const Value &value);

/// `value` as text: a container that holds only scalars on one line,
/// others one member per line (two-space indent); doubles with 15
/// significant digits, NaN and infinities (which JSON lacks) as null. Ends
/// with a newline.
std::string write(const Value &value);

} // namespace tilec::json

#endif // TILEC_SUPPORT_JSON_H
