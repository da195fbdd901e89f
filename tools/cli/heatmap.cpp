// tools/cli/heatmap.cpp — build/tools/heatmap: any matrix a chapter prints, as the book's
// heatmap (d2l.show_heatmaps, 10.1 sec_attention-cues) in a PNG.
//
// Input, from a file or stdin ("-"), in either of two forms:
//   plain text   one matrix row a line, values separated by whitespace or commas; a blank
//                line starts the next matrix, and the matrices become the grid's columns;
//                lines starting with '#' are comments.
//   a tensor     as printed by PyTorch or our core formatter, "tensor([[0.1, 0.2], ...])":
//                2-D is one matrix, 3-D (k, h, w) k columns, 4-D (rows, cols, h, w) the grid.
// Exit status: 0 on success, 2 for a usage error (with the usage text), 1 for anything else;
// errors go to stderr as "error: ..." naming the file and line.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/check.h"
#include "tools/figures.h"

namespace {

const char* kUsage =
    "usage: heatmap [options] FILE|-\n"
    "Draws the matrices in FILE (or stdin for -) as a heatmap PNG, like the book's d2l.show_heatmaps.\n"
    "  FILE holds plain rows (whitespace or comma separated; a blank line starts the next matrix,\n"
    "  which becomes the next column of the grid) or a printed tensor: tensor([[...], ...]).\n"
    "options:\n"
    "  --xlabel TEXT        label under the bottom row (the book: Keys)\n"
    "  --ylabel TEXT        label left of the first column (the book: Queries)\n"
    "  --title TEXT         a column title; repeat once per column (Head 1, Head 2, ...)\n"
    "  --cmap NAME          Reds (default) or Blues\n"
    "  --out PATH           the PNG to write (default out/heatmap.png)\n"
    "  --figsize W,H        inches (default 2.5,2.5)\n"
    "  --dpi N              pixels per inch (default 200)\n"
    "  --rows R             arrange the matrices in R rows (default 1, or a 4-D tensor's rows)\n"
    "  --xticklabels WORDS  space-separated words for the columns of each matrix\n"
    "  --yticklabels WORDS  space-separated words for the rows of each matrix\n"
    "  --help               this text\n"
    "example: build/tools/heatmap --xlabel Keys --ylabel Queries --out out/eye.png weights.txt\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) { end_matrix(lineno); continue; }
    if (line[start] == '#') continue;
    const size_t last = line.find_last_not_of(" \t");
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

// A printed tensor: nested brackets, each innermost list one row.
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
  std::vector<int64_t> list() {
    const int open_line = line;
    ++i;  // '['
    std::vector<int64_t> inner;
    int64_t n = 0;
    bool numbers = false;
    for (skip_space(); i < s.size() && s[i] != ']'; skip_space(), ++n) {
      if (s[i] == '[') {
        const int at = line;
        const std::vector<int64_t> shape = list();
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
  if (shape.size() > 4)
    throw std::runtime_error(name + ": a " + std::to_string(shape.size()) + "-D tensor; expected 1-D to 4-D");
  std::vector<int64_t> s4(4 - shape.size(), 1);
  s4.insert(s4.end(), shape.begin(), shape.end());
  if (shape.size() == 3) s4 = {1, shape[0], shape[1], shape[2]};  // (k, h, w): k columns
  return {s4[0], s4[1], s4[2], s4[3], std::move(p.values)};
}

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream os;
    os << std::cin.rdbuf();
    return os.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

int64_t parse_int(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n <= 0) throw UsageError(flag + " needs a positive integer, got '" + v + "'");
  return n;
}

int run(int argc, char** argv) {
  d2l::HeatmapOptions opt;
  std::string out = "out/heatmap.png", input;
  int64_t rows = 0;
  bool have_input = false;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k], value;
    if (arg == "--help" || arg == "-h") { std::fputs(kUsage, stdout); return 0; }
    if (arg.rfind("--", 0) == 0) {
      const size_t eq = arg.find('=');
      if (eq != std::string::npos) value = arg.substr(eq + 1), arg = arg.substr(0, eq);
      else if (k + 1 < argc) value = argv[++k];
      else throw UsageError(arg + " needs a value");
      if (arg == "--xlabel") opt.xlabel = value;
      else if (arg == "--ylabel") opt.ylabel = value;
      else if (arg == "--title") opt.titles.push_back(value);
      else if (arg == "--cmap") opt.cmap = value;
      else if (arg == "--out") out = value;
      else if (arg == "--dpi") opt.dpi = static_cast<int>(parse_int(arg, value));
      else if (arg == "--rows") rows = parse_int(arg, value);
      else if (arg == "--xticklabels") opt.xticklabels = words(value);
      else if (arg == "--yticklabels") opt.yticklabels = words(value);
      else if (arg == "--figsize") {
        float w = 0, h = 0;
        char extra = 0;
        if (std::sscanf(value.c_str(), "%f,%f%c", &w, &h, &extra) != 2)
          throw UsageError("--figsize needs W,H in inches, e.g. 2.5,2.5; got '" + value + "'");
        opt.figsize = {w, h};
      } else {
        throw UsageError("unknown option " + arg);
      }
    } else if (!have_input) {
      input = arg;
      have_input = true;
    } else {
      throw UsageError("more than one input file: '" + input + "' and '" + arg + "'");
    }
  }
  if (!have_input) throw UsageError("no input file (use - for stdin)");

  const std::string name = input == "-" ? "<stdin>" : input;
  const std::string text = read_input(input);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw std::runtime_error(name + ": empty input, no matrix to draw");
  d2l::HeatmapGrid grid;
  if (text[first] == '[' || text.compare(first, 7, "tensor(") == 0) {
    grid = parse_tensor(text, name);
  } else {
    Matrices m = parse_plain(text, name);
    if (m.count == 0) throw std::runtime_error(name + ": no numbers found (only comments?)");
    grid = {1, m.count, m.height, m.width, std::move(m.values)};
  }
  if (rows > 0) {
    const int64_t total = grid.rows * grid.cols;
    if (total % rows != 0)
      throw UsageError("--rows " + std::to_string(rows) + " does not divide the " + std::to_string(total) + " matrices");
    grid.rows = rows;
    grid.cols = total / rows;
  }
  d2l::show_heatmaps(grid, opt, out);
  std::printf("saved %s (%lld x %lld grid of %lld x %lld matrices)\n", out.c_str(), static_cast<long long>(grid.rows),
              static_cast<long long>(grid.cols), static_cast<long long>(grid.height),
              static_cast<long long>(grid.width));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
