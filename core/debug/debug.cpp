// core/debug/debug.cpp — the trace, the profile, the numerics check and section names; the engine
// calls them through engine_hook (core/autograd.h). The DOT writer is in core/debug/dot.cpp.
#include "core/debug/debug.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <time.h>

#include "core/nn/module.h"

namespace d2l {
namespace {

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

int g_trace = 0;  // 0 off, 1 forward ops, 2 forward ops and backward steps
bool g_profile = false, g_check_numerics = false, g_record_sections = false;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
double ms_since(int64_t t0) { return static_cast<double>(now_ns() - t0) * 1e-6; }
// CPU time of the whole process: every thread's, so over an op it counts how many cores
// worked. Under OMP_WAIT_POLICY=PASSIVE a thread waiting for work sleeps and adds nothing,
// so the profile's "cores" column (CPU ms / wall ms) shows where the other cores waited.
int64_t cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The SectionScope labels open on this thread, outermost first. Kept as pointers to the
// literals, so recording a path is a vector copy; the text is joined only when printed.
using SectionPath = std::vector<const char*>;
thread_local SectionPath g_sections;

std::string path_str(const SectionPath& path) {
  std::string s;
  for (const char* label : path) s += (s.empty() ? "" : " > ") + std::string(label);
  return s;
}

// --- the profile tables ----------------------------------------------------------------------
struct OpRow {
  int64_t calls = 0, backward_calls = 0;
  double forward_ms = 0, backward_ms = 0;
  double forward_cpu_ms = 0, backward_cpu_ms = 0;  // process CPU time over the same spans
};
// The CPU clock at each running op's start, innermost last (ops nest: a composite op's OpCall
// is alive while the ops it calls run). An op that threw before finishing leaves its entry,
// dropped when an op begun before it finishes.
thread_local std::vector<std::pair<const OpCall*, int64_t>> g_cpu_started;
struct Profile {
  std::map<std::string, OpRow> ops;          // per op kind
  std::map<SectionPath, OpRow> layers;        // per exact section path (nesting added when printed)
  std::map<std::string, OpRow> steps;         // ProfileRegion names: calls and forward_ms
};
Profile& profile() {
  // Never destroyed: the printer registered with atexit may run after statics die.
  static auto* p = new Profile();
  return *p;
}

// A recorded op's backward closure, wrapped with what was known when the forward ran: its
// section path, and whether the numerics check was on. recorded_section() and to_dot find
// it in Node::backward_fn by its type.
struct RecordedStep {
  BackwardFn inner;
  SectionPath section;
  bool check_numerics;
  void operator()(Node& y) const;  // the engine calls this only when every switch went off
};

std::string section_suffix(const std::string& section) {
  return section.empty() ? std::string() : " in section " + section;
}

// " (the parameter 'blks.0.ffn.dense1.weight')" for a registered weight, else "".
std::string parameter_note(const Node* n) {
  const std::string name = parameter_name(n);
  return name.empty() ? std::string() : " (the parameter '" + name + "')";
}

int64_t first_non_finite(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return i;
  return -1;
}

// An op's output must be finite. On failure the message also says whether the bad value came
// in through an input (a parameter, named; the data; an op run before the check was on) or
// was created by this op (log of a negative, 0/0, exp overflow).
void check_output(const char* op, const Node& y, const NodeList& inputs) {
  const int64_t i = first_non_finite(y.data.get(), y.numel());
  if (i < 0) return;
  std::ostringstream os;
  os << "[check_numerics] output of '" << op << "' has a non-finite value (" << y.data.get()[i] << ") at flat index "
     << i << ": " << describe_call(op, inputs, y.shape) << section_suffix(current_section()) << "; ";
  int64_t bad = -1, at = -1;
  for (size_t k = 0; k < inputs.size() && bad < 0; ++k)
    if (inputs[k] && (at = first_non_finite(inputs[k]->data.get(), inputs[k]->numel())) >= 0) bad = static_cast<int64_t>(k);
  if (bad < 0) {
    os << "its inputs are finite: the value was created by this op";
  } else {
    const Node* in = inputs[bad].get();
    os << "input " << bad << " " << shape_str(in->shape) << parameter_note(in) << " already holds "
       << in->data.get()[at] << " at flat index " << at;
    if (!parameter_name(in).empty())
      os << ": the weight itself is non-finite (an optimiser step or its initialisation made it so; a lower "
            "learning rate or gradient clipping may help)";
    else
      os << " (made by '" << in->op
         << "'): it came from outside the checked ops (the data, a parameter, or an op run before the check was on)";
  }
  throw std::runtime_error(os.str());
}

// After an op's backward: the gradients it added into its inputs must be finite.
void check_gradients(const char* op, const Node& y, const SectionPath& section) {
  for (size_t k = 0; k < y.inputs.size(); ++k) {
    const Node* in = y.inputs[k].get();
    if (!in || !in->grad) continue;
    const int64_t i = first_non_finite(in->grad.get(), in->numel());
    if (i < 0) continue;
    std::ostringstream os;
    os << "[check_numerics] gradient of '" << op << "' has a non-finite value (" << in->grad.get()[i]
       << ") at flat index " << i << " of input " << k << " " << shape_str(in->shape) << parameter_note(in) << ": "
       << describe_call(op, y.inputs, y.shape) << section_suffix(path_str(section))
       << " (the op's backward, or the gradient arriving from later ops, overflowed)";
    throw std::runtime_error(os.str());
  }
}

void RecordedStep::operator()(Node& y) const {
  inner(y);
  if (check_numerics) check_gradients(y.op, y, section);
}

// --- the backward trace (D2L_TRACE=2) ----------------------------------------------------------

double l2_norm(const float* p, int64_t n) {
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq += static_cast<double>(p[i]) * p[i];
  return std::sqrt(sq);
}

// A parameter's registered name, else the op that made the node ("leaf" for data).
std::string node_label(const Node* n) {
  std::string name = parameter_name(n);
  return name.empty() ? n->op : name;
}

// The inputs' gradients before a backward step, so the trace can show what the step added.
// An input read twice (x * x) appears once, with every position it was read at.
struct InputGrads {
  struct Entry {
    const Node* node;
    std::vector<size_t> positions;
    std::vector<float> before;  // empty: no gradient yet (zero)
  };
  std::vector<Entry> entries;
  double grad_norm;  // of y's own gradient, taken before the step (a reshape's step hands
                     // that buffer on to its input: OpCall::gradient_is_identity)

