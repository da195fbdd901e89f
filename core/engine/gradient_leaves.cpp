// core/engine/gradient_leaves.cpp — the leaves a backward pass reached (see core/engine/gradient_leaves.h).
#include "core/engine/gradient_leaves.h"

#include "core/autograd.h"
#include "core/engine/bookkeeping.h"

#include <algorithm>
#include <unordered_set>

namespace d2l {
namespace {
thread_local std::vector<ReachedLeaf> g_leaves;
thread_local bool g_consumed = false;  // a step has read them: the next backward starts afresh
// Backward passes with no step between them (a gradient check, inference with gradients)
// would grow the list without end: past this many leaves the oldest passes are forgotten.
constexpr size_t kMaxLeaves = size_t(1) << 14;
}  // namespace

void record_gradient_leaves(const std::vector<NodePtr>& order) {
  // Gradients accumulate over backward passes until a step, and so do the leaves they reached.
  if (g_consumed || g_leaves.size() > kMaxLeaves) g_leaves.clear();
  g_consumed = false;
  last_backward_leaves();  // first forget the gone: a new leaf may have a gone one's address
  for (const NodePtr& n : order)
    for (const NodePtr& in : n->inputs)
      if (in && in->requires_grad && !in->backward_fn && !(in->book && in->book->freed) && in->inputs.empty())
        g_leaves.push_back(ReachedLeaf{in.get(), in, in->shape, n->op});
  // Each leaf once (a weight read by several ops keeps the first op found).
  std::stable_sort(g_leaves.begin(), g_leaves.end(),
                   [](const ReachedLeaf& a, const ReachedLeaf& b) { return a.node < b.node; });
  g_leaves.erase(std::unique(g_leaves.begin(), g_leaves.end(),
                             [](const ReachedLeaf& a, const ReachedLeaf& b) { return a.node == b.node; }),
                 g_leaves.end());
}

const std::vector<ReachedLeaf>& last_backward_leaves() {
  g_leaves.erase(std::remove_if(g_leaves.begin(), g_leaves.end(), [](const ReachedLeaf& l) { return l.alive.expired(); }),
                 g_leaves.end());
  return g_leaves;
}

void gradient_leaves_consumed() { g_consumed = true; }

std::string stray_gradient_leaves(const std::vector<Tensor>& params, const char* op) {
  if (last_backward_leaves().empty()) return "";
  std::unordered_set<const Node*> mine;
  for (const Tensor& p : params) mine.insert(p.node());
  std::string list;
  size_t count = 0;
  for (const ReachedLeaf& leaf : g_leaves)
    if (!mine.count(leaf.node)) {
      if (count < 8) list += std::string(count ? "; " : "") + shape_str(leaf.shape) + " read by " + leaf.read_by;
      ++count;
    }
  if (count == 0) return "";
  if (count > 8) list += "; and " + std::to_string(count - 8) + " more";
  return "[" + std::string(op) + ".step] " + std::to_string(count) + (count == 1 ? " tensor" : " tensors") +
         " received a gradient in the backward passes since the last step but " + (count == 1 ? "is" : "are") +
         " not among the parameters of any optimiser, so " + (count == 1 ? "it is" : "they are") +
         " never updated (nor saved by Module::save): " + list +
         ". A layer not registered (register_module forgotten)? A weight replaced after construction "
         "(layer.weight = t)? Register it, or list it in the optimiser.";
}

}  // namespace d2l
