// core/kernels/fast/gru.cpp — the GRU's recurrence (9.1) with one GEMM per step for the hidden
// projection and the gate math in vectorised rows (fast_exp), parallel over the batch rows
// once a step has enough elements.
#include <algorithm>
#include <cstring>
#include <utility>

#include "core/engine/storage.h"  // Buffer
#include "core/kernels/fast/fast_exp.h"
#include "core/kernels/fast/gemm.h"
#include "core/kernels/fast/gemm_kernels.h"
#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace {

// The gates use the vectorisable fast_exp (fast_exp.h): libm's expf and tanhf are scalar
// calls, ~15 ns each, and with three per element they dominated the recurrence.
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

}  // namespace

// Per step: gh = b_hh + h_{t-1} W_hhᵀ as one GEMM over the batch, then the gate math row
// by row (shapes in core/kernels/seam.h). W_hh (G, D) is transposed once per call into Wt (D, G),
// so each step's product reads both operands in place (gemm_direct.cpp: 64 x 32 by 32 x 96
// for the book's Bahdanau model) instead of transposing W_hh again at every step.
// Above the fork size (the seed's seq2seq: batch 32, D = 512) the threads share each step by
// hidden units instead of splitting its small GEMM: thread p owns units [u0, u1) and computes
// the columns of gh for them in all three gate blocks (r, z and n, rows of W_hh read in place:
// gemm_stream.cpp's few-rows tiles), then those units' gate math, which needs nothing else;
// h_t is complete once every thread has done its units, one barrier per step. Each thread
// reads only its rows of W_hh (1.5 MiB of 3 at D = 512), so they stay in its core's cache
// from one step to the next. Per element the arithmetic is the same whoever does it.
namespace {
bool shared_steps(int64_t B, int64_t D) { return detail::use_stream(B, 3 * D, D); }

// Units [u0, u1) of this thread: whole groups of 16, so no two threads write one cache line.
void my_units(int64_t D, int64_t* u0, int64_t* u1) {
  team_share(ceil_div(D, 16), u0, u1);
  *u0 *= 16;
  *u1 = std::min(D, *u1 * 16);
}

void gru_forward_shared(float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W,
                        const float* b, int64_t T, int64_t B, int64_t D, bool keep_all) {
  const int64_t G = 3 * D;
  TeamJoin join;  // before each step's barrier (parallel.h)
#pragma omp parallel
  {
    int64_t u0, u1;
    my_units(D, &u0, &u1);
    for (int64_t t = 0; t < T; ++t) {
      const float* hp = t ? H + (t - 1) * B * D : h0;
      float* g = gates + (keep_all ? t : 0) * B * G;
      const detail::Job j{false, true, B, G, D, hp, W, g, false, b};  // gh = h_{t-1} W_hhᵀ + b_hh
      int64_t ldq;
      const float* Q = detail::few_rows_q(j, &ldq);  // h_{t-1}ᵀ, this thread's copy
      for (int64_t blk = 0; blk < 3; ++blk) detail::few_rows_block(j, Q, ldq, blk * D + u0, blk * D + u1);
      const float* x = gi + t * B * G;
      float *h = H + t * B * D, *n = cand + (keep_all ? t : 0) * B * D;
      for (int64_t r = 0; r < B && u1 > u0; ++r) {
        float* gr = g + r * G + u0;
        const float* xr = x + r * G + u0;
        gru_gates_row(h + r * D + u0, gr, gr + D, gr + 2 * D, n + r * D + u0, xr, xr + D, xr + 2 * D,
                      hp + r * D + u0, u1 - u0);
      }
      join.arrive_and_spin(t + 1);
#pragma omp barrier
    }
  }
}
}  // namespace

void gru_forward(float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W, const float* b,
                 int64_t T, int64_t B, int64_t D, bool keep_all) {
  if (shared_steps(B, D)) return gru_forward_shared(H, gates, cand, gi, h0, W, b, T, B, D, keep_all);
  const int64_t G = 3 * D;
  Buffer Wt(static_cast<size_t>(G * D));
  transpose(G, D, W, Wt.get(), G);
  for (int64_t t = 0; t < T; ++t) {
    const float* hp = t ? H + (t - 1) * B * D : h0;
    float* g = gates + (keep_all ? t : 0) * B * G;
    gemm(false, false, B, G, D, hp, Wt.get(), g, false, b);  // gh = h_{t-1} W_hhᵀ + b_hh
    const float* x = gi + t * B * G;
    float* h = H + t * B * D;
    float* n = cand + (keep_all ? t : 0) * B * D;
    parallel_for(B, B * D >= kGateParallelMin, [&](int64_t r) {
      float* gr = g + r * G;
      const float* xr = x + r * G;
      gru_gates_row(h + r * D, gr, gr + D, gr + 2 * D, n + r * D, xr, xr + D, xr + 2 * D, hp + r * D, D);
    });
  }
}

