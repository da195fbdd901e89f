// core/tensor.h — Tensor: a float32, N-dimensional, row-major array that remembers how it
// was computed, so reverse-mode autodiff can run the computation backwards.
//
// A Tensor is a cheap handle: copying it copies a std::shared_ptr<Node>, never the data
// (like a PyTorch tensor variable). The Node holds the shape, contiguous data, the gradient,
// and, for a tensor produced by an op while grad mode is on, the op's name, its inputs and
// the closure that sends the output's gradient back to them (core/autograd.h).
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/check.h"
#include "core/backward_fn.h"
#include "core/shape.h"
#include "core/small_vector.h"

namespace d2l {

struct Node;
using NodePtr = std::shared_ptr<Node>;
// A node's inputs: ops have one to three, kept inside the node (core/small_vector.h).
using NodeList = SmallVector<NodePtr, 3>;

class Tensor {
 public:
  Tensor() = default;                       // an empty handle: defined() is false
  explicit Tensor(NodePtr node) : node_(std::move(node)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  // Dropping a handle (destruction or assignment) may free the data of a graph node that only
  // the graph still holds and that no backward reads (free_unread_data, core/tensor.cpp).
  Tensor& operator=(Tensor other) noexcept {
    node_.swap(other.node_);
    return *this;
  }
  ~Tensor();  // inline, after Node

  // --- shape -------------------------------------------------------------------------
  bool defined() const { return node_ != nullptr; }
  const Shape& shape() const;
  int64_t ndim() const { return static_cast<int64_t>(shape().size()); }
  int64_t numel() const;
  int64_t size(int64_t dim) const;          // negative dims count from the end, as in PyTorch

  // --- data --------------------------------------------------------------------------
  // The non-const accessors hand out the data for writing, so each call counts as a write:
  // it bumps the data's version (Storage, core/allocator.h), and backward refuses a graph
  // that read this tensor before the write. Read through a const Tensor (or to_vector(),
  // item()) to leave the version alone.
  float* data();
  const float* data() const;
  float item() const;                       // the value of a one-element tensor
  float& at(std::initializer_list<int64_t> index);        // bounds-checked element access
  float at(std::initializer_list<int64_t> index) const;
  uint64_t version() const;                 // the data's version: writes so far (PyTorch's _version)
  std::vector<float> to_vector() const;

  // --- autodiff ----------------------------------------------------------------------
  bool requires_grad() const;
  Tensor& requires_grad_(bool on = true);   // only on leaves (tensors made by no op)
  Tensor grad() const;                      // a copy of the gradient; undefined if none yet
  float* grad_data();                       // the gradient buffer itself (optimisers), or null
  const float* grad_data() const;
  // zero_grad means one thing on Tensor, Module and Optimizer, PyTorch 2's default
  // (set_to_none=True): the gradient is dropped, grad() is undefined until the next backward,
  // which starts from 0. set_to_none = false keeps the buffer and fills it with 0 (PyTorch
  // 1.x's default). Either way the next backward gives the same numbers; optimisers skip a
  // parameter with no gradient, as PyTorch's do.
  void zero_grad(bool set_to_none = true);
  void backward();                          // from a one-element tensor: d(self)/d(self) = 1
  void backward(const Tensor& grad_output); // with an explicit gradient of the same shape
  Tensor detach() const;                    // same data (copied), no history, no grad
  const char* op_name() const;              // "leaf" for tensors no op produced

  Node* node() const { return node_.get(); }
  const NodePtr& node_ptr() const { return node_; }

 private:
  void free_unread_data();
  NodePtr node_;
};

// The graph node behind every Tensor. Ops fill it in through OpCall (core/autograd.h).
struct Node {
  Shape shape;
  int64_t numel = 0;
  Storage data;                     // numel floats, 64-byte aligned (shared by reshapes)
  Buffer grad;                      // allocated (zeroed) on the first gradient that arrives
  bool requires_grad = false;
  const char* op = "leaf";
  NodeList inputs;                  // what this op read (empty for leaves)
  BackwardFn backward_fn;           // adds this node's grad into its inputs' grads (a
                                    // std::function<void(Node&)> kept inline: core/backward_fn.h)
  // With backward_fn: each input's data version when the op ran, then this node's own after
  // the op wrote it. Backward checks them before running backward_fn (core/autograd.cpp).
  SmallVector<uint64_t, 4> saved_versions;  // up to 3 inputs held inline (core/small_vector.h)
  bool freed = false;               // backward() dropped backward_fn and inputs (retain_graph=False)
  // Made while grad mode was off (inside a NoGrad) from tensors that require grad, or from
  // such a tensor: backward() then says that no graph was recorded, and why.
  bool made_without_grad = false;
  uint64_t visited = 0;             // the last backward pass that reached this node (run_backward)
  // Memory: graph_links counts the recorded ops that hold this node as an input, and
  // data_readers those of them (and this node's own backward) whose backward reads its data
  // (OpCall::finish's `reads`). When the last Tensor handle goes and nothing reads the data,
  // it is freed (data_freed) while the node stays in the graph for its gradient.
  uint32_t graph_links = 0;
  uint32_t data_readers = 0;
  bool data_freed = false;
  std::string name;                 // a module parameter's name (Module sets it), for messages
  ~Node();                          // iterative: a deep chain must not recurse per node

