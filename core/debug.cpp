// core/debug.cpp — the trace, the profile, the numerics check, section names and the DOT
// writer; the engine calls the first three through engine_hook (core/autograd.h).
#include "core/debug.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "core/files.h"

namespace d2l {
namespace {

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

bool g_trace = false, g_profile = false, g_check_numerics = false;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// --- the profile table: per op kind, calls and total forward/backward time ---------------
struct ProfileRow {
  int64_t calls = 0, backward_calls = 0;
  double forward_ms = 0, backward_ms = 0;
};
std::map<std::string, ProfileRow>& profile_rows() {
  // Never destroyed: the printer registered with atexit may run after statics die.
  static auto* rows = new std::map<std::string, ProfileRow>();
  return *rows;
}

// The SectionScope labels open on this thread, outermost first.
thread_local std::vector<const char*> g_sections;

std::string section_suffix(const std::string& section) {
  return section.empty() ? std::string() : " in section " + section;
}

int64_t first_non_finite(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return i;
  return -1;
}

// An op's output must be finite. On failure the message also says whether the bad value came
// in through an input (fed from outside: the data, a parameter, an op run before the check
// was on) or was created by this op (log of a negative, 0/0, exp overflow).
void check_output(const char* op, const Node& y, const std::vector<NodePtr>& inputs) {
  const int64_t i = first_non_finite(y.data.get(), y.numel);
  if (i < 0) return;
  std::ostringstream os;
  os << "[check_numerics] output of '" << op << "' has a non-finite value (" << y.data.get()[i] << ") at flat index "
     << i << ": " << describe_call(op, inputs, y.shape) << section_suffix(current_section()) << "; ";
  int64_t bad = -1, at = -1;
  for (size_t k = 0; k < inputs.size() && bad < 0; ++k)
    if (inputs[k] && (at = first_non_finite(inputs[k]->data.get(), inputs[k]->numel)) >= 0) bad = static_cast<int64_t>(k);
  if (bad >= 0)
    os << "input " << bad << " " << shape_str(inputs[bad]->shape) << " already holds " << inputs[bad]->data.get()[at]
       << " at flat index " << at << " (made by '" << inputs[bad]->op
       << "'): it came from outside the checked ops (the data, a parameter, or an op run before the check was on)";
  else
    os << "its inputs are finite: the value was created by this op";
  throw std::runtime_error(os.str());
}

// After an op's backward: the gradients it added into its inputs must be finite.
void check_gradients(const char* op, const Node& y, const std::string& section) {
  for (size_t k = 0; k < y.inputs.size(); ++k) {
    const Node* in = y.inputs[k].get();
    if (!in || !in->grad) continue;
    const int64_t i = first_non_finite(in->grad.get(), in->numel);
    if (i < 0) continue;
    std::ostringstream os;
    os << "[check_numerics] gradient of '" << op << "' has a non-finite value (" << in->grad.get()[i]
       << ") at flat index " << i << " of input " << k << " " << shape_str(in->shape) << ": "
       << describe_call(op, y.inputs, y.shape) << section_suffix(section)
       << " (the op's backward, or the gradient arriving from later ops, overflowed)";
    throw std::runtime_error(os.str());
  }
}

// --- the three functions the engine calls while a switch is on -------------------------------

void op_started(OpCall& call) {
  if (g_profile) call.started_ns = now_ns();
}

void op_finished(OpCall& call, Node& y, BackwardFn& backward) {
  if (g_profile) {
    ProfileRow& r = profile_rows()[call.name()];
    ++r.calls;
    r.forward_ms += static_cast<double>(now_ns() - call.started_ns) * 1e-6;
  }
  if (g_trace) std::fprintf(stderr, "[trace] %s\n", describe_call(call.name(), call.inputs(), y.shape).c_str());
  if (g_check_numerics) {
    check_output(call.name(), y, call.inputs());
    // The backward checks what it wrote, naming the section of its forward.
    if (call.needs_grad() && backward)
      backward = [op = call.name(), section = current_section(), bw = std::move(backward)](Node& node) {
        bw(node);
        check_gradients(op, node, section);
      };
  }
}

void run_node_backward(Node& y) {
  const int64_t t0 = g_profile ? now_ns() : 0;
  y.backward_fn(y);
  if (g_profile) {
    ProfileRow& r = profile_rows()[y.op];
    ++r.backward_calls;
    r.backward_ms += static_cast<double>(now_ns() - t0) * 1e-6;
  }
}

const EngineHook kHook{op_started, op_finished, run_node_backward};

// The hook is set exactly while some switch is on.
void update_hook() { engine_hook = g_trace || g_profile || g_check_numerics ? &kHook : nullptr; }

// Reads the environment once, before main; the engine's reference to engine_hook (defined
// below) makes sure this file is linked into every program that runs an op.
const bool g_env_read = [] {
  g_trace = env_on("D2L_TRACE");
  g_profile = env_on("D2L_PROFILE");
  g_check_numerics = env_on("D2L_CHECK_NUMERICS");
  update_hook();
  std::atexit([] { if (g_profile) print_profile(); });
  return true;
}();

}  // namespace

const EngineHook* engine_hook = nullptr;  // constant-initialised, before g_env_read runs

void set_trace(bool on) { g_trace = on; update_hook(); }
bool trace_enabled() { return g_trace; }
void set_profile(bool on) { g_profile = on; update_hook(); }
bool profile_enabled() { return g_profile; }
void set_check_numerics(bool on) { g_check_numerics = on; update_hook(); }
bool check_numerics_enabled() { return g_check_numerics; }

void print_profile() {
  std::fprintf(stderr, "%-22s %10s %12s %12s\n", "op", "calls", "forward ms", "backward ms");
  double tf = 0, tb = 0;
  for (const auto& [op, r] : profile_rows()) {
    std::fprintf(stderr, "%-22s %10lld %12.3f %12.3f\n", op.c_str(), static_cast<long long>(r.calls),
                 r.forward_ms, r.backward_ms);
    tf += r.forward_ms;
    tb += r.backward_ms;
  }
  std::fprintf(stderr, "%-22s %10s %12.3f %12.3f\n", "total", "", tf, tb);
  profile_rows().clear();
}

SectionScope::SectionScope(const char* label) { g_sections.push_back(label); }
SectionScope::~SectionScope() { g_sections.pop_back(); }
std::string current_section() {
  std::string s;
  for (const char* label : g_sections) s += (s.empty() ? "" : " > ") + std::string(label);
  return s;
}

std::string describe_call(const char* op, const std::vector<NodePtr>& inputs, const Shape& out) {
  std::ostringstream os;
  os << op;
  for (const auto& in : inputs) os << ' ' << (in ? shape_str(in->shape) : std::string("none"));
  os << " -> " << shape_str(out);
  return os.str();
}

// --- Graphviz DOT ------------------------------------------------------------------------------

void to_dot(const Tensor& root, const std::string& path) {
  std::ostringstream os;
  os << "digraph d2l {\n  rankdir=BT;\n  node [shape=box, fontname=\"DejaVu Sans\"];\n";
  std::unordered_map<const Node*, int> id;
  std::vector<const Node*> todo{root.node()};
  id[root.node()] = 0;
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    const bool leaf = n->inputs.empty();
    os << "  n" << id[n] << " [label=\"" << n->op << "\\n" << shape_str(n->shape) << "\""
       << (leaf ? (n->requires_grad ? ", style=filled, fillcolor=\"#c6dbef\"" : ", style=filled, fillcolor=\"#eeeeee\"")
                : "")
       << "];\n";
    for (const auto& in : n->inputs) {
      if (!in) continue;
      auto [it, fresh] = id.emplace(in.get(), static_cast<int>(id.size()));
      if (fresh) todo.push_back(in.get());
      os << "  n" << it->second << " -> n" << id[n] << ";\n";
    }
  }
  os << "}\n";
  // Like every output file: a unique temporary renamed over the target, never over a link,
  // FIFO or device (`--dot /dev/null` must not replace the device), none left on Ctrl-C.
  write_file_atomically(path, os.str(), "to_dot");
}

}  // namespace d2l
