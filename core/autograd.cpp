// core/autograd.cpp — the dispatch point every op passes through, and the backward engine.
#include "core/autograd.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace d2l {
namespace {

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

thread_local bool g_grad_enabled = true;
bool g_trace = env_on("D2L_TRACE");
bool g_check_numerics = env_on("D2L_CHECK_NUMERICS");

// --- profile table (D2L_PROFILE=1): per op kind, calls and total forward/backward time ---
struct ProfileRow {
  int64_t calls = 0, backward_calls = 0;
  double forward_ms = 0, backward_ms = 0;
};
struct Profile {
  bool on = env_on("D2L_PROFILE");
  std::map<std::string, ProfileRow> rows;
  Profile() { std::atexit([] { if (profile_enabled()) print_profile(); }); }
};
Profile& profile() {
  static Profile* p = new Profile();  // never destroyed: the atexit printer runs after statics die
  return *p;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
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

}  // namespace

bool grad_enabled() { return g_grad_enabled; }
NoGrad::NoGrad() : prev_(g_grad_enabled) { g_grad_enabled = false; }
NoGrad::~NoGrad() { g_grad_enabled = prev_; }

void set_trace(bool on) { g_trace = on; }
bool trace_enabled() { return g_trace; }
void set_profile(bool on) { profile().on = on; }
bool profile_enabled() { return profile().on; }
void set_check_numerics(bool on) { g_check_numerics = on; }
bool check_numerics_enabled() { return g_check_numerics; }

SectionScope::SectionScope(const char* label) { g_sections.push_back(label); }
SectionScope::~SectionScope() { g_sections.pop_back(); }
std::string current_section() {
  std::string s;
  for (const char* label : g_sections) s += (s.empty() ? "" : " > ") + std::string(label);
  return s;
}

void print_profile() {
  Profile& P = profile();
  std::fprintf(stderr, "%-22s %10s %12s %12s\n", "op", "calls", "forward ms", "backward ms");
  double tf = 0, tb = 0;
  for (const auto& [op, r] : P.rows) {
    std::fprintf(stderr, "%-22s %10lld %12.3f %12.3f\n", op.c_str(), static_cast<long long>(r.calls),
                 r.forward_ms, r.backward_ms);
    tf += r.forward_ms;
    tb += r.backward_ms;
  }
  std::fprintf(stderr, "%-22s %10s %12.3f %12.3f\n", "total", "", tf, tb);
  P.rows.clear();
}

std::string describe_call(const char* op, const std::vector<NodePtr>& inputs, const Shape& out) {
  std::ostringstream os;
  os << op;
  for (const auto& in : inputs) os << ' ' << (in ? shape_str(in->shape) : std::string("none"));
  os << " -> " << shape_str(out);
  return os.str();
}

// --- OpCall --------------------------------------------------------------------------------

OpCall::OpCall(const char* op, std::initializer_list<Tensor> inputs) : op_(op) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.node()->requires_grad) needs_grad_ = true;
  needs_grad_ = needs_grad_ && g_grad_enabled;
  // Keep the inputs only when something will read them: the graph, or a teaching switch.
  if (needs_grad_ || g_trace || g_check_numerics)
    for (const Tensor& t : inputs) inputs_.push_back(t.node_ptr());
  begin(op);
}

OpCall::OpCall(const char* op, const std::vector<Tensor>& inputs) : op_(op) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.node()->requires_grad) needs_grad_ = true;
  needs_grad_ = needs_grad_ && g_grad_enabled;
  if (needs_grad_ || g_trace || g_check_numerics)
    for (const Tensor& t : inputs) inputs_.push_back(t.node_ptr());
  begin(op);
}

void OpCall::begin(const char*) {
  if (profile().on) start_ = std::chrono::steady_clock::now();
}

Tensor OpCall::finish(Tensor y, BackwardFn backward) {
  Node& n = *y.node();
  n.op = op_;
  if (profile().on) {
    ProfileRow& r = profile().rows[op_];
    ++r.calls;
    r.forward_ms += ms_since(start_);
  }
  if (g_trace) std::fprintf(stderr, "[trace] %s\n", describe_call(op_, inputs_, n.shape).c_str());
  if (g_check_numerics) check_output(op_, n, inputs_);
  if (needs_grad_ && backward) {
    n.requires_grad = true;
    n.inputs = std::move(inputs_);
    if (g_check_numerics)  // the backward checks what it wrote, naming the section of its forward
      backward = [op = op_, section = current_section(), bw = std::move(backward)](Node& y) {
        bw(y);
        check_gradients(op, y, section);
      };
    n.backward_fn = std::move(backward);
  }
  return y;
}

Tensor OpCall::finish(Tensor y) { return finish(std::move(y), nullptr); }

// --- the backward engine ---------------------------------------------------------------------

void run_backward(const NodePtr& root) {
  // A freed node has no inputs left, like a leaf, so only its flag tells the two apart.
  check(!root->freed, "backward", "the graph behind this tensor (made by '", root->op, "', shape ", root->shape,
        ") was already freed by an earlier backward()");
  // Topological order by an iterative depth-first search (no recursion: a 250-epoch RNN
  // graph can be thousands of nodes deep). order ends up with every node after its inputs.
  // The order holds owning pointers: freeing a node's links below must not destroy nodes
  // that are still waiting for their turn.
  std::vector<NodePtr> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<NodePtr, size_t>> stack{{root, 0}};
  seen.insert(root.get());
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->inputs.size()) {
      const NodePtr& in = node->inputs[next++];
      // A freed input would silently stop the gradient there (its own inputs are unlinked).
      if (in && in->freed)
        fail("backward", "input ", in->shape, " of '", node->op, "' (made by '", in->op,
             "') was freed by an earlier backward() through it");
      if (in && in->requires_grad && in->backward_fn && seen.insert(in.get()).second) stack.push_back({in, 0});
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  // Walk from the root back to the leaves: each node's gradient is complete when it runs.
  Profile& P = profile();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = it->get();
    if (n->grad && n->backward_fn) {
      auto t0 = std::chrono::steady_clock::now();
      n->backward_fn(*n);
      if (P.on) {
        ProfileRow& r = P.rows[n->op];
        ++r.backward_calls;
        r.backward_ms += ms_since(t0);
      }
    }
    // Free the graph as PyTorch does (retain_graph=False): closures, links and the
    // intermediate gradients go; leaves (a root that is a leaf too) keep their .grad.
    if (!n->backward_fn) continue;
    n->backward_fn = nullptr;
    n->inputs.clear();
    n->grad.reset();
    n->freed = true;
  }
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
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    check(static_cast<bool>(f), "to_dot", "cannot open '", tmp, "' for writing");
    f << os.str();
    check(static_cast<bool>(f.flush()), "to_dot", "write to '", tmp, "' failed");
  }
  check(std::rename(tmp.c_str(), path.c_str()) == 0, "to_dot", "cannot rename '", tmp, "' to '", path, "'");
}

}  // namespace d2l
