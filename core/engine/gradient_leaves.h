// core/engine/gradient_leaves.h — which leaves the backward passes since the last step
// reached, so an optimiser can notice a weight that receives gradients but that it does not
// update.
//
// A parameter falls out of training without a word when its layer was never registered
// (register_module forgotten) or when a layer's weight handle was replaced after
// construction (`lin.weight = t`, or `b.weight = a.weight` to share): the forward reads the
// new tensor, while Module::parameters(), the optimiser and save() still hold the old one.
// PyTorch re-registers on attribute assignment; C++ cannot see the assignment, so the
// engine notes instead every leaf a backward pass reaches (a tensor that requires a
// gradient and was made by no op) with the op that read it, and Optimizer::step compares
// them with its parameters: a leaf that received a gradient but is not among them is named
// by its shape and the op that read it, once per optimiser, on stderr.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace d2l {

struct ReachedLeaf {
  const Node* node;  // for identity only: the leaf may be gone since
  std::weak_ptr<Node> alive;  // whether it is not: a leaf that is gone is nobody's weight
  Shape shape;
  const char* read_by;  // the op whose input it was ("linear", "matmul", ...)
};

// Called by the backward pass with its nodes (each one an op's output) before it frees them:
// records the leaves among their inputs that require a gradient, adding to those of the
// passes before it until an optimiser's step has read them (gradient accumulation: two
// backward passes, one step). Per thread.
void record_gradient_leaves(const std::vector<NodePtr>& order);

// The leaves the backward passes on this thread reached since the last step, each once,
// those that no longer exist left out.
const std::vector<ReachedLeaf>& last_backward_leaves();
// An optimiser's step has read them: the next backward pass starts a new list.
void gradient_leaves_consumed();

// "" when every leaf those passes reached is in `params`; else the message, naming each
// other leaf by shape and op, e.g. "[Adam.step] 1 tensor received a gradient in the backward
// passes since the last step but is not among the parameters of any optimiser: (4, 3) read by linear. ..."
std::string stray_gradient_leaves(const std::vector<Tensor>& params, const char* op);

}  // namespace d2l
