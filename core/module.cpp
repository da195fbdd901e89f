// core/module.cpp — parameter registry, train/eval, parameter files, and printing.
#include "core/module.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <typeinfo>

namespace d2l {

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out = params_;
  for (const auto& [name, child] : children_)
    for (auto& [sub, t] : child->named_parameters()) out.emplace_back(name + "." + sub, t);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const Tensor& t : parameters()) n += t.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& t : parameters()) t.zero_grad(set_to_none);
}

Tensor& Module::register_parameter(const std::string& name, Tensor value) {
  check(value.defined(), "Module.register_parameter", "parameter '", name, "' is undefined");
  value.requires_grad_(true);
  params_.emplace_back(name, std::move(value));
  return params_.back().second;
}

void Module::register_module(const std::string& name, Module& child) { children_.emplace_back(name, &child); }

// --- parameter files -----------------------------------------------------------------------
// Layout (little-endian, as the machine writes it):
//   "D2LPARAM" | u32 version (1) | u32 count
//   count × ( u32 name length | name | u32 ndim | ndim × i64 size | numel × f32 )
//   u64 FNV-1a hash of every byte above
namespace {

constexpr char kMagic[8] = {'D', '2', 'L', 'P', 'A', 'R', 'A', 'M'};
constexpr uint32_t kVersion = 1;

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ULL;
  return h;
}

template <class T>
void put(std::string& s, const T& v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }

[[noreturn]] void file_error(const std::string& path, const std::string& what) {
  throw std::runtime_error("[Module.load] " + path + ": " + what);
}

// Reads from an in-memory file, failing with a clear message instead of running past its end.
struct Reader {
  const std::string& buf;
  const std::string& path;
  size_t pos = 0;
  template <class T>
  T get(const char* what) {
    if (buf.size() - pos < sizeof(T)) file_error(path, std::string("truncated while reading ") + what);
    T v;
    std::memcpy(&v, buf.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  const char* bytes(size_t n, const char* what) {
    if (buf.size() - pos < n) file_error(path, std::string("truncated while reading ") + what);
    pos += n;
    return buf.data() + pos - n;
  }
};

}  // namespace

void Module::save(const std::string& path) const {
  std::string s(kMagic, sizeof kMagic);
  const auto params = named_parameters();
  put(s, kVersion);
  put(s, static_cast<uint32_t>(params.size()));
  for (const auto& [name, t] : params) {
    put(s, static_cast<uint32_t>(name.size()));
    s += name;
    put(s, static_cast<uint32_t>(t.ndim()));
    for (int64_t d : t.shape()) put(s, d);
    s.append(reinterpret_cast<const char*>(t.data()), sizeof(float) * t.numel());
  }
  put(s, fnv1a(s.data(), s.size()));
  // Write a temporary file, flush it to the disk (fsync), and rename it over the target:
  // rename is atomic, so a crash or power cut mid-save leaves either the old file or the
  // new one, never half of one. Without the fsync the rename could reach the disk before
  // the data does.
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("[Module.save] cannot open '" + tmp + "' for writing: " + std::strerror(errno));
  bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size() && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  int write_errno = errno;
  if (std::fclose(f) != 0 && ok) ok = false, write_errno = errno;
  if (!ok) {
    std::remove(tmp.c_str());
    throw std::runtime_error("[Module.save] write to '" + tmp + "' failed: " + std::strerror(write_errno) + " (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error("[Module.save] cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(rename_errno));
  }
}

void Module::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) file_error(path, "cannot open (does it exist? write one with --save)");
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string buf = ss.str();
  if (buf.size() < sizeof kMagic || std::memcmp(buf.data(), kMagic, sizeof kMagic) != 0)
    file_error(path, "not a d2l parameter file (bad magic)");
  if (buf.size() < sizeof kMagic + 16) file_error(path, "truncated (shorter than the header)");
  uint64_t stored;
  std::memcpy(&stored, buf.data() + buf.size() - sizeof stored, sizeof stored);
  if (fnv1a(buf.data(), buf.size() - sizeof stored) != stored)
    file_error(path, "checksum mismatch: the file is truncated or corrupt");
  const std::string body = buf.substr(0, buf.size() - sizeof stored);
  Reader r{body, path};
  r.bytes(sizeof kMagic, "magic");
  if (r.get<uint32_t>("version") != kVersion) file_error(path, "unsupported version");
  const auto params = named_parameters();
  const uint32_t count = r.get<uint32_t>("parameter count");
  if (count != params.size())
    file_error(path, "holds " + std::to_string(count) + " parameters, the model has " + std::to_string(params.size()) +
                         " (a different model?)");
  // Parse and check everything first; copy only when the whole file matches the model.
  std::vector<const char*> data(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const uint32_t len = r.get<uint32_t>("name length");
    const std::string name(r.bytes(len, "name"), len);
    const auto& [want, t] = params[i];
    if (name != want) file_error(path, "parameter " + std::to_string(i) + " is '" + name + "', the model expects '" + want + "'");
    // The number of dims first: a corrupt count must not be read as that many sizes.
    const uint32_t nd = r.get<uint32_t>("ndim");
    if (nd != t.shape().size())
      file_error(path, "parameter '" + name + "' has ndim " + std::to_string(nd) + ", the model expects shape " +
                           shape_str(t.shape()));
    Shape shape;
    for (uint32_t d = 0; d < nd; ++d) shape.push_back(r.get<int64_t>("shape"));
    if (shape != t.shape())
      file_error(path, "parameter '" + name + "' has shape " + shape_str(shape) + ", the model expects " + shape_str(t.shape()));
    data[i] = r.bytes(sizeof(float) * t.numel(), "parameter data");
  }
  if (r.pos != body.size()) file_error(path, "trailing bytes after the last parameter");
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor t = params[i].second;
    std::memcpy(t.data(), data[i], sizeof(float) * t.numel());
  }
}

