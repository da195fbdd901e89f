// tools/programs/heatmap/npy.cpp — the .npy reader (see npy.h): the magic and version, the header's
// Python dict literal, then the values, decoded byte by byte so the host's byte order
// never matters.
#include "tools/programs/heatmap/npy.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <stdexcept>

namespace d2l {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// NumPy refuses longer headers by default (numpy.lib.format._MAX_HEADER_SIZE); a header
// for a float array is under 200 bytes.
constexpr uint32_t kMaxHeader = 10000;
constexpr int kMaxNesting = 8;  // of tuples and lists in the header, so parsing cannot recurse deep

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

// Header text for a message: printable ASCII only, at most 80 characters.
std::string snippet(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (c >= 32 && c < 127) ? c : '?';
  return s.size() > 80 ? out + "..." : out;
}

// One value of the header's dict: a string, True/False/None, an integer, or a tuple/list.
struct Value {
  enum Kind { kString, kBool, kNone, kInt, kTuple, kList } kind = kNone;
  std::string str;      // kString
  bool flag = false;    // kBool
  int64_t num = 0;      // kInt
  std::vector<Value> items;
  std::string source;   // the value as written, for messages
};

// A recursive-descent parser for the subset of Python literals NumPy writes.
struct HeaderParser {
  const std::string& h;
  const std::string& name;
  size_t i = 0;

  [[noreturn]] void error(const std::string& what) const {
    fail(name, "header: " + what + " at column " + std::to_string(i + 1) + " of \"" + snippet(h) + "\"");
  }
  void skip_space() {
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) ++i;
  }
  bool word(const char* w) {
    const size_t n = std::strlen(w);
    if (h.compare(i, n, w) != 0) return false;
    i += n;
    return true;
  }
  Value value(int depth) {
    skip_space();
    if (i >= h.size()) error("ends where a value should be");
    const size_t start = i;
    Value v = bare_value(depth);
    v.source = h.substr(start, i - start);
    return v;
  }
  Value bare_value(int depth) {
    Value v;
    const char c = h[i];
    if (c == '\'' || c == '"') {
      const size_t close = h.find(c, i + 1);
      if (close == std::string::npos) error("unterminated string");
      v.kind = Value::kString;
      v.str = h.substr(i + 1, close - i - 1);
      if (v.str.find('\\') != std::string::npos) error("escape sequences in strings are not supported");
      i = close + 1;
    } else if (word("True")) {
      v.kind = Value::kBool;
      v.flag = true;
    } else if (word("False")) {
      v.kind = Value::kBool;
    } else if (word("None")) {
      v.kind = Value::kNone;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Value::kInt;
      const bool negative = c == '-';
      if (negative) ++i;
      if (i >= h.size() || h[i] < '0' || h[i] > '9') error("expected digits");
      uint64_t n = 0;
      for (; i < h.size() && h[i] >= '0' && h[i] <= '9'; ++i) {
        n = n * 10 + static_cast<uint64_t>(h[i] - '0');
        if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) error("integer too large");
      }
      if (i < h.size() && h[i] == 'L') ++i;  // Python 2 wrote shapes as (2L, 3L)
      v.num = negative ? -static_cast<int64_t>(n) : static_cast<int64_t>(n);
    } else if (c == '(' || c == '[') {
      if (depth >= kMaxNesting) error("tuples or lists nested too deep");
      const char close = c == '(' ? ')' : ']';
      v.kind = c == '(' ? Value::kTuple : Value::kList;
      ++i;
      for (skip_space(); i < h.size() && h[i] != close; skip_space()) {
        v.items.push_back(value(depth + 1));
        skip_space();
        if (i < h.size() && h[i] == ',') ++i;
        else if (i < h.size() && h[i] != close) error(std::string("expected ',' or '") + close + "'");
      }
      if (i >= h.size()) error(std::string("'") + c + "' is never closed");
      ++i;
    } else {
      error(std::string("unexpected '") + (c >= 32 && c < 127 ? std::string(1, c) : "?") + "'");
    }
    return v;
  }
};

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

