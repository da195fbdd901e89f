// core/engine/bookkeeping.cpp — the engine's memory policy and per-node notes (core/engine/bookkeeping.h),
// derived from what each op declared (OpCall::save_for_backward, gradient_is_identity).
// A first reading can skip it: without these rules the engine computes the same numbers,
// keeping every tensor of the graph until backward and copying every gradient.
#include "core/engine/bookkeeping.h"

#include "core/engine/allocator.h"

namespace d2l {

// --- a node and its notes, in one block of the object pool -----------------------------------

namespace {
struct NodeBlock {
  Node node;
  NodeBookkeeping book;
};
}  // namespace

NodePtr make_node() {
  std::shared_ptr<NodeBlock> block = std::allocate_shared<NodeBlock>(ObjectAllocator<NodeBlock>());
  block->node.book = &block->book;
  return NodePtr(block, &block->node);  // shares the block's reference count
}

// --- recording ------------------------------------------------------------------------------

void note_recorded_op(Node& y, bool recorded, bool without_grad, uint32_t saved, uint32_t identity_grads) {
  NodeBookkeeping& b = *y.book;
  b.made_without_grad = without_grad;
  if (!recorded) return;
  b.saved = saved;
  b.identity_grads = identity_grads;
  // The version of every tensor involved, which backward checks (check_versions).
  b.saved_versions.reserve(y.inputs.size() + 1);
  for (const NodePtr& in : y.inputs) b.saved_versions.push_back(in ? in->data.version() : 0);
  b.saved_versions.push_back(y.data.version());
  // Who will read whose data (a Tensor handle going frees what nobody reads).
  for (size_t i = 0; i < y.inputs.size(); ++i)
    if (Node* in = y.inputs[i].get()) {
      ++in->book->graph_links;
      if (saved & input_bit(i)) ++in->book->data_readers;
    }
  if (saved & kSavedOutput) ++b.data_readers;
}

bool made_without_grad(const Node& n) { return n.book->made_without_grad; }

// --- early freeing ---------------------------------------------------------------------------

// The data of a node in the graph that no backward reads, once only the graph holds the node
// (every remaining reference is an op's input link, this handle going): nothing can read it
// again, so it goes back to the allocator now rather than when backward frees the graph.
// Not while a debug switch is on (the trace and numerics checks may look at any node), nor
// once backward has run (the links it dropped are still counted).
void free_unread_data(const NodePtr& node) {
  Node& n = *node;
  NodeBookkeeping& b = *n.book;
  if (!b.graph_links || b.data_readers || b.data_freed || !n.backward_fn || engine_hook) return;
  if (node.use_count() != static_cast<long>(b.graph_links) + 1) return;
  n.data = Storage();
  b.data_freed = true;
}

// --- backward ---------------------------------------------------------------------------------

bool saved_input(const Node& n, size_t i) { return n.book->saved & input_bit(i); }
bool gets_grad_unchanged(const Node& n, size_t i) { return n.book->identity_grads & input_bit(i); }

// Input i's gradient += this node's, for the inputs whose gradient is this node's unchanged.
// When input i has no gradient buffer yet, this node's buffer becomes it (backward drops
// this node's right after its step): nothing to zero-fill, add or free. The residual
// connections of the Transformer (10.7) are such additions, reshape and unsqueeze too.
void add_identity_grads(Node& n) {
  if (!n.book->identity_grads) return;
  const int64_t numel = n.numel();
  for (size_t i = 0; i < n.inputs.size() && n.grad; ++i) {
    Node* in = n.inputs[i].get();
    if (!(n.book->identity_grads & input_bit(i)) || !in || !in->requires_grad) continue;
    check(in->numel() == numel, n.op, "the gradient of shape ", n.shape, " cannot pass to an input of shape ",
          in->shape);
    if (!in->grad) {
      in->grad = std::move(n.grad);
      continue;
    }
    float* dx = in->grad.get();
    const float* g = n.grad.get();
    for (int64_t k = 0; k < numel; ++k) dx[k] += g[k];
  }
}

bool first_visit(Node& n, uint64_t pass) {
  if (n.book->visited == pass) return false;
  n.book->visited = pass;
  return true;
}

// PyTorch's retain_graph=False: the closure, the links and the intermediate gradient go.
void free_graph_step(Node& n) {
  n.backward_fn = nullptr;
  n.inputs.clear();
  n.grad = Storage();
  n.book->freed = true;
}

}  // namespace d2l
