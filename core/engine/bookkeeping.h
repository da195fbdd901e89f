// core/engine/bookkeeping.h — what the engine notes about each graph node beyond the idea of it
// (Node::book), and the engine's memory policy. A first reading can skip this file: the
// graph, the gradients and the backward pass work the same without any of it.
//
// The notes serve three purposes:
//   - checks with clear messages: the data versions each op saw (an in-place write between
//     forward and backward is an error, core/engine/checks.cpp), whether backward() freed
//     the node, whether it was made while grad mode was off;
//   - the backward walk's visit mark (each node is ordered once per pass);
//   - memory: what the op said its backward reads (OpCall::save_for_backward), so the data
//     nobody will read can be freed as soon as no Tensor handle refers to it, and which
//     inputs receive the output's gradient unchanged (OpCall::gradient_is_identity), so
//     that gradient buffer can become theirs instead of being copied.
// Every rule that uses these notes is in core/engine/bookkeeping.cpp, in one place; the ops only
// declare what their backward needs.
#pragma once
#include <cstdint>

#include "core/engine/small_vector.h"
#include "core/autograd.h"

namespace d2l {

struct NodeBookkeeping {
  // With a backward: each input's data version when the op ran, then the node's own after
  // the op wrote it. Backward checks them before the node's step (check_versions).
  SmallVector<uint64_t, 4> saved_versions;
  uint64_t visited = 0;            // the last backward pass that reached this node
  // What the op's backward reads (OpCall::save_for_backward): input_bit(i) for input i,
  // kSavedOutput for the node's own data (core/autograd.h). All by default: an op that
  // declares nothing keeps everything, which is always correct.
  uint32_t saved = ~0u;
  uint32_t identity_grads = 0;     // bit i: input i's gradient is this node's, unchanged
  // How many recorded ops hold this node as an input, and how many backward steps (theirs,
  // or this node's own) read its data. With links but no readers, the data is freed when
  // the last Tensor handle goes (Tensor::~Tensor), the node staying for its gradient.
  uint32_t graph_links = 0;
  uint32_t data_readers = 0;
  bool data_freed = false;
  bool freed = false;              // backward() dropped backward_fn and inputs (retain_graph=False)
  // Made while grad mode was off (inside a NoGrad) from tensors that require grad, or from
  // such a tensor: backward() then says that no graph was recorded, and why.
  bool made_without_grad = false;
};

}  // namespace d2l
