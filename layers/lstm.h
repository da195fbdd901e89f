// layers/lstm.h — 9.2 长短期记忆网络（LSTM） / Long Short-Term Memory (sec_lstm), as
// PyTorch's nn.LSTM: the recurrent layer 10.4's first exercise puts in place of the GRU.
//
// One layer maps x_t, h_{t-1} and the memory cell c_{t-1} to h_t and c_t with PyTorch's cell
// (gate order i, f, g, o; the book writes g as the candidate memory C̃_t, eq. in sec_lstm):
//   i = σ(W_ii x + b_ii + W_hi h + b_hi)         input gate
//   f = σ(W_if x + b_if + W_hf h + b_hf)         forget gate
//   g = tanh(W_ig x + b_ig + W_hg h + b_hg)      candidate memory
//   o = σ(W_io x + b_io + W_ho h + b_ho)         output gate
//   c' = f ⊙ c + i ⊙ g,   h' = o ⊙ tanh(c')
// Unlike the GRU (layers/gru.h), whose recurrence is one fused op, every step here is
// written with core ops (linear, slice, sigmoid, tanh, *, +), so autograd derives the
// backward: slower, but the cell reads as the equations above.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/layer.h"

namespace d2l {

// nn.LSTM's (h, c) state, each (num_layers, batch_size, num_hiddens).
struct LSTMState {
  Tensor h, c;
};

// nn.LSTM(input_size, num_hiddens, num_layers, dropout), time-major. Parameters, per layer
// k, under PyTorch's names: weight_ih_l{k} (4h, in), weight_hh_l{k} (4h, h), bias_ih_l{k}
// (4h,), bias_hh_l{k} (4h,), rows in gate order i, f, g, o; all start U(−1/√h, 1/√h) as
// PyTorch's reset_parameters. Dropout, in training mode, applies to each layer's output
// before the next layer (not after the last one), as nn.LSTM does.
class LSTM : public Layer<LSTM> {
 public:
  static constexpr const char* section = "9.2 LSTM";
  LSTM(int64_t input_size, int64_t num_hiddens, int64_t num_layers = 1, float dropout = 0.0f);

  // X (num_steps, batch_size, input_size); state {h0, c0}, each (num_layers, batch_size,
  // num_hiddens), or both undefined for zeros (nn.LSTM's default)
  //   -> output (num_steps, batch_size, num_hiddens): the last layer's h at every step,
  //      state  {h_n, c_n}: every layer's h and c at the last step.
  std::pair<Tensor, LSTMState> forward(const Tensor& X, const LSTMState& state = {});
  // nn.LSTM's: "input_size, num_hiddens", then ", num_layers=2" and ", dropout=0.1" when
  // not the defaults 1 and 0.
  std::string extra_repr() const override;

  const int64_t input_size, num_hiddens, num_layers;
  const float dropout;
  // Handles to the registered parameters, one per layer.
  std::vector<Tensor> weight_ih, weight_hh, bias_ih, bias_hh;
};

}  // namespace d2l
