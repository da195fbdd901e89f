// core/kernel_list.h — every kernel of the seam, declared once. A line
//   D2L_KERNEL(name, parameters...);
// is the kernel `void name(parameters...)`, which has one name in three namespaces:
//   d2l::reference::name  plain loops, in core/reference/<file>.cpp (make FAST=0)
//   d2l::fast::name       the same results by faster means, in core/fast/<file>.cpp (make)
//   d2l::kernels::name    what the ops call: the tier the build chose (core/kernels.h)
// <file> follows the arrow in each section's heading: kernels::softmax_forward, called in
// core/ops_softmax.cpp, is read as reference::softmax_forward in core/reference/softmax.cpp.
// Adding a kernel: a D2L_KERNEL line here, its legend above it, a definition in each tier,
// and a check in tests/test_core_kernel_tiers*.cpp whose mismatches() label starts with its
// name. No include guard: core/kernels.h, core/kernels.cpp and the tiers include this list.
// The conventions (outputs first, sizes in the legend's letters, backward kernels add) are
// core/kernels.h's.
#ifndef D2L_KERNEL
#define D2L_KERNEL(name, ...) void name(__VA_ARGS__)
#endif

// --- element-wise (ops_elementwise.cpp → elementwise.cpp) ------------------------------------
// n elements; f one of Unary. s is the scalar of the scalar forms (x + s, x * s, s - x,
// s / x) and pow's p.
//   y, x (n)                  y = f(x); relu keeps a NaN (max(x, 0) would hide it as 0);
//                             abs' derivative is sign(x), 0 at 0 and for NaN (PyTorch's choice)
D2L_KERNEL(unary_forward, float* y, const float* x, int64_t n, Unary f, float s);
//   dx, dy, x, y (n)          dx += dy f'(x), where f' may use the output y (exp: f' = y);
//                             x (y) may be null when derivative_reads(f) says f' does not read it
D2L_KERNEL(unary_backward, float* dx, const float* dy, const float* x, const float* y, int64_t n, Unary f, float s);
// Broadcast shapes: out the result's, a and b the inputs'.
//   y (out), a (a), b (b)     y = a op b
D2L_KERNEL(binary_forward, float* y, const float* a, const float* b, const Broadcast& shapes, Binary op);
//   da (a), db (b), dy (out), a (a), b (b)
//   add: da += dy, db += dy; sub: db -= dy; mul: da += dy b, db += dy a; div: da += dy / b,
//   db -= dy a / b². A broadcast input element receives the sum over every output it fed.
//   add and sub read neither a nor b (either may then be null: freed, see core/autograd.h)
D2L_KERNEL(binary_backward, float* da, float* db, const float* dy, const float* a, const float* b,
           const Broadcast& shapes, Binary op);
// --- comparisons (ops_compare.cpp → elementwise.cpp) -----------------------------------------
// Forward only: a 0/1 result is a step function, whose gradient is 0 wherever it exists.
//   y (out), a (a), b (b)     y = 1 where a op b holds, else 0; a NaN holds for ne alone
D2L_KERNEL(compare_forward, float* y, const float* a, const float* b, const Broadcast& shapes, Compare op);
//   y (out), a (a), b (b)     torch.isclose: y = 1 where a == b (infinities too), or |a - b| is
//                             finite and <= atol + rtol |b| (in float), or both are NaN and
//                             equal_nan; else 0
D2L_KERNEL(isclose_forward, float* y, const float* a, const float* b, const Broadcast& shapes, float rtol, float atol,
           bool equal_nan);

// --- reductions over one dim (ops_reduce.cpp → reduce.cpp) -----------------------------------
// x viewed as (outer, n, inner): n the reduced dim, outer and inner the dims before and after.
//   y (outer, inner), x (outer, n, inner)       y = scale Σ_j x[:, j, :]  (scale 1 or 1/n)
D2L_KERNEL(sum_forward, float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale);
//   dx (outer, n, inner), dy (outer, inner)     dx[:, j, :] += scale dy
D2L_KERNEL(sum_backward, float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale);
//   values, where (outer, inner), x (outer, n, inner)   the first maximum and its j; NaN wins
D2L_KERNEL(max_forward, float* values, int64_t* where, const float* x, int64_t outer, int64_t n, int64_t inner);
//   dx (outer, n, inner), dy, where (outer, inner)      dx[o, where, i] += dy[o, i]
D2L_KERNEL(max_backward, float* dx, const float* dy, const int64_t* where, int64_t outer, int64_t n, int64_t inner);