// --- printing -------------------------------------------------------------------------------
namespace {

// Python's _addindent: every line after the first moves right by `spaces`.
std::string add_indent(const std::string& s, int spaces) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out.append(static_cast<size_t>(spaces), ' ');
  }
  return out;
}

}  // namespace

std::string Module::type_name() const {
  // The dynamic type's demangled name ("d2l::MultiHeadAttention") without its namespaces;
  // template arguments, if any, are kept.
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(typeid(*this).name(), nullptr, nullptr, &status),
                                                   std::free);
  std::string name = status == 0 && demangled ? demangled.get() : typeid(*this).name();
  const size_t args = name.find('<');
  const size_t colon = name.rfind("::", args == std::string::npos ? std::string::npos : args);
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

std::string Module::repr() const {
  // nn.Module.__repr__: the extra_repr lines, then "(name): " + child repr indented by two.
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  std::vector<std::string> extra_lines;
  if (!extra.empty()) {
    std::istringstream in(extra);
    for (std::string line; std::getline(in, line);) extra_lines.push_back(line);
  }
  lines = extra_lines;
  for (const auto& [name, child] : children_) lines.push_back("(" + name + "): " + add_indent(child->repr(), 2));
  std::string s = type_name() + "(";
  if (extra_lines.size() == 1 && children_.empty()) {
    s += extra_lines[0];
  } else if (!lines.empty()) {
    s += "\n";
    for (const std::string& line : lines) s += "  " + line + "\n";
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.repr(); }

std::string summary(const Module& m) {
  const auto params = m.named_parameters();
  std::vector<std::string> names{"parameter"}, shapes{"shape"}, counts{"count"};
  int64_t total = 0;
  for (const auto& [name, t] : params) {
    names.push_back(name);
    shapes.push_back(shape_str(t.shape()));
    counts.push_back(std::to_string(t.numel()));
    total += t.numel();
  }
  names.push_back("total (" + std::to_string(params.size()) + (params.size() == 1 ? " tensor)" : " tensors)"));
  shapes.push_back("");
  counts.push_back(std::to_string(total));
  size_t wn = 0, ws = 0, wc = 0;
  for (size_t i = 0; i < names.size(); ++i)
    wn = std::max(wn, names[i].size()), ws = std::max(ws, shapes[i].size()), wc = std::max(wc, counts[i].size());
  std::ostringstream os;
  os << m.type_name() << "\n";
  for (size_t i = 0; i < names.size(); ++i) {
    os << names[i] << std::string(wn - names[i].size() + 2, ' ') << shapes[i] << std::string(ws - shapes[i].size() + 2, ' ')
       << std::string(wc - counts[i].size(), ' ') << counts[i] << "\n";
  }
  return os.str();
}

std::string python_float(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The fewest significant digits that read back as the same float (Python's repr does
  // this for doubles; PyTorch's settings here are floats, so 0.1f prints as "0.1").
  char buf[64];
  int digits = 1;
  for (; digits < 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, static_cast<double>(v));
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  // Python writes fixed notation for exponents -4 .. 15 and "1e-05" style otherwise.
  if (exponent < -4 || exponent >= 16) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));  // C's %g: "1e-05", "1.5e+16"
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exponent), static_cast<double>(v));
  std::string s = buf;
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

}  // namespace d2l
