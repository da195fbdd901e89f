// core/nn/module.cpp — parameter registry, train/eval, parameter files, and printing.
#include "core/nn/module.h"

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
#include <mutex>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "core/io/param_file.h"

namespace d2l {

// --- names for the debug views -----------------------------------------------------------
// Two maps, filled as constructors register: parameter node -> (module, "weight") and
// child module -> (parent, "dense1"). A name is read by walking up the second map.
namespace {
struct Registration {
  const Module* owner;
  std::string name;
};
struct NameMaps {
  std::mutex mutex;
  std::unordered_map<const Node*, Registration> parameters;
  std::unordered_map<const Module*, Registration> children;
};
NameMaps& name_maps() {
  static auto* maps = new NameMaps();  // never destroyed: modules may outlive static destruction
  return *maps;
}
}  // namespace

std::string parameter_name(const Node* node) {
  NameMaps& m = name_maps();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto p = m.parameters.find(node);
  if (p == m.parameters.end()) return "";
  std::string name = p->second.name;
  // Up through the registering parents (a depth limit guards against a module registered
  // as its own ancestor).
  const Module* at = p->second.owner;
  for (int depth = 0; depth < 256; ++depth) {
    auto c = m.children.find(at);
    if (c == m.children.end()) break;
    name = c->second.name + "." + name;
    at = c->second.owner;
  }
  return name;
}

Module::~Module() {
  NameMaps& m = name_maps();
  std::lock_guard<std::mutex> lock(m.mutex);
  for (const auto& [name, t] : params_) {
    auto p = m.parameters.find(t.node());
    if (p != m.parameters.end() && p->second.owner == this) m.parameters.erase(p);
  }
  m.children.erase(this);
  for (const auto& [name, child] : children_) {
    auto c = m.children.find(child);
    if (c != m.children.end() && c->second.owner == this) m.children.erase(c);
  }
}

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

void Module::check_new_name(const std::string& name, const char* op) const {
  check(!name.empty(), op, "a name is empty (in ", type_name(), ")");
  for (const auto& [n, t] : params_)
    check(n != name, op, "'", name, "' is already a parameter of this ", type_name(),
          ": each name may be registered once");
  for (const auto& [n, c] : children_)
    check(n != name, op, "'", name, "' is already a child module of this ", type_name(),
          ": each name may be registered once");
}

Tensor Module::register_parameter(const std::string& name, Tensor value) {
  check_new_name(name, "Module.register_parameter");
  check(value.defined(), "Module.register_parameter", "parameter '", name, "' is undefined");
  value.requires_grad_(true);
  value.node()->name = name;  // until named_parameters() records the dotted path
  {  // the first registration names a shared parameter for parameter_name()
    NameMaps& m = name_maps();
    std::lock_guard<std::mutex> lock(m.mutex);
    m.parameters.emplace(value.node(), Registration{this, name});
  }
  params_.emplace_back(name, value);
  return value;
}

void Module::register_module(const std::string& name, Module& child) {
  check_new_name(name, "Module.register_module");
  check(&child != this, "Module.register_module", "'", name, "': a module cannot be its own child");
  children_.emplace_back(name, &child);
  NameMaps& m = name_maps();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.children.emplace(&child, Registration{this, name});
}

// --- parameter files (the format is core/io/param_file.cpp's) ---------------------------------
namespace {
void collect_hyper_parameters(const Module& m, const std::string& prefix, ModelSettings& out) {
  for (auto& [key, value] : m.hyper_parameters()) out.emplace_back(prefix + key, value);
  for (const auto& [name, child] : m.named_children()) collect_hyper_parameters(*child, prefix + name + ".", out);
}
}  // namespace

std::vector<std::pair<std::string, std::string>> module_hyper_parameters(const Module& m) {
  ModelSettings out;
  collect_hyper_parameters(m, "", out);
  return out;
}

// The hyper-parameters go in the file's settings block: a file from an 8-head model has the
// same shapes as a 4-head one, and only they tell the two apart.
void Module::save(const std::string& path) const { save_param_file(path, *this, module_hyper_parameters(*this)); }

void Module::load(const std::string& path) {
  copy_parameters(read_param_file(path, *this, module_hyper_parameters(*this)), *this);
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