Header parse_header(const std::string& h, const std::string& name) {
  HeaderParser p{h, name};
  p.skip_space();
  if (p.i >= h.size() || h[p.i] != '{') fail(name, "header is not a dict: \"" + snippet(h) + "\"");
  ++p.i;
  Header out;
  bool seen[3] = {false, false, false};
  const char* const keys[3] = {"descr", "fortran_order", "shape"};
  for (p.skip_space(); p.i < h.size() && h[p.i] != '}'; p.skip_space()) {
    const Value key = p.value(0);
    if (key.kind != Value::kString) p.error("a key that is not a string (" + key.source + ")");
    p.skip_space();
    if (p.i >= h.size() || h[p.i] != ':') p.error("expected ':' after '" + key.str + "'");
    ++p.i;
    const Value v = p.value(0);
    int k = 0;
    while (k < 3 && key.str != keys[k]) ++k;
    if (k == 3)
      fail(name, "header has an unknown key '" + snippet(key.str) +
                     "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");
    if (seen[k]) fail(name, "header has the key '" + key.str + "' twice");
    seen[k] = true;
    if (k == 0) {
      if (v.kind != Value::kString)
        fail(name, "dtype " + snippet(v.source) + " is not supported (a structured or record dtype?); " +
                       "save a plain float array: a.astype(np.float32)");
      out.descr = v.str;
    } else if (k == 1) {
      if (v.kind != Value::kBool) fail(name, "header: fortran_order must be True or False, got " + snippet(v.source));
      out.fortran_order = v.flag;
    } else {
      if (v.kind != Value::kTuple) fail(name, "header: shape must be a tuple, got " + snippet(v.source));
      for (const Value& d : v.items) {
        if (d.kind != Value::kInt || d.num < 0)
          fail(name, "header: shape " + snippet(v.source) + " must hold non-negative integers");
        out.shape.push_back(d.num);
      }
    }
    p.skip_space();
    if (p.i < h.size() && h[p.i] == ',') ++p.i;
    else if (p.i < h.size() && h[p.i] != '}') p.error("expected ',' or '}'");
  }
  if (p.i >= h.size()) fail(name, "header: the dict is never closed: \"" + snippet(h) + "\"");
  ++p.i;
  p.skip_space();
  if (p.i < h.size()) p.error("text after the dict");
  for (int k = 0; k < 3; ++k)
    if (!seen[k]) fail(name, std::string("header has no '") + keys[k] + "' (\"" + snippet(h) + "\")");
  return out;
}

// Reads up to n bytes; returns how many there were.
size_t read_some(std::istream& in, char* buf, size_t n) {
  in.read(buf, static_cast<std::streamsize>(n));
  return static_cast<size_t>(in.gcount());
}

uint64_t load_uint(const unsigned char* b, int n, bool little) {
  uint64_t u = 0;
  for (int k = 0; k < n; ++k) u |= static_cast<uint64_t>(b[little ? k : n - 1 - k]) << (8 * k);
  return u;
}

// "[1, 2]": NumPy's index of the flat position `flat` in `shape`.
std::string index_str(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) idx[d] = flat % shape[d], flat /= shape[d];
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

}  // namespace