// --- softmax and the book's masked_softmax (ops_softmax.cpp, 10.3 → softmax.cpp) -------------
// R rows (every index but the last), C columns: the softmax runs along each row.
//   y, x (R, C)               y = e^{x − max} / Σ e^{x − max}; y may be x (in place)
D2L_KERNEL(softmax_forward, float* y, const float* x, int64_t R, int64_t C);
//   dx, dy, y (R, C)          dx += y (dy − Σ_j dy_j y_j)
D2L_KERNEL(softmax_backward, float* dx, const float* dy, const float* y, int64_t R, int64_t C);
//   y, x (R, C)               y = x − max − log Σ e^{x − max}
D2L_KERNEL(log_softmax_forward, float* y, const float* x, int64_t R, int64_t C);
//   dx, dy, y (R, C)          dx += dy − e^{y} Σ_j dy_j
D2L_KERNEL(log_softmax_backward, float* dx, const float* dy, const float* y, int64_t R, int64_t C);
// d2l.sequence_mask: B rows, T steps, I the elements per step (the dims after the second).
//   y, X (B, T, I), valid_len (B)    y[b, t] = t < valid_len[b] ? X[b, t] : value
D2L_KERNEL(sequence_mask_forward, float* y, const float* X, const int64_t* valid_len, int64_t B, int64_t T, int64_t I,
           float value);
//   dX, dy (B, T, I), valid_len (B)  dX[b, t] += dy[b, t] for t < valid_len[b]
D2L_KERNEL(sequence_mask_backward, float* dX, const float* dy, const int64_t* valid_len, int64_t B, int64_t T,
           int64_t I);
// d2l.masked_softmax: B batch, Q queries, K keys; scores of keys at or past a row's valid
// length become -1e6 before the softmax. valid_lens holds one length per batch (per_query
// false: the book's 1-D valid_lens, repeated over the queries) or one per query (true).
//   y, X (B, Q, K), valid_lens (B) or (B, Q)
D2L_KERNEL(masked_softmax_forward, float* y, const float* X, const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K,
           bool per_query);
//   dX, dy, y (B, Q, K), valid_lens as above   masked scores get no gradient
D2L_KERNEL(masked_softmax_backward, float* dX, const float* dy, const float* y, const int64_t* valid_lens, int64_t B,
           int64_t Q, int64_t K, bool per_query);

// --- memory-efficient attention (ops_attention.cpp → flash_attention.cpp, 10.7 ex. 5) ------
// softmax(q kᵀ / √D, masked as masked_softmax masks) v without the (B, Q, K) weights: the
// softmax runs over blocks of keys with a running maximum and sum (the online softmax), and
// the backward recomputes each block's weights from L. B batch, Q queries, K keys, D the
// query/key size, Dv the value size; valid_lens null (no mask), (B) or (B, Q) (per_query).
// A masked score is -1e6 as in masked_softmax; keys at or past a row's valid length n > 0
// are skipped (their weight e^{-1e6 - max} is exactly 0 in float), a row with n = 0 attends
// uniformly to every key.
//   O (B, Q, Dv), m, s (B, Q) out: each row's max score m and sum s = Σ e^{score − m}, kept
//   for the backward (not as one log-sum-exp m + log s: beside the mask value -1e6, float
//   would keep only a digit of log s, and a row with valid length 0 would lose its 1/K)
//   q (B, Q, D), k (B, K, D), v (B, K, Dv)
D2L_KERNEL(memory_efficient_attention_forward, float* O, float* m, float* s, const float* q, const float* k, const float* v,
                                        const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                        int64_t Dv, bool per_query);
//   dq, dk, dv like q, k, v (added into; any may be null), dO, O (B, Q, Dv), m, s (B, Q)
//   with P = e^{score − m} / s: dv += Pᵀ dO, dS = P (dO vᵀ − rowsum(dO O)) (0 where masked),
//   dq += dS k / √D, dk += dSᵀ q / √D
D2L_KERNEL(memory_efficient_attention_backward, float* dq, float* dk, float* dv, const float* dO, const float* O,
                                         const float* m, const float* s, const float* q, const float* k, const float* v,
                                         const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                         int64_t Dv, bool per_query);

// --- products (ops_matmul.cpp → matmul.cpp) --------------------------------------------------
// batch independent products C = op(A) op(B), with op(X) = X or Xᵀ as the trans flags say:
// M rows of C, N columns of C, K the summed dim.
//   C (batch, M, N), A (batch, M, K) or (batch, K, M) when trans_a,
//   B (batch, K, N) or (batch, N, K) when trans_b
D2L_KERNEL(matmul_forward, float* C, const float* A, const float* B, int64_t batch, int64_t M, int64_t N, int64_t K,
           bool trans_a, bool trans_b);
//   dA like A, dB like B, dC like C      d op(A) += dC op(B)ᵀ,  d op(B) += op(A)ᵀ dC
D2L_KERNEL(matmul_backward, float* dA, float* dB, const float* dC, const float* A, const float* B, int64_t batch,
           int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b);
