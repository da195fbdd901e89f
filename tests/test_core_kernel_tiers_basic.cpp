// tests/test_core_kernel_tiers_basic.cpp — suite core_kernel_tiers_basic: the element-wise,
// comparison, reduction, layer-norm, cross-entropy and GRU kernels of the fast tier against
// the reference tier (the products, softmax and dropout are in test_core_kernel_tiers.cpp);
// then (tests/test_core_kernel_tiers_cover.cpp) the check that every kernel was compared. Each
// tolerance is derived next to its check; kEps and the sum bound are in tier_compare.h.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/kernels/fast/kernels.h"
#include "core/kernels/reference/kernels.h"
#include "tests/test_util.h"  // openmp_build
#include "tests/tier_compare.h"

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace tier_test;
namespace fast = d2l::fast;
namespace ref = d2l::reference;
using d2l::kernels::Binary;
using d2l::kernels::Broadcast;
using d2l::kernels::Compare;
using d2l::kernels::Unary;
using d2l::Shape;

namespace {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string str(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + ")";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_kernel_tiers_basic)

// Unary functions. The fast tier's tanh is 1 − 2 / (e^{2x} + 1) with its own exp (within
// 3 kEps relative): the slope of that form in e is 2/(e + 1)² <= 1/(2e), so the exp's
// error moves y by at most 1.5 kEps, and its three roundings by 2.5 kEps more; std::tanh is
// within kEps |y| <= kEps: |Δy| <= 5 kEps, absolute. The fast sigmoid 1 / (1 + e^{-x}) and
// the reference's with std::exp: the exps differ by 4 kEps relative, which moves y by at
// most 4 kEps relative, plus two roundings each: |Δy| <= 6 kEps |y|. Every other function
// is the same expression in both tiers: |Δy| <= kEps |y| leaves room for one rounding.
// Backward: dx += dy f'(x, y) with the same f' formula in both: the multiply-add may be
// fused in one tier and not in the other, |Δdx| <= 2 kEps (|start| + |dy f'|).
BOOST_AUTO_TEST_CASE(unary_every_function) {
  const Unary all[] = {Unary::add_scalar, Unary::mul_scalar, Unary::rsub_scalar, Unary::rdiv_scalar, Unary::neg,
                       Unary::exp,        Unary::log,        Unary::pow,         Unary::sqrt,        Unary::tanh,
                       Unary::sigmoid,    Unary::relu,       Unary::sin,         Unary::cos,         Unary::abs};
  for (int64_t n : {0, 1, 15, 16, 17, 33, 1000, 300000})
    for (Unary f : all) {
      const bool positive = f == Unary::log || f == Unary::pow || f == Unary::sqrt || f == Unary::rdiv_scalar;
      const Vec x = positive ? uniform(n, 0.1f, 4.0f) : uniform(n, -9.0f, 9.0f), dy = uniform(n), dx0 = uniform(n);
      const float s = f == Unary::pow ? 2.5f : 0.75f;
      Vec yf(n), yr(n), dxf = dx0, dxr = dx0, term(n, 0.0f);
      fast::unary_forward(yf.data(), x.data(), n, f, s);
      ref::unary_forward(yr.data(), x.data(), n, f, s);
      Vec tol(n);
      for (int64_t i = 0; i < n; ++i)
        tol[i] = f == Unary::tanh ? 5 * kEps : (f == Unary::sigmoid ? 6 : 1) * kEps * std::fabs(yr[i]) + 1e-30f;
      const std::string at = "function " + std::to_string(int(f)) + " n " + std::to_string(n);
      BOOST_TEST(mismatches("unary_forward " + at, yf, yr, tol) == 0, at);
      fast::unary_backward(dxf.data(), dy.data(), x.data(), yr.data(), n, f, s);
      ref::unary_backward(dxr.data(), dy.data(), x.data(), yr.data(), n, f, s);
      ref::unary_backward(term.data(), dy.data(), x.data(), yr.data(), n, f, s);  // dy f' alone
      for (int64_t i = 0; i < n; ++i) tol[i] = 2 * kEps * (std::fabs(dx0[i]) + std::fabs(term[i])) + 1e-30f;
      BOOST_TEST(mismatches("unary_backward " + at, dxf, dxr, tol) == 0, at);
      if (d2l::kernels::derivative_reads(f) != d2l::kernels::DerivativeReads::input_and_output) {
        // f' from y alone, or a constant: the op passes no x (nor y), and both tiers must
        // give the same bits as with them
        Vec dxf_no_x = dx0, dxr_no_x = dx0;
        const bool no_y = d2l::kernels::derivative_reads(f) == d2l::kernels::DerivativeReads::nothing;
        const float* y_or_null = no_y ? nullptr : yr.data();
        fast::unary_backward(dxf_no_x.data(), dy.data(), nullptr, y_or_null, n, f, s);
        ref::unary_backward(dxr_no_x.data(), dy.data(), nullptr, y_or_null, n, f, s);
        BOOST_TEST((dxf_no_x == dxf), "fast unary_backward without x, " << at);
        BOOST_TEST((dxr_no_x == dxr), "reference unary_backward without x, " << at);
      }
    }
}

// Binary ops with broadcasting. The forward is one operation per element in both tiers
// (|Δy| <= kEps |y|, room for one rounding). In the backward a broadcast input element
// receives F = numel(out) / numel(input) terms, added in output order in both tiers but
// possibly fused differently: |Δ| <= (F + 2) kEps (|start| + Σ|terms|), where Σ|terms| is
// the reference backward run from zero on |dy|, |a| and |b| (each term is a product of
// them, or a quotient by b).
BOOST_AUTO_TEST_CASE(binary_broadcast_every_op) {
  const std::pair<Shape, Shape> shapes[] = {{{}, {}},          {{7}, {7}},          {{300000}, {300000}},
                                            {{3, 1, 5}, {4, 5}}, {{2, 3}, {}},        {{17, 1}, {1, 19}},
                                            {{0, 3}, {3}},       {{5, 16}, {16}},     {{1}, {33}},
                                            {{2, 1, 3, 1}, {4, 1, 5}},
                                            // above the thread threshold: 10.3's additive
                                            // attention features (one query against 20 keys),
                                            // then an input broadcast along dim 0
                                            {{32, 1, 1, 512}, {32, 1, 20, 512}}, {{1, 20, 512}, {32, 20, 512}}};
  for (const auto& [sa, sb] : shapes)
    for (Binary op : {Binary::add, Binary::sub, Binary::mul, Binary::div}) {
      Shape out(std::max(sa.size(), sb.size()));
      for (size_t k = 1; k <= out.size(); ++k) {
        const int64_t da = k <= sa.size() ? sa[sa.size() - k] : 1, db = k <= sb.size() ? sb[sb.size() - k] : 1;
        out[out.size() - k] = da == 1 ? db : da;
      }
      const Broadcast bc{out, sa, sb};
      const int64_t n = numel(out), na = numel(sa), nb = numel(sb);
      const Vec a = uniform(na), b = uniform(nb, 0.5f, 2.0f), dy = uniform(n), da0 = uniform(na), db0 = uniform(nb);
      Vec yf(n), yr(n);
      fast::binary_forward(yf.data(), a.data(), b.data(), bc, op);
      ref::binary_forward(yr.data(), a.data(), b.data(), bc, op);
      const std::string at = "op " + std::to_string(int(op)) + " a " + str(sa) + " b " + str(sb);
      Vec tol(n);
      for (int64_t i = 0; i < n; ++i) tol[i] = kEps * std::fabs(yr[i]) + 1e-30f;
      BOOST_TEST(mismatches("binary_forward " + at, yf, yr, tol) == 0, at);
      Vec daf = da0, dbf = db0, dar = da0, dbr = db0, daa(na, 0.0f), dba(nb, 0.0f);
      fast::binary_backward(daf.data(), dbf.data(), dy.data(), a.data(), b.data(), bc, op);
      ref::binary_backward(dar.data(), dbr.data(), dy.data(), a.data(), b.data(), bc, op);
      ref::binary_backward(daa.data(), dba.data(), abs_of(dy).data(), abs_of(a).data(), b.data(), bc, op);
      auto grad_tol = [&](const Vec& start, const Vec& terms, int64_t fed) {
        Vec t(start.size());
        for (size_t i = 0; i < t.size(); ++i)
          t[i] = float(fed + 2) * kEps * (std::fabs(start[i]) + std::fabs(terms[i])) + 1e-30f;
        return t;
      };
      BOOST_TEST(mismatches("binary_backward da " + at, daf, dar, grad_tol(da0, daa, na ? n / na : 0)) == 0, at);
      BOOST_TEST(mismatches("binary_backward db " + at, dbf, dbr, grad_tol(db0, dba, nb ? n / nb : 0)) == 0, at);
    }
}

// Comparisons and isclose: a 0/1 per element, so the tiers agree exactly (tolerance 0). The
// inputs hold equal values, NaNs and infinities, broadcast both ways.
BOOST_AUTO_TEST_CASE(compare_and_isclose_every_op) {
  const float inf = INFINITY, nan = NAN;
  const Vec a = {1.0f, 2.0f, nan, inf, -inf, 0.0f, 1e-9f, 3.0f, nan, 5.0f, -2.0f, 1.0f};
  const Vec b = {1.0f, nan, inf, 2.0f};
  const std::pair<Shape, Shape> shapes[] = {{{3, 4}, {4}}, {{3, 4}, {3, 1}}, {{12}, {1}}, {{3, 1, 4}, {4, 1}}};
  for (const auto& [sa, sb] : shapes) {
    Shape out(std::max(sa.size(), sb.size()));
    for (size_t k = 1; k <= out.size(); ++k) {
      const int64_t da = k <= sa.size() ? sa[sa.size() - k] : 1, db = k <= sb.size() ? sb[sb.size() - k] : 1;
      out[out.size() - k] = da == 1 ? db : da;
    }
    const Broadcast bc{out, sa, sb};
    const Vec bb(b.begin(), b.begin() + numel(sb));
    const std::string at = "a " + str(sa) + " b " + str(sb);
    Vec yf(numel(out)), yr(numel(out));
    for (Compare op : {Compare::eq, Compare::ne, Compare::lt, Compare::le, Compare::gt, Compare::ge}) {
      fast::compare_forward(yf.data(), a.data(), bb.data(), bc, op);
      ref::compare_forward(yr.data(), a.data(), bb.data(), bc, op);
      BOOST_TEST(mismatches("compare_forward op " + std::to_string(int(op)) + " " + at, yf, yr, 0.0f) == 0, at);
    }
    for (bool equal_nan : {false, true}) {
      fast::isclose_forward(yf.data(), a.data(), bb.data(), bc, 1e-5f, 1e-8f, equal_nan);
      ref::isclose_forward(yr.data(), a.data(), bb.data(), bc, 1e-5f, 1e-8f, equal_nan);
      BOOST_TEST(mismatches("isclose_forward equal_nan " + std::to_string(equal_nan) + " " + at, yf, yr, 0.0f) == 0, at);
    }
  }
}

// sum over one dim: each output is a sum of n terms (the fast tier in vector lanes when the
// run is contiguous), times scale: sum_tolerance with Σ|terms| from the reference on |x|.
// The backward adds scale dy once per element: |Δ| <= 2 kEps (|start| + |scale dy|). max is
// the reference kernel in both tiers: the same values and positions, and in the backward
// the same single add per gradient element.
BOOST_AUTO_TEST_CASE(sum_and_max_over_one_dim) {
  const int64_t shapes[][3] = {{1, 0, 1}, {1, 1, 1}, {1, 17, 1}, {3, 1000, 1}, {5, 33, 1},
                               {2, 7, 3}, {4, 5, 16}, {600, 600, 1}, {1, 600, 600},
                               // above the thread threshold: one long run, outputs wider
                               // than a task's 1024 columns, and 15.5's Aggregate sum
                               {1, 300000, 1}, {2, 3, 70000}, {256, 50, 200}};
  for (const auto& s : shapes)
    for (bool average : {false, true}) {
      const int64_t outer = s[0], n = s[1], inner = s[2];
      if (average && n == 0) continue;  // the mean of nothing: no op asks for it
      const float scale = average ? 1.0f / float(n) : 1.0f;
      const Vec x = uniform(outer * n * inner), dy = uniform(outer * inner), dx0 = uniform(outer * n * inner);
      Vec yf(outer * inner), yr(outer * inner), ya(outer * inner), dxf = dx0, dxr = dx0;
      fast::sum_forward(yf.data(), x.data(), outer, n, inner, scale);
      ref::sum_forward(yr.data(), x.data(), outer, n, inner, scale);
      ref::sum_forward(ya.data(), abs_of(x).data(), outer, n, inner, scale);
      const std::string at = "(" + std::to_string(outer) + ", " + std::to_string(n) + ", " + std::to_string(inner) +
                             (average ? ") mean" : ") sum");
      BOOST_TEST(mismatches("sum_forward " + at, yf, yr, sum_tolerance(n, {}, ya)) == 0, at);
      fast::sum_backward(dxf.data(), dy.data(), outer, n, inner, scale);
      ref::sum_backward(dxr.data(), dy.data(), outer, n, inner, scale);
      Vec tol(dx0.size());
      for (size_t i = 0; i < tol.size(); ++i) tol[i] = 2 * kEps * (std::fabs(dx0[i]) + scale);
      BOOST_TEST(mismatches("sum_backward " + at, dxf, dxr, tol) == 0, at);
      if (n == 0) continue;
      Vec mf(outer * inner), mr(outer * inner);
      std::vector<int64_t> wf(outer * inner), wr(outer * inner);
      fast::max_forward(mf.data(), wf.data(), x.data(), outer, n, inner);
      ref::max_forward(mr.data(), wr.data(), x.data(), outer, n, inner);
      BOOST_TEST(mismatches("max_forward " + at, mf, mr, 0.0f) == 0, at);
      BOOST_TEST((wf == wr), at);
      Vec dmf = dx0, dmr = dx0;
      fast::max_backward(dmf.data(), dy.data(), wr.data(), outer, n, inner);
      ref::max_backward(dmr.data(), dy.data(), wr.data(), outer, n, inner);
      BOOST_TEST(mismatches("max_backward " + at, dmf, dmr, 0.0f) == 0, at);
    }
}

// Layer norm, row by row, with |x| <= 1 and N entries. The mean is a sum of N terms
// divided by N: the tiers' means differ by dm <= kEps Σ|x| (1 + 1/N). The variance sums N
// squares of (x − mean), then divides: dv <= (N + 3) kEps var + 2 dm mean|x − m| + dm².
// rstd = (var + eps)^-½ then moves by half the relative change of var + eps, plus two
// roundings; x̂ = (x − mean) rstd by dm rstd + |x̂| (drstd/rstd + kEps); y = γ x̂ + β by
// |γ| dx̂ + 2 kEps (|γ x̂| + |β|). The statistics in double, from the input.
struct NormBounds {
  Vec xhat, y, rstd;
};
NormBounds layer_norm_bounds(const Vec& x, const Vec& rstd, const Vec& xhat, const float* gamma, const float* beta,
                             int64_t R, int64_t N) {
  NormBounds t{Vec(x.size()), Vec(x.size()), Vec(R)};
  for (int64_t r = 0; r < R; ++r) {
    double sum = 0, sum_abs = 0, var = 0, dev = 0;
    for (int64_t j = 0; j < N; ++j) sum += x[r * N + j], sum_abs += std::fabs(x[r * N + j]);
    const double m = sum / N, dm = kEps * sum_abs * (1.0 + 1.0 / N);  // the sum, then the division
    for (int64_t j = 0; j < N; ++j) var += (x[r * N + j] - m) * (x[r * N + j] - m), dev += std::fabs(x[r * N + j] - m);
    var /= N, dev /= N;
    const double dv = (N + 3) * kEps * var + 2 * dm * dev + dm * dm;
    const double rel = 0.5 * dv / (var + 1e-5) + 2 * kEps;  // drstd / rstd
    t.rstd[r] = float(rel * rstd[r]) + 1e-30f;
    for (int64_t j = 0; j < N; ++j) {
      const size_t i = r * N + j;
      const double g = gamma ? gamma[j] : 1.0, b = beta ? beta[j] : 0.0;
      const double dxh = dm * rstd[r] + std::fabs(xhat[i]) * (rel + kEps);
      t.xhat[i] = float(dxh) + 1e-30f;
      t.y[i] = float(std::fabs(g) * dxh + 2 * kEps * (std::fabs(g * xhat[i]) + std::fabs(b))) + 1e-30f;
    }
  }
  return t;
}

// Backward, from the same x̂, rstd and γ: with g = dy γ, s1 = Σ g and s2 = Σ g x̂ (N-term
// sums: ds1 <= N kEps Σ|g|, ds2 <= N kEps Σ|g x̂|), dx = start + c (N g − s1 − x̂ s2) with
// c = rstd/N: |Δdx| <= |c| (ds1 + |x̂| ds2) + 4 kEps (|start| + |c| (N |g| + |s1| + |x̂ s2|)).
// dγ and dβ add R rows into the start (the fast tier sums the rows first): sum_tolerance
// with n = R.
BOOST_AUTO_TEST_CASE(layer_norm_rows) {
  const int64_t shapes[][2] = {{0, 4}, {1, 1}, {3, 2}, {2, 7}, {4, 16}, {3, 17}, {5, 100}, {2, 513}, {600, 512}};
  for (const auto& s : shapes)
    for (bool affine : {false, true}) {
      const int64_t R = s[0], N = s[1];
      const Vec x = uniform(R * N), gamma = uniform(N, 0.5f, 1.5f), beta = uniform(N), dy = uniform(R * N);
      const float* g = affine ? gamma.data() : nullptr;
      const float* b = affine ? beta.data() : nullptr;
      Vec yf(R * N), yr(R * N), hf(R * N), hr(R * N), rf(R), rr(R);
      fast::layer_norm_forward(yf.data(), hf.data(), rf.data(), x.data(), g, b, R, N, 1e-5f);
      ref::layer_norm_forward(yr.data(), hr.data(), rr.data(), x.data(), g, b, R, N, 1e-5f);
      const NormBounds tol = layer_norm_bounds(x, rr, hr, g, b, R, N);
      const std::string at = "R " + std::to_string(R) + " N " + std::to_string(N) + (affine ? " affine" : "");
      BOOST_TEST(mismatches("layer_norm_forward rstd " + at, rf, rr, tol.rstd) == 0, at);
      BOOST_TEST(mismatches("layer_norm_forward xhat " + at, hf, hr, tol.xhat) == 0, at);
      BOOST_TEST(mismatches("layer_norm_forward y " + at, yf, yr, tol.y) == 0, at);
      const Vec dx0 = uniform(R * N), dg0 = uniform(N), db0 = uniform(N);
      Vec dxf = dx0, dxr = dx0, dgf = dg0, dgr = dg0, dbf = db0, dbr = db0;
      fast::layer_norm_backward(dxf.data(), affine ? dgf.data() : nullptr, affine ? dbf.data() : nullptr, dy.data(),
                                hr.data(), rr.data(), g, R, N);
      ref::layer_norm_backward(dxr.data(), affine ? dgr.data() : nullptr, affine ? dbr.data() : nullptr, dy.data(),
                               hr.data(), rr.data(), g, R, N);
      Vec tdx(R * N), sum_gh(N, 0.0f), sum_dy(N, 0.0f);
      for (int64_t r = 0; r < R; ++r) {
        double s1 = 0, s2 = 0, a1 = 0, a2 = 0;
        for (int64_t j = 0; j < N; ++j) {
          const double gj = dy[r * N + j] * (g ? g[j] : 1.0f);
          s1 += gj, s2 += gj * hr[r * N + j], a1 += std::fabs(gj), a2 += std::fabs(gj * hr[r * N + j]);
          sum_gh[j] += std::fabs(dy[r * N + j] * hr[r * N + j]), sum_dy[j] += std::fabs(dy[r * N + j]);
        }
        const double c = rr[r] / N;
        for (int64_t j = 0; j < N; ++j) {
          const size_t i = r * N + j;
          const double gj = std::fabs(dy[i] * (g ? g[j] : 1.0f)), h = std::fabs(hr[i]);
          tdx[i] = float(c * (N * kEps * a1 + h * N * kEps * a2) +
                         4 * kEps * (std::fabs(dx0[i]) + c * (N * gj + std::fabs(s1) + h * std::fabs(s2)))) + 1e-30f;
        }
      }
      BOOST_TEST(mismatches("layer_norm_backward dx " + at, dxf, dxr, tdx) == 0, at);
      BOOST_TEST(mismatches("layer_norm_backward dgamma " + at, dgf, dgr, sum_tolerance(R, dg0, sum_gh)) == 0, at);
      BOOST_TEST(mismatches("layer_norm_backward dbeta " + at, dbf, dbr, sum_tolerance(R, db0, sum_dy)) == 0, at);
    }
}

// Cross-entropy: loss = (m − z_label) + log s, both terms >= 0, with the same max m. The
// row sums s of C exponentials differ by (C + 4) kEps relative (as in the softmax test), so
// log s by (C + 4) kEps, and three roundings of values <= loss remain: |Δloss| <=
// (C + 8) kEps (1 + loss). prob is a softmax: (C + 12) kEps prob. The backward adds
// dloss (prob − [c = label]) with the same prob: |Δ| <= 2 kEps (|start| + |that term|).
BOOST_AUTO_TEST_CASE(softmax_cross_entropy_rows) {
  const int64_t shapes[][2] = {{0, 3}, {1, 1}, {7, 2}, {5, 3}, {4, 17}, {64, 100}, {300, 1000}};
  for (const auto& s : shapes) {
    const int64_t R = s[0], C = s[1];
    const Vec z = uniform(R * C, -8.0f, 8.0f), dloss = uniform(R), dz0 = uniform(R * C);
    std::vector<int64_t> label(R);
    for (int64_t r = 0; r < R; ++r) label[r] = (r * 7 + 3) % C;
    Vec lf(R), lr(R), pf(R * C), pr(R * C);
    fast::softmax_cross_entropy_forward(lf.data(), pf.data(), z.data(), label.data(), R, C);
    ref::softmax_cross_entropy_forward(lr.data(), pr.data(), z.data(), label.data(), R, C);
    const std::string at = "R " + std::to_string(R) + " C " + std::to_string(C);
    Vec tl(R), tp(R * C), tdz(R * C);
    for (int64_t r = 0; r < R; ++r) tl[r] = float(C + 8) * kEps * (1.0f + std::fabs(lr[r]));
    for (int64_t i = 0; i < R * C; ++i) tp[i] = float(C + 12) * kEps * pr[i] + 1e-30f;
    BOOST_TEST(mismatches("softmax_cross_entropy_forward loss " + at, lf, lr, tl) == 0, at);
    BOOST_TEST(mismatches("softmax_cross_entropy_forward prob " + at, pf, pr, tp) == 0, at);
    Vec dzf = dz0, dzr = dz0;
    fast::softmax_cross_entropy_backward(dzf.data(), dloss.data(), pr.data(), label.data(), R, C);
    ref::softmax_cross_entropy_backward(dzr.data(), dloss.data(), pr.data(), label.data(), R, C);
    for (int64_t i = 0; i < R * C; ++i) {
      const float t = dloss[i / C] * (pr[i] - (i % C == label[i / C] ? 1.0f : 0.0f));
      tdz[i] = 2 * kEps * (std::fabs(dz0[i]) + std::fabs(t)) + 1e-30f;
    }
    BOOST_TEST(mismatches("softmax_cross_entropy_backward " + at, dzf, dzr, tdz) == 0, at);
  }
}

// --- the GRU's recurrence ----------------------------------------------------------------
struct Gru {
  int64_t T, B, D;
};
// Sizes: one step, one row, one unit; odd sizes; D off the vector width; a step of
// B D = 5200 elements, above the fast tier's thread threshold for the gate math; no rows; then
// steps whose product B x 3D x D is above the GEMM fork size, which the fast tier shares among
// threads by hidden units (gru.cpp): B one past a 32-row panel with D off the 16-unit groups,
// and a single step (a decoder's call) with six rows.
const Gru kGruSizes[] = {{1, 1, 1},    {1, 3, 5},     {3, 2, 7},   {4, 5, 16},  {2, 3, 17},
                         {3, 64, 32},  {2, 40, 130},  {2, 0, 4},   {3, 33, 210}, {1, 6, 520}};

// The forward one step at a time: each fast h_t against one reference step taken from the
// fast tier's own h_{t-1}, so each comparison sees one step's rounding. With
// p_k = |b_k| + Σ_j |W_kj h_j| (the magnitude of gh_k = b_k + Σ_j W_kj h_j, D + 1 terms):
//   gh_k:          dg_k <= (D + 2) kEps p_k                  (sum_tolerance)
//   r, z = σ(gi + gh), slope <= 1/4, the sigmoids 6 kEps apart (unary test), one add:
//                  dr <= (dg_r + kEps |gi_r + gh_r|) / 4 + 6 kEps, and the same for z
//   hn = gh_n:     dhn = dg_n
//   n = tanh(gi_n + r hn), slope <= 1, the tanhs 5 kEps apart, two roundings:
//                  dn <= dr |hn| + dhn + 2 kEps (|gi_n| + |r hn|) + 5 kEps
//   h = (1 − z) n + z h_prev: dh <= dz (|n| + |h_prev|) + dn + 3 kEps (|n| + |h_prev|)
BOOST_AUTO_TEST_CASE(gru_forward_step_by_step) {
  for (const Gru& s : kGruSizes) {
    const int64_t T = s.T, B = s.B, D = s.D, G = 3 * D;
    const float bound = 1.0f / std::sqrt(float(D));  // PyTorch's initialisation range
    const Vec W = uniform(G * D, -bound, bound), b = uniform(G, -bound, bound), gi = uniform(T * B * G, -2.0f, 2.0f);
    const Vec h0 = uniform(B * D);
    Vec Hf(T * B * D), gf(T * B * G), nf(T * B * D);
    fast::gru_forward(Hf.data(), gf.data(), nf.data(), gi.data(), h0.data(), W.data(), b.data(), T, B, D, true);
    const std::string at = "T " + std::to_string(T) + " B " + std::to_string(B) + " D " + std::to_string(D);
    int bad = 0;
    for (int64_t t = 0; t < T; ++t) {
      const float* hp = t ? Hf.data() + (t - 1) * B * D : h0.data();
      const float* x = gi.data() + t * B * G;
      Vec Hr(B * D), gr(B * G), nr(B * D);
      ref::gru_forward(Hr.data(), gr.data(), nr.data(), x, hp, W.data(), b.data(), 1, B, D, true);
      Vec tg(B * G), tn(B * D), th(B * D);
      for (int64_t row = 0; row < B; ++row) {
        Vec dg(G);
        for (int64_t k = 0; k < G; ++k) {
          float p = std::fabs(b[k]);
          for (int64_t j = 0; j < D; ++j) p += std::fabs(W[k * D + j] * hp[row * D + j]);
          dg[k] = float(D + 2) * kEps * p;
        }
        for (int64_t j = 0; j < D; ++j) {
          const float* g = gr.data() + row * G;  // the reference's r, z, hn of this row
          const float* xr = x + row * G;
          const float hprev = std::fabs(hp[row * D + j]), n = std::fabs(nr[row * D + j]);
          const float dr = (dg[j] + kEps * std::fabs(xr[j] + g[j])) / 4 + 6 * kEps;  // |gi + gh| <= |σ^-1|: bounded
          const float dz = (dg[D + j] + kEps * std::fabs(xr[D + j] + g[D + j])) / 4 + 6 * kEps;
          const float dhn = dg[2 * D + j], hn = std::fabs(g[2 * D + j]);
          const float dn = dr * hn + dhn + 2 * kEps * (std::fabs(xr[2 * D + j]) + g[j] * hn) + 5 * kEps;
          tg[row * G + j] = dr, tg[row * G + D + j] = dz, tg[row * G + 2 * D + j] = dhn + 1e-30f;
          tn[row * D + j] = dn;
          th[row * D + j] = dz * (n + hprev) + dn + 3 * kEps * (n + hprev);
        }
      }
      const std::string step = at + " step " + std::to_string(t);
      bad += mismatches("gru_forward gates " + step, Vec(gf.begin() + t * B * G, gf.begin() + (t + 1) * B * G), gr, tg);
      bad += mismatches("gru_forward cand " + step, Vec(nf.begin() + t * B * D, nf.begin() + (t + 1) * B * D), nr, tn);
      bad += mismatches("gru_forward H " + step, Vec(Hf.begin() + t * B * D, Hf.begin() + (t + 1) * B * D), Hr, th);
    }
    BOOST_TEST(bad == 0, at);
    // Without a backward to follow, both tiers keep one step of gates: the same h, bit for bit.
    Vec H1f(T * B * D), H1r(T * B * D), Hr(T * B * D), g1(B * G), n1(B * D), gR(T * B * G), nR(T * B * D);
    fast::gru_forward(H1f.data(), g1.data(), n1.data(), gi.data(), h0.data(), W.data(), b.data(), T, B, D, false);
    ref::gru_forward(H1r.data(), g1.data(), n1.data(), gi.data(), h0.data(), W.data(), b.data(), T, B, D, false);
    ref::gru_forward(Hr.data(), gR.data(), nR.data(), gi.data(), h0.data(), W.data(), b.data(), T, B, D, true);
    BOOST_TEST(mismatches("gru_forward fast, keep_all false " + at, H1f, Hf, 0.0f) == 0, at);
    BOOST_TEST(mismatches("gru_forward reference, keep_all false " + at, H1r, Hr, 0.0f) == 0, at);
  }
}

// The majorant of gru_backward: the reference's recursion in double on the absolute values
// of its inputs, with every subtraction turned into an addition. It bounds the magnitude of
// every intermediate value of either tier's computation.
struct GruGrads {
  std::vector<double> dgi, dh0, dW, db;
};
GruGrads gru_backward_majorant(const Vec& gates, const Vec& cand, const Vec& H, const Vec& dH, const Vec& h0,
                               const Vec& W, int64_t T, int64_t B, int64_t D) {
  const int64_t G = 3 * D;
  GruGrads m{std::vector<double>(T * B * G), {}, std::vector<double>(G * D), std::vector<double>(G)};
  std::vector<double> carry(B * D, 0.0), dgh(G);
  for (int64_t t = T - 1; t >= 0; --t) {
    std::vector<double> next(B * D, 0.0);
    for (int64_t row = 0; row < B; ++row) {
      const float* hp = (t ? H.data() + (t - 1) * B * D : h0.data()) + row * D;
      const float *g = gates.data() + (t * B + row) * G, *n = cand.data() + (t * B + row) * D;
      for (int64_t j = 0; j < D; ++j) {
        const double dh = carry[row * D + j] + std::fabs(dH[(t * B + row) * D + j]);
        const double r = std::fabs(g[j]), z = std::fabs(g[D + j]), hn = std::fabs(g[2 * D + j]), c = std::fabs(n[j]);
        const double da_n = dh * (1 + z) * (1 + c * c);
        dgh[j] = da_n * hn * r * (1 + r);
        dgh[D + j] = dh * (std::fabs(hp[j]) + c) * z * (1 + z);
        dgh[2 * D + j] = da_n * r;
        next[row * D + j] += dh * z;
        double* dx = m.dgi.data() + (t * B + row) * G;
        dx[j] += dgh[j], dx[D + j] += dgh[D + j], dx[2 * D + j] += da_n;
      }
      for (int64_t k = 0; k < G; ++k) {
        m.db[k] += dgh[k];
        for (int64_t j = 0; j < D; ++j) {
          next[row * D + j] += dgh[k] * std::fabs(W[k * D + j]);
          m.dW[k * D + j] += dgh[k] * std::fabs(hp[j]);
        }
      }
    }
    carry.swap(next);
  }
  m.dh0 = carry;
  return m;
}

// The backward from one saved forward (the reference's), fast against reference. Its
// outputs are made from the inputs by +, − and × only, along paths of at most
// k = T (G + 8) + T B + 4 operations (per step a G-term sum into dh_{t-1} and a few gate
// factors; dW and db then sum T B terms). For such a computation the rounding error is at
// most γ_k ≈ k kEps/2 times the majorant above (Higham, Accuracy and Stability of Numerical
// Algorithms, 3.3), so the tiers differ by at most k kEps (|start| + majorant).
BOOST_AUTO_TEST_CASE(gru_backward_through_time) {
  for (const Gru& s : kGruSizes)
    for (bool all_grads : {true, false}) {
      const int64_t T = s.T, B = s.B, D = s.D, G = 3 * D;
      const float bound = 1.0f / std::sqrt(float(D));
      const Vec W = uniform(G * D, -bound, bound), b = uniform(G, -bound, bound), gi = uniform(T * B * G, -2.0f, 2.0f);
      const Vec h0 = uniform(B * D), dH = uniform(T * B * D);
      Vec H(T * B * D), gates(T * B * G), cand(T * B * D);
      ref::gru_forward(H.data(), gates.data(), cand.data(), gi.data(), h0.data(), W.data(), b.data(), T, B, D, true);
      const Vec dgi0 = uniform(T * B * G), dh00 = uniform(B * D), dW0 = uniform(G * D), db0 = uniform(G);
      Vec dgif = dgi0, dh0f = dh00, dWf = dW0, dbf = db0, gates_f = gates;
      Vec dgir = dgi0, dh0r = dh00, dWr = dW0, dbr = db0, gates_r = gates;
      // all_grads false: only dW, so the fast tier skips its last dh GEMM and the dgi adds.
      fast::gru_backward(all_grads ? dgif.data() : nullptr, all_grads ? dh0f.data() : nullptr, dWf.data(),
                         all_grads ? dbf.data() : nullptr, gates_f.data(), cand.data(), H.data(), dH.data(), h0.data(),
                         W.data(), T, B, D);
      ref::gru_backward(all_grads ? dgir.data() : nullptr, all_grads ? dh0r.data() : nullptr, dWr.data(),
                        all_grads ? dbr.data() : nullptr, gates_r.data(), cand.data(), H.data(), dH.data(), h0.data(),
                        W.data(), T, B, D);
      const GruGrads m = gru_backward_majorant(gates, cand, H, dH, h0, W, T, B, D);
      const double k = double(T * (G + 8) + T * B + 4);
      auto tol = [&](const Vec& start, const std::vector<double>& major) {
        Vec t(start.size());
        for (size_t i = 0; i < t.size(); ++i) t[i] = float(k * kEps * (std::fabs(start[i]) + major[i])) + 1e-30f;
        return t;
      };
      const std::string at = "T " + std::to_string(T) + " B " + std::to_string(B) + " D " + std::to_string(D) +
                              (all_grads ? "" : " dW only");
      BOOST_TEST(mismatches("gru_backward dW " + at, dWf, dWr, tol(dW0, m.dW)) == 0, at);
      BOOST_TEST(mismatches("gru_backward dgi " + at, dgif, dgir, tol(dgi0, m.dgi)) == 0, at);
      BOOST_TEST(mismatches("gru_backward dh0 " + at, dh0f, dh0r, tol(dh00, m.dh0)) == 0, at);
      BOOST_TEST(mismatches("gru_backward db " + at, dbf, dbr, tol(db0, m.db)) == 0, at);
    }
}

// The GRU's steps shared among threads by hidden units (above the fork size) give the same
// bits at 1, 2 and 3 threads, forward and backward: each element's arithmetic does not depend
// on which thread does it.
BOOST_AUTO_TEST_CASE(gru_same_bits_at_any_thread_count, *boost::unit_test::precondition(d2l_test::openmp_build)) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  for (const Gru& s : {Gru{3, 33, 210}, Gru{1, 32, 512}, Gru{2, 5, 2000}}) {
    const int64_t T = s.T, B = s.B, D = s.D, G = 3 * D;
    const Vec W = uniform(G * D, -0.05f, 0.05f), b = uniform(G), gi = uniform(T * B * G), h0 = uniform(B * D);
    const Vec dH = uniform(T * B * D);
    std::vector<Vec> outs;
    for (int threads : {1, 2, 3}) {
      omp_set_num_threads(threads);
      Vec H(T * B * D), gates(T * B * G), cand(T * B * D), dgi(T * B * G), dh0(B * D), dW(G * D), db(G);
      fast::gru_forward(H.data(), gates.data(), cand.data(), gi.data(), h0.data(), W.data(), b.data(), T, B, D, true);
      Vec out = H;
      out.insert(out.end(), gates.begin(), gates.end());
      fast::gru_backward(dgi.data(), dh0.data(), dW.data(), db.data(), gates.data(), cand.data(), H.data(), dH.data(),
                         h0.data(), W.data(), T, B, D);
      for (const Vec* v : {&dgi, &dh0, &dW, &db}) out.insert(out.end(), v->begin(), v->end());
      outs.push_back(out);
    }
    const std::string at = "T " + std::to_string(T) + " B " + std::to_string(B) + " D " + std::to_string(D);
    BOOST_TEST((outs[0] == outs[1]), "1 and 2 threads, " << at);
    BOOST_TEST((outs[0] == outs[2]), "1 and 3 threads, " << at);
  }
  omp_set_num_threads(saved);
#endif
}

