// tools/d2l/data/text.cpp — UTF-8 validation, Python-style split / replace / lower (see text.h).
#include "tools/d2l/data/text.h"

#include <cctype>
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
    uint32_t cp;
    const size_t n = utf8_decode(s, i, &cp);
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

std::vector<std::string> split(const std::string& s) {
  const auto space = [&s](size_t i) { return std::isspace(static_cast<unsigned char>(s[i])) != 0; };
  std::vector<std::string> words;
  for (size_t i = 0, j; i < s.size(); i = j) {
    while (i < s.size() && space(i)) ++i;
    for (j = i; j < s.size() && !space(j);) ++j;
    if (j > i) words.emplace_back(s, i, j - i);
  }
  return words;
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
    uint32_t cp;
    const size_t n = utf8_decode(s, i, &cp);
    if (n == 0) {  // not UTF-8: copy the byte; readers validate before lowering
      out += s[i++];
      continue;
    }
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

}  // namespace d2l
