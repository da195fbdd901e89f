// tests/test_core_gemm.cpp — the fast tier's GEMM (core/kernels/fast/gemm.h) against the reference tier's
// textbook loops (core/kernels/reference/matmul.cpp), aimed at every block edge of the fast one.
//
// Tolerance. Both kernels sum K products in float32, in different orders (the fast one in
// blocks of KC, with fused multiply-adds). The classic bound for a float dot product is
//   |computed - exact| <= gamma_K * sum_k |a_ik| |b_kj|,   gamma_K = K u / (1 - K u), u = eps/2,
// so two such results differ by at most about K * eps * sum_k |a_ik||b_kj| (which is itself
// <= K * max|a| max|b|). We check every element against exactly that, computed per element
// (with the starting C as one more summand when accumulating), plus a tiny floor for exact
// zeros. A wrong index or a dropped k-block changes an element by about |a||b| ~ 0.25, far
// above the bound for the sizes used here.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernels/fast/gemm.h"
#include "core/kernels/reference/kernels.h"
#include "tests/test_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using d2l::fast::gemm_blocking;

std::vector<float> random_vec(int64_t n, std::mt19937& gen) {
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = U(gen);
  return v;
}

// Element-wise bound from the comment at the top: n eps (|c0| + sum_k |op(A)[i,k]| |op(B)[k,j]|),
// with n = K terms, or K + 1 when the starting value c0 of C is one of the summands (accumulate).
float bound(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B, int64_t i,
            int64_t j, float c0, bool acc) {
  double s = acc ? std::fabs(c0) : 0.0;
  for (int64_t k = 0; k < K; ++k)
    s += std::fabs(ta ? A[k * M + i] : A[i * K + k]) * std::fabs(tb ? B[j * K + k] : B[k * N + j]);
  return float(double(K + acc) * 1.1920929e-7 * s) + 1e-30f;
}

// The elements compare() checks: all of them, or under AddressSanitizer (d2l_test::kSanitized,
// .ci/run's sanitizer pass) the rows and columns 0, 1, the last two and every 5th between
// them (5 divides none of the tile and block sizes of gemm_kernels.h, so over a large enough
// product the sample falls at every offset inside a tile). Both products still run whole
// there, so the sanitizer checks every load and store of the fast kernel and of the
// reference on every shape and flag; only the per-element bound, an O(K) loop compiled at
// -O0 there and half of this suite's time under the sanitizer, is computed for fewer elements.
bool checked(int64_t i, int64_t n) { return !d2l_test::kSanitized || i < 2 || i >= n - 2 || i % 5 == 0; }

// gemm (or gemm_batched when batch > 0) vs the reference product (plus the starting C when
// accumulating); returns the number of bad elements among those checked().
int compare(bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, bool acc, std::mt19937& gen) {
  const int64_t nb = batch > 0 ? batch : 1;
  const std::vector<float> A = random_vec(nb * M * K, gen), B = random_vec(nb * K * N, gen);
  const std::vector<float> C0 = random_vec(nb * M * N, gen);  // random start: tests accumulate
  std::vector<float> C = C0, C_ref = C0;
  if (batch > 0)
    d2l::fast::gemm_batched(ta, tb, batch, M, N, K, A.data(), B.data(), C.data(), acc);
  else
    d2l::fast::gemm(ta, tb, M, N, K, A.data(), B.data(), C.data(), acc);
  int bad = 0;
  for (int64_t b = 0; b < nb; ++b) {
    const float *a = A.data() + b * M * K, *bb = B.data() + b * K * N;
    float* cr = C_ref.data() + b * M * N;
    d2l::reference::matmul_forward(cr, a, bb, 1, M, N, K, ta, tb);
    if (acc)
      for (int64_t i = 0; i < M * N; ++i) cr[i] += C0[b * M * N + i];
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        if (!checked(i, M) || !checked(j, N)) continue;
        const float got = C[b * M * N + i * N + j], want = cr[i * N + j];
        const float tol = bound(ta, tb, M, N, K, a, bb, i, j, C0[b * M * N + i * N + j], acc);
        if (!(std::fabs(got - want) <= tol) && bad++ < 3)
          BOOST_TEST_MESSAGE("ta=" << ta << " tb=" << tb << " batch=" << batch << " M=" << M << " N=" << N
                                   << " K=" << K << " acc=" << acc << " at b=" << b << " (" << i << ", " << j
                                   << "): " << got << " vs " << want << " tol " << tol);
      }
  }
  return bad;
}