std::string npy_shape_str(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

bool is_npy(const std::string& bytes) { return bytes.compare(0, kMagicLen, kMagic) == 0; }

NpyArray read_npy(std::istream& in, const std::string& name) {
  // Magic, version, header length.
  unsigned char pre[12];
  const size_t got = read_some(in, reinterpret_cast<char*>(pre), 10);
  if (got >= 4 && std::memcmp(pre, "PK\x03\x04", 4) == 0)
    fail(name, "a .npz archive (zip), not a .npy file: np.save one array, e.g. np.load(path)['name']");
  if (got < kMagicLen || std::memcmp(pre, kMagic, kMagicLen) != 0)
    fail(name, "not a NumPy .npy file (bad magic: it does not start with \\x93NUMPY)");
  if (got < 8) fail(name, "file ends inside the .npy preamble (" + std::to_string(got) + " bytes)");
  NpyArray a;
  a.major_version = pre[6];
  if ((pre[6] < 1 || pre[6] > 3) || pre[7] != 0)
    fail(name, "unsupported .npy format version " + std::to_string(pre[6]) + "." + std::to_string(pre[7]) +
                   " (known: 1.0, 2.0, 3.0)");
  const int len_bytes = pre[6] == 1 ? 2 : 4;
  const size_t need = 8 + static_cast<size_t>(len_bytes);
  const size_t have = got + (got < need ? read_some(in, reinterpret_cast<char*>(pre) + got, need - got) : 0);
  if (have < need) fail(name, "file ends inside the .npy preamble (" + std::to_string(have) + " bytes)");
  const uint64_t header_len = load_uint(pre + 8, len_bytes, true);
  if (header_len > kMaxHeader)
    fail(name, "header of " + std::to_string(header_len) + " bytes is longer than NumPy's limit of " +
                   std::to_string(kMaxHeader));

  std::string header(static_cast<size_t>(header_len), '\0');
  const size_t hgot = read_some(in, &header[0], header.size());
  if (hgot < header.size())
    fail(name, "file ends inside the header (" + std::to_string(hgot) + " of " + std::to_string(header_len) + " bytes)");
  const Header h = parse_header(header, name);

  int itemsize = 0;
  if (h.descr == "<f4" || h.descr == ">f4") itemsize = 4;
  else if (h.descr == "<f8" || h.descr == ">f8") itemsize = 8;
  else
    fail(name, "dtype '" + snippet(h.descr) + "' is not supported: float32 or float64 ('<f4', '>f4', '<f8', '>f8'); " +
                   "save a.astype(np.float32)");
  if (h.fortran_order)
    fail(name, "fortran_order is True (column-major data); save a C-order array: np.save(path, np.ascontiguousarray(a))");
  a.descr = h.descr;
  a.shape = h.shape;
  const std::string what = "shape " + npy_shape_str(h.shape) + " of " + (itemsize == 4 ? "float32" : "float64");

  // The byte count, refusing shapes whose product overflows (an empty dimension makes it 0).
  const uint64_t max_bytes = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t count = 1;
  bool empty = false;
  for (int64_t d : h.shape) empty = empty || d == 0;
  for (int64_t d : h.shape) {
    if (empty) { count = 0; break; }
    if (count > max_bytes / itemsize / static_cast<uint64_t>(d))
      fail(name, what + " needs more than 2^63 bytes: not a real array (a corrupt header?)");
    count *= static_cast<uint64_t>(d);
  }
  const uint64_t nbytes = count * itemsize;

  // The values, a chunk at a time: memory follows the bytes that are really there.
  const bool little = h.descr[0] == '<';
  std::vector<unsigned char> chunk(65536);
  uint64_t done = 0;
  try {
    while (done < nbytes) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk.size(), nbytes - done));
      const size_t n = read_some(in, reinterpret_cast<char*>(chunk.data()), want);
      for (size_t k = 0; k + itemsize <= n; k += itemsize) {
        const uint64_t u = load_uint(&chunk[k], itemsize, little);
        float f;
        if (itemsize == 4) {
          const uint32_t u32 = static_cast<uint32_t>(u);
          std::memcpy(&f, &u32, 4);
        } else {
          double d;
          std::memcpy(&d, &u, 8);
          f = static_cast<float>(d);
          if (std::isinf(f) && std::isfinite(d)) {
            char num[32];
            std::snprintf(num, sizeof num, "%g", d);
            fail(name, "value " + std::string(num) + " at " +
                           index_str(h.shape, static_cast<int64_t>(a.values.size())) +
                           " is beyond float32's range (about ±3.4e38)");
          }
        }
        a.values.push_back(f);
      }
      done += n;
      if (n < want)
        fail(name, "data ends after " + std::to_string(done) + " bytes, but " + what + " needs " +
                       std::to_string(nbytes) + " (a truncated file?)");
    }
  } catch (const std::bad_alloc&) {
    fail(name, "out of memory holding " + std::to_string(count) + " values of " + what);
  }
  if (in.peek() != std::char_traits<char>::eof())
    fail(name, "more bytes after the " + std::to_string(nbytes) + " data bytes of " + what +
                   " (a wrong shape, or several arrays in one file?)");
  return a;
}

NpyArray read_npy_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  return read_npy(in, path);
}

}  // namespace d2l
