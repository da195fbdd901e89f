// core/autograd.h — recording the graph as ops run (define-by-run) and running it backwards.
//
// Every op passes through one dispatch point, OpCall. An op constructs it with its name and
// inputs, computes its output, then calls finish(y, backward):
//
//   Tensor softmax(const Tensor& x) {
//     OpCall op("softmax", {x});
//     ... y = forward(x) ...
//     return op.finish(y, [R, C](Node& node) { softmax_backward(node.input_grad(0), ...); });
//   }
//
// finish() links y to its inputs when grad mode is on and some input requires a gradient.
// The backward closure receives y's graph node; it must not capture a Tensor handle to y
// itself (a shared_ptr cycle: the graph would never be freed).
//
// The teaching switches (D2L_TRACE, D2L_PROFILE, D2L_CHECK_NUMERICS) live in core/debug.h;
// the engine reaches them through one pointer, engine_hook, that is null while all are off.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace d2l {

// What an op's backward reads besides the gradients: a bit per input (input i is bit i; the
// inputs from 30 on share bit 30) and one for the op's own output. finish() records it so
// the engine can free the data of a tensor that is still in the graph but that no backward
// will read, once no Tensor handle refers to it (see Node::graph_links): a Linear's output
// when a ReLU reads only its own output, a concatenation that dropout reads only through its
// gradient. PyTorch's autograd frees the same tensors, since it keeps only what each backward
// saved. Ops that say nothing read everything (kReadsAll), which is always correct.
enum DataReads : uint32_t {
  kReadsNothing = 0,
  kReadsOutput = 1u << 31,
  kReadsAll = ~0u,
};
constexpr uint32_t reads_input(size_t i) { return 1u << (i < 30 ? i : 30); }

class OpCall {
 public:
  OpCall(const char* op, std::initializer_list<Tensor> inputs);
  OpCall(const char* op, const std::vector<Tensor>& inputs);
  ~OpCall();  // current_op() goes back to the op that called this one, if any
  OpCall(const OpCall&) = delete;
  OpCall& operator=(const OpCall&) = delete;
  // Records y's history (if any input needs a gradient and grad mode is on) and returns y.
  Tensor finish(Tensor y, BackwardFn backward, uint32_t reads = kReadsAll);
  Tensor finish(Tensor y);  // for results no gradient flows through (masks, argmax, ...)
  bool needs_grad() const { return needs_grad_; }
  const char* name() const { return op_; }
  // The inputs, kept only when the graph or a debug switch will read them (else empty).
  const NodeList& inputs() const { return inputs_; }
  int64_t started_ns = 0;  // when the op began; the profile switch sets and reads it

 private:
  void take_inputs(const Tensor* inputs, size_t n);
  const char* op_;
  const char* outer_op_;  // current_op() before this one began
  NodeList inputs_;
  bool needs_grad_ = false;
  bool without_grad_ = false;  // grad mode off, but an input requires grad or came from such
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
  OpScope& operator=(const OpScope&) = delete;

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
  NoGrad& operator=(const NoGrad&) = delete;

 private:
  bool prev_;
};

// --- the one hook the debug switches hang on -----------------------------------------------
// core/debug.cpp points engine_hook at its functions while a switch is on and resets it to
// null when all are off, so a normal op pays one branch for all of them.
struct EngineHook {
  void (*op_started)(OpCall& call);
  // After the forward computed y, before y is linked into the graph; may wrap `backward`.
  void (*op_finished)(OpCall& call, Node& y, BackwardFn& backward);
  void (*run_node_backward)(Node& y);  // must call y.backward_fn(y)
};
extern const EngineHook* engine_hook;  // defined in core/debug.cpp (so it is always linked)

// --- internal: used by Tensor::backward ----------------------------------------------------
void run_backward(const NodePtr& root);  // root->grad must already hold d(loss)/d(root)
// run_backward's refusals, each an std::invalid_argument naming the op and the tensor
// (core/autograd_checks.cpp): a graph an earlier backward() freed, and a tensor written
// after an op read it (its data version differs from the one the op saw).
void check_not_freed(const Node& root);
void check_input_not_freed(const Node& node, const Node& in);
void check_versions(const Node& n);

}  // namespace d2l
