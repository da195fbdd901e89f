// tools/d2l/data/text.h — small text helpers shared by the corpus readers (fra-eng, SNLI).
//
// The book reads its corpora with Python's open(..., encoding='utf-8'), str.split and
// str.lower. These functions give the same results on std::string holding UTF-8, so a
// C++ reader tokenises exactly as the book does, and they turn bad input into an error
// that names the file and line instead of a silent wrong token.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/utf8.h"  // append_utf8, utf8_decode

namespace d2l {

// Whole file as a string. A missing or unreadable file throws
// "[op] cannot open 'path'" followed by `hint` (e.g. how to get the data).
std::string read_text_file(const std::string& path, const char* op, const std::string& hint);

// Text as Python's open(path, encoding='utf-8-sig').read() returns it: a leading UTF-8
// byte-order mark (EF BB BF, which Windows editors put first) is dropped, and every line end
// "\r\n" or lone "\r" becomes "\n" (Python's universal newlines). Without this a file saved
// on Windows leaves '\r' on the last token of each line and the mark on the first token.
std::string normalize_text(std::string text);
// Drops the leading EF BB BF marks, a repeated one too (a file marked by two tools in turn,
// or two marked files concatenated, starts with two); true if there was one.
bool strip_utf8_bom(std::string& s);

// Throws "[validate_utf8] file:line: invalid UTF-8 at byte B (0x..)" unless `s` is
// well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF), the same
// set Python's utf-8 decoder accepts. `line` is 1-based, as editors show it.
void validate_utf8(const std::string& s, const std::string& file, int64_t line);

// Python's s.split(sep) for a one-character separator: keeps empty fields, so
// split("a  b", ' ') is {"a", "", "b"} and split("", ' ') is {""}.
std::vector<std::string> split(const std::string& s, char sep);
// Python's s.split() without a separator: the words between runs of ASCII white space
// (" \t\n\v\f\r"), none empty, so split(" a  b\n") is {"a", "b"} and split("") is {}.
std::vector<std::string> split(const std::string& s);

// Every occurrence of `from` replaced by `to` (Python's str.replace).
std::string replace_all(std::string s, const std::string& from, const std::string& to);

// Python's str.lower for ASCII, Latin-1 Supplement, Latin Extended-A, Greek and Cyrillic
// capitals (U+0000–U+017F, U+0391–U+03AB, U+0400–U+042F): enough for French, where 'É'
// must become 'é' as in Python. Other code points are copied unchanged. Expects valid UTF-8.
std::string lower_utf8(const std::string& s);

}  // namespace d2l