struct Dims {
  int64_t M, N, K;
};

// Shapes aimed at every edge: 1, primes, one below / above the register tile MR x NR and the cache
// blocks KC, MC, NC, and sizes spanning several blocks.
std::vector<Dims> edge_shapes() {
  const auto g = gemm_blocking();
  return {{1, 1, 1},
          {1, 37, 5},
          {29, 1, 13},
          {7, 11, 1},
          {g.MR - 1, g.NR - 1, 3},
          {g.MR, g.NR, g.KC},
          {g.MR + 1, g.NR + 1, g.KC + 1},
          {2 * g.MR + 3, 3 * g.NR - 5, 2 * g.KC + 7},
          {g.MC + 1, 41, 17},
          {2 * g.MC + 5, 2 * g.NR + 3, 31},
          {5, g.NC + 3, 9},
          {5, g.NC - 101, 1100},  // K > 1024: the packed B caps the column block below NC
          {97, 101, 103},
          {127, 131, 257}};
}

// Every shape under all eight transpose and accumulate flags, as one product and, when
// batch > 0, as `batch` products of gemm_batched too. Under AddressSanitizer, half of them:
// the four with acc = ta xor tb, so each shape still runs with A and B each stored both ways
// (every path through the operands' memory) and both with and without reading C.
template <class Shapes>
void check_all_flags(const Shapes& shapes, int64_t batch, std::mt19937& gen) {
  for (const Dims& d : shapes)
    for (int flags = 0; flags < 8; ++flags) {
      const bool ta = flags & 1, tb = flags & 2, acc = flags & 4;
      if (d2l_test::kSanitized && acc != (ta != tb)) continue;
      BOOST_TEST(compare(ta, tb, 0, d.M, d.N, d.K, acc, gen) == 0,
                 "M=" << d.M << " N=" << d.N << " K=" << d.K << " ta=" << ta << " tb=" << tb << " acc=" << acc);
      if (batch > 0)
        BOOST_TEST(compare(ta, tb, batch, d.M, d.N, d.K, acc, gen) == 0,
                   "batch " << batch << ", M=" << d.M << " N=" << d.N << " K=" << d.K << " ta=" << ta << " tb=" << tb);
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_gemm)

BOOST_AUTO_TEST_CASE(fast_matches_naive_on_edge_shapes_all_transposes) {
  std::mt19937 gen(1);
  check_all_flags(edge_shapes(), 0, gen);
}

// The small-product kernels (gemm.cpp): one or two rows (gemm_small), one or two columns
// (gemm_narrow), and the padded kernel for M <= 64, N <= 32, K <= 128 with its 8- or 4-row
// blocks: shapes on both sides of every one of those limits.
BOOST_AUTO_TEST_CASE(fast_matches_naive_on_small_kernel_boundaries) {
  std::mt19937 gen(3);
  const Dims shapes[] = {{3, 1, 32},  {640, 1, 32}, {70, 2, 17},  {5, 3, 7},    {10, 10, 8},  {10, 8, 10},
                         {7, 16, 5},  {8, 17, 9},   {9, 32, 33},  {4, 33, 12},  {64, 32, 128}, {65, 32, 128},
                         {64, 33, 128}, {64, 32, 129}, {1, 10, 32}, {2, 16, 16}, {63, 31, 127}};
  check_all_flags(shapes, 5, gen);
}

// The tiny kernel (gemm_tiny.cpp: M, N <= 16, K <= 64, C in registers, 8 or 16 lanes, B
// stored (N, K) transposed by shuffles up to N*K = 256, element by element beyond): every row
// count 1..17, the lane widths' edges N = 3, 8, 9, 16, 17, and K across 1, the shuffle limit
// and the kernel's limit; all flags, single and batched.
BOOST_AUTO_TEST_CASE(fast_matches_naive_on_tiny_kernel_boundaries) {
  std::mt19937 gen(5);
  std::vector<Dims> shapes;
  for (int64_t M = 1; M <= 17; ++M) shapes.push_back({M, M % 2 ? 9 : 8, 3 + M % 5});
  const Dims edges[] = {{10, 10, 8}, {10, 8, 10}, {3, 3, 1},   {16, 16, 16}, {16, 16, 17}, {15, 16, 64},
                        {16, 17, 8}, {17, 16, 8}, {16, 9, 65}, {5, 16, 29},  {12, 13, 20}, {4, 7, 64}};
  shapes.insert(shapes.end(), std::begin(edges), std::end(edges));
  check_all_flags(shapes, 7, gen);
}

// The unpacked kernel (gemm_direct.cpp: one thread's products with K <= 1024 and both
// operands within 2^17 floats, rows cut into equal tiles of at most 14, columns in panels of
// 32 whose last one is masked): the seq2seq models' shapes and their gradients' (K = 640),
// row counts that split unevenly, column counts one off a panel or a vector, K = 1024 and
// 1025 (the packed path again), and shapes just past the tiny kernel; one or two rows (which
// take it too), and one or two columns (the 16-row narrow kernel, gemm_direct.cpp).
BOOST_AUTO_TEST_CASE(fast_matches_naive_on_direct_kernel_boundaries) {
  std::mt19937 gen(6);
  const Dims shapes[] = {{32, 32, 640}, {640, 201, 32}, {64, 96, 32},  {96, 32, 64},  {3, 17, 5},   {17, 3, 70},
                         {17, 1, 33},   {35, 2, 16},    {640, 1, 32},  {1, 40, 90},  {2, 10, 32},  {1, 33, 640},
                         {29, 33, 31},  {43, 47, 9},    {15, 16, 65},  {16, 17, 64}, {100, 64, 1024}, {100, 64, 1025},
                         {13, 200, 7},  {201, 32, 640}, {28, 49, 100}};
  check_all_flags(shapes, 0, gen);
  BOOST_TEST(compare(false, true, 3, 29, 33, 31, true, gen) == 0, "batch 3, 29 x 33 x 31");
}

// The products shared among threads without packing, above the fork size: few rows
// (gemm_stream.cpp: M <= 64, computed as Cᵀ in tiles of 14 columns by 32 rows and stored back
// transposed) at the seed-size seq2seq shapes (a batch of 32 by a 512 x 1536 GRU weight, and
// its gradient with K = 1536), row counts one past a vector or a 32-row panel, column counts
// off a tile; and short sums (gemm_direct.cpp's gemm_short_sum: K <= 64) with many rows, as a
// decoder step's dW = dyᵀ x, row counts off a 14-row tile; then just past each limit (M = 65,
// K = 65: the packed path).
BOOST_AUTO_TEST_CASE(fast_matches_naive_on_stream_kernel_boundaries) {
  std::mt19937 gen(8);
  const Dims shapes[] = {{32, 1536, 512}, {32, 512, 1536}, {3, 2001, 700},  {17, 1000, 300}, {33, 1001, 129},
                         {64, 703, 100},  {65, 700, 100},  {1536, 768, 32}, {2000, 211, 64}, {700, 1000, 65},
                         {1537, 512, 32}, {69, 3001, 21}};
  check_all_flags(shapes, 0, gen);
  // With a bias added as the tiles store C (nn.Linear's y = x Wᵀ + b): the same as adding it after.
  for (const Dims& d : {Dims{32, 1536, 768}, Dims{2000, 300, 40}}) {
    const std::vector<float> A = random_vec(d.M * d.K, gen), B = random_vec(d.N * d.K, gen), b = random_vec(d.N, gen);
    std::vector<float> C(d.M * d.N), C_ref(d.M * d.N);
    d2l::fast::gemm(false, true, d.M, d.N, d.K, A.data(), B.data(), C.data(), false, b.data());
    d2l::fast::gemm(false, true, d.M, d.N, d.K, A.data(), B.data(), C_ref.data(), false);
    for (int64_t i = 0; i < d.M * d.N; ++i) C_ref[i] += b[i % d.N];
    BOOST_TEST((C == C_ref), "bias, M=" << d.M << " N=" << d.N << " K=" << d.K);
  }
}

// Long sums into a small result (gemm_long_sum.cpp: A stored (K, M), B (K, N), K >= 4096,
// M > 64, N >= 16, M N <= 2^18: a weight's gradient over a batch's tokens), cut into 16 parts added in
// order: K a multiple of 16 and not, one below the limit (4095, the packed path), M and N at
// their limits, accumulating or not (check_all_flags runs the other seven flag sets, which take
// the other paths, on the same shapes); then gemm_batched on the same shape, which must give
// each matrix exactly what gemm gives it alone.
BOOST_AUTO_TEST_CASE(fast_matches_naive_on_long_sum_boundaries) {
  std::mt19937 gen(9);
  const Dims shapes[] = {{80, 33, 4096}, {65, 16, 4099}, {70, 40, 4095}, {64, 40, 5000}, {66, 15, 4500}};
  check_all_flags(shapes, 0, gen);
  const int64_t batch = 2, M = 70, N = 24, K = 4200;
  const std::vector<float> A = random_vec(batch * K * M, gen), B = random_vec(batch * K * N, gen);
  for (bool acc : {false, true}) {
    std::vector<float> C1 = random_vec(batch * M * N, gen), C2 = C1;
    d2l::fast::gemm_batched(true, false, batch, M, N, K, A.data(), B.data(), C1.data(), acc);
    for (int64_t b = 0; b < batch; ++b)
      d2l::fast::gemm(true, false, M, N, K, A.data() + b * K * M, B.data() + b * K * N, C2.data() + b * M * N, acc);
    BOOST_TEST((C1 == C2), "gemm_batched vs gemm, long sum, acc=" << acc);
  }
}

// The transpose behind the unpacked GEMM's B stored (N, K) and the GRU's W_hh (16 x 16
// blocks through registers): every element moved exactly, the columns of out past `rows`
// (the row stride's padding) untouched, sizes on both sides of the block edges.
BOOST_AUTO_TEST_CASE(transpose_moves_every_element) {
  std::mt19937 gen(7);
  const int64_t sizes[][2] = {{1, 1}, {1, 17}, {17, 1}, {16, 16}, {15, 17}, {33, 32}, {96, 32}, {201, 32}, {5, 40}};
  for (const auto& s : sizes) {
    const int64_t rows = s[0], cols = s[1], ld = rows + 3;
    const std::vector<float> in = random_vec(rows * cols, gen);
    std::vector<float> out(cols * ld, 7.0f);
    d2l::fast::transpose(rows, cols, in.data(), out.data(), ld);
    int bad = 0;
    for (int64_t k = 0; k < cols; ++k)
      for (int64_t q = 0; q < ld; ++q) bad += out[k * ld + q] != (q < rows ? in[q * cols + k] : 7.0f);
    BOOST_TEST(bad == 0, "transpose " << rows << " x " << cols);
  }
}

BOOST_AUTO_TEST_CASE(fast_matches_naive_on_random_shapes) {
  std::mt19937 gen(2);
  std::uniform_int_distribution<int64_t> size(1, 150);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t M = size(gen), N = size(gen), K = size(gen);
    const bool ta = trial & 1, tb = trial & 2, acc = trial & 4;
    BOOST_TEST(compare(ta, tb, 0, M, N, K, acc, gen) == 0,
               "M=" << M << " N=" << N << " K=" << K << " ta=" << ta << " tb=" << tb << " acc=" << acc);
  }
}

