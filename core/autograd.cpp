// core/autograd.cpp — the engine: the dispatch point every op passes through (recording the
// graph) and the backward pass over it. The debug switches are in core/debug/debug.cpp (through
// engine_hook); the checks backward makes, with their messages, in core/engine/checks.cpp.
#include "core/autograd.h"

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
      without_grad_ = without_grad_ || made_without_grad(*in);
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

// Which input t is (bit i), or else the output, which finish() will name.
void OpCall::save(const Tensor& t) {
  if (!t.defined() || inputs_.empty()) return;  // nothing will be recorded
  uint32_t bits = 0;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].get() == t.node()) bits |= input_bit(i);
  if (!bits) saved_output_ = t.node();
  saved_ |= bits;
}

Tensor OpCall::finish(Tensor y, BackwardFn backward) {
  Node& n = *y.node();
  n.op = op_;
  if (engine_hook) engine_hook->op_finished(*this, n, backward);
  const bool recorded = needs_grad_ && backward;
  if (recorded) {
    // The graph: y remembers its inputs and how to send its gradient back to them.
    check(!saved_output_ || saved_output_ == &n, op_, "save_for_backward was given a tensor that is neither an ",
          "input nor the output of this op");
    n.requires_grad = true;
    n.inputs = std::move(inputs_);
    n.backward_fn = std::move(backward);
  }
  // The versions backward checks, and what the engine may free early (core/engine/bookkeeping.cpp).
  const uint32_t saved = !declared_saves_ ? ~0u : saved_ | (saved_output_ ? kSavedOutput : 0u);
  note_recorded_op(n, recorded, without_grad_, saved, identity_grads_);
  return y;
}

Tensor OpCall::finish(Tensor y) { return finish(std::move(y), nullptr); }

// --- what a node's backward reads and writes (core/engine/bookkeeping.cpp keeps the notes) ----
// Input i's gradient buffer; null when it needs none or takes this node's gradient unchanged.
float* Node::input_grad(size_t i) {
  Node* in = inputs[i].get();
  return in && in->requires_grad && !gets_grad_unchanged(*this, i) ? in->grad_data() : nullptr;
}
// Input i's data; null when the op did not save it for backward.
const float* Node::input_data(size_t i) const { return saved_input(*this, i) ? inputs[i]->data.get() : nullptr; }
// The last handle going may free data no backward will read.
Tensor::~Tensor() { if (node_) free_unread_data(node_); }

// --- the backward pass ---------------------------------------------------------------------

void run_backward(const NodePtr& root) {
  check_not_freed(*root);
  // Topological order by an iterative depth-first search (no recursion: a 250-epoch RNN
  // graph can be thousands of nodes deep): every node after its inputs, each taken once
  // (first_visit: a node remembers the last pass that reached it). The order holds owning
  // pointers: freeing a node's links below must not destroy nodes still waiting their turn.
  static std::atomic<uint64_t> passes{0};
  const uint64_t pass = ++passes;
  // The lists keep their capacity on this thread from one pass to the next.
  thread_local std::vector<NodePtr> order_spare;
  thread_local std::vector<std::pair<const NodePtr*, size_t>> stack_spare;
  std::vector<NodePtr> order;
  std::vector<std::pair<const NodePtr*, size_t>> stack;  // a node, its next input
  order.swap(order_spare);
  stack.swap(stack_spare);
  stack.push_back({&root, 0});
  first_visit(*root, pass);
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < (*node)->inputs.size()) {
      const NodePtr& in = (*node)->inputs[next++];
      if (in) check_input_not_freed(**node, *in);
      if (in && in->requires_grad && in->backward_fn && first_visit(*in, pass))
        stack.push_back({&in, 0});
    } else {
      order.push_back(*node);
      stack.pop_back();
    }
  }
  record_gradient_leaves(order);
  // Walk from the root back to the leaves: each node's gradient is complete when it runs
  // (the chain rule, summed over every path, because all later nodes have already added in).
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = it->get();
    if (n->grad && n->backward_fn) {
      check_versions(*n);
      if (engine_hook) {
        engine_hook->run_node_backward(*n);
      } else {
        n->backward_fn(*n);
        add_identity_grads(*n);
      }
    }
    // Free the graph as PyTorch does (retain_graph=False): closures, links and the
    // intermediate gradients go; leaves (a root that is a leaf too) keep their .grad.
    if (n->backward_fn) free_graph_step(*n);
  }
  order.clear();  // releases the nodes nothing else holds
  order.swap(order_spare);
  stack.swap(stack_spare);
}

}  // namespace d2l
