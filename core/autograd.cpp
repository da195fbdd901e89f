// core/autograd.cpp — the engine: the dispatch point every op passes through (recording the
// graph) and the backward pass over it. Trace, profile, numerics checks and the DOT writer
// are in core/debug.cpp, reached only through engine_hook.
#include "core/autograd.h"

#include <unordered_set>
#include <utility>

namespace d2l {
namespace {
thread_local bool g_grad_enabled = true;
}  // namespace

bool grad_enabled() { return g_grad_enabled; }
NoGrad::NoGrad() : prev_(g_grad_enabled) { g_grad_enabled = false; }
NoGrad::~NoGrad() { g_grad_enabled = prev_; }

// --- recording: OpCall -------------------------------------------------------------------

OpCall::OpCall(const char* op, std::initializer_list<Tensor> inputs) : op_(op) {
  take_inputs(inputs.begin(), inputs.size());
}

OpCall::OpCall(const char* op, const std::vector<Tensor>& inputs) : op_(op) {
  take_inputs(inputs.data(), inputs.size());
}

void OpCall::take_inputs(const Tensor* inputs, size_t n) {
  // The output needs a gradient if any input does (and grad mode is on).
  for (size_t i = 0; i < n; ++i)
    if (inputs[i].defined() && inputs[i].node()->requires_grad) needs_grad_ = true;
  needs_grad_ = needs_grad_ && g_grad_enabled;
  // Keep the inputs only when something will read them: the graph, or a debug switch.
  if (needs_grad_ || engine_hook) {
    inputs_.reserve(n);
    for (size_t i = 0; i < n; ++i) inputs_.push_back(inputs[i].node_ptr());
  }
  if (engine_hook) engine_hook->op_started(*this);
}

Tensor OpCall::finish(Tensor y, BackwardFn backward) {
  Node& n = *y.node();
  n.op = op_;
  if (engine_hook) engine_hook->op_finished(*this, n, backward);
  if (needs_grad_ && backward) {
    // The graph: y remembers its inputs and how to send its gradient back to them.
    n.requires_grad = true;
    n.inputs = std::move(inputs_);
    n.backward_fn = std::move(backward);
  }
  return y;
}

Tensor OpCall::finish(Tensor y) { return finish(std::move(y), nullptr); }

// --- the backward pass ---------------------------------------------------------------------

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
  // Walk from the root back to the leaves: each node's gradient is complete when it runs
  // (the chain rule, summed over every path, because all later nodes have already added in).
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = it->get();
    if (n->grad && n->backward_fn) {
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
}

}  // namespace d2l
