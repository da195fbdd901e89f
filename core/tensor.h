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
#include <numeric>
#include <string>
#include <vector>

#include "core/shape.h"

namespace d2l {

struct Node;
struct NodeBookkeeping;
struct StorageBlock;
using NodePtr = std::shared_ptr<Node>;
using NodeList = std::vector<NodePtr>;  // a node's inputs
// A node's backward: adds its gradient into its inputs' gradients.
using BackwardFn = std::function<void(Node&)>;

class Tensor {
 public:
  Tensor() = default;                       // an empty handle: defined() is false
  explicit Tensor(NodePtr node) : node_(std::move(node)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor other) noexcept { node_.swap(other.node_); return *this; }
  // Dropping a handle may free the data of a graph node that only the graph still holds
  // and that no backward reads (the engine's memory policy, core/engine/bookkeeping.cpp).
  ~Tensor();

  // --- shape -------------------------------------------------------------------------
  bool defined() const { return node_ != nullptr; }
  const Shape& shape() const;
  int64_t ndim() const { return static_cast<int64_t>(shape().size()); }
  int64_t numel() const;
  int64_t size(int64_t dim) const;          // negative dims count from the end, as in PyTorch

  // --- data --------------------------------------------------------------------------
  // The non-const accessors hand out the data for writing, so each call bumps the data's
  // version (Storage, below). Read through a const Tensor (or to_vector(), item()) to leave the
  // version alone.
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
  // As on Module and Optimizer, PyTorch 2's default (set_to_none=True): the gradient is
  // dropped and the next backward starts from 0; set_to_none = false fills it with 0 (PyTorch
  // 1.x). Either way the next backward gives the same numbers.
  void zero_grad(bool set_to_none = true);
  void backward();                          // from a one-element tensor: d(self)/d(self) = 1
  void backward(const Tensor& grad_output); // with an explicit gradient of the same shape
  Tensor detach() const;                    // same data (copied), no history, no grad
  const char* op_name() const;              // "leaf" for tensors no op produced

  Node* node() const { return node_.get(); }
  const NodePtr& node_ptr() const { return node_; }

 private:
  NodePtr node_;
};

// The memory behind a Node: n floats, 64-byte aligned, from the engine's pool. Copies share
// the block, as a reshaped tensor shares its input's data (PyTorch's views share storage).
// The version counts the writes the Tensor API handed out (Tensor::data(), at()): backward
// compares it with the version each op saw, so a tensor changed in between is an error, not
// a wrong gradient. How the block is held: core/engine/storage.cpp; a first reading skips it.
class Storage {
 public:
  Storage() = default;
  explicit Storage(size_t n);  // contents undefined
  float* get() const;          // null when empty
  explicit operator bool() const { return get() != nullptr; }
  uint64_t version() const;
  void bump_version();

 private:
  std::shared_ptr<StorageBlock> block_;  // the floats and their version (core/engine/storage.h)
};

// The graph node behind every Tensor. Ops fill it in through OpCall (core/autograd.h).
struct Node {
  Shape shape;
  Storage data;                     // numel() floats, 64-byte aligned (shared by reshapes)
  Storage grad;                     // d(loss)/d(this): allocated (zeroed) when the first arrives
  bool requires_grad = false;
  const char* op = "leaf";          // the op that made it
  NodeList inputs;                  // what that op read (empty for leaves)
  BackwardFn backward_fn;           // adds this node's grad into its inputs' grads
  std::string name;                 // a module parameter's name (Module sets it), for messages
  // The engine's notes (core/engine/bookkeeping.h; a first reading can skip them): data versions
  // for the in-place checks, the backward walk's visit mark, what the op saved for backward
  // and the counts that free memory early. Allocated with the node (make_node).
  NodeBookkeeping* book = nullptr;
  ~Node();                          // iterative: a deep chain must not recurse per node

  int64_t numel() const { return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>()); }
  float* input_grad(size_t i);              // what backward adds into, or null (core/autograd.cpp)
  const float* input_data(size_t i) const;  // what the op saved for backward, or null
  const Shape& input_shape(size_t i) const { return inputs[i]->shape; }
  float* grad_data();               // this node's own gradient (allocated zeroed if absent)
};

NodePtr make_node();               // an empty Node with its bookkeeping (core/engine/bookkeeping.cpp)
Tensor empty(const Shape& shape);  // uninitialised data; zeros, ones, arange, ...: core/creation.h

// x's shape for a message, and () for an undefined tensor (an absent bias, state, ...).
inline Shape printable_shape(const Tensor& x) { return x.defined() ? x.shape() : Shape{}; }

// Printing in PyTorch's style, tensor([[0.1000, 0.2000], ...]), by torch's rules and default
// options (core/engine/print.cpp).
std::string str(const Tensor& x, int decimals = 4);
std::ostream& operator<<(std::ostream& os, const Tensor& x);

}  // namespace d2l
