// core/kernels/reference/gru.cpp — the GRU's recurrence (9.1), one step and one batch row at a time,
// in PyTorch's cell (gate order r, z, n):
//   [gh_r | gh_z | hn] = W_hh h_{t-1} + b_hh
//   r = σ(gi_r + gh_r),   z = σ(gi_z + gh_z),   n = tanh(gi_n + r hn),   h_t = (1 − z) n + z h_{t-1}
#include <cmath>
#include <vector>

#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {
namespace {
float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

void gru_forward(float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W, const float* b,
                 int64_t T, int64_t B, int64_t D, bool keep_all) {
  const int64_t G = 3 * D;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t row = 0; row < B; ++row) {
      const float* hp = (t ? H + (t - 1) * B * D : h0) + row * D;  // h_{t-1}
      const float* x = gi + (t * B + row) * G;
      const int64_t kept = (keep_all ? t : 0) * B + row;           // where this step's r, z, hn, n go
      float *g = gates + kept * G, *n = cand + kept * D, *h = H + (t * B + row) * D;
      for (int64_t k = 0; k < G; ++k) {
        float s = 0.0f;
        for (int64_t j = 0; j < D; ++j) s += W[k * D + j] * hp[j];
        g[k] = b[k] + s;
      }
      for (int64_t j = 0; j < D; ++j) {
        const float r = sigmoid(x[j] + g[j]), z = sigmoid(x[D + j] + g[D + j]);
        n[j] = tanh_float(x[2 * D + j] + r * g[2 * D + j]);
        h[j] = (1.0f - z) * n[j] + z * hp[j];
        g[j] = r;
        g[D + j] = z;
      }
    }
}

// Backpropagation through time, last step first. dh = dH_t + what step t+1 sent back; then
//   da_n = dh (1 − z)(1 − n²)       da_r = da_n hn r (1 − r)       da_z = dh (h_{t-1} − n) z (1 − z)
//   dgi_t += [da_r | da_z | da_n],  dgh = [da_r | da_z | da_n r] (the gradient of W_hh h + b_hh)
//   dh_{t-1} = dh z + dgh W_hh,     dW_hh += dghᵀ h_{t-1},          db_hh += dgh
void gru_backward(float* dgi, float* dh0, float* dW, float* db, float* gates, const float* cand, const float* H,
                  const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D) {
  const int64_t G = 3 * D;
  std::vector<float> carry(static_cast<size_t>(B * D), 0.0f), dgh(static_cast<size_t>(G));
  for (int64_t t = T - 1; t >= 0; --t) {
    std::vector<float> next(static_cast<size_t>(B * D), 0.0f);  // dh_{t-1}
    for (int64_t row = 0; row < B; ++row) {
      const float *hp = (t ? H + (t - 1) * B * D : h0) + row * D, *g = gates + (t * B + row) * G;
      const float *n = cand + (t * B + row) * D, *dh_out = dH + (t * B + row) * D;
      float *up = carry.data() + row * D, *down = next.data() + row * D;
      float* dx = dgi ? dgi + (t * B + row) * G : nullptr;
      for (int64_t j = 0; j < D; ++j) {
        const float dh = up[j] + dh_out[j], r = g[j], z = g[D + j], hn = g[2 * D + j];
        const float da_n = dh * (1.0f - z) * (1.0f - n[j] * n[j]);
        dgh[j] = da_n * hn * r * (1.0f - r);
        dgh[D + j] = dh * (hp[j] - n[j]) * z * (1.0f - z);
        dgh[2 * D + j] = da_n * r;
        down[j] += dh * z;
        if (dx) { dx[j] += dgh[j]; dx[D + j] += dgh[D + j]; dx[2 * D + j] += da_n; }
      }
      for (int64_t k = 0; k < G; ++k) {
        if (db) db[k] += dgh[k];
        for (int64_t j = 0; j < D; ++j) {
          down[j] += dgh[k] * W[k * D + j];
          if (dW) dW[k * D + j] += dgh[k] * hp[j];
        }
      }
    }
    carry.swap(next);
  }
  if (dh0)
    for (int64_t i = 0; i < B * D; ++i) dh0[i] += carry[i];
}

}  // namespace reference
}  // namespace d2l