BOOST_AUTO_TEST_CASE(hand_computed_2x2) {
  // [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50]; with both transposed it is (B A)^T = [23 31; 34 46].
  const float A[] = {1, 2, 3, 4}, B[] = {5, 6, 7, 8};
  float C[4];
  d2l::fast::gemm(false, false, 2, 2, 2, A, B, C, false);
  BOOST_TEST(C[0] == 19.0f);
  BOOST_TEST(C[1] == 22.0f);
  BOOST_TEST(C[2] == 43.0f);
  BOOST_TEST(C[3] == 50.0f);
  d2l::fast::gemm(true, true, 2, 2, 2, A, B, C, false);
  BOOST_TEST(C[0] == 23.0f);
  BOOST_TEST(C[1] == 31.0f);
  BOOST_TEST(C[2] == 34.0f);
  BOOST_TEST(C[3] == 46.0f);
  d2l::fast::gemm(false, true, 2, 2, 2, A, B, C, true);  // A B^T = [17 23; 39 53], added to the above
  BOOST_TEST(C[0] == 40.0f);
  BOOST_TEST(C[1] == 54.0f);
  BOOST_TEST(C[2] == 73.0f);
  BOOST_TEST(C[3] == 99.0f);
}

BOOST_AUTO_TEST_CASE(degenerate_sizes) {
  std::vector<float> A(12, 1.0f), B(12, 1.0f), C(12, 7.0f);
  d2l::fast::gemm(false, false, 3, 4, 0, A.data(), B.data(), C.data(), true);  // empty sum, accumulate: unchanged
  for (float c : C) BOOST_TEST(c == 7.0f);
  d2l::fast::gemm(false, false, 3, 4, 0, A.data(), B.data(), C.data(), false);  // empty sum: zeros
  for (float c : C) BOOST_TEST(c == 0.0f);
  std::fill(C.begin(), C.end(), 7.0f);
  d2l::fast::gemm(false, false, 0, 4, 3, A.data(), B.data(), C.data(), false);  // no rows: untouched
  d2l::fast::gemm(true, true, 3, 0, 3, A.data(), B.data(), C.data(), false);    // no columns: untouched
  d2l::fast::gemm_batched(false, false, 0, 3, 4, 3, A.data(), B.data(), C.data(), false);
  for (float c : C) BOOST_TEST(c == 7.0f);
  d2l::fast::gemm_batched(false, true, 3, 2, 2, 0, A.data(), B.data(), C.data(), false);  // 3 empty sums
  for (int i = 0; i < 12; ++i) BOOST_TEST(C[i] == 0.0f);
  std::fill(C.begin(), C.end(), 7.0f);
  d2l::reference::matmul_forward(C.data(), A.data(), B.data(), 1, 3, 4, 0, false, false);  // the same in the reference
  for (float c : C) BOOST_TEST(c == 0.0f);
}

