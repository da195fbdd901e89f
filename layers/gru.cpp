// layers/gru.cpp — 9.1 门控循环单元（GRU） / Gated Recurrent Units (sec_gru): the recurrence
// as one op (its kernels, forward and backpropagation through time, are gru_forward and
// gru_backward in core/kernels/gru.h), and the nn.GRU stack.
#include "layers/gru.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/debug/debug.h"
#include "core/nn/init.h"
#include "core/kernels/gru.h"
#include "core/ops.h"

namespace d2l {

Tensor gru_recurrence(const Tensor& gi, const Tensor& h0, const Tensor& W_hh, const Tensor& b_hh) {
  OpCall op("gru_recurrence", {gi, h0, W_hh, b_hh});
  check(W_hh.defined() && W_hh.ndim() == 2 && W_hh.shape()[0] == 3 * W_hh.shape()[1], "gru_recurrence",
        "W_hh must be (3 * num_hiddens, num_hiddens), got ", printable_shape(W_hh));
  const int64_t D = W_hh.shape()[1], G = 3 * D;
  check(b_hh.defined() && b_hh.shape() == Shape{G}, "gru_recurrence", "b_hh ", printable_shape(b_hh),
        " must be (3 * num_hiddens,) for W_hh ", W_hh.shape());
  check(gi.defined() && gi.ndim() == 3 && gi.shape()[2] == G && gi.shape()[0] >= 1, "gru_recurrence",
        "gi must be (num_steps >= 1, batch_size, 3 * num_hiddens), got ", printable_shape(gi),
        " for W_hh ", W_hh.shape());
  const int64_t T = gi.shape()[0], B = gi.shape()[1];
  // (1, B, D) is accepted too: GRU::forward passes a one-layer slice of its state as is.
  check(h0.defined() && (h0.shape() == Shape{B, D} || h0.shape() == Shape{1, B, D}), "gru_recurrence", "h0 ",
        printable_shape(h0), " must be (batch_size, num_hiddens) = ", Shape{B, D}, " for gi ",
        gi.shape());
  Tensor H = empty({T, B, D});
  if (!op.needs_grad()) {  // nothing to keep: one step of gates and candidates, reused
    Tensor gates = empty({1, B, G}), cand = empty({1, B, D});
    kernels::gru_forward(H.data(), gates.data(), cand.data(), gi.data(), h0.data(), W_hh.data(), b_hh.data(), T, B, D,
                         false);
    return op.finish(H);
  }
  // The saved activations live in tensors (copyable handles for the closure); the closure
  // is `mutable` because the backward may reuse `gates` as scratch.
  Tensor gates = empty({T, B, G}), cand = empty({T, B, D});
  kernels::gru_forward(H.data(), gates.data(), cand.data(), gi.data(), h0.data(), W_hh.data(), b_hh.data(), T, B, D,
                       true);
  return op.finish(H, [gates, cand, T, B, D](Node& node) mutable {
    kernels::gru_backward(node.input_grad(0), node.input_grad(1), node.input_grad(2), node.input_grad(3), gates.data(),
                          cand.data(), node.data.get(), node.grad.get(), node.input_data(1), node.input_data(2), T, B,
                          D);
  });
}

GRU::GRU(int64_t input_size_, int64_t num_hiddens_, int64_t num_layers_, float dropout_)
    : input_size(input_size_), num_hiddens(num_hiddens_), num_layers(num_layers_), dropout(dropout_) {
  check(input_size > 0 && num_hiddens > 0 && num_layers >= 1, "GRU", "input_size (", input_size, "), num_hiddens (",
        num_hiddens, ") and num_layers (", num_layers, ") must be positive");
  check(dropout >= 0.0f && dropout < 1.0f, "GRU", "dropout must be in [0, 1), got ", dropout);
  const float bound = 1.0f / std::sqrt(static_cast<float>(num_hiddens));
  for (int64_t k = 0; k < num_layers; ++k) {
    const std::string l = "_l" + std::to_string(k);
    const int64_t in = k == 0 ? input_size : num_hiddens;
    // PyTorch's order (weight_ih, weight_hh, bias_ih, bias_hh), each U(−1/√h, 1/√h).
    Tensor w_ih = empty({3 * num_hiddens, in}), w_hh = empty({3 * num_hiddens, num_hiddens});
    Tensor b_ih = empty({3 * num_hiddens}), b_hh = empty({3 * num_hiddens});
    for (Tensor* p : {&w_ih, &w_hh, &b_ih, &b_hh}) uniform_(*p, -bound, bound);
    weight_ih.push_back(register_parameter("weight_ih" + l, w_ih));
    weight_hh.push_back(register_parameter("weight_hh" + l, w_hh));
    bias_ih.push_back(register_parameter("bias_ih" + l, b_ih));
    bias_hh.push_back(register_parameter("bias_hh" + l, b_hh));
  }
}

std::string GRU::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(num_hiddens);
  if (num_layers != 1) s += ", num_layers=" + std::to_string(num_layers);
  if (dropout != 0.0f) s += ", dropout=" + python_float(dropout);
  return s;
}

std::pair<Tensor, Tensor> GRU::forward(const Tensor& X, const Tensor& state) {
  check(X.defined() && X.ndim() == 3 && X.shape()[2] == input_size && X.shape()[0] >= 1, "GRU",
        "X must be (num_steps >= 1, batch_size, input_size = ", input_size, "), got ",
        printable_shape(X));
  const int64_t T = X.shape()[0], B = X.shape()[1];
  check(!state.defined() || state.shape() == Shape{num_layers, B, num_hiddens}, "GRU", "state ",
        printable_shape(state), " must be (num_layers, batch_size, num_hiddens) = ",
        Shape{num_layers, B, num_hiddens}, " for X ", X.shape());
  Tensor x = X;
  std::vector<Tensor> last;  // each layer's h at the final step, (1, batch_size, num_hiddens)
  for (int64_t k = 0; k < num_layers; ++k) {
    const Tensor h0 = state.defined() ? slice(state, 0, k, k + 1) : zeros({B, num_hiddens});
    // The input half of every gate for all steps in one GEMM: (T, B, in) -> (T, B, 3h).
    const Tensor gi = linear(x, weight_ih[k], bias_ih[k]);
    const Tensor H = gru_recurrence(gi, h0, weight_hh[k], bias_hh[k]);  // (T, B, h)
    last.push_back(slice(H, 0, T - 1, T));
    x = k + 1 < num_layers ? d2l::dropout(H, dropout, training()) : H;
  }
  return {x, concat(last, 0)};
}

}  // namespace d2l
