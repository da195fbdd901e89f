// core/io/json.cpp — the strict JSON parser and quoting of core/io/json.h.
#include "core/io/json.h"

#include <cstdio>
#include <stdexcept>
#include <unordered_set>

#include "core/io/utf8.h"

namespace d2l {
namespace {

constexpr int kMaxDepth = 64;

struct Parser {
  const std::string& s;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("byte " + std::to_string(pos) + ": " + what);
  }
  void skip_space() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) ++pos;
  }
  bool eat(char c) {
    skip_space();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p, ++pos)
      if (pos >= s.size() || s[pos] != *p) fail(std::string("expected '") + word + "'");
  }
  uint32_t hex4() {
    if (s.size() - pos < 4) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      const char c = s[pos];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else fail("bad hex digit in a \\u escape");
    }
    return v;
  }
  std::string string() {
    skip_space();
    if (pos >= s.size() || s[pos] != '"') fail("expected a string");
    ++pos;
    std::string out;
    while (true) {
      if (pos >= s.size()) fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s[pos]);
      if (c == '"') {
        ++pos;
        return out;
      }
      if (c < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos;
        continue;
      }
      if (++pos >= s.size()) fail("unterminated escape");
      const char e = s[pos++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a pair: \uD83D\uDE00
            if (s.size() - pos < 2 || s[pos] != '\\' || s[pos + 1] != 'u') fail("lone high surrogate in a \\u escape");
            pos += 2;
            const uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate not followed by a low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }
  std::string number() {
    const size_t start = pos;
    if (pos < s.size() && s[pos] == '-') ++pos;
    auto digits = [this] {
      const size_t d = pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
      if (pos == d) fail("expected a digit");
    };
    if (pos < s.size() && s[pos] == '0') ++pos;
    else digits();
    if (pos < s.size() && s[pos] == '.') ++pos, digits();
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
      ++pos;
      if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) ++pos;
      digits();
    }
    return s.substr(start, pos - start);
  }
  JsonValue value(int depth) {
    if (depth > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    skip_space();
    if (pos >= s.size()) fail("expected a value, found the end");
    JsonValue v;
    const char c = s[pos];
    if (c == '{') {
      ++pos;
      v.kind = JsonValue::Kind::object;
      if (eat('}')) return v;
      // Duplicates: a scan while the object is small, a hash set beyond (a header of a
      // million keys would otherwise take hours, one scan per key).
      constexpr size_t kScan = 16;
      std::unordered_set<std::string> seen;
      do {
        std::string key = string();
        bool duplicate = false;
        if (v.members.size() < kScan) {
          for (const auto& m : v.members) duplicate = duplicate || m.first == key;
        } else {
          if (seen.empty())
            for (const auto& m : v.members) seen.insert(m.first);
          duplicate = !seen.insert(key).second;
        }
        if (duplicate) fail("duplicate key " + quote_input(key));
        expect(':');
        v.members.emplace_back(std::move(key), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++pos;
      v.kind = JsonValue::Kind::array;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = JsonValue::Kind::string;
      v.text = string();
    } else if (c == 't' || c == 'f') {
      v.kind = JsonValue::Kind::boolean;
      v.boolean = c == 't';
      literal(c == 't' ? "true" : "false");
    } else if (c == 'n') {
      literal("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::Kind::number;
      v.text = number();
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }
};

}  // namespace

bool JsonValue::as_u64(uint64_t& out) const {
  if (kind != Kind::number || text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

const char* JsonValue::kind_name() const {
  switch (kind) {
    case Kind::null: return "null";
    case Kind::boolean: return "a boolean";
    case Kind::number: return "a number";
    case Kind::string: return "a string";
    case Kind::array: return "an array";
    case Kind::object: return "an object";
  }
  return "?";
}

// Where the (max_keys + 1)-th key ends, or npos: a key is followed by ':' outside a string,
// so counting those colons bounds the keys at memory speed, before anything is built.
size_t key_past_limit(const std::string& s, uint64_t max_keys) {
  uint64_t keys = 0;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ':' && ++keys > max_keys) {
      return i;
    }
  }
  return std::string::npos;
}

JsonValue parse_json(const std::string& text, uint64_t max_keys) {
  if (const int64_t bad = first_invalid_utf8(text); bad >= 0)
    throw std::runtime_error("byte " + std::to_string(bad) + ": not valid UTF-8");
  if (const size_t at = max_keys == UINT64_MAX ? std::string::npos : key_past_limit(text, max_keys);
      at != std::string::npos)
    throw std::runtime_error("byte " + std::to_string(at) + ": more than " + std::to_string(max_keys) +
                             " keys, the limit for this document");
  Parser p{text};
  JsonValue v = p.value(0);
  p.skip_space();
  if (p.pos != text.size()) p.fail("trailing characters after the value");
  return v;
}

std::string quote_input(const std::string& s, size_t max_bytes, char quote) {
  std::string out = quote ? std::string(1, quote) : std::string();
  size_t i = 0;
  const size_t n = s.size();
  while (i < n && i < max_bytes) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    char buf[8];
    if ((quote && c == static_cast<unsigned char>(quote)) || c == '\\') {
      out += '\\', out += static_cast<char>(c), ++i;
    } else if (c == '\n' || c == '\t' || c == '\r') {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r", ++i;
    } else if (c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c), out += buf, ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c), ++i;
    } else {  // a whole valid UTF-8 sequence as it is, else the byte escaped
      const size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
      if (len && n - i >= len && first_invalid_utf8(s.substr(i, len)) < 0) {
        // U+0080..U+009F are control characters too (C1: a terminal reads some as commands).
        if (len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
          out += buf;
        } else {
          out.append(s, i, len);
        }
        i += len;
      } else {
        std::snprintf(buf, sizeof buf, "\\x%02x", c), out += buf, ++i;
      }
    }
  }
  if (i < n) out += "...";
  if (quote) out += quote;
  if (i < n) out += " (" + std::to_string(n) + " bytes)";
  return out;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace d2l
