// tests/test_core_grad_handover.cpp — suite core_grad_handover: an op whose gradient passes
// to an input unchanged (reshape, unsqueeze, squeeze, and add to an input of the output's
// shape) hands its gradient buffer over when that input has none yet
// (OpCall::gradient_is_identity, core/engine/bookkeeping.cpp), and adds into it otherwise. Either way the input ends up with
// the sum over every path, checked here against hand-computed gradients.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/debug/debug.h"
#include "core/ops.h"
#include "tests/test_util.h"

using d2l_test::grad_of;
using d2l_test::leaf;
using d2l_test::StderrCapture;
using namespace d2l;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(core_grad_handover)

// reshape's backward (and add's, to an input of the output's shape) hands its gradient
// buffer to an input that has none yet, and adds into one that has: both give the sums of
// every path.
BOOST_AUTO_TEST_CASE(handed_over_or_added) {
  // Only path: d Σ (reshape(x) · [1..6]) / dx = [1..6] in x's shape.
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  sum(reshape(x, {6}) * tensor({1, 2, 3, 4, 5, 6})).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({1, 2, 3, 4, 5, 6}), tt::per_element());
  // x read by reshape and by mul: the later op's backward (reshape's, after the add) runs
  // first and hands over its buffer; mul's adds 2 after it. And the other way round.
  Tensor a = leaf({1, 2, 3, 4}, {2, 2});
  sum(reshape(a, {4}) * 3.0f + reshape(a * 2.0f, {4})).backward();
  BOOST_TEST(grad_of(a) == std::vector<float>({5, 5, 5, 5}), tt::per_element());
  Tensor b = leaf({1, 2, 3, 4}, {2, 2});
  Tensor bb = b * 1.0f;
  sum(bb + reshape(unsqueeze(bb, 0), {2, 2}) * 4.0f).backward();
  BOOST_TEST(grad_of(b) == std::vector<float>({5, 5, 5, 5}), tt::per_element());
  // The leaf's own gradient is kept across backward passes: a second pass adds to it.
  sum(reshape(x, {3, 2})).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({2, 3, 4, 5, 6, 7}), tt::per_element());
  // a + b hands g to a when a has the output's shape: alone, read twice (x + x: b's share is
  // added first, then a's handed over or added), and with b broadcast.
  Tensor d = leaf({1, 2}, {2});
  sum((d + d) * 3.0f).backward();
  BOOST_TEST(grad_of(d) == std::vector<float>({6, 6}), tt::per_element());
  Tensor e = leaf({1, 2, 3, 4}, {2, 2}), f = leaf({5, 6}, {2});
  sum((e * 1.0f + f) * tensor({1, 2, 3, 4}, {2, 2})).backward();
  BOOST_TEST(grad_of(e) == std::vector<float>({1, 2, 3, 4}), tt::per_element());
  BOOST_TEST(grad_of(f) == std::vector<float>({4, 6}), tt::per_element());
  // The backward trace prints reshape's gradient norm, taken before the step hands it on.
  Tensor c = leaf({3, 4}, {2});
  StderrCapture capture;
  set_trace_level(2);
  sum(reshape(c, {1, 2})).backward();
  set_trace_level(0);
  BOOST_TEST(capture.text().find("[backward] reshape: grad (1, 2) norm 1.41421 -> input 0 leaf (2,) norm 1.41421") !=
             std::string::npos, capture.text());
}

BOOST_AUTO_TEST_SUITE_END()
