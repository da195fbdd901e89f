// tools/d2l/data/text.cpp — UTF-8 validation, Python-style split / replace / lower (see text.h).
#include "tools/d2l/data/text.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "core/shape.h"  // check
#include "core/io/files.h"

namespace d2l {

std::string read_text_file(const std::string& path, const char* op, const std::string& hint) {
  // A directory opens as a stream that reads nothing: it would pass for an empty file.
  std::error_code ec;
  check(!std::filesystem::is_directory(path, ec), op, "'", path, "' is a directory, not a file. HINT: ", hint);
  // Through read_input_file: a FIFO with no writer is refused within a second, /dev/zero
  // after kMaxStreamInputBytes, instead of hanging or filling the memory.
  try {
    return read_input_file(path, op, kMaxTextInputBytes, /*text=*/true);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string(e.what()) + ". HINT: " + hint);
  }
}

bool strip_utf8_bom(std::string& s) {
  size_t n = 0;
  while (s.compare(n, 3, "\xEF\xBB\xBF") == 0) n += 3;
  s.erase(0, n);
  return n > 0;
}

std::string normalize_text(std::string text) {
  strip_utf8_bom(text);
  if (text.find('\r') == std::string::npos) return text;  // the usual case: nothing to do
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
    } else {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;  // "\r\n" is one line end
    }
  }
  return out;
}

namespace {

// Number of bytes of the sequence starting at s[i] if it is well-formed, else 0.
// Table 3-7 of the Unicode standard: the second byte's range depends on the first
// byte, which rules out overlong forms (E0 80..9F, F0 80..8F), surrogates (ED A0..BF)
// and code points above U+10FFFF (F4 90.., F5..FF).
size_t utf8_seq_len(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // E0 80..9F would be overlong
    if (c == 0xED) hi = 0x9F;  // ED A0..BF are UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // F0 80..8F would be overlong
    if (c == 0xF4) hi = 0x8F;  // F4 90.. is above U+10FFFF
  } else {
    return 0;  // 80..C1 (a continuation byte or an overlong lead), F5..FF
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

uint32_t decode_at(const std::string& s, size_t i, size_t n) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  if (n == 1) return b(i);
  uint32_t cp = b(i) & (0x7Fu >> n);  // n leading 1-bits and a 0 in the lead byte
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(i + k) & 0x3F);
  return cp;
}

// Unicode's simple lowercase mapping (what Python's str.lower applies) for the blocks
// text.h lists. In Latin Extended-A capitals and small letters alternate, the capital
// first; the parity flips at U+0139 and again at U+0179 because U+0138 (ĸ) and U+0149 (ŉ)
// have no capital. U+0130 (İ) is handled by the caller: it lowers to two code points.
uint32_t lower_cp(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 0x20;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;  // À..Þ, not ×
  if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c % 2 == 0) ? c + 1 : c;
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
  if (c == 0x178) return 0xFF;                    // Ÿ -> ÿ
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;  // Ѐ..Џ
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;  // А..Я
  return c;
}

}  // namespace

void validate_utf8(const std::string& s, const std::string& file, int64_t line) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_seq_len(s, i);
    if (n == 0) {
      std::ostringstream hex;
      hex << "0x" << std::hex << std::setw(2) << std::setfill('0')
          << static_cast<int>(static_cast<unsigned char>(s[i]));
      fail("validate_utf8", file, ":", line, ": invalid UTF-8 at byte ", i + 1, " (", hex.str(),
           "); the file must be UTF-8 encoded");
    }
    i += n;
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.emplace_back(s, start, i - start);
      start = i + 1;
    }
  }
  return parts;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  check(!from.empty(), "replace_all", "the string to replace is empty");
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

std::string lower_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {  // fast path: ASCII
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 0x20 : c);
      ++i;
      continue;
    }
    size_t n = utf8_seq_len(s, i);
    if (n == 0) {  // not UTF-8: copy the byte; readers validate before lowering
      out += s[i++];
      continue;
    }
    const uint32_t cp = decode_at(s, i, n);
    if (cp == 0x130) {  // İ -> i + U+0307 COMBINING DOT ABOVE, as Python does
      out += 'i';
      append_utf8(out, 0x307);
    } else {
      append_utf8(out, lower_cp(cp));
    }
    i += n;
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace d2l
