// core/io/utf8.cpp — the decoder, encoder and XML escaping of core/io/utf8.h.
#include "core/io/utf8.h"

namespace d2l {

size_t utf8_decode(const std::string& s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return *cp = c, 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
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
  if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  uint32_t v = c & (0x7Fu >> n);  // the lead byte: n 1-bits, a 0, then the value's bits
  for (size_t k = 1; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  *cp = v;
  return n;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
    return;
  }
  static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};  // n 1-bits and a 0
  const int n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  out += static_cast<char>(lead[n] | (cp >> (6 * (n - 1))));
  for (int k = n - 2; k >= 0; --k) out += static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F));
}

int64_t first_invalid_utf8(const std::string& s) {
  uint32_t cp;
  for (size_t i = 0, n; i < s.size(); i += n)
    if ((n = utf8_decode(s, i, &cp)) == 0) return static_cast<int64_t>(i);
  return -1;
}

std::string xml_escape(const std::string& s, const char* apostrophe) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_decode(s, i, &cp);
    const bool ok = n > 0 && (cp >= 0x20 || cp == '\t' || cp == '\n' || cp == '\r') && cp != 0x7F &&
                    cp != 0xFFFE && cp != 0xFFFF;
    if (!ok) out += "\xEF\xBF\xBD";  // U+FFFD
    else if (cp == '&') out += "&amp;";
    else if (cp == '<') out += "&lt;";
    else if (cp == '>') out += "&gt;";
    else if (cp == '"') out += "&quot;";
    else if (cp == '\'') out += apostrophe;
    else out.append(s, i, n);
    i += ok ? n : 1;
  }
  return out;
}

}  // namespace d2l
