// core/debug/backward_steps.cpp — BackwardRecorder (core/debug/backward_steps.h): the engine's
// hook, kept for one forward and backward, copying what D2L_TRACE=2 only summarises.
#include "core/debug/backward_steps.h"

#include <algorithm>

#include "core/debug/debug.h"
#include "core/nn/module.h"

namespace d2l {
namespace {

std::vector<float> copy_of(const float* p, int64_t n) { return p ? std::vector<float>(p, p + n) : std::vector<float>(); }

}  // namespace

BackwardRecorder::BackwardRecorder() : HookChain("BackwardRecorder") {}

void BackwardRecorder::op_started(OpCall& call) { pass_op_started(call); }

// The output as computed, before the engine's memory policy may free data no backward reads.
void BackwardRecorder::op_finished(OpCall& call, Node& y, BackwardFn& backward) {
  pass_op_finished(call, y, backward);
  active()->forward_[&y] = Forward{copy_of(y.data.get(), y.numel()), current_section(), active()->ops_run_++};
}

// One step, as run_backward runs it (the hook's contract: the closure, then the identity
// gradients), with the gradients around it copied: y's before the step (a reshape hands its
// buffer on to its input), each input's before and after.
void BackwardRecorder::run_node_backward(Node& y) {
  BackwardRecorder& r = *active();
  BackwardStep step;
  step.node = r.index_of(&y);
  step.grad = copy_of(y.grad.get(), y.numel());
  std::vector<std::vector<float>> before(y.inputs.size());
  for (size_t k = 0; k < y.inputs.size(); ++k)
    if (const Node* in = y.inputs[k].get()) before[k] = copy_of(in->grad.get(), in->numel());
  pass_run_node_backward(y);
  step.sent.resize(y.inputs.size());
  for (size_t k = 0; k < y.inputs.size(); ++k) {
    const Node* in = y.inputs[k].get();
    bool seen = false;  // an input read twice (x * x) is listed at its first position
    for (size_t j = 0; j < k; ++j) seen = seen || y.inputs[j].get() == in;
    if (!in || !in->requires_grad || !in->grad || seen) continue;
    std::vector<float>& s = step.sent[k];
    s = copy_of(in->grad.get(), in->numel());
    if (!before[k].empty())
      for (size_t i = 0; i < s.size(); ++i) s[i] -= before[k][i];
  }
  r.steps_.push_back(std::move(step));
}

void BackwardRecorder::take_graph(const Tensor& root, const std::map<const Node*, std::string>& names) {
  check(root.defined(), "BackwardRecorder", "the tensor is undefined");
  graph_.clear();
  index_.clear();
  // Every node behind root, by a depth-first walk over the inputs.
  std::vector<const Node*> nodes, todo{root.node()};
  index_[root.node()] = 0;
  nodes.push_back(root.node());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    for (const NodePtr& in : n->inputs)
      if (in && index_.emplace(in.get(), -1).second) {
        nodes.push_back(in.get());
        todo.push_back(in.get());
      }
  }
  // Numbered in forward order: leaves first (in the order found), then the ops as they ran.
  auto order = [this](const Node* n) {
    const auto it = forward_.find(n);
    return it == forward_.end() || n->inputs.empty() ? -1 : it->second.index;
  };
  std::stable_sort(nodes.begin(), nodes.end(), [&](const Node* a, const Node* b) { return order(a) < order(b); });
  for (size_t i = 0; i < nodes.size(); ++i) index_[nodes[i]] = static_cast<int>(i);
  for (const Node* n : nodes) {
    RecordedNode g;
    g.op = n->op;
    g.shape = n->shape;
    g.requires_grad = n->requires_grad;
    g.forward_index = order(n);
    const auto fw = forward_.find(n);
    if (fw != forward_.end()) {
      g.value = fw->second.value;
      g.section = fw->second.section;
    } else {
      g.value = copy_of(n->data.get(), n->numel());
    }
    if (n->inputs.empty()) {
      const auto named = names.find(n);
      g.name = named != names.end() ? named->second : parameter_name(n);
    }
    for (const NodePtr& in : n->inputs) g.inputs.push_back(in ? index_.at(in.get()) : -1);
    graph_.push_back(std::move(g));
  }
}

int BackwardRecorder::index_of(const Node* n) const {
  const auto it = index_.find(n);
  return it == index_.end() ? -1 : it->second;
}

}  // namespace d2l
