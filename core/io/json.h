// core/io/json.h — the little JSON that safetensors headers need: a parser that keeps object
// members in file order (a header lists tensors and settings in the order they were written)
// and refuses anything not strictly RFC 8259, and the quoting a writer needs.
//
// Bounds, so a hostile header cannot exhaust the stack, memory or time: nesting deeper than
// 64 levels is refused, and so is a document with more object keys than the caller allows
// (counted by a scan before parsing, so nothing is built from such a text); the text itself
// is bounded by the caller. Time is linear in the text's length: duplicate keys are found
// with a hash set once an object has more than a few members. Numbers keep their text, so a
// caller can read a 64-bit offset exactly (as_u64) instead of through a double.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace d2l {

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  std::string text;  // a string's decoded UTF-8, or a number as written ("12", "-1.5e3")
  std::vector<JsonValue> items;                           // an array's elements
  std::vector<std::pair<std::string, JsonValue>> members;  // an object's, in file order

  // A non-negative integer written without sign, fraction or exponent, below 2^64; else
  // false (and `out` unchanged).
  bool as_u64(uint64_t& out) const;
  const char* kind_name() const;
};

// Parses one JSON value filling the whole text (whitespace around it allowed). Throws
// std::runtime_error "byte N: ..." on malformed text, invalid UTF-8 (in strings or anywhere
// else), a lone surrogate escape, a duplicate object key, nesting deeper than 64, or more
// than max_keys object keys in the whole document ("byte N: more than K keys ...").
JsonValue parse_json(const std::string& text, uint64_t max_keys = UINT64_MAX);

// Input quoted for an error message: between `quote` characters, control characters, the
// quote, backslashes and bytes that are not valid UTF-8 escaped (\n, \u001b, \xff), and a
// value longer than max_bytes cut there with its length given: "aaaa..." (52428800 bytes).
// A message can then echo any input without writing raw terminal codes or megabytes. With
// quote '\0', no quotes.
std::string quote_input(const std::string& s, size_t max_bytes = 80, char quote = '"');

// s as a JSON string literal, quotes included; s must be valid UTF-8.
std::string json_quote(const std::string& s);

}  // namespace d2l
