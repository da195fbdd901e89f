// layers/gru.h — 9.1 门控循环单元（GRU） / Gated Recurrent Units (sec_gru), as PyTorch's
// nn.GRU, which the book's concise GRU, Seq2SeqEncoder and both seq2seq decoders use.
//
// One layer maps x_t and h_{t-1} to h_t with PyTorch's cell (gate order r, z, n):
//   r = σ(W_ir x + b_ir + W_hr h + b_hr)             reset gate
//   z = σ(W_iz x + b_iz + W_hz h + b_hz)             update gate
//   n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))    candidate state
//   h' = (1 − z) ⊙ n + z ⊙ h
// The book's from-scratch GRU (eq_gru_tilde_h) writes the reset gate as r ⊙ h inside
// W_hh (r ⊙ h); PyTorch applies it to W_hn h + b_hn, which is why there are two bias
// vectors. We follow PyTorch, so weights and numbers carry over to the book's nn.GRU code.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/layer.h"

namespace d2l {

// The recurrent half of one GRU layer over all time steps, as ONE op with a hand-written
// backward (the hot loop of every seq2seq model). The input half, x W_ihᵀ + b_ih, does not
// depend on h, so the caller computes it for every step at once with one `linear`.
//   gi   (num_steps, batch_size, 3 * num_hiddens)  input projections, blocks [r | z | n]
//   h0   (batch_size, num_hiddens)                 state before the first step (or the same
//                                                  as (1, batch_size, num_hiddens))
//   W_hh (3 * num_hiddens, num_hiddens), b_hh (3 * num_hiddens,)
//   -> H (num_steps, batch_size, num_hiddens): h_t at every step
Tensor gru_recurrence(const Tensor& gi, const Tensor& h0, const Tensor& W_hh, const Tensor& b_hh);

// nn.GRU(input_size, num_hiddens, num_layers, dropout): a stack of GRU layers, time-major.
// Parameters, per layer k, under PyTorch's names: weight_ih_l{k} (3h, in), weight_hh_l{k}
// (3h, h), bias_ih_l{k} (3h,), bias_hh_l{k} (3h,), rows in gate order r, z, n; all start
// U(−1/√h, 1/√h) as PyTorch's reset_parameters. Dropout, in training mode, applies to each
// layer's output before the next layer (not after the last one), as nn.GRU does.
class GRU : public Layer<GRU> {
 public:
  static constexpr const char* section = "9.1 GRU";
  GRU(int64_t input_size, int64_t num_hiddens, int64_t num_layers = 1, float dropout = 0.0f);

  // X (num_steps, batch_size, input_size); state (num_layers, batch_size, num_hiddens), or
  // undefined for zeros (nn.GRU's default)
  //   -> output (num_steps, batch_size, num_hiddens): the last layer's h at every step,
  //      state  (num_layers, batch_size, num_hiddens): every layer's h at the last step.
  std::pair<Tensor, Tensor> forward(const Tensor& X, const Tensor& state = Tensor());
  // nn.GRU's: "input_size, num_hiddens", then ", num_layers=2" and ", dropout=0.1" when not
  // the defaults 1 and 0.
  std::string extra_repr() const override;

  const int64_t input_size, num_hiddens, num_layers;
  const float dropout;
  // Handles to the registered parameters, one per layer (train_seq2seq initialises the
  // weight matrices; tests perturb them).
  std::vector<Tensor> weight_ih, weight_hh, bias_ih, bias_hh;
};

}  // namespace d2l
