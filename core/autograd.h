// core/autograd.h — recording the graph as ops run (define-by-run) and running it backwards.
//
// Every op passes through one dispatch point, OpCall. An op constructs it with its name and
// inputs, computes its output, says what its backward will read (as PyTorch's
// ctx.save_for_backward), then calls finish(y, backward):
//
//   Tensor softmax(const Tensor& x) {
//     OpCall op("softmax", {x});
//     ... y = forward(x) ...
//     op.save_for_backward(y);  // the backward reads y, not x
//     return op.finish(y, [R, C](Node& node) { softmax_backward(node.input_grad(0), ...); });
//   }
//
// The backward closure receives y's graph node; it must not capture a Tensor handle to y
// itself (a shared_ptr cycle: the graph would never be freed).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace d2l {

// The bits of OpCall's declarations: one per input (inputs from 30 on share bit 30), and
// the top one for the op's output.
constexpr uint32_t input_bit(size_t i) { return 1u << (i < 30 ? i : 30); }
constexpr uint32_t kSavedOutput = 1u << 31;

class OpCall {
 public:
  OpCall(const char* op, std::initializer_list<Tensor> inputs);
  OpCall(const char* op, const std::vector<Tensor>& inputs);
  ~OpCall();  // current_op() goes back to the op that called this one, if any
  OpCall(const OpCall&) = delete;
  // What the backward reads besides the gradients, as PyTorch's ctx.save_for_backward: some
  // of this op's inputs and/or its output (undefined tensors are ignored; calls add up).
  // Node::input_data gives the saved inputs' data. An op that never calls it keeps
  // everything; one that does lets the engine free the rest early.
  template <class... Tensors>
  void save_for_backward(const Tensors&... tensors) {
    declared_saves_ = true;
    (save(tensors), ...);
  }
  // d(loss)/d(input i) is d(loss)/d(output), number for number (a + b, reshape): the backward
  // skips input i (input_grad(i) is null) and the engine adds the output's gradient into it.
  void gradient_is_identity(size_t i) { identity_grads_ |= input_bit(i); }
  // Records y's history (if any input needs a gradient and grad mode is on) and returns y.
  Tensor finish(Tensor y, BackwardFn backward);
  Tensor finish(Tensor y);  // for results no gradient flows through (masks, argmax, ...)
  bool needs_grad() const { return needs_grad_; }
  const char* name() const { return op_; }
  // The inputs, kept only when the graph or a debug switch will read them (else empty).
  const NodeList& inputs() const { return inputs_; }
  int64_t started_ns = 0;  // when the op began; the profile switch sets and reads it

 private:
  void take_inputs(const Tensor* inputs, size_t n);
  void save(const Tensor& t);
  const char* op_;
  const char* outer_op_;  // current_op() before this one began
  NodeList inputs_;
  bool needs_grad_ = false;
  bool without_grad_ = false;  // grad mode off, but an input requires grad or came from such
  bool declared_saves_ = false;
  uint32_t saved_ = 0;          // bit i: input i; the top bit: the output (saved_output_)
  const Node* saved_output_ = nullptr;
  uint32_t identity_grads_ = 0;
};

// The innermost op running on this thread (its OpCall or OpScope alive), or nullptr: errors
// raised below an op, such as an undefined input tensor, name it.
const char* current_op();

// Names an op for the errors raised before its OpCall exists: a composite op (matmul, the
// whole-tensor max, stack, ...) that reads its inputs' shapes first, then calls other ops.
class OpScope {
 public:
  explicit OpScope(const char* op);
  ~OpScope();
  OpScope(const OpScope&) = delete;

 private:
  const char* outer_op_;
};

// --- grad mode ---------------------------------------------------------------------------
bool grad_enabled();
// RAII: no graph is recorded while a NoGrad lives (torch.no_grad(), for prediction).
class NoGrad {
 public:
  NoGrad();
  ~NoGrad();
  NoGrad(const NoGrad&) = delete;

 private:
  bool prev_;
};

// --- the one hook the debug switches hang on -----------------------------------------------
// While D2L_TRACE, D2L_PROFILE or D2L_CHECK_NUMERICS is on, core/debug/debug.cpp points engine_hook
// at its functions; with all off it is null, so a normal op pays one branch for all of them.
struct EngineHook {
  void (*op_started)(OpCall& call);
  // After the forward computed y, before y is linked into the graph; may wrap `backward`.
  void (*op_finished)(OpCall& call, Node& y, BackwardFn& backward);
  void (*run_node_backward)(Node& y);  // must call y.backward_fn(y), then add_identity_grads(y)
};
extern const EngineHook* engine_hook;  // defined in core/debug/debug.cpp (so it is always linked)

// --- internal: used by Tensor::backward ----------------------------------------------------
void run_backward(const NodePtr& root);  // root->grad must already hold d(loss)/d(root)
// The engine's notes and memory policy (core/engine/bookkeeping.cpp), the optimisers' stray-gradient
// check (core/engine/gradient_leaves.cpp), and backward's refusals, naming the op and the tensor: a
// graph an earlier backward() freed, a tensor written after an op read it
// (core/engine/checks.cpp).
void note_recorded_op(Node& y, bool recorded, bool without_grad, uint32_t saved, uint32_t identity_grads);
bool first_visit(Node& n, uint64_t pass);  // true the first time a backward pass reaches n
bool made_without_grad(const Node& n);     // in a NoGrad, from tensors that require grad
void add_identity_grads(Node& n);          // gradient_is_identity's inputs get n's gradient
void free_graph_step(Node& n);             // retain_graph=False: n's closure and links go
bool saved_input(const Node& n, size_t i);          // save_for_backward kept input i
bool gets_grad_unchanged(const Node& n, size_t i);  // gradient_is_identity for input i
void free_unread_data(const NodePtr& node);         // a handle going: free what no backward reads
void record_gradient_leaves(const std::vector<NodePtr>& order);
void check_not_freed(const Node& root);
void check_input_not_freed(const Node& node, const Node& in);
void check_versions(const Node& n);

}  // namespace d2l