BOOST_AUTO_TEST_CASE(negative_size_is_an_error) {
  float x = 0.0f;
  auto names = [](const char* fn) {
    return [fn](const std::invalid_argument& e) {
      const std::string m = e.what();
      return m.find(std::string("[") + fn + "]") == 0 && m.find("K=-1") != std::string::npos;
    };
  };
  BOOST_CHECK_EXCEPTION(d2l::fast::gemm(false, false, 2, 2, -1, &x, &x, &x, false), std::invalid_argument,
                        names("gemm"));
  BOOST_CHECK_EXCEPTION(d2l::fast::gemm_batched(false, false, 2, 2, 2, -1, &x, &x, &x, false), std::invalid_argument,
                        names("gemm_batched"));
}

BOOST_AUTO_TEST_CASE(batched_matches_naive) {
  std::mt19937 gen(3);
  // The book's attention shapes (many small matrices: one per thread), then a few big ones
  // (each matrix split over threads) and odd sizes.
  const int64_t cases[][4] = {{64, 10, 10, 8}, {64, 1, 10, 32}, {20, 4, 50, 64}, {3, 200, 150, 90},
                              {7, 13, 1, 5},   {1, 31, 33, 35}, {5, 1, 1, 1}};
  for (const auto& c : cases)
    for (int flags = 0; flags < 8; ++flags) {
      const bool ta = flags & 1, tb = flags & 2, acc = flags & 4;
      BOOST_TEST(compare(ta, tb, c[0], c[1], c[2], c[3], acc, gen) == 0,
                 "batch=" << c[0] << " M=" << c[1] << " N=" << c[2] << " K=" << c[3] << " ta=" << ta << " tb=" << tb
                          << " acc=" << acc);
    }
}

