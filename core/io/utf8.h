// core/io/utf8.h — UTF-8, read and written in one place: the JSON of safetensors headers, the
// book's corpora (tools/d2l/data/text.h), figure labels and the SVG and HTML the tools write.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace d2l {

// The length (1 to 4) of the well-formed UTF-8 sequence that starts at s[i], with its code
// point in *cp; 0 when the bytes there are not one. Table 3-7 of the Unicode standard: the
// second byte's range depends on the first, which rules out overlong forms (C0, C1, E0 80..9F,
// F0 80..8F), UTF-16 surrogates (ED A0..BF) and code points above U+10FFFF (F4 90.., F5..FF).
size_t utf8_decode(const std::string& s, size_t i, uint32_t* cp);

// Appends code point cp (at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

// The offset of the first byte that does not start a well-formed sequence, or -1.
int64_t first_invalid_utf8(const std::string& s);

// Text for an XML document (SVG) or an HTML page: & < > " escaped, ' as `apostrophe` (XML's
// "&apos;"; an HTML page writes "&#39;", which HTML 4 knows); invalid UTF-8 and the characters
// XML 1.0 forbids (controls other than tab, line feed and carriage return; surrogates; U+FFFE,
// U+FFFF) and DEL become U+FFFD, so text read from any file still gives a well-formed document.
std::string xml_escape(const std::string& s, const char* apostrophe = "&apos;");

}  // namespace d2l
