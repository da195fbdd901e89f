// core/autograd.h — recording the graph as ops run (define-by-run) and running it backwards.
//
// Every op passes through one dispatch point, OpCall. An op constructs it with its name and
// inputs, computes its output, then calls finish(y, backward):
//
//   Tensor softmax(const Tensor& x) {
//     OpCall op("softmax", {x});
//     ... y = forward(x) ...
//     return op.finish(y, [R, C](Node& y) { softmax_backward(y.input_grad(0), ...); });
//   }
//
// finish() links y to its inputs when grad mode is on and some input requires a gradient,
// and is where the teaching switches hang: D2L_TRACE=1 prints "softmax (2, 4) -> (2, 4)",
// D2L_PROFILE=1 adds the forward time (and the backward engine the backward time) to the
// per-op table printed at exit, D2L_CHECK_NUMERICS=1 stops at the first non-finite output
// (and, for ops recorded while it is on, at the first non-finite gradient in backward),
// naming the op, its input shapes and the SectionScope it ran in, like PyTorch's
// torch.autograd.set_detect_anomaly.
// The backward closure receives the *output* node; it must not capture a Tensor handle to
// its own output (a shared_ptr cycle: the graph would never be freed).
#pragma once
#include <chrono>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace d2l {

using BackwardFn = std::function<void(Node&)>;

class OpCall {
 public:
  OpCall(const char* op, std::initializer_list<Tensor> inputs);
  OpCall(const char* op, const std::vector<Tensor>& inputs);
  // Records y's history (if any input needs a gradient and grad mode is on) and returns y.
  Tensor finish(Tensor y, BackwardFn backward);
  Tensor finish(Tensor y);  // for results no gradient flows through (masks, argmax, ...)
  bool needs_grad() const { return needs_grad_; }

 private:
  void begin(const char* op);
  const char* op_;
  std::vector<NodePtr> inputs_;
  bool needs_grad_ = false;
  std::chrono::steady_clock::time_point start_;
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

// --- seeing the engine work ----------------------------------------------------------------
void set_trace(bool on);      // also D2L_TRACE=1
bool trace_enabled();
void set_profile(bool on);    // also D2L_PROFILE=1; the table prints at exit or on demand
bool profile_enabled();
void print_profile();         // op, calls, forward ms, backward ms; then clears the table
void set_check_numerics(bool on);  // also D2L_CHECK_NUMERICS=1
bool check_numerics_enabled();

// RAII: names the book section (or layer) whose ops run while it lives, for the numerics
// check's message. Layers open one in forward, and nested layers nest:
//   SectionScope section("10.5 MultiHeadAttention");
// makes a NaN inside read "... in 10.7 EncoderBlock > 10.5 MultiHeadAttention". The label
// must outlive the scope (a string literal). Per thread; costs a push and a pop.
class SectionScope {
 public:
  explicit SectionScope(const char* label);
  ~SectionScope();
  SectionScope(const SectionScope&) = delete;
  SectionScope& operator=(const SectionScope&) = delete;
};
std::string current_section();  // "10.7 EncoderBlock > 10.5 MultiHeadAttention", or ""
// Writes the graph that produced `root` as Graphviz DOT (render: dot -Tpng graph.dot).
void to_dot(const Tensor& root, const std::string& path);

// Every op's output shape for the trace line, e.g. "matmul (2, 3) (3, 4) -> (2, 4)".
std::string describe_call(const char* op, const std::vector<NodePtr>& inputs, const Shape& out);

// --- internal: used by Tensor::backward ----------------------------------------------------
void run_backward(const NodePtr& root);  // root->grad must already hold d(loss)/d(root)

}  // namespace d2l