// nn.Linear: M rows (every leading dim of x), K in_features, N out_features.
//   y (M, N), x (M, K), W (N, K), b (N) or null      y = x Wᵀ + b
D2L_KERNEL(linear_forward, float* y, const float* x, const float* W, const float* b, int64_t M, int64_t N, int64_t K);
//   dx (M, K), dW (N, K), db (N), dy (M, N), x (M, K), W (N, K)
//   dx += dy W,  dW += dyᵀ x,  db += Σ_rows dy
D2L_KERNEL(linear_backward, float* dx, float* dW, float* db, const float* dy, const float* x, const float* W, int64_t M,
           int64_t N, int64_t K);

// --- the neural-network ops (ops_nn.cpp → nn.cpp) --------------------------------------------
// Inverted dropout over n elements: element i is kept iff dropout_keeps(i, key, threshold)
// (core/random.h), and kept elements are scaled by `scale` = 1/(1−p).
//   y, x (n)                  y = keep ? x scale : 0
D2L_KERNEL(dropout_forward, float* y, const float* x, int64_t n, uint64_t key, uint32_t threshold, float scale);
//   dx, dy (n)                dx += keep ? dy scale : 0   (the mask recomputed from key)
D2L_KERNEL(dropout_backward, float* dx, const float* dy, int64_t n, uint64_t key, uint32_t threshold, float scale);
// Layer norm over the last N entries of each of R rows (10.7); gamma, beta may be null.
//   y, xhat, x (R, N), rstd (R), gamma, beta (N)
//   xhat = (x − mean) rstd, rstd = 1/sqrt(var + eps) (biased var), y = gamma xhat + beta
D2L_KERNEL(layer_norm_forward, float* y, float* xhat, float* rstd, const float* x, const float* gamma,
           const float* beta, int64_t R, int64_t N, float eps);
//   dx, dy, xhat (R, N), dgamma, dbeta, gamma (N), rstd (R); with g = dy gamma:
//   dx += rstd/N (N g − Σ g − xhat Σ g xhat),  dgamma += Σ_rows dy xhat,  dbeta += Σ_rows dy
D2L_KERNEL(layer_norm_backward, float* dx, float* dgamma, float* dbeta, const float* dy, const float* xhat,
           const float* rstd, const float* gamma, int64_t R, int64_t N);
// nn.CrossEntropyLoss(reduction='none'): R positions, C classes, label[r] in [0, C).
//   loss (R), prob (R, C) kept for backward, logits (R, C), label (R)
//   prob = softmax(logits), loss = log Σ e^{logits} − logits[label]
D2L_KERNEL(softmax_cross_entropy_forward, float* loss, float* prob, const float* logits, const int64_t* label,
           int64_t R, int64_t C);
//   dlogits, prob (R, C), dloss, label (R)   dlogits += dloss (prob − onehot(label))
D2L_KERNEL(softmax_cross_entropy_backward, float* dlogits, const float* dloss, const float* prob, const int64_t* label,
           int64_t R, int64_t C);

// --- the optimisers (core/optim.cpp → optim.cpp) ---------------------------------------------
// torch.optim.Adam's update of one parameter of n elements (its single-tensor path, in its
// order of operations), with step_size = lr / (1 − beta1^t), bc2_sqrt = sqrt(1 − beta2^t):
//   w, m, v (n) updated in place, g (n)
//   g' = g + weight_decay w;  m = beta1 m + (1 − beta1) g';  v = beta2 v + (1 − beta2) g'²;
//   w −= step_size m / (sqrt(v) / bc2_sqrt + eps)
D2L_KERNEL(adam_step, float* w, float* m, float* v, const float* g, int64_t n, float beta1, float beta2, float eps,
           float weight_decay, float step_size, float bc2_sqrt);

// --- the GRU's recurrence (layers/gru.cpp, 9.1 → gru.cpp) ------------------------------------
// T steps, B batch, D num_hiddens, G = 3D (gate blocks r | z | n, PyTorch's order).
//   H (T, B, D)        out: h_t at every step
//   gates (T, B, G)    out: r, z and hn = W_hn h + b_hn per step, kept for backward
//   cand (T, B, D)     out: the candidate state n per step
//   gi (T, B, G)       x W_ihᵀ + b_ih for every step;  h0 (B, D)
//   W (G, D), b (G)    W_hh and b_hh
// keep_all false (no backward to follow): gates and cand are one step long, (1, B, G) and
// (1, B, D), reused by every step.
D2L_KERNEL(gru_forward, float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W,
           const float* b, int64_t T, int64_t B, int64_t D, bool keep_all);
//   dgi (T, B, G), dh0 (B, D), dW (G, D), db (G)   added into; any may be null
//   gates (T, B, G) from gru_forward; may be overwritten (the fast tier reuses it as scratch)
//   cand, H, dH (T, B, D), h0 (B, D), W (G, D)
D2L_KERNEL(gru_backward, float* dgi, float* dh0, float* dW, float* db, float* gates, const float* cand, const float* H,
           const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D);

#undef D2L_KERNEL
