// core/module.cpp — parameter registry, train/eval, and parameter files.
#include "core/module.h"

#include <cxxabi.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <typeinfo>
#include <unordered_set>

namespace d2l {

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> all = params_;
  for (const auto& [name, child] : children_)
    for (auto& [sub, t] : child->named_parameters()) all.emplace_back(name + "." + sub, t);
  // Keep the first occurrence of each node (PyTorch de-duplicates by tensor identity too).
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const Node*> seen;
  for (auto& [name, t] : all)
    if (seen.insert(t.node()).second) {
      t.node()->name = name;  // the outermost call runs last, so the full path wins
      out.emplace_back(std::move(name), std::move(t));
    }
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

namespace {
// "d2l::Linear" for a Linear (typeid's name is mangled: "N3d2l6LinearE"). Inside a
// constructor it is the class whose constructor is running: the one registering.
std::string type_name(const Module& m) {
  const char* mangled = typeid(m).name();
  int status = 0;
  char* plain = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = status == 0 && plain ? plain : mangled;
  std::free(plain);
  return out;
}
}  // namespace

void Module::check_new_name(const std::string& name, const char* op) const {
  check(!name.empty(), op, "a name is empty (in ", type_name(*this), ")");
  for (const auto& [n, t] : params_)
    check(n != name, op, "'", name, "' is already a parameter of this ", type_name(*this),
          ": each name may be registered once");
  for (const auto& [n, c] : children_)
    check(n != name, op, "'", name, "' is already a child module of this ", type_name(*this),
          ": each name may be registered once");
}

Tensor Module::register_parameter(const std::string& name, Tensor value) {
  check_new_name(name, "Module.register_parameter");
  check(value.defined(), "Module.register_parameter", "parameter '", name, "' is undefined");
  value.requires_grad_(true);
  value.node()->name = name;  // until named_parameters() records the dotted path
  params_.emplace_back(name, value);
  return value;
}

void Module::register_module(const std::string& name, Module& child) {
  check_new_name(name, "Module.register_module");
  check(&child != this, "Module.register_module", "'", name, "': a module cannot be its own child");
  children_.emplace_back(name, &child);
}

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

}  // namespace d2l