  // The gradient buffer of input i, zero-filled on first use, or nullptr when that input
  // needs no gradient: backward closures skip those (tinygrad's needs_input_grad).
  float* input_grad(size_t i);
  // input i's gradient += this node's, for an op whose output is its input's numbers in
  // another shape (reshape, unsqueeze, squeeze). When input i has no gradient buffer yet,
  // this node's buffer becomes it (backward drops this node's right after its step):
  // nothing to zero-fill, add or free.
  void pass_grad_to_input(size_t i);
  const float* input_data(size_t i) const { return inputs[i]->data.get(); }
  const Shape& input_shape(size_t i) const { return inputs[i]->shape; }
  float* grad_data();               // this node's own gradient (allocated zeroed if absent)
};

inline Tensor::~Tensor() {
  if (node_ && node_->graph_links && !node_->data_readers) free_unread_data();
}

// --- creation (the book's torch.zeros, torch.ones, ...) --------------------------------
NodePtr make_node();  // an empty Node, node and reference count in one block of the object pool
Tensor empty(const Shape& shape);                       // uninitialised data
Tensor zeros(const Shape& shape);
Tensor ones(const Shape& shape);
Tensor full(const Shape& shape, float value);
Tensor arange(int64_t end);                             // 0, 1, ..., end-1 as float
Tensor arange(float start, float end, float step = 1.0f);
Tensor eye(int64_t n);
Tensor normal(float mean, float std, const Shape& shape);  // d2l.normal: seeded generator
Tensor rand(const Shape& shape);                           // uniform [0, 1)
// torch.randint(low, high, size): integers uniform in [low, high), stored as floats (so
// |low| and |high| are at most 2^24, where float32 still holds every integer).
Tensor randint(int64_t low, int64_t high, const Shape& shape);
Tensor tensor(const std::vector<float>& values, const Shape& shape);
Tensor tensor(std::initializer_list<float> values);        // 1-D
Tensor tensor(std::initializer_list<std::initializer_list<float>> rows);  // 2-D
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);

int64_t numel_of(const Shape& shape);
int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op);  // -1 -> ndim-1, checked
// The same, for a dim of `shape` (or of shape with `extra` more dims, for unsqueeze and
// stack), naming the shape in the error.
int64_t normalize_dim(int64_t dim, const Shape& shape, const char* op, int64_t extra = 0);

// --- printing in PyTorch's style: tensor([[0.1000, 0.2000], ...]) ------------------------
// torch's rules and default options (core/tensor_print.cpp): more than 1000 elements are
// summarised to the first and last 3 along each dim with "...", rows wrap at 80 columns.
std::string str(const Tensor& x, int decimals = 4);
std::ostream& operator<<(std::ostream& os, const Tensor& x);

}  // namespace d2l