namespace {
// dW_hh += dghᵀ h_prev and db_hh += Σ dgh over all steps, dgh being what gru_backward left in
// gates.
void weight_grads(float* dW, float* db, const float* gates, const float* H, const float* h0, int64_t T, int64_t B,
                  int64_t D) {
  const int64_t G = 3 * D;
  if (dW) {
    gemm(true, false, G, D, B, gates, h0, dW, true);                       // step 0: h_prev = h0
    if (T > 1) gemm(true, false, G, D, (T - 1) * B, gates + B * G, H, dW, true);  // steps 1..: H[t-1]
  }
  if (db)
    for (int64_t r = 0; r < T * B; ++r)
      for (int64_t k = 0; k < G; ++k) db[k] += gates[r * G + k];
}
}  // namespace

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
//
// Above the fork size the threads share each step by hidden units as in gru_forward: thread p
// does the gate math of its units (reading the dh it computed itself), and after one barrier
// (dgh complete) its units' columns of dh_prev = dgh W_hh (gemm_stream.cpp's tiles, reading
// its columns of W_hh in place), which are all its gate math needs at the step before.
void gru_backward(float* dgi, float* dh0, float* dW, float* db, float* gates, const float* cand, const float* H,
                  const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D) {
  const int64_t G = 3 * D, BD = B * D;
  // Two (B, D) buffers from the caching allocator (no malloc per call): carry holds dh from
  // the step after, next collects dh_prev.
  Buffer carry(static_cast<size_t>(BD)), next(static_cast<size_t>(BD));
  if (BD) std::memset(carry.get(), 0, sizeof(float) * BD);
  if (shared_steps(B, D)) {
    float* last = nullptr;  // where dh for h0 ends up
    TeamJoin join;          // before each barrier (parallel.h)
#pragma omp parallel
    {
      int64_t meeting = 0;
      int64_t u0, u1;
      my_units(D, &u0, &u1);
      float *c = carry.get(), *nx = next.get();
      for (int64_t t = T - 1; t >= 0; --t) {
        const float* hp = t ? H + (t - 1) * BD : h0;
        float* g = gates + t * B * G;
        float* dgi_t = dgi ? dgi + t * B * G : nullptr;
        for (int64_t r = 0; r < B && u1 > u0; ++r) {
          const int64_t o = r * D + u0;
          float *gr = g + r * G + u0, *dr = dgi_t ? dgi_t + r * G + u0 : nullptr;
          if (dr)
            gru_backward_row<true>(gr, gr + D, gr + 2 * D, dr, dr + D, dr + 2 * D, nx + o, c + o, dH + t * BD + o,
                                   cand + t * BD + o, hp + o, u1 - u0);
          else
            gru_backward_row<false>(gr, gr + D, gr + 2 * D, nullptr, nullptr, nullptr, nx + o, c + o, dH + t * BD + o,
                                    cand + t * BD + o, hp + o, u1 - u0);
        }
        join.arrive_and_spin(++meeting);
#pragma omp barrier
        if (t == 0 && !dh0) break;
        const detail::Job j{false, false, B, D, G, g, W, nx, true};  // dh_prev += dgh W_hh
        int64_t ldq;
        const float* Q = detail::few_rows_q(j, &ldq);  // dghᵀ, this thread's copy
        detail::few_rows_block(j, Q, ldq, u0, u1);
        std::swap(c, nx);
      }
#pragma omp single nowait
      last = c;
      join.arrive_and_spin(++meeting);
    }
    if (dh0)
      for (int64_t i = 0; i < BD; ++i) dh0[i] += last[i];
    weight_grads(dW, db, gates, H, h0, T, B, D);
    return;
  }
  for (int64_t t = T - 1; t >= 0; --t) {
    const float* hp = t ? H + (t - 1) * BD : h0;
    float* g = gates + t * B * G;
    const float *n_t = cand + t * BD, *dH_t = dH + t * BD;
    float* dgi_t = dgi ? dgi + t * B * G : nullptr;
    parallel_for(B, BD >= kGateParallelMin, [&](int64_t r) {
      float *gr = g + r * G, *nx = next.get() + r * D;
      const float *c = carry.get() + r * D, *dh = dH_t + r * D, *n = n_t + r * D, *p = hp + r * D;
      if (float* dr = dgi_t ? dgi_t + r * G : nullptr)
        gru_backward_row<true>(gr, gr + D, gr + 2 * D, dr, dr + D, dr + 2 * D, nx, c, dh, n, p, D);
      else
        gru_backward_row<false>(gr, gr + D, gr + 2 * D, nullptr, nullptr, nullptr, nx, c, dh, n, p, D);
    });
    if (t == 0 && !dh0) break;  // h0 needs no gradient: skip its GEMM
    gemm(false, false, B, D, G, g, W, next.get(), true);  // dh_prev += dgh W_hh
    std::swap(carry, next);
  }
  if (dh0)
    for (int64_t i = 0; i < BD; ++i) dh0[i] += carry.get()[i];
  weight_grads(dW, db, gates, H, h0, T, B, D);
}

}  // namespace fast
}  // namespace d2l