  explicit InputGrads(const Node& y) : grad_norm(l2_norm(y.grad.get(), y.numel())) {
    for (size_t k = 0; k < y.inputs.size(); ++k) {
      const Node* in = y.inputs[k].get();
      if (!in || !in->requires_grad) continue;  // printed as "no grad" / "none"
      Entry* e = nullptr;
      for (Entry& seen : entries)
        if (seen.node == in) e = &seen;
      if (e) {
        e->positions.push_back(k);
        continue;
      }
      entries.push_back({in, {k}, {}});
      if (in->grad) entries.back().before.assign(in->grad.get(), in->grad.get() + in->numel());
    }
  }

  // The L2 norm of what the step added into e's gradient.
  static double added_norm(const Entry& e) {
    if (!e.node->grad) return 0;
    if (e.before.empty()) return l2_norm(e.node->grad.get(), e.node->numel());
    double sq = 0;
    for (int64_t i = 0; i < e.node->numel(); ++i) {
      const double d = static_cast<double>(e.node->grad.get()[i]) - e.before[i];
      sq += d * d;
    }
    return std::sqrt(sq);
  }
};

void print_backward_step(const Node& y, const SectionPath* section, const InputGrads& grads) {
  std::ostringstream os;
  os << "[backward] " << y.op;
  if (section && !section->empty()) os << " in " << path_str(*section);
  char norm[32];
  std::snprintf(norm, sizeof norm, "%.6g", grads.grad_norm);
  os << ": grad " << shape_str(y.shape) << " norm " << norm << " ->";
  // In input order: each input once, with every position it was read at.
  std::string sep = " ";
  for (size_t k = 0; k < y.inputs.size(); ++k) {
    const Node* in = y.inputs[k].get();
    const InputGrads::Entry* e = nullptr;
    for (const auto& entry : grads.entries)
      if (std::find(entry.positions.begin(), entry.positions.end(), k) != entry.positions.end()) e = &entry;
    if (e && e->positions.front() != k) continue;  // printed with its first position
    os << sep;
    sep = ", ";
    if (e) {
      os << (e->positions.size() > 1 ? "inputs " : "input ");
      for (size_t j = 0; j < e->positions.size(); ++j) os << (j ? " and " : "") << e->positions[j];
      std::snprintf(norm, sizeof norm, "%.6g", InputGrads::added_norm(*e));
      os << " " << node_label(in) << " " << shape_str(in->shape) << " norm " << norm;
    } else if (!in) {
      os << "input " << k << " none";
    } else {
      os << "input " << k << " " << node_label(in) << " " << shape_str(in->shape) << " no grad";
    }
  }
  std::fprintf(stderr, "%s\n", os.str().c_str());
}

// --- the three functions the engine calls while a switch is on -------------------------------

void op_started(OpCall& call) {
  if (g_profile) {
    g_cpu_started.emplace_back(&call, cpu_ns());
    call.started_ns = now_ns();
  }
}

void op_finished(OpCall& call, Node& y, BackwardFn& backward) {
  if (g_profile) {
    const double ms = ms_since(call.started_ns);
    double cpu_ms = 0;
    while (!g_cpu_started.empty()) {
      const auto [started_call, started_cpu] = g_cpu_started.back();
      g_cpu_started.pop_back();
      if (started_call == &call) {
        cpu_ms = static_cast<double>(cpu_ns() - started_cpu) * 1e-6;
        break;
      }
    }
    OpRow& r = profile().ops[call.name()];
    ++r.calls;
    r.forward_ms += ms;
    r.forward_cpu_ms += cpu_ms;
    OpRow& l = profile().layers[g_sections];
    ++l.calls;
    l.forward_ms += ms;
  }
  if (g_trace) {
    const std::string section = current_section();
    std::fprintf(stderr, "[trace] %s%s%s\n", describe_call(call.name(), call.inputs(), y.shape).c_str(),
                 section.empty() ? "" : " in ", section.c_str());
  }
  if (g_check_numerics) check_output(call.name(), y, call.inputs());
  // Recorded ops keep their section path (and the numerics switch) for the backward.
  if (call.needs_grad() && backward) backward = RecordedStep{std::move(backward), g_sections, g_check_numerics};
}

void run_node_backward(Node& y) {
  const RecordedStep* step = y.backward_fn.target<RecordedStep>();
  const bool trace = g_trace >= 2;
  std::unique_ptr<InputGrads> before;
  if (trace) before = std::make_unique<InputGrads>(y);
  const int64_t t0 = g_profile ? now_ns() : 0, c0 = g_profile ? cpu_ns() : 0;
  if (step) step->inner(y);
  else y.backward_fn(y);
  add_identity_grads(y);
  if (g_profile) {
    const double ms = ms_since(t0);
    OpRow& r = profile().ops[y.op];
    ++r.backward_calls;
    r.backward_ms += ms;
    r.backward_cpu_ms += static_cast<double>(cpu_ns() - c0) * 1e-6;
    if (step) {  // only ops recorded while a switch was on know their layer
      OpRow& l = profile().layers[step->section];
      ++l.backward_calls;
      l.backward_ms += ms;
    }
  }
  if (trace) print_backward_step(y, step ? &step->section : nullptr, *before);
  if (step && step->check_numerics) check_gradients(y.op, y, step->section);
}

const EngineHook kHook{op_started, op_finished, run_node_backward};

// The hook is set exactly while some switch is on.
void update_hook() {
  engine_hook = g_trace || g_profile || g_check_numerics || g_record_sections ? &kHook : nullptr;
}

// Reads the environment once, before main; the engine's reference to engine_hook (defined
// below) makes sure this file is linked into every program that runs an op.
const bool g_env_read = [] {
  if (env_on("D2L_TRACE")) g_trace = std::atoi(std::getenv("D2L_TRACE")) >= 2 ? 2 : 1;
  g_profile = env_on("D2L_PROFILE");
  g_check_numerics = env_on("D2L_CHECK_NUMERICS");
  update_hook();
  std::atexit([] { if (g_profile) print_profile(); });
  return true;
}();

// The layer table: the exact-path rows added up into every enclosing section, so a row's
// time includes its nested layers; printed as a tree, in path order.
void print_layer_table() {
  std::map<std::vector<std::string>, OpRow> nested;
  for (const auto& entry : profile().layers) {
    // Named references, not a structured binding: C++17 lambdas cannot capture those (clang
    // refuses).
    const auto& path = entry.first;
    const OpRow& r = entry.second;
    std::vector<std::string> key;
    auto add = [&](const std::vector<std::string>& k) {
      OpRow& n = nested[k];
      n.calls += r.calls;
      n.backward_calls += r.backward_calls;
      n.forward_ms += r.forward_ms;
      n.backward_ms += r.backward_ms;
    };
    if (path.empty()) add({});
    for (const char* label : path) {
      key.push_back(label);
      add(key);
    }
  }
  size_t width = 30;
  for (const auto& [key, r] : nested)
    if (!key.empty()) width = std::max(width, 2 * (key.size() - 1) + key.back().size());
  std::fprintf(stderr, "%-*s %10s %12s %12s\n", static_cast<int>(width), "layer (nested layers included)", "ops",
               "forward ms", "backward ms");
  for (const auto& [key, r] : nested) {
    const std::string label =
        key.empty() ? std::string("(outside any layer)") : std::string(2 * (key.size() - 1), ' ') + key.back();
    std::fprintf(stderr, "%-*s %10lld %12.3f %12.3f\n", static_cast<int>(width), label.c_str(),
                 static_cast<long long>(r.calls), r.forward_ms, r.backward_ms);
  }
}

}  // namespace

const EngineHook* engine_hook = nullptr;  // constant-initialised, before g_env_read runs

void set_trace(bool on) { set_trace_level(on ? 1 : 0); }
void set_trace_level(int level) {
  check(level >= 0 && level <= 2, "set_trace_level", "level ", level, " is not 0, 1 or 2");
  g_trace = level;
  update_hook();
}
int trace_level() { return g_trace; }
bool trace_enabled() { return g_trace > 0; }
void set_profile(bool on) { g_profile = on; update_hook(); }
bool profile_enabled() { return g_profile; }
void set_check_numerics(bool on) { g_check_numerics = on; update_hook(); }
bool check_numerics_enabled() { return g_check_numerics; }
void set_record_sections(bool on) { g_record_sections = on; update_hook(); }

void print_profile() {
  Profile& p = profile();
  // cores: CPU ms / wall ms, the cores busy on average while the op ran (see cpu_ns).
  std::fprintf(stderr, "%-22s %10s %12s %6s %12s %6s\n", "op", "calls", "forward ms", "cores", "backward ms", "cores");
  auto cores = [](double cpu, double wall) { return wall > 0 ? cpu / wall : 0.0; };
  OpRow total;
  for (const auto& [op, r] : p.ops) {
    std::fprintf(stderr, "%-22s %10lld %12.3f %6.2f %12.3f %6.2f\n", op.c_str(), static_cast<long long>(r.calls),
                 r.forward_ms, cores(r.forward_cpu_ms, r.forward_ms), r.backward_ms,
                 cores(r.backward_cpu_ms, r.backward_ms));
    total.forward_ms += r.forward_ms;
    total.backward_ms += r.backward_ms;
    total.forward_cpu_ms += r.forward_cpu_ms;
    total.backward_cpu_ms += r.backward_cpu_ms;
  }
  std::fprintf(stderr, "%-22s %10s %12.3f %6.2f %12.3f %6.2f\n", "total", "", total.forward_ms,
               cores(total.forward_cpu_ms, total.forward_ms), total.backward_ms,
               cores(total.backward_cpu_ms, total.backward_ms));
  if (!p.layers.empty()) {
    std::fprintf(stderr, "\n");
    print_layer_table();
  }
  if (!p.steps.empty()) {
    std::fprintf(stderr, "\n%-22s %10s %12s\n", "step", "calls", "ms");
    for (const auto& [name, r] : p.steps)
      std::fprintf(stderr, "%-22s %10lld %12.3f\n", name.c_str(), static_cast<long long>(r.calls), r.forward_ms);
  }
  p.ops.clear();
  p.layers.clear();
  p.steps.clear();
}

ProfileRegion::ProfileRegion(const char* name) : name_(name) {
  if (g_profile) started_ns_ = now_ns();
}
ProfileRegion::~ProfileRegion() {
  if (started_ns_ < 0) return;
  OpRow& r = profile().steps[name_];
  ++r.calls;
  r.forward_ms += ms_since(started_ns_);
}

SectionScope::SectionScope(const char* label) { g_sections.push_back(label); }
SectionScope::~SectionScope() { g_sections.pop_back(); }
std::string current_section() { return path_str(g_sections); }

std::string recorded_section(const Node& y) {
  const RecordedStep* step = y.backward_fn.target<RecordedStep>();
  return step ? path_str(step->section) : std::string();
}

std::string describe_call(const char* op, const NodeList& inputs, const Shape& out) {
  std::ostringstream os;
  os << op;
  for (const auto& in : inputs) os << ' ' << (in ? shape_str(in->shape) : std::string("none"));
  os << " -> " << shape_str(out);
  return os.str();
}

}  // namespace d2l
