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

void check_finite(const char* what, const char* op, const float* p, int64_t n,
                  const std::vector<NodePtr>& inputs, const Shape& shape) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) {
      std::ostringstream os;
      os << "[check_numerics] " << what << " of '" << op << "' has a non-finite value (" << p[i]
         << ") at flat index " << i << ": " << describe_call(op, inputs, shape);
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
  if (g_check_numerics) check_finite("output", op_, n.data.get(), n.numel, inputs_, n.shape);
  if (needs_grad_ && backward) {
    n.requires_grad = true;
    n.inputs = std::move(inputs_);
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
      if (g_check_numerics)
        for (size_t i = 0; i < n->inputs.size(); ++i)
          if (n->inputs[i] && n->inputs[i]->grad)
            check_finite("gradient", n->op, n->inputs[i]->grad.get(), n->inputs[i]->numel, n->inputs, n->shape);
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
