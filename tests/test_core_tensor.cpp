// tests/test_core_tensor.cpp — suite core_tensor: creation, the book-style printer, element
// access, the allocators and the seeded generator (core/tensor.h, core/engine/allocator.h,
// core/random.h). Expected values are written out by hand.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernels/fast/kernels.h"
#include "core/ops.h"
#include "core/random.h"
#include "core/tensor.h"
#include "tests/test_util.h"

using d2l_test::message_has;

using namespace d2l;

namespace {

void check_values(const Tensor& t, const Shape& shape, const std::vector<float>& want) {
  BOOST_TEST(t.shape() == shape, "shape " << shape_str(t.shape()) << " vs " << shape_str(shape));
  BOOST_TEST(t.to_vector() == want, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_tensor)

BOOST_AUTO_TEST_CASE(creation_values_and_shapes) {
  check_values(zeros({2, 3}), {2, 3}, std::vector<float>(6, 0.0f));
  check_values(ones({3}), {3}, {1, 1, 1});
  check_values(full({2, 2}, -1.5f), {2, 2}, {-1.5f, -1.5f, -1.5f, -1.5f});
  check_values(arange(5), {5}, {0, 1, 2, 3, 4});
  check_values(arange(1.0f, 2.0f, 0.25f), {4}, {1.0f, 1.25f, 1.5f, 1.75f});
  check_values(arange(3.0f, 0.0f, -1.0f), {3}, {3, 2, 1});
  check_values(arange(0), {0}, {});
  // arange(0, 5, 0.1): 50 values computed as start + i*step in double, so the last is the
  // float nearest 4.9 (no accumulated drift from adding 0.1 forty-nine times).
  const Tensor a = arange(0.0f, 5.0f, 0.1f);
  BOOST_TEST(a.numel() == 50);
  BOOST_TEST(a.data()[49] == static_cast<float>(49 * static_cast<double>(0.1f)));
  check_values(eye(3), {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  check_values(tensor({1.0f, 2.0f, 3.0f}), {3}, {1, 2, 3});
  check_values(tensor({{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}}), {3, 2}, {1, 2, 3, 4, 5, 6});
  check_values(tensor({1, 2, 3, 4, 5, 6}, {2, 1, 3}), {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  check_values(zeros_like(ones({2, 2})), {2, 2}, {0, 0, 0, 0});
  check_values(ones_like(zeros({1, 2})), {1, 2}, {1, 1});
  // A 0-dim tensor holds one element; a zero-size dim holds none.
  BOOST_TEST(zeros({}).numel() == 1);
  BOOST_TEST(zeros({}).ndim() == 0);
  BOOST_TEST(zeros({4, 0, 2}).numel() == 0);
  const Tensor t = zeros({2, 3, 4});
  BOOST_TEST(t.ndim() == 3);
  BOOST_TEST(t.numel() == 24);
  BOOST_TEST(t.size(0) == 2);
  BOOST_TEST(t.size(-1) == 4);
  BOOST_TEST(t.size(-3) == 2);
  BOOST_TEST(std::string(t.op_name()) == "leaf");
  BOOST_TEST(!t.requires_grad());
  BOOST_TEST(!Tensor().defined());
}

BOOST_AUTO_TEST_CASE(handles_share_data) {
  // Copying a Tensor copies the handle (like a Python variable), not the data.
  Tensor a = zeros({2});
  Tensor b = a;
  b.data()[1] = 7.0f;
  BOOST_TEST(a.data()[1] == 7.0f);
  BOOST_TEST(a.node() == b.node());
}

BOOST_AUTO_TEST_CASE(shape_strings) {
  BOOST_TEST(shape_str({2, 10, 4}) == "(2, 10, 4)");
  BOOST_TEST(shape_str({5}) == "(5,)");  // Python's one-element tuple
  BOOST_TEST(shape_str({}) == "()");
}

BOOST_AUTO_TEST_CASE(printing_matches_pytorch) {
  // Integral values print as "1." (PyTorch's integer-valued float format).
  BOOST_TEST(str(tensor({1.0f, 2.0f, 3.0f})) == "tensor([1., 2., 3.])");
  BOOST_TEST(str(tensor({{1.0f, 2.0f}, {3.0f, 4.0f}})) == "tensor([[1., 2.],\n        [3., 4.]])");
  // Otherwise 4 decimals, right-aligned to the widest cell.
  BOOST_TEST(str(tensor({0.1f, 0.25f, -1.0f})) == "tensor([ 0.1000,  0.2500, -1.0000])");
  BOOST_TEST(str(tensor({-1.0f, 2.0f})) == "tensor([-1.,  2.])");
  BOOST_TEST(str(tensor({12.5f, 3.0f})) == "tensor([12.5000,  3.0000])");
  BOOST_TEST(str(tensor({0.123456f}), 2) == "tensor([0.12])");
  // 3-D: a blank line between the outermost blocks, indented under "tensor(".
  BOOST_TEST(str(reshape(arange(8), {2, 2, 2})) ==
             "tensor([[[0., 1.],\n"
             "         [2., 3.]],\n"
             "\n"
             "        [[4., 5.],\n"
             "         [6., 7.]]])");
  BOOST_TEST(str(tensor({3.0f}, {})) == "tensor(3.)");
  BOOST_TEST(str(tensor({0.5f}, {})) == "tensor(0.5000)");
  BOOST_TEST(str(zeros({0, 3})) == "tensor([], size=(0, 3))");
  BOOST_TEST(str(Tensor()) == "tensor(undefined)");
  // The autograd annotations, as PyTorch prints them.
  Tensor x = tensor({1.0f, 2.0f});
  x.requires_grad_();
  BOOST_TEST(str(x) == "tensor([1., 2.], requires_grad=True)");
  // grad_fn carries PyTorch's name where the op has one counterpart (python3-torch 1.13:
  // (x + x).grad_fn, x[0].grad_fn, torch.bmm(...).grad_fn), else the op's own name.
  BOOST_TEST(str(x + x) == "tensor([2., 4.], grad_fn=<AddBackward0>)");
  BOOST_TEST(str(select(reshape(x, {1, 2}), 0, 0)) == "tensor([1., 2.], grad_fn=<SelectBackward0>)");
  BOOST_TEST(str(bmm(reshape(x, {1, 1, 2}), reshape(x, {1, 2, 1}))) == "tensor([[[5.]]], grad_fn=<BmmBackward0>)");
  BOOST_TEST(str(masked_softmax(reshape(x, {1, 1, 2}), tensor({2.0f}))) ==
             "tensor([[[0.2689, 0.7311]]], grad_fn=<masked_softmax>)");
  std::ostringstream os;
  os << tensor({{0.5f, 0.25f}});
  BOOST_TEST(os.str() == "tensor([[0.5000, 0.2500]])");
}

BOOST_AUTO_TEST_CASE(at_and_item) {
  Tensor t = reshape(arange(24), {2, 3, 4});
  BOOST_TEST(t.at({0, 0, 0}) == 0.0f);
  BOOST_TEST(t.at({1, 2, 3}) == 23.0f);
  BOOST_TEST(t.at({1, 0, 2}) == 14.0f);  // 1*12 + 0*4 + 2
  t.at({0, 1, 1}) = -5.0f;               // writable
  BOOST_TEST(t.data()[5] == -5.0f);
  const Tensor& c = t;
  BOOST_TEST(c.at({0, 1, 1}) == -5.0f);
  BOOST_TEST(tensor({4.5f}).item() == 4.5f);
  BOOST_TEST(tensor({4.5f}, {}).item() == 4.5f);
  BOOST_TEST(sum(ones({3, 3})).item() == 9.0f);
  BOOST_CHECK_EXCEPTION(t.at({2, 0, 0}), std::invalid_argument, message_has({"[at]", "index 2", "(2, 3, 4)"}));
  BOOST_CHECK_EXCEPTION(t.at({0, 0, -1}), std::invalid_argument, message_has({"[at]", "index -1", "(2, 3, 4)"}));
  BOOST_CHECK_EXCEPTION(t.at({0, 0}), std::invalid_argument, message_has({"[at]", "2 entries", "(2, 3, 4)"}));
  BOOST_CHECK_EXCEPTION(t.item(), std::invalid_argument, message_has({"[item]", "(2, 3, 4)"}));
  BOOST_CHECK_EXCEPTION(Tensor().shape(), std::invalid_argument, message_has({"[Tensor]", "undefined"}));
}

BOOST_AUTO_TEST_CASE(allocator_alignment_and_reuse) {
  // Every buffer is 64-byte aligned (a cache line, an AVX-512 register), in either tier.
  for (int64_t n : {1, 3, 16, 17, 1000, 4097}) {
    const Tensor t = empty({n});
    BOOST_TEST(reinterpret_cast<std::uintptr_t>(t.data()) % 64 == 0u, "n=" << n);
  }
  // The fast tier's caching allocator, called directly (both tiers are in every build): a
  // freed block goes on a free list and the next request of its size class reuses it, so
  // requests grow and system allocations do not.
  float* first = fast::allocate_floats(1000);
  fast::release_floats(first, 1000);
  const fast::AllocatorStats before = fast::allocator_stats();
  BOOST_TEST(before.cached_bytes >= 4096u);  // 1000 floats -> the 4 KiB class
  float* again = fast::allocate_floats(1000);
  BOOST_TEST(again == first);  // the block just freed, popped from its free list
  fast::release_floats(again, 1000);
  const fast::AllocatorStats after = fast::allocator_stats();
  BOOST_TEST(after.requests == before.requests + 1);
  BOOST_TEST(after.os_allocs == before.os_allocs);
  // A training-like step in steady state, in the fast tier's build: once the first iteration
  // has filled the free lists, later ones never call the system allocator. (The reference
  // tier takes every block from the system and gives it back.)
  Tensor w = normal(0, 1, {8, 8});
  w.requires_grad_();
  auto step = [&] {
    Tensor x = normal(0, 1, {4, 8});
    Tensor loss = sum(tanh(matmul(x, w)) * 2.0f);
    loss.backward();
    w.zero_grad();
  };
  step();
  step();
  const fast::AllocatorStats warm = fast::allocator_stats();
  for (int i = 0; i < 20; ++i) step();
  const fast::AllocatorStats end = fast::allocator_stats();
  if (std::string(kernels::tier_name()) == "fast") {
    BOOST_TEST(end.requests > warm.requests + 100);
    BOOST_TEST(end.os_allocs == warm.os_allocs);
  }
  // allocator_trim hands every cached block back.
  fast::allocator_trim();
  BOOST_TEST(fast::allocator_stats().cached_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(random_reproducible_after_manual_seed) {
  manual_seed(42);
  const Tensor a = normal(0.0f, 1.0f, {5, 7});
  const Tensor b = rand({13});
  const int64_t k = random_int(1000);
  manual_seed(42);
  const Tensor a2 = normal(0.0f, 1.0f, {5, 7});
  const Tensor b2 = rand({13});
  BOOST_TEST(a.to_vector() == a2.to_vector(), boost::test_tools::per_element());  // bit for bit
  BOOST_TEST(b.to_vector() == b2.to_vector(), boost::test_tools::per_element());
  BOOST_TEST(random_int(1000) == k);
  manual_seed(43);
  BOOST_TEST(normal(0.0f, 1.0f, {5, 7}).to_vector() != a.to_vector());
}

BOOST_AUTO_TEST_CASE(random_distributions) {
  manual_seed(7);
  const int64_t n = 100000;
  // rand: U[0, 1): mean 1/2, variance 1/12. The sample mean's standard deviation is
  // sqrt(1/12 / n) = 9.1e-4, so 5e-3 is 5.5 sigma; the variance estimate's is about
  // sqrt((1/80 - 1/144) / n) = 2.4e-4, so 1.5e-3 is 6 sigma.
  const Tensor u = rand({n});
  double s = 0, s2 = 0;
  float lo = 1, hi = 0;
  for (float v : u.to_vector()) {
    s += v;
    s2 += static_cast<double>(v) * v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  BOOST_TEST(lo >= 0.0f);
  BOOST_TEST(hi < 1.0f);
  BOOST_TEST(std::fabs(s / n - 0.5) < 5e-3);
  BOOST_TEST(std::fabs(s2 / n - (s / n) * (s / n) - 1.0 / 12) < 1.5e-3);
  // normal(mean 2, std 3): the mean's standard deviation is 3/sqrt(n) = 9.5e-3 (5 sigma =
  // 0.05); the sample std's is about 3/sqrt(2n) = 6.7e-3 (5 sigma = 0.035).
  const Tensor g = normal(2.0f, 3.0f, {n});
  s = s2 = 0;
  for (float v : g.to_vector()) {
    s += v;
    s2 += static_cast<double>(v) * v;
  }
  const double mean = s / n, sd = std::sqrt(s2 / n - mean * mean);
  BOOST_TEST(std::fabs(mean - 2.0) < 0.05);
  BOOST_TEST(std::fabs(sd - 3.0) < 0.035);
  // random_int(n) covers [0, n) and nothing else.
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 1000; ++i) {
    const int64_t r = random_int(5);
    BOOST_REQUIRE(r >= 0);
    BOOST_REQUIRE(r < 5);
    ++seen[r];
  }
  for (int c : seen) BOOST_TEST(c > 150);  // expected 200 each; sd ~ 12.6
  BOOST_TEST(random_int(1) == 0);
}

BOOST_AUTO_TEST_CASE(creation_errors) {
  BOOST_CHECK_EXCEPTION(tensor({1, 2, 3}, {2, 2}), std::invalid_argument, message_has({"[tensor]", "3 values", "(2, 2)"}));
  BOOST_CHECK_EXCEPTION(tensor({{1.0f, 2.0f}, {3.0f}}), std::invalid_argument, message_has({"[tensor]", "ragged"}));
  BOOST_CHECK_EXCEPTION(zeros({2, -1}), std::invalid_argument, message_has({"[Tensor]", "(2, -1)"}));
  BOOST_CHECK_EXCEPTION(arange(0.0f, 1.0f, 0.0f), std::invalid_argument, message_has({"[arange]", "step"}));
  BOOST_CHECK_EXCEPTION(zeros({2, 3}).size(2), std::invalid_argument, message_has({"[Tensor.size]", "dim 2", "(2, 3)"}));
}

BOOST_AUTO_TEST_SUITE_END()