// Each C element's summation order depends only on the sizes, so 1, 2 and 3 threads agree bit
// for bit: results never depend on the thread count. The shapes are large enough to take
// the parallel paths.
BOOST_AUTO_TEST_CASE(bit_identical_across_thread_counts, *boost::unit_test::precondition(d2l_test::openmp_build)) {
#ifdef _OPENMP
  std::mt19937 gen(4);
  const int saved = omp_get_max_threads();
  const auto g = gemm_blocking();
  const Dims shapes[] = {{300, 290, 2 * g.KC + 9}, {3, 2 * g.NC + 40, 300}, {g.MR * 5 + 1, 500, 100}, {640, 201, 32},
                         {32, 32, 640},   {32, 1536, 512},         {37, 1001, 300},         {1536, 768, 32},
                         {1537, 512, 32}, {32, 517, 1536},        {70, 40, 8200}};  // the last: a long sum
  for (const Dims& d : shapes)
    for (int flags = 0; flags < 4; ++flags) {
      const bool ta = flags & 1, tb = flags & 2;
      const std::vector<float> A = random_vec(d.M * d.K, gen), B = random_vec(d.K * d.N, gen);
      std::vector<float> C[3];
      for (int threads = 1; threads <= 3; ++threads) {  // 3: blocks of rows or columns that do not halve
        omp_set_num_threads(threads);
        C[threads - 1].assign(d.M * d.N, 0.0f);
        d2l::fast::gemm(ta, tb, d.M, d.N, d.K, A.data(), B.data(), C[threads - 1].data(), false);
      }
      const std::string at = "M=" + std::to_string(d.M) + " N=" + std::to_string(d.N) + " K=" + std::to_string(d.K) +
                             " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
      BOOST_TEST((C[0] == C[1]), "gemm 1 and 2 threads, " << at);
      BOOST_TEST((C[0] == C[2]), "gemm 1 and 3 threads, " << at);
    }
  // Batched: the one-matrix-per-thread path, the split-each-matrix path, the tiny kernel's
  // batch loop (64 heads of 10 x 10 x 8, below the fork size) and, forked, one tiny matrix
  // per call; and their agreement with single gemm calls.
  const int64_t batches[][4] = {{64, 50, 64, 40},  {2, 150, 160, 300}, {520, 16, 16, 64},
                                {5300, 10, 10, 8}, {64, 10, 10, 8}};
  for (const auto& c : batches) {
    const int64_t batch = c[0], M = c[1], N = c[2], K = c[3];
    const std::vector<float> A = random_vec(batch * M * K, gen), B = random_vec(batch * K * N, gen);
    std::vector<float> C1(batch * M * N), C2(batch * M * N), C3(batch * M * N);
    omp_set_num_threads(1);
    d2l::fast::gemm_batched(false, true, batch, M, N, K, A.data(), B.data(), C1.data(), false);
    omp_set_num_threads(2);
    d2l::fast::gemm_batched(false, true, batch, M, N, K, A.data(), B.data(), C2.data(), false);
    for (int64_t b = 0; b < batch; ++b)
      d2l::fast::gemm(false, true, M, N, K, A.data() + b * M * K, B.data() + b * K * N, C3.data() + b * M * N, false);
    BOOST_TEST((C1 == C2), "gemm_batched batch=" << batch << " M=" << M);
    BOOST_TEST((C1 == C3), "gemm_batched vs gemm batch=" << batch << " M=" << M);
  }
  omp_set_num_threads(saved);
#endif
}

BOOST_AUTO_TEST_SUITE_END()
