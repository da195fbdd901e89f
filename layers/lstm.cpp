// layers/lstm.cpp — 9.2 长短期记忆网络（LSTM） / Long Short-Term Memory (sec_lstm): the
// nn.LSTM stack, each step from core ops.
#include "layers/lstm.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/debug/debug.h"
#include "core/nn/init.h"
#include "core/ops.h"

namespace d2l {

LSTM::LSTM(int64_t input_size_, int64_t num_hiddens_, int64_t num_layers_, float dropout_)
    : input_size(input_size_), num_hiddens(num_hiddens_), num_layers(num_layers_), dropout(dropout_) {
  check(input_size > 0 && num_hiddens > 0 && num_layers >= 1, "LSTM", "input_size (", input_size, "), num_hiddens (",
        num_hiddens, ") and num_layers (", num_layers, ") must be positive");
  check(dropout >= 0.0f && dropout < 1.0f, "LSTM", "dropout must be in [0, 1), got ", dropout);
  const float bound = 1.0f / std::sqrt(static_cast<float>(num_hiddens));
  for (int64_t k = 0; k < num_layers; ++k) {
    const std::string l = "_l" + std::to_string(k);
    const int64_t in = k == 0 ? input_size : num_hiddens;
    // PyTorch's order (weight_ih, weight_hh, bias_ih, bias_hh), each U(−1/√h, 1/√h).
    Tensor w_ih = empty({4 * num_hiddens, in}), w_hh = empty({4 * num_hiddens, num_hiddens});
    Tensor b_ih = empty({4 * num_hiddens}), b_hh = empty({4 * num_hiddens});
    for (Tensor* p : {&w_ih, &w_hh, &b_ih, &b_hh}) uniform_(*p, -bound, bound);
    weight_ih.push_back(register_parameter("weight_ih" + l, w_ih));
    weight_hh.push_back(register_parameter("weight_hh" + l, w_hh));
    bias_ih.push_back(register_parameter("bias_ih" + l, b_ih));
    bias_hh.push_back(register_parameter("bias_hh" + l, b_hh));
  }
}

std::string LSTM::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(num_hiddens);
  if (num_layers != 1) s += ", num_layers=" + std::to_string(num_layers);
  if (dropout != 0.0f) s += ", dropout=" + python_float(dropout);
  return s;
}

std::pair<Tensor, LSTMState> LSTM::forward(const Tensor& X, const LSTMState& state) {
  check(X.defined() && X.ndim() == 3 && X.shape()[2] == input_size && X.shape()[0] >= 1, "LSTM",
        "X must be (num_steps >= 1, batch_size, input_size = ", input_size, "), got ",
        printable_shape(X));
  const int64_t T = X.shape()[0], B = X.shape()[1], H = num_hiddens;
  const Shape want{num_layers, B, H};
  check(state.h.defined() == state.c.defined(), "LSTM", "state needs both h and c, or neither (zeros)");
  check(!state.h.defined() || (state.h.shape() == want && state.c.shape() == want), "LSTM", "state h ",
        printable_shape(state.h), " and c ", printable_shape(state.c),
        " must be (num_layers, batch_size, num_hiddens) = ", want, " for X ", X.shape());
  Tensor x = X;
  std::vector<Tensor> last_h, last_c;  // each layer's state at the final step, (batch_size, num_hiddens)
  for (int64_t k = 0; k < num_layers; ++k) {
    Tensor h = state.h.defined() ? select(state.h, 0, k) : zeros({B, H});
    Tensor c = state.c.defined() ? select(state.c, 0, k) : zeros({B, H});
    // The input half of every gate for all steps in one GEMM: (T, B, in) -> (T, B, 4h).
    const Tensor gi = linear(x, weight_ih[k], bias_ih[k]);
    std::vector<Tensor> hs;
    for (int64_t t = 0; t < T; ++t) {
      const Tensor gates = select(gi, 0, t) + linear(h, weight_hh[k], bias_hh[k]);  // (B, 4h): [i | f | g | o]
      const Tensor i = sigmoid(slice(gates, 1, 0, H));
      const Tensor f = sigmoid(slice(gates, 1, H, 2 * H));
      const Tensor g = tanh(slice(gates, 1, 2 * H, 3 * H));
      const Tensor o = sigmoid(slice(gates, 1, 3 * H, 4 * H));
      c = f * c + i * g;
      h = o * tanh(c);
      hs.push_back(h);
    }
    last_h.push_back(h);
    last_c.push_back(c);
    const Tensor out = stack(hs, 0);  // (T, B, h)
    x = k + 1 < num_layers ? d2l::dropout(out, dropout, training()) : out;
  }
  return {x, {stack(last_h, 0), stack(last_c, 0)}};
}

}  // namespace d2l
