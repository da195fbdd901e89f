// tools/programs/book/html.cpp — escaping, anchors, listings and source ranges (tools/programs/book/html.h).
#include "tools/programs/book/html.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/io/utf8.h"

namespace d2l::book {

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("book: cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string escape(const std::string& s) { return xml_escape(s, "&#39;"); }

std::string file_anchor(const std::string& path) {
  std::string id = "src-";
  for (char c : path) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    id += keep ? c : '-';
  }
  return id;
}

std::string line_anchor(const std::string& path, int line) { return file_anchor(path) + "-L" + std::to_string(line); }

namespace {

enum Kind : char { kCode = 'c', kComment = '/', kString = '"' };

// Each character's kind, line by line: a /* */ comment may span lines; a string or
// character literal ends at its line (a raw string spanning lines is not handled: the
// project's sources have none).
std::vector<std::string> kinds(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  bool block = false;
  for (const std::string& l : lines) {
    std::string k(l.size(), kCode);
    char quote = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      if (block) {
        k[i] = kComment;
        if (l[i] == '*' && i + 1 < l.size() && l[i + 1] == '/') k[++i] = kComment, block = false;
      } else if (quote) {
        k[i] = kString;
        if (l[i] == '\\' && i + 1 < l.size()) k[++i] = kString;
        else if (l[i] == quote) quote = 0;
      } else if (l[i] == '/' && i + 1 < l.size() && l[i + 1] == '/') {
        for (size_t j = i; j < l.size(); ++j) k[j] = kComment;
        break;
      } else if (l[i] == '/' && i + 1 < l.size() && l[i + 1] == '*') {
        k[i] = k[i + 1] = kComment;
        ++i;
        block = true;
      } else if (l[i] == '"' || (l[i] == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(l[i - 1])) &&
                                                   i + 1 < l.size() && std::isxdigit(static_cast<unsigned char>(l[i + 1]))))) {
        quote = l[i];  // a ' between two digits is a digit separator (1'000), not a character
        k[i] = kString;
      }
    }
    out.push_back(k);
  }
  return out;
}

// The line with everything but code blanked out.
std::vector<std::string> code_only(const std::vector<std::string>& lines) {
  const std::vector<std::string> k = kinds(lines);
  std::vector<std::string> out = lines;
  for (size_t i = 0; i < lines.size(); ++i)
    for (size_t j = 0; j < lines[i].size(); ++j)
      if (k[i][j] != kCode) out[i][j] = ' ';
  return out;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

std::string source_listing(const std::string& path, const std::vector<std::string>& lines,
                           const std::vector<bool>& marked) {
  const std::vector<std::string> k = kinds(lines);
  const int width = static_cast<int>(std::to_string(lines.size()).size());
  std::string out = "<pre class=\"src\">";
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string id = line_anchor(path, static_cast<int>(i + 1));
    std::string num = std::to_string(i + 1);
    num.insert(0, static_cast<size_t>(width) - num.size(), ' ');
    const bool mark = i < marked.size() && marked[i];
    out += "<span id=\"" + id + "\"" + (mark ? " class=\"ref\"" : "") + "><a class=\"ln\" href=\"#" + id + "\">" +
           num + "</a> ";
    // Runs of one kind: comments and strings in their own spans.
    const std::string& l = lines[i];
    for (size_t j = 0; j < l.size();) {
      size_t e = j;
      while (e < l.size() && k[i][e] == k[i][j]) ++e;
      const std::string text = escape(l.substr(j, e - j));
      if (k[i][j] == kComment) out += "<span class=\"cm\">" + text + "</span>";
      else if (k[i][j] == kString) out += "<span class=\"st\">" + text + "</span>";
      else out += text;
      j = e;
    }
    out += "</span>\n";
  }
  return out + "</pre>\n";
}

LineRange block_range(const std::vector<std::string>& lines, int line, int next_banner) {
  const std::vector<std::string> code = code_only(lines);
  const int n = static_cast<int>(lines.size());
  int last = n, depth = 0;
  bool stopped_at_banner = false;
  for (int i = line; i <= n && last == n; ++i) {
    // The next banner that ran, or the next banner call in the text (one that did not run:
    // an exercise's, behind an if).
    if ((next_banner > line && i == next_banner) ||
        (i > line && code[static_cast<size_t>(i - 1)].find("print_banner(") != std::string::npos)) {
      last = i - 1;
      stopped_at_banner = true;
      break;
    }
    for (char c : code[static_cast<size_t>(i - 1)]) {
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth < 0) {  // the enclosing block closes here: its '}' line is not the banner's
        last = trimmed(code[static_cast<size_t>(i - 1)]).rfind('}', 0) == 0 ? i - 1 : i;
        break;
      }
    }
  }
  // Without trailing blank or comment lines, nor the opening of the block the next banner
  // is in ("if (args.given(...)) {").
  while (last > line) {
    const std::string t = trimmed(code[static_cast<size_t>(last - 1)]);
    if (!t.empty() && !(t.back() == '{' && last < n && stopped_at_banner)) break;
    --last;
  }
  return {line, std::max(line, last)};
}

LineRange figure_range(const std::vector<std::string>& lines, int line) {
  const std::vector<std::string> code = code_only(lines);
  const int n = static_cast<int>(lines.size());
  auto statement_end = [&](int from) {
    int depth = 0;
    for (int i = from; i <= n; ++i)
      for (char c : code[static_cast<size_t>(i - 1)]) {
        depth += (c == '(' || c == '{' || c == '[') ? 1 : (c == ')' || c == '}' || c == ']') ? -1 : 0;
        if (c == ';' && depth <= 0) return i;
      }
    return from;
  };
  LineRange r{line, statement_end(line)};
  if (code[static_cast<size_t>(line - 1)].find("print_saved") == std::string::npos) return r;
  // The statement before: skip blank and comment lines, then go up while the line above
  // does not end a statement or open or close a block.
  int e = line - 1;
  while (e >= 1 && trimmed(code[static_cast<size_t>(e - 1)]).empty()) --e;
  if (e < 1) return r;
  int s = e;
  while (s > 1) {
    const std::string above = trimmed(code[static_cast<size_t>(s - 2)]);
    if (above.empty() || above.back() == ';' || above.back() == '{' || above.back() == '}') break;
    --s;
  }
  r.first = s;
  return r;
}

std::vector<std::string> layer_includes(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  const std::string key = "#include \"layers/";
  for (const std::string& l : lines)
    if (l.rfind(key, 0) == 0) {
      const size_t end = l.find('"', key.size());
      if (end != std::string::npos) out.push_back(l.substr(10, end - 10));
    }
  return out;
}

}  // namespace d2l::book
