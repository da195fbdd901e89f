// tools/programs/heatmap/heatmap_text.cpp — the two text forms of a heatmap's matrices (see
// heatmap_text.h).
#include "tools/programs/heatmap/heatmap_text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/shape.h"  // check
#include "tools/d2l/data/text.h"

namespace d2l {
namespace {

// Whitespace as `istream >> token` sees it: a line of only these holds no values.
constexpr const char* kSpace = " \t\f\v\r";

std::string where(const std::string& name, int line) { return name + ":" + std::to_string(line) + ": "; }

float parse_number(const std::string& tok, const std::string& name, int line) {
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(tok.c_str(), &end);
  if (tok.empty() || *end != '\0') {
    if (tok == "...")
      throw std::runtime_error(where(name, line) + "'...': the printout elided values; print the full tensor");
    throw std::runtime_error(where(name, line) + "'" + tok + "' is not a number");
  }
  return v;
}

// The matrices read so far, all of one shape.
struct Matrices {
  int64_t count = 0, height = 0, width = 0;
  std::vector<float> values;
};

// Plain rows: whitespace or commas between values, blank lines between matrices.
Matrices parse_plain(const std::string& text, const std::string& name) {
  Matrices m;
  std::istringstream in(text);
  std::string line;
  int lineno = 0, first_line = 0;  // first_line: where the current matrix began
  int64_t rows = 0, cols = 0;
  auto end_matrix = [&](int at) {
    if (rows == 0) return;
    if (m.count > 0 && (rows != m.height || cols != m.width))
      throw std::runtime_error(where(name, at) + "matrix " + std::to_string(m.count + 1) + " is " +
                               std::to_string(rows) + " x " + std::to_string(cols) + " but matrix 1 is " +
                               std::to_string(m.height) + " x " + std::to_string(m.width) +
                               ": all matrices must have one shape");
    m.height = rows, m.width = cols, ++m.count, rows = 0;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t start = line.find_first_not_of(kSpace);
    if (start == std::string::npos) { end_matrix(lineno); continue; }
    if (line[start] == '#') continue;
    const size_t last = line.find_last_not_of(kSpace);
    if (line[start] == ',' || line[last] == ',' || line.find(",,") != std::string::npos)
      throw std::runtime_error(where(name, lineno) + "empty value between commas");
    for (char& c : line) if (c == ',') c = ' ';
    std::istringstream fields(line);
    std::string tok;
    int64_t n = 0;
    while (fields >> tok) m.values.push_back(parse_number(tok, name, lineno)), ++n;
    if (rows == 0) first_line = lineno, cols = n;
    else if (n != cols)
      throw std::runtime_error(where(name, lineno) + "row has " + std::to_string(n) + " values, expected " +
                               std::to_string(cols) + " like line " + std::to_string(first_line) + " (ragged rows)");
    ++rows;
  }
  end_matrix(lineno);
  return m;
}

// A printed tensor: nested brackets, each innermost list one row. list() recurses once per
// '[', so the depth is capped: a 5th level is refused at once (only 1-D to 4-D tensors
// are drawn), instead of overflowing the stack on a file of 100,000 '['.
constexpr int kMaxDepth = 4;

struct Nested {
  const std::string& s;
  const std::string& name;
  size_t i = 0;
  int line = 1;
  std::vector<float> values;
  Nested(const std::string& text, const std::string& file) : s(text), name(file) {}

  void skip_space() {
    while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == ',')) line += s[i++] == '\n';
  }
  // Parses one list at the cursor and returns its shape.
  std::vector<int64_t> list(int depth = 1) {
    const int open_line = line;
    if (depth > kMaxDepth)
      throw std::runtime_error(where(name, line) + "more than " + std::to_string(kMaxDepth) +
                               " nested lists: expected a 1-D to 4-D tensor");
    ++i;  // '['
    std::vector<int64_t> inner;
    int64_t n = 0;
    bool numbers = false;
    for (skip_space(); i < s.size() && s[i] != ']'; skip_space(), ++n) {
      if (s[i] == '[') {
        const int at = line;
        const std::vector<int64_t> shape = list(depth + 1);
        if (numbers) throw std::runtime_error(where(name, at) + "a list among numbers (ragged rows)");
        if (n > 0 && shape != inner)
          throw std::runtime_error(where(name, at) + "a list of shape " + d2l::shape_str(shape) +
                                   " after one of shape " + d2l::shape_str(inner) + " (ragged rows)");
        inner = shape;
      } else {
        if (n > 0 && !numbers) throw std::runtime_error(where(name, line) + "a number among lists (ragged rows)");
        const size_t end = s.find_first_of(", \t\r\n[]", i);
        values.push_back(parse_number(s.substr(i, end - i), name, line));
        i = end == std::string::npos ? s.size() : end;
        numbers = true;
      }
    }
    if (i >= s.size()) throw std::runtime_error(where(name, open_line) + "'[' is never closed");
    ++i;  // ']'
    if (n == 0) throw std::runtime_error(where(name, open_line) + "empty list []");
    inner.insert(inner.begin(), n);
    return inner;
  }
};

d2l::HeatmapGrid parse_tensor(const std::string& text, const std::string& name) {
  Nested p{text, name};
  p.skip_space();
  if (text.compare(p.i, 7, "tensor(") == 0) p.i += 7;
  p.skip_space();
  if (p.i >= text.size() || text[p.i] != '[') throw std::runtime_error(where(name, p.line) + "expected '['");
  const std::vector<int64_t> shape = p.list();
  // After the list PyTorch may print ", grad_fn=<...>)" or ", dtype=...)": allowed.
  // list() refused a 5th level, so shape has 1 to 4 sizes.
  std::vector<int64_t> s4(4 - shape.size(), 1);
  s4.insert(s4.end(), shape.begin(), shape.end());
  if (shape.size() == 3) s4 = {1, shape[0], shape[1], shape[2]};  // (k, h, w): k columns
  return {s4[0], s4[1], s4[2], s4[3], std::move(p.values)};
}

}  // namespace

HeatmapGrid parse_heatmap_text(const std::string& raw, const std::string& name) {
  // A byte-order mark would make the first value "not a number", and a lone '\r' (old Mac
  // line ends) would join two rows into one: normalise both away first.
  const std::string text = normalize_text(raw);
  // A NUL byte ends a number for strtof, so the values after it on the row would be dropped
  // without a word: binary data is refused, with the line it is on.
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    throw std::runtime_error(where(name, line) + "a NUL byte (binary data, not text; a .npy file needs its magic "
                             "header or the .npy extension)");
  }
  const size_t first = text.find_first_not_of(" \t\f\v\r\n");
  if (first == std::string::npos) throw std::runtime_error(name + ": empty input, no matrix to draw");
  if (text[first] == '[' || text.compare(first, 7, "tensor(") == 0) return parse_tensor(text, name);
  Matrices m = parse_plain(text, name);
  if (m.count == 0) throw std::runtime_error(name + ": no numbers found (only comments?)");
  return {1, m.count, m.height, m.width, std::move(m.values)};
}

}  // namespace d2l
