// core/autograd.cpp — the engine: the dispatch point every op passes through (recording the
// graph) and the backward pass over it. Trace, profile, numerics checks and the DOT writer
// are in core/debug.cpp, reached only through engine_hook; the checks backward makes, with
// their messages, in core/autograd_checks.cpp.
#include "core/autograd.h"

#include "core/gradient_leaves.h"

#include <atomic>
#include <utility>

namespace d2l {
namespace {
thread_local bool g_grad_enabled = true;
thread_local const char* g_current_op = nullptr;  // the innermost OpCall alive
}  // namespace

const char* current_op() { return g_current_op; }

OpScope::OpScope(const char* op) : outer_op_(g_current_op) { g_current_op = op; }
OpScope::~OpScope() { g_current_op = outer_op_; }

bool grad_enabled() { return g_grad_enabled; }
NoGrad::NoGrad() : prev_(g_grad_enabled) { g_grad_enabled = false; }
NoGrad::~NoGrad() { g_grad_enabled = prev_; }

// --- recording: OpCall -------------------------------------------------------------------

OpCall::OpCall(const char* op, std::initializer_list<Tensor> inputs) : op_(op), outer_op_(g_current_op) {
  g_current_op = op;
  take_inputs(inputs.begin(), inputs.size());
}

OpCall::OpCall(const char* op, const std::vector<Tensor>& inputs) : op_(op), outer_op_(g_current_op) {
  g_current_op = op;
  take_inputs(inputs.data(), inputs.size());
}

OpCall::~OpCall() { g_current_op = outer_op_; }

void OpCall::take_inputs(const Tensor* inputs, size_t n) {
  // The output needs a gradient if any input does (and grad mode is on). With grad mode
  // off it remembers that it would have, for backward()'s message.
  for (size_t i = 0; i < n; ++i)
    if (const Node* in = inputs[i].node()) {
      needs_grad_ = needs_grad_ || in->requires_grad;
      without_grad_ = without_grad_ || in->made_without_grad;
    }
  without_grad_ = without_grad_ || (needs_grad_ && !g_grad_enabled);
  needs_grad_ = needs_grad_ && g_grad_enabled;
  // Keep the inputs only when something will read them: the graph, or a debug switch.
  if (needs_grad_ || engine_hook) {
    inputs_.reserve(n);
    for (size_t i = 0; i < n; ++i) inputs_.push_back(inputs[i].node_ptr());
  }
  if (engine_hook) engine_hook->op_started(*this);
}

Tensor OpCall::finish(Tensor y, BackwardFn backward, uint32_t reads) {
  Node& n = *y.node();
  n.op = op_;
  if (engine_hook) engine_hook->op_finished(*this, n, backward);
  n.made_without_grad = without_grad_;
  if (needs_grad_ && backward) {
    // The graph: y remembers its inputs and how to send its gradient back to them, and
    // the version of every tensor involved, which backward checks (check_versions).
    n.requires_grad = true;
    n.inputs = std::move(inputs_);
    n.backward_fn = std::move(backward);
    n.saved_versions.reserve(n.inputs.size() + 1);
    for (const NodePtr& in : n.inputs) n.saved_versions.push_back(in ? in->data.version() : 0);
    n.saved_versions.push_back(n.data.version());
    // Who will read whose data (Tensor's destructor frees what nobody reads).
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (Node* in = n.inputs[i].get()) {
        ++in->graph_links;
        if (reads & reads_input(i)) ++in->data_readers;
      }
    if (reads & kReadsOutput) ++n.data_readers;
  }
  return y;
}

Tensor OpCall::finish(Tensor y) { return finish(std::move(y), nullptr); }

// --- the backward pass ---------------------------------------------------------------------

void run_backward(const NodePtr& root) {
  check_not_freed(*root);
  // Topological order by an iterative depth-first search (no recursion: a 250-epoch RNN
  // graph can be thousands of nodes deep). order ends up with every node after its inputs.
  // Each pass has its own number, and a node's `visited` field holds the last pass that
  // reached it, so every node is taken once. The order holds owning pointers: freeing a
  // node's links below must not destroy nodes that are still waiting for their turn.
  static std::atomic<uint64_t> passes{0};
  const uint64_t pass = ++passes;
  // The two lists keep their capacity on this thread from one backward to the next (a
  // training step's graph is the same size every time): no large allocation per pass.
  thread_local std::vector<NodePtr> order_spare;
  thread_local std::vector<std::pair<const NodePtr*, size_t>> stack_spare;
  std::vector<NodePtr> order;
  std::vector<std::pair<const NodePtr*, size_t>> stack;  // a node, its next input
  order.swap(order_spare);
  stack.swap(stack_spare);
  stack.push_back({&root, 0});
  root->visited = pass;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < (*node)->inputs.size()) {
      const NodePtr& in = (*node)->inputs[next++];
      if (in) check_input_not_freed(**node, *in);
      if (in && in->requires_grad && in->backward_fn && in->visited != pass) {
        in->visited = pass;
        stack.push_back({&in, 0});
      }
    } else {
      order.push_back(*node);
      stack.pop_back();
    }
  }
  record_gradient_leaves(order);  // for the optimisers' check (core/gradient_leaves.h)
  // Walk from the root back to the leaves: each node's gradient is complete when it runs
  // (the chain rule, summed over every path, because all later nodes have already added in).
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = it->get();
    if (n->grad && n->backward_fn) {
      check_versions(*n);
      if (engine_hook)
        engine_hook->run_node_backward(*n);
      else
        n->backward_fn(*n);
    }
    // Free the graph as PyTorch does (retain_graph=False): closures, links and the
    // intermediate gradients go; leaves (a root that is a leaf too) keep their .grad.
    if (!n->backward_fn) continue;
    n->backward_fn = nullptr;
    n->inputs.clear();
    n->grad.reset();
    n->freed = true;
  }
  order.clear();  // releases the nodes nothing else holds
  order.swap(order_spare);
  stack.swap(stack_spare);
}

}  // namespace d2l
