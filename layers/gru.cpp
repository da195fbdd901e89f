// layers/gru.cpp — 9.1 门控循环单元（GRU） / Gated Recurrent Units (sec_gru): the fused
// recurrence with its backward (backpropagation through time), and the nn.GRU stack.
#include "layers/gru.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/debug.h"
#include "core/init.h"
#include "core/kernels/fast_exp.h"
#include "core/kernels/gemm.h"
#include "core/ops.h"

namespace d2l {
namespace {

// The gate math costs three exp/tanh per element; two threads pay off from about 4k
// elements (the 32 × 512 batch of tools/bench/seq2seq.cpp), while the book's 64 × 32 stays serial.
[[maybe_unused]] constexpr int64_t kGateParallelMin = 1 << 12;  // unused when built without OpenMP

// The gates use core's vectorisable fast_exp (kernels/fast_exp.h): libm's expf and tanhf
// are scalar calls, ~15 ns each, and with three per element they dominated the recurrence.
inline float sigmoid_gate(float x) { return 1.0f / (1.0f + fast_exp(-x)); }
// tanh x = 1 − 2 / (1 + e^{2x}): saturates cleanly at ±1; absolute error ~1e-7 (near 0 the
// subtraction loses relative, not absolute, accuracy, and h is O(1)).
inline float tanh_gate(float x) { return 1.0f - 2.0f / (1.0f + fast_exp(2.0f * x)); }

// One row of the forward gate math (D hidden units). The three gate blocks come as three
// restrict pointers so the compiler can prove they do not overlap and vectorise the loop.
//   in:  xr, xz, xn  the input halves gi; gr, gz  h W_hᵀ + b_h for r and z; hn = W_hn h + b_hn
//   out: gr, gz overwritten by r, z; h the new state; n the candidate
void gru_gates_row(float* __restrict h, float* __restrict gr, float* __restrict gz, const float* __restrict hn,
                   float* __restrict n, const float* __restrict xr, const float* __restrict xz,
                   const float* __restrict xn, const float* __restrict hp, int64_t D) {
  for (int64_t j = 0; j < D; ++j) {
    const float r = sigmoid_gate(xr[j] + gr[j]);
    const float z = sigmoid_gate(xz[j] + gz[j]);
    const float c = tanh_gate(xn[j] + r * hn[j]);
    h[j] = (1.0f - z) * c + z * hp[j];
    n[j] = c;
    gr[j] = r;
    gz[j] = z;
  }
}

// One row of the backward gate math (formulas at gru_backward), pointers split by gate
// block as in gru_gates_row so the loop vectorises.
//   in:  gr, gz, gn  the saved r, z, hn (overwritten by dgh = da_r, da_z, dhn)
//        carry, dH   ∂loss/∂h from step t+1 and from the output;  n, hp  candidate, h_{t-1}
//   out: dr, dz, dn  added into dgi (kGi: false when gi needs no gradient);  next = dh z
template <bool kGi>
void gru_backward_row(float* __restrict gr, float* __restrict gz, float* __restrict gn, float* __restrict dr,
                      float* __restrict dz, float* __restrict dn, float* __restrict next,
                      const float* __restrict carry, const float* __restrict dH, const float* __restrict n,
                      const float* __restrict hp, int64_t D) {
  for (int64_t j = 0; j < D; ++j) {
    const float dh = carry[j] + dH[j];
    const float r = gr[j], z = gz[j], hn = gn[j], c = n[j];
    const float da_n = dh * (1.0f - z) * (1.0f - c * c);
    const float da_r = da_n * hn * r * (1.0f - r);
    const float da_z = dh * (hp[j] - c) * z * (1.0f - z);
    gr[j] = da_r;
    gz[j] = da_z;
    gn[j] = da_n * r;
    next[j] = dh * z;
    if (kGi) {
      dr[j] += da_r;
      dz[j] += da_z;
      dn[j] += da_n;
    }
  }
}

// Size letters: T steps, B batch, D num_hiddens, G = 3D (gate blocks r | z | n).
//   gi (T, B, G)   x W_ihᵀ + b_ih        h0 (B, D)        W (G, D), b (G,)
//   H  (T, B, D)   out: h_t
//   gates (T, B, G) out: [r | z | hn] per step, hn = W_hn h + b_hn (the saved activations)
//   N (T, B, D)    out: candidate n per step
// Without a backward nothing need be kept: keep_all = false and gates, N are one step long
// (1, B, G), (1, B, D), scratch reused by every step.
void gru_forward(float* H, float* gates, float* N, const float* gi, const float* h0, const float* W,
                 const float* b, int64_t T, int64_t B, int64_t D, bool keep_all) {
  const int64_t G = 3 * D;
  for (int64_t t = 0; t < T; ++t) {
    const float* hp = t ? H + (t - 1) * B * D : h0;
    float* g = gates + (keep_all ? t : 0) * B * G;
    // gh = b_hh + h_{t-1} W_hhᵀ: the bias first, then one GEMM accumulating onto it.
    for (int64_t r = 0; r < B; ++r) std::memcpy(g + r * G, b, sizeof(float) * G);
    gemm(false, true, B, G, D, hp, W, g, true);
    const float* x = gi + t * B * G;
    float* h = H + t * B * D;
    float* n = N + (keep_all ? t : 0) * B * D;
#pragma omp parallel for if (B * D >= kGateParallelMin)
    for (int64_t r = 0; r < B; ++r) {
      float* gr = g + r * G;
      const float* xr = x + r * G;
      gru_gates_row(h + r * D, gr, gr + D, gr + 2 * D, n + r * D, xr, xr + D, xr + 2 * D, hp + r * D, D);
    }
  }
}

// Backpropagation through time, last step first. dh carries ∂loss/∂h_t back from step
// t+1; at step t it also receives dH[t] (the output's own gradient). Inverting
//   h' = (1 − z) n + z h        dn = dh (1 − z),  dz = dh (h − n),  dh_prev = dh z + ...
//   n = tanh(a_n), a_n = gi_n + r hn        da_n = dn (1 − n²),  dr = da_n hn,  dhn = da_n r
//   r = σ(a_r), z = σ(a_z)                  da_r = dr r (1 − r),  da_z = dz z (1 − z)
//   [a_r | a_z | hn] = gi[r | z | 0] + h W_hhᵀ + b_hh
// so dgi = [da_r | da_z | da_n] and dgh = [da_r | da_z | dhn], which flows to
//   dh_prev += dgh W_hh (one GEMM per step),  dW_hh += dghᵀ h_prev,  db_hh += Σ dgh.
// dgh overwrites the saved gates of step t (no longer needed), so the two weight gradients
// are two GEMMs over all steps at the end instead of one per step.
void gru_backward(float* dgi, float* dh0, float* dW, float* db, float* gates, const float* N, const float* H,
                  const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D) {
  const int64_t G = 3 * D, BD = B * D;
  // Two (B, D) buffers from the caching allocator (no malloc per call): carry holds dh from
  // the step after, next collects dh_prev.
  Buffer carry(static_cast<size_t>(BD)), next(static_cast<size_t>(BD));
  std::memset(carry.get(), 0, sizeof(float) * BD);
  for (int64_t t = T - 1; t >= 0; --t) {
    const float* hp = t ? H + (t - 1) * BD : h0;
    float* g = gates + t * B * G;
    const float *n_t = N + t * BD, *dH_t = dH + t * BD;
    float* dgi_t = dgi ? dgi + t * B * G : nullptr;
#pragma omp parallel for if (BD >= kGateParallelMin)
    for (int64_t r = 0; r < B; ++r) {
      float *gr = g + r * G, *nx = next.get() + r * D;
      const float *c = carry.get() + r * D, *dh = dH_t + r * D, *n = n_t + r * D, *p = hp + r * D;
      if (float* dr = dgi_t ? dgi_t + r * G : nullptr)
        gru_backward_row<true>(gr, gr + D, gr + 2 * D, dr, dr + D, dr + 2 * D, nx, c, dh, n, p, D);
      else
        gru_backward_row<false>(gr, gr + D, gr + 2 * D, nullptr, nullptr, nullptr, nx, c, dh, n, p, D);
    }
    if (t == 0 && !dh0) break;  // h0 needs no gradient: skip its GEMM
    gemm(false, false, B, D, G, g, W, next.get(), true);  // dh_prev += dgh W_hh
    std::swap(carry, next);
  }
  if (dh0)
    for (int64_t i = 0; i < BD; ++i) dh0[i] += carry.get()[i];
  if (dW) {
    gemm(true, false, G, D, B, gates, h0, dW, true);                       // step 0: h_prev = h0
    if (T > 1) gemm(true, false, G, D, (T - 1) * B, gates + B * G, H, dW, true);  // steps 1..: H[t-1]
  }
  if (db)
    for (int64_t r = 0; r < T * B; ++r)
      for (int64_t k = 0; k < G; ++k) db[k] += gates[r * G + k];
}

}  // namespace

Tensor gru_recurrence(const Tensor& gi, const Tensor& h0, const Tensor& W_hh, const Tensor& b_hh) {
  OpCall op("gru_recurrence", {gi, h0, W_hh, b_hh});
  check(W_hh.defined() && W_hh.ndim() == 2 && W_hh.shape()[0] == 3 * W_hh.shape()[1], "gru_recurrence",
        "W_hh must be (3 * num_hiddens, num_hiddens), got ", W_hh.defined() ? W_hh.shape() : Shape{});
  const int64_t D = W_hh.shape()[1], G = 3 * D;
  check(b_hh.defined() && b_hh.shape() == Shape{G}, "gru_recurrence", "b_hh ", b_hh.defined() ? b_hh.shape() : Shape{},
        " must be (3 * num_hiddens,) for W_hh ", W_hh.shape());
  check(gi.defined() && gi.ndim() == 3 && gi.shape()[2] == G && gi.shape()[0] >= 1, "gru_recurrence",
        "gi must be (num_steps >= 1, batch_size, 3 * num_hiddens), got ", gi.defined() ? gi.shape() : Shape{},
        " for W_hh ", W_hh.shape());
  const int64_t T = gi.shape()[0], B = gi.shape()[1];
  // (1, B, D) is accepted too: GRU::forward passes a one-layer slice of its state as is.
  check(h0.defined() && (h0.shape() == Shape{B, D} || h0.shape() == Shape{1, B, D}), "gru_recurrence", "h0 ",
        h0.defined() ? h0.shape() : Shape{}, " must be (batch_size, num_hiddens) = ", Shape{B, D}, " for gi ",
        gi.shape());
  Tensor H = empty({T, B, D});
  if (!op.needs_grad()) {
    Tensor gates = empty({1, B, G}), N = empty({1, B, D});
    gru_forward(H.data(), gates.data(), N.data(), gi.data(), h0.data(), W_hh.data(), b_hh.data(), T, B, D, false);
    return op.finish(H);
  }
  // The saved activations live in tensors (caching allocator, copyable handles for the
  // closure); the closure is `mutable` because the backward reuses `gates` for dgh.
  Tensor gates = empty({T, B, G}), N = empty({T, B, D});
  gru_forward(H.data(), gates.data(), N.data(), gi.data(), h0.data(), W_hh.data(), b_hh.data(), T, B, D, true);
  return op.finish(H, [gates, N, T, B, D](Node& y) mutable {
    gru_backward(y.input_grad(0), y.input_grad(1), y.input_grad(2), y.input_grad(3), gates.data(), N.data(),
                 y.data.get(), y.grad.get(), y.input_data(1), y.input_data(2), T, B, D);
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

std::pair<Tensor, Tensor> GRU::forward(const Tensor& X, const Tensor& state) {
  SectionScope section("9.1 GRU");
  check(X.defined() && X.ndim() == 3 && X.shape()[2] == input_size && X.shape()[0] >= 1, "GRU",
        "X must be (num_steps >= 1, batch_size, input_size = ", input_size, "), got ",
        X.defined() ? X.shape() : Shape{});
  const int64_t T = X.shape()[0], B = X.shape()[1];
  check(!state.defined() || state.shape() == Shape{num_layers, B, num_hiddens}, "GRU", "state ",
        state.defined() ? state.shape() : Shape{}, " must be (num_layers, batch_size, num_hiddens) = ",
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