// The shape ops' row copies: copies are exact, and every added element gets one term per
// row in order of r in both tiers, so the tiers agree to the bit (tolerance 0) and the fast
// tier does at any thread count. Strided rows (concat's and slice's), gathered rows, and
// rows added back at repeated offsets (the embedding's backward: token t seen twice);
// small sizes and sizes above the thread threshold (15.5's embedding of 256 x 50 tokens).
// Under AddressSanitizer (d2l_test::kSanitized, .ci/run's sanitizer pass) the two large
// cases shrink to just above the fork size kParallelMin (2^18 elements) with the same
// widths: still shared among threads, scatter_add_rows still cutting 100 columns into two
// blocks of 50 and 5000 into 79 of 64 with a short last one; every other build runs the
// full sizes.
BOOST_AUTO_TEST_CASE(row_copies_exact_at_any_thread_count) {
  struct Rows {
    int64_t rows, width, stride;
  };
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
#endif
  const int64_t many = d2l_test::kSanitized ? 2700 : 12800, wide = d2l_test::kSanitized ? 53 : 640;
  for (const Rows& c : {Rows{0, 5, 7}, Rows{3, 0, 2}, Rows{1, 1, 1}, Rows{7, 5, 12}, Rows{many, 100, 200},
                        Rows{wide, 5000, 5000}}) {
    const int64_t R = c.rows, W = c.width, S = c.stride, vocab = 97;
    const Vec src = uniform(R * S + W), dst0 = uniform(R * S + W), dense = uniform(R * W);
    std::vector<int64_t> offsets(R), table_rows(R);
    for (int64_t r = 0; r < R; ++r) {
      offsets[r] = (r * 7919) % std::max<int64_t>(R, 1) * S;  // a permutation of the rows when R is prime to 7919
      table_rows[r] = (r * r + 3) % vocab * W;                 // repeats: a token table of 97 rows
    }
    const Vec table0 = uniform(vocab * W + 1);
    const std::string at = "rows " + std::to_string(R) + " width " + std::to_string(W);
    std::vector<Vec> fast_out;
    for (int threads : {1, 2, 3}) {
#ifdef _OPENMP
      omp_set_num_threads(threads);
#else
      if (threads > 1) break;
#endif
      Vec out;
      for (bool acc : {false, true}) {
        Vec df = dst0, dr = dst0;
        fast::copy_rows(df.data(), S, src.data(), S, R, W, acc);
        ref::copy_rows(dr.data(), S, src.data(), S, R, W, acc);
        BOOST_TEST(mismatches("copy_rows " + at, df, dr, 0.0f) == 0, at);
        out.insert(out.end(), df.begin(), df.end());
      }
      Vec gf(R * W), gr(R * W), tf = table0, tr = table0;
      fast::gather_rows(gf.data(), src.data(), offsets.data(), R, W);
      ref::gather_rows(gr.data(), src.data(), offsets.data(), R, W);
      BOOST_TEST(mismatches("gather_rows " + at, gf, gr, 0.0f) == 0, at);
      fast::scatter_add_rows(tf.data(), dense.data(), table_rows.data(), R, W);
      ref::scatter_add_rows(tr.data(), dense.data(), table_rows.data(), R, W);
      BOOST_TEST(mismatches("scatter_add_rows " + at, tf, tr, 0.0f) == 0, at);
      for (const Vec* v : {&gf, &tf}) out.insert(out.end(), v->begin(), v->end());
      fast_out.push_back(out);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    for (size_t t = 1; t < fast_out.size(); ++t) BOOST_TEST((fast_out[t] == fast_out[0]), at << ", threads " << t + 1);
  }
}

// The element-wise and reduction kernels that share large tensors among threads give the same
// bits at 1, 2 and 3 threads: broadcasting forward and backward (each gradient element summed
// by one thread, in the serial walk's order), sums over a dim both ways, and Adam's update.
// Under AddressSanitizer (d2l_test::kSanitized) the two largest sums shrink to just above the
// fork size (2^18 elements) with the same inner sizes, so each still forks over the same
// kinds of tasks (27 outputs of 200 columns; 3000 columns in three blocks of up to 1024);
// every other build runs the full sizes.
BOOST_AUTO_TEST_CASE(broadcast_sum_adam_same_bits_at_any_thread_count,
                     *boost::unit_test::precondition(d2l_test::openmp_build)) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  const Broadcast shapes[] = {{{32, 1, 20, 512}, {32, 1, 1, 512}, {32, 1, 20, 512}},
                              {{32, 20, 512}, {1, 20, 512}, {32, 20, 512}},
                              {{33, 100, 91}, {33, 100, 91}, {33, 100, 91}}};
  const int64_t outer = d2l_test::kSanitized ? 27 : 256, rows = d2l_test::kSanitized ? 100 : 400;
  const int64_t sums[][3] = {{1, 300000, 1}, {7, 50000, 1}, {2, 3, 70000}, {outer, 50, 200}, {1, rows, 3000}};
  const int64_t n_adam = 276300;  // the NLI model's embedding table, 2763 x 100
  std::vector<Vec> outs;
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    gen().seed(7);
    Vec out;
    for (const Broadcast& bc : shapes) {
      const Shape &o = bc.out, &sa = bc.a, &sb = bc.b;
      const Vec a = uniform(numel(sa)), b = uniform(numel(sb), 0.5f, 2.0f), dy = uniform(numel(o));
      for (Binary op : {Binary::add, Binary::mul, Binary::div}) {
        Vec y(numel(o)), da(numel(sa), 0.25f), db(numel(sb), -0.5f);
        fast::binary_forward(y.data(), a.data(), b.data(), bc, op);
        fast::binary_backward(da.data(), db.data(), dy.data(), a.data(), b.data(), bc, op);
        for (const Vec* v : {&y, &da, &db}) out.insert(out.end(), v->begin(), v->end());
      }
    }
    for (const auto& s : sums) {
      const int64_t outer = s[0], n = s[1], inner = s[2];
      const Vec x = uniform(outer * n * inner), dy = uniform(outer * inner);
      Vec y(outer * inner), dx(outer * n * inner, 1.0f);
      fast::sum_forward(y.data(), x.data(), outer, n, inner, 0.5f);
      fast::sum_backward(dx.data(), dy.data(), outer, n, inner, 0.5f);
      out.insert(out.end(), y.begin(), y.end());
      out.insert(out.end(), dx.begin(), dx.end());
    }
    Vec w = uniform(n_adam), m = uniform(n_adam), v = uniform(n_adam, 0.0f, 1.0f);
    const Vec g = uniform(n_adam);
    fast::adam_step(w.data(), m.data(), v.data(), g.data(), n_adam, 0.9f, 0.999f, 1e-8f, 0.01f, 0.001f, 0.03f);
    for (const Vec* p : {&w, &m, &v}) out.insert(out.end(), p->begin(), p->end());
    outs.push_back(out);
  }
  omp_set_num_threads(saved);
  BOOST_TEST((outs[0] == outs[1]), "1 and 2 threads");
  BOOST_TEST((outs[0] == outs[2]), "1 and 3 threads");
#endif
}

BOOST_AUTO_TEST_SUITE_END()
