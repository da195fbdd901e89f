// tests/test_core_shape.cpp — suite core_shape: the engine's short-list types. Shape
// (core/shape.h) must behave as the std::vector<int64_t> it replaced, up to its kMaxDims
// dims, and refuse one more with an error naming the op; SmallVector (core/engine/small_vector.h)
// must construct, move and destroy non-trivial elements (a node's inputs are shared_ptrs)
// exactly once; BackwardFn (a std::function, core/tensor.h) must call, move and destroy
// its closure whether it sits inline or on the heap.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/tensor.h"  // BackwardFn
#include "core/ops.h"
#include "core/shape.h"
#include "core/engine/small_vector.h"
#include "core/tensor.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::message_has;

BOOST_AUTO_TEST_SUITE(core_shape)

BOOST_AUTO_TEST_CASE(a_shape_reads_like_a_vector) {
  Shape s{2, 3, 4};
  BOOST_TEST(s.size() == 3u);
  BOOST_TEST(s[0] == 2);
  BOOST_TEST(s.back() == 4);
  BOOST_TEST(shape_str(s) == "(2, 3, 4)");
  s.push_back(5);
  BOOST_TEST(shape_str(s) == "(2, 3, 4, 5)");
  s.insert(s.begin() + 1, 7);
  BOOST_TEST(shape_str(s) == "(2, 7, 3, 4, 5)");
  s.erase(s.begin());
  BOOST_TEST(shape_str(s) == "(7, 3, 4, 5)");
  s.insert(s.end(), s.begin(), s.begin() + 2);  // a range from the shape itself
  BOOST_TEST(shape_str(s) == "(7, 3, 4, 5, 7, 3)");
  s.pop_back();
  s.resize(2);
  BOOST_TEST(shape_str(s) == "(7, 3)");
  BOOST_TEST(shape_str(Shape{}) == "()");
  BOOST_TEST(shape_str(Shape{4}) == "(4,)");
  BOOST_TEST(shape_str(Shape(3, 1)) == "(1, 1, 1)");  // count and value, as std::vector's
  BOOST_TEST(Shape(2).size() == 2u);
  // To and from std::vector<int64_t>, and == across the two.
  const std::vector<int64_t> v = Shape{5, 6};
  BOOST_TEST(v.size() == 2u);
  BOOST_TEST(v[1] == 6);
  const Shape from_v = std::vector<int64_t>{5, 6};
  BOOST_TEST(from_v == v);
  BOOST_TEST(from_v != (Shape{6, 5}));
  BOOST_TEST(!(from_v == (Shape{5, 6, 1})));
  BOOST_CHECK_THROW(from_v.at(2), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(a_shape_holds_eight_dims_and_refuses_a_ninth_naming_the_op) {
  Shape s;
  for (int64_t d = 1; d <= 8; ++d) s.push_back(d);
  BOOST_TEST(s.size() == Shape::kMaxDims);
  BOOST_TEST(shape_str(s) == "(1, 2, 3, 4, 5, 6, 7, 8)");
  const Shape copy = s;  // a copy is its own
  s[0] = 10;
  BOOST_TEST(copy[0] == 1);
  BOOST_TEST(copy == (Shape{1, 2, 3, 4, 5, 6, 7, 8}));
  s.erase(s.begin() + 1, s.end() - 1);
  BOOST_TEST(shape_str(s) == "(10, 8)");
  s = copy;
  BOOST_TEST(s == copy);
  s = {3};
  BOOST_TEST(shape_str(s) == "(3,)");
  // A ninth dim, outside any op and inside one.
  Shape full = copy;
  BOOST_CHECK_EXCEPTION(full.push_back(9), std::invalid_argument,
                        message_has({"[Shape] a tensor has at most 8 dims; (1, 2, 3, 4, 5, 6, 7, 8) cannot take 1 more"}));
  BOOST_TEST(full == copy);  // unchanged
  BOOST_CHECK_EXCEPTION(full.insert(full.begin(), copy.begin(), copy.begin() + 2), std::invalid_argument,
                        message_has({"cannot take 2 more"}));
  const Tensor x = zeros(copy);
  BOOST_CHECK_EXCEPTION(unsqueeze(x, 0), std::invalid_argument, message_has({"[unsqueeze] a tensor has at most 8 dims"}));
}

BOOST_AUTO_TEST_CASE(an_eight_dim_tensor_through_an_op_its_gradient_and_its_errors) {
  // An 8-dim tensor through an op, its gradient and its error messages.
  const Shape shape{1, 2, 1, 1, 1, 1, 1, 3};
  Tensor x = reshape(arange(6), shape);
  x.requires_grad_();
  BOOST_TEST(x.shape() == shape);
  BOOST_TEST(x.ndim() == 8);
  Tensor y = sum(x * x);
  y.backward();
  const std::vector<float> g = x.grad().to_vector();  // d(sum x^2)/dx = 2x
  BOOST_TEST(g == (std::vector<float>{0, 2, 4, 6, 8, 10}), boost::test_tools::per_element());
  BOOST_TEST(x.grad().shape() == shape);
  BOOST_CHECK_EXCEPTION(x + ones({4}), std::invalid_argument,
                        message_has({"[add] shapes cannot be broadcast together: a (1, 2, 1, 1, 1, 1, 1, 3) vs b (4,)"}));
  BOOST_CHECK_EXCEPTION(zeros({1, 1, 1, 1, 1, 1, 2, -1}), std::invalid_argument,
                        message_has({"[Tensor] negative size in shape (1, 1, 1, 1, 1, 1, 2, -1)"}));
}

BOOST_AUTO_TEST_CASE(small_vector_constructs_moves_and_destroys_each_element_once) {
  // use_count() of a shared_ptr counts the copies alive: every one must be released.
  const auto p = std::make_shared<int>(7);
  {
    SmallVector<std::shared_ptr<int>, 2> v;
    v.push_back(p);
    v.push_back(p);
    BOOST_TEST(v.is_inline());
    BOOST_TEST(p.use_count() == 3);
    v.push_back(p);  // spills
    v.emplace_back(p);
    BOOST_TEST(!v.is_inline());
    BOOST_TEST(p.use_count() == 5);
    SmallVector<std::shared_ptr<int>, 2> copy = v;
    BOOST_TEST(p.use_count() == 9);
    SmallVector<std::shared_ptr<int>, 2> moved = std::move(copy);
    BOOST_TEST(p.use_count() == 9);
    moved.erase(moved.begin(), moved.begin() + 3);
    BOOST_TEST(moved.size() == 1u);
    BOOST_TEST(p.use_count() == 6);
    v.push_back(v[0]);  // an element of the list itself, while the list grows
    BOOST_TEST(*v.back() == 7);
    BOOST_TEST(p.use_count() == 7);
    v.clear();
    BOOST_TEST(p.use_count() == 2);
    SmallVector<std::shared_ptr<int>, 2> small{p};
    SmallVector<std::shared_ptr<int>, 2> taken = std::move(small);  // inline: moved one by one
    BOOST_TEST(small.empty());
    BOOST_TEST(p.use_count() == 3);
  }
  BOOST_TEST(p.use_count() == 1);
}

BOOST_AUTO_TEST_CASE(an_op_of_many_inputs_keeps_them_all) {
  // An op of many inputs (concat of five) keeps them all, and sends each its gradient.
  std::vector<Tensor> xs;
  for (int i = 0; i < 5; ++i) {
    xs.push_back(full({1, 2}, float(i)));
    xs.back().requires_grad_();
  }
  Tensor y = concat(xs, 0);
  BOOST_TEST(y.node()->inputs.size() == 5u);
  sum(y * reshape(arange(10), {5, 2})).backward();
  for (int i = 0; i < 5; ++i)  // d/dx_i = the weights of row i: 2i, 2i + 1
    BOOST_TEST(xs[i].grad().to_vector() == (std::vector<float>{2.0f * i, 2.0f * i + 1}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(backward_fn_calls_moves_and_frees_inline_and_pooled_closures) {
  const auto token = std::make_shared<int>(0);
  Node node;
  int calls = 0;
  {
    BackwardFn small = [token, &calls](Node&) { ++calls; };
    std::array<int64_t, 20> big_payload{};  // 160 bytes: beyond kInlineBytes, so pooled
    big_payload[19] = 5;
    BackwardFn big = [token, big_payload, &calls](Node&) { calls += int(big_payload[19]); };
    BOOST_TEST(token.use_count() == 3);
    small(node);
    big(node);
    BOOST_TEST(calls == 6);
    BackwardFn moved_small = std::move(small), moved_big = std::move(big);
    BOOST_TEST(!small);
    BOOST_TEST(!big);
    BOOST_TEST(token.use_count() == 3);  // moved, not copied
    moved_small(node);
    moved_big(node);
    BOOST_TEST(calls == 12);
    moved_big = nullptr;
    BOOST_TEST(token.use_count() == 2);
  }
  BOOST_TEST(token.use_count() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
