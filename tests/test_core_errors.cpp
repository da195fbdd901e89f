// tests/test_core_errors.cpp — suite core_errors: one test per caller mistake.
// Each checks the exception type (std::invalid_argument), the "[op]" prefix and that every
// shape involved appears in the message, so a learner sees which call failed and why.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/debug/debug.h"
#include "core/nn/init.h"
#include "core/ops.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::CheckNumerics;
using d2l_test::sum_to;

namespace {

// Predicate for BOOST_CHECK_EXCEPTION: the message starts with `prefix` and contains all parts.
template <class E = std::invalid_argument>
auto says(std::string prefix, std::vector<std::string> parts) {
  return [prefix, parts](const E& e) {
    const std::string msg = e.what();
    bool ok = msg.rfind(prefix, 0) == 0;
    for (const auto& p : parts) ok = ok && msg.find(p) != std::string::npos;
    if (!ok) BOOST_TEST_MESSAGE("unexpected message: " << msg);
    return ok;
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_errors)

BOOST_AUTO_TEST_CASE(broadcast_mismatch) {
  const Tensor a = ones({2, 3}), b = ones({4});
  BOOST_CHECK_EXCEPTION(a + b, std::invalid_argument, says("[add]", {"cannot be broadcast", "(2, 3)", "(4,)"}));
  BOOST_CHECK_EXCEPTION(a - b, std::invalid_argument, says("[sub]", {"(2, 3)", "(4,)"}));
  BOOST_CHECK_EXCEPTION(b * a, std::invalid_argument, says("[mul]", {"a (4,) vs b (2, 3)"}));
  BOOST_CHECK_EXCEPTION(a / ones({3, 3}), std::invalid_argument, says("[div]", {"(2, 3)", "(3, 3)"}));
  BOOST_CHECK_EXCEPTION(broadcast_shapes({2, 1, 4}, {3, 3}, "my_op"), std::invalid_argument,
                        says("[my_op]", {"(2, 1, 4)", "(3, 3)"}));
}

BOOST_AUTO_TEST_CASE(sum_to_not_a_broadcast) {
  BOOST_CHECK_EXCEPTION(sum_to(ones({2, 3}), {4}), std::invalid_argument, says("[sum_to]", {"(4,)", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(sum_to(ones({2, 3}), {2, 1, 3}), std::invalid_argument,
                        says("[sum_to]", {"(2, 1, 3)", "(2, 3)"}));
}

BOOST_AUTO_TEST_CASE(matmul_inner_dims) {
  BOOST_CHECK_EXCEPTION(matmul(ones({2, 3}), ones({4, 5})), std::invalid_argument,
                        says("[matmul]", {"inner dims differ", "a (2, 3) vs b (4, 5)"}));
  BOOST_CHECK_EXCEPTION(matmul(ones({2, 3, 4}), ones({5, 6})), std::invalid_argument,
                        says("[matmul]", {"inner dims", "(2, 3, 4)", "(5, 6)"}));
  BOOST_CHECK_EXCEPTION(matmul(ones({2, 3, 4}), ones({2, 5, 6})), std::invalid_argument,
                        says("[matmul]", {"inner dims", "(2, 3, 4)", "(2, 5, 6)"}));
  BOOST_CHECK_EXCEPTION(matmul(ones({2, 3, 4}), ones({3, 4, 5})), std::invalid_argument,
                        says("[matmul]", {"batch dims", "(2, 3, 4)", "(3, 4, 5)"}));
  BOOST_CHECK_EXCEPTION(matmul(ones({3}), ones({3, 4})), std::invalid_argument,
                        says("[matmul]", {"2-D", "(3,)", "(3, 4)"}));
}

BOOST_AUTO_TEST_CASE(bmm_inner_dims_and_batch) {
  // The whole message, as every shape error reads: [op], what differs, both shapes.
  BOOST_CHECK_EXCEPTION(bmm(ones({2, 1, 8}), ones({2, 10, 4})), std::invalid_argument,
                        says("[bmm] inner dims differ: a (2, 1, 8) vs b (2, 10, 4)", {}));
  // With trans_b the stored shape is printed with a ᵀ: Q (2, 1, 8) against K (2, 10, 4).
  BOOST_CHECK_EXCEPTION(bmm(ones({2, 1, 8}), ones({2, 10, 4}), false, true), std::invalid_argument,
                        says("[bmm]", {"a (2, 1, 8) vs b (2, 10, 4)ᵀ"}));
  BOOST_CHECK_EXCEPTION(bmm(ones({2, 3, 4}), ones({2, 3, 4}), true, true), std::invalid_argument,
                        says("[bmm]", {"(2, 3, 4)ᵀ vs b (2, 3, 4)ᵀ"}));
  BOOST_CHECK_EXCEPTION(bmm(ones({2, 3, 4}), ones({3, 4, 5})), std::invalid_argument,
                        says("[bmm]", {"batch sizes differ", "(2, 3, 4)", "(3, 4, 5)"}));
  BOOST_CHECK_EXCEPTION(bmm(ones({3, 4}), ones({2, 4, 5})), std::invalid_argument,
                        says("[bmm]", {"3-D", "(3, 4)", "(2, 4, 5)"}));
}

BOOST_AUTO_TEST_CASE(linear_shapes) {
  BOOST_CHECK_EXCEPTION(linear(ones({2, 3}), ones({4, 5}), Tensor()), std::invalid_argument,
                        says("[linear]", {"(2, 3)", "(4, 5)"}));
  BOOST_CHECK_EXCEPTION(linear(ones({2, 5}), ones({4, 5}), ones({3})), std::invalid_argument,
                        says("[linear]", {"bias (3,)", "(4, 5)"}));
  BOOST_CHECK_EXCEPTION(linear(ones({2, 5}), ones({5}), Tensor()), std::invalid_argument, says("[linear]", {"(5,)"}));
}

BOOST_AUTO_TEST_CASE(concat_and_stack_shapes) {
  BOOST_CHECK_EXCEPTION(concat({ones({2, 3}), ones({2, 4})}, 0), std::invalid_argument,
                        says("[concat]", {"outside dim 0", "(2, 3)", "(2, 4)"}));
  BOOST_CHECK_EXCEPTION(concat({ones({2, 3}), ones({2, 3, 1})}, 1), std::invalid_argument,
                        says("[concat]", {"(2, 3)", "(2, 3, 1)"}));
  BOOST_CHECK_EXCEPTION(concat({}, 0), std::invalid_argument, says("[concat]", {"at least one"}));
  BOOST_CHECK_EXCEPTION(stack({ones({2, 3}), ones({3, 2})}, 0), std::invalid_argument,
                        says("[stack]", {"(2, 3)", "(3, 2)"}));
}

BOOST_AUTO_TEST_CASE(reshape_sizes) {
  BOOST_CHECK_EXCEPTION(reshape(ones({2, 3}), {4, 2}), std::invalid_argument,
                        says("[reshape]", {"(2, 3)", "6 elements", "(4, 2)"}));
  BOOST_CHECK_EXCEPTION(reshape(ones({2, 3}), {4, -1}), std::invalid_argument,
                        says("[reshape]", {"-1", "(2, 3)", "(4, -1)"}));
  BOOST_CHECK_EXCEPTION(reshape(ones({2, 3}), {-1, -1}), std::invalid_argument, says("[reshape]", {"(-1, -1)"}));
  BOOST_CHECK_EXCEPTION(reshape(ones({2, 3}), {-2, -3}), std::invalid_argument, says("[reshape]", {"(-2, -3)"}));
}

BOOST_AUTO_TEST_CASE(dims_out_of_range) {
  const Tensor x = ones({2, 3});
  BOOST_CHECK_EXCEPTION(sum(x, 2), std::invalid_argument, says("[sum]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(mean(x, -3), std::invalid_argument, says("[mean]", {"dim -3", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(max(x, 5, true), std::invalid_argument, says("[max]", {"dim 5", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(argmax(x, 2), std::invalid_argument, says("[argmax]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(transpose(x, 0, 2), std::invalid_argument, says("[transpose]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(unsqueeze(x, 3), std::invalid_argument, says("[unsqueeze]", {"dim 3", "[-3, 2]", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(squeeze(x, 2), std::invalid_argument, says("[squeeze]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(concat({x, x}, 2), std::invalid_argument, says("[concat]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(stack({x, x}, 3), std::invalid_argument, says("[stack]", {"dim 3", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(slice(x, -3, 0, 1), std::invalid_argument, says("[slice]", {"dim -3", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(select(x, 2, 0), std::invalid_argument, says("[select]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(repeat_interleave(x, 2, 2), std::invalid_argument,
                        says("[repeat_interleave]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(index_select(x, 2, tensor({0.0f})), std::invalid_argument,
                        says("[index_select]", {"dim 2", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(permute(ones({2, 3, 4}), {0, 1}), std::invalid_argument,
                        says("[permute]", {"2 dims", "(2, 3, 4)"}));
  BOOST_CHECK_EXCEPTION(permute(x, {0, 0}), std::invalid_argument, says("[permute]", {"repeated", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(permute(x, {0, 2}), std::invalid_argument, says("[permute]", {"dim 2", "(2, 3)"}));
}

BOOST_AUTO_TEST_CASE(squeeze_non_unit_dim) {
  BOOST_CHECK_EXCEPTION(squeeze(ones({2, 3}), 0), std::invalid_argument, says("[squeeze]", {"size 2", "(2, 3)"}));
}

BOOST_AUTO_TEST_CASE(index_out_of_range) {
  const Tensor x = ones({3, 2});
  BOOST_CHECK_EXCEPTION(index_select(x, 0, tensor({0.0f, 5.0f})), std::invalid_argument,
                        says("[index_select]", {"index 5", "[0, 3)", "(3, 2)"}));
  BOOST_CHECK_EXCEPTION(index_select(x, 0, tensor({-1.0f})), std::invalid_argument,
                        says("[index_select]", {"index -1", "(3, 2)"}));
  // A fraction is not a whole number, not "out of range" (it was reported as out of range).
  BOOST_CHECK_EXCEPTION(index_select(x, 1, tensor({1.5f})), std::invalid_argument,
                        says("[index_select]", {"index 1.5 is not a whole number", "(3, 2)"}));
  BOOST_CHECK_EXCEPTION(embedding(ones({4, 3}), tensor({{0, 2.5f}})), std::invalid_argument,
                        says("[embedding]", {"index 2.5 is not a whole number", "(4, 3)"}));
  BOOST_CHECK_EXCEPTION(embedding(ones({4, 3}), tensor({NAN})), std::invalid_argument,
                        says("[embedding]", {"index nan is not a whole number"}));
  BOOST_CHECK_EXCEPTION(embedding(ones({4, 3}), tensor({1e30f})), std::invalid_argument,
                        says("[embedding]", {"out of range [0, 4)"}));
  BOOST_CHECK_EXCEPTION(softmax_cross_entropy(ones({2, 3}), tensor({0.0f, 1.5f})), std::invalid_argument,
                        says("[softmax_cross_entropy]", {"label 1.5 at index 1 is not a whole number"}));
  BOOST_CHECK_EXCEPTION(index_select(x, 0, ones({2, 2})), std::invalid_argument,
                        says("[index_select]", {"1-D", "(2, 2)"}));
  BOOST_CHECK_EXCEPTION(embedding(ones({4, 3}), tensor({{0, 7}})), std::invalid_argument,
                        says("[embedding]", {"index 7", "[0, 4)", "(4, 3)"}));
  BOOST_CHECK_EXCEPTION(embedding(ones({4}), tensor({0.0f})), std::invalid_argument, says("[embedding]", {"(4,)"}));
  BOOST_CHECK_EXCEPTION(select(ones({3, 4}), 0, 3), std::invalid_argument, says("[select]", {"index 3", "(3, 4)"}));
  BOOST_CHECK_EXCEPTION(select(ones({3, 4}), 1, -5), std::invalid_argument, says("[select]", {"index -5", "(3, 4)"}));
  BOOST_CHECK_EXCEPTION(repeat(ones({2, 3}), {2}), std::invalid_argument, says("[repeat]", {"1 repeats", "(2, 3)"}));
}

BOOST_AUTO_TEST_CASE(valid_lens_wrong_length) {
  const Tensor X = ones({2, 2, 4});
  BOOST_CHECK_EXCEPTION(masked_softmax(X, tensor({1.0f, 2.0f, 3.0f})), std::invalid_argument,
                        says("[masked_softmax]", {"valid_lens (3,)", "X (2, 2, 4)"}));
  BOOST_CHECK_EXCEPTION(masked_softmax(X, ones({2, 3})), std::invalid_argument,
                        says("[masked_softmax]", {"valid_lens (2, 3)", "X (2, 2, 4)"}));
  BOOST_CHECK_EXCEPTION(masked_softmax(X, ones({2, 2, 1})), std::invalid_argument,
                        says("[masked_softmax]", {"(2, 2, 1)", "(2, 2, 4)"}));
  BOOST_CHECK_EXCEPTION(masked_softmax(ones({2, 4}), tensor({1.0f, 2.0f})), std::invalid_argument,
                        says("[masked_softmax]", {"(2, 4)"}));
  BOOST_CHECK_EXCEPTION(sequence_mask(ones({2, 3}), tensor({1.0f, 2.0f, 3.0f})), std::invalid_argument,
                        says("[sequence_mask]", {"valid_len (3,)", "X (2, 3)"}));
}

BOOST_AUTO_TEST_CASE(valid_lens_negative) {
  BOOST_CHECK_EXCEPTION(masked_softmax(ones({2, 2, 4}), tensor({2.0f, -1.0f})), std::invalid_argument,
                        says("[masked_softmax]", {"valid length -1", "valid_lens (2,)", "X (2, 2, 4)"}));
  BOOST_CHECK_EXCEPTION(sequence_mask(ones({2, 3}), tensor({-2.0f, 1.0f})), std::invalid_argument,
                        says("[sequence_mask]", {"-2", "(2,)", "(2, 3)"}));
}

BOOST_AUTO_TEST_CASE(valid_lens_non_integer) {
  BOOST_CHECK_EXCEPTION(masked_softmax(ones({2, 2, 4}), tensor({{1, 2.5f}, {1, 1}})), std::invalid_argument,
                        says("[masked_softmax]", {"2.5", "whole number", "(2, 2)", "(2, 2, 4)"}));
  BOOST_CHECK_EXCEPTION(masked_softmax(ones({2, 2, 4}), tensor({NAN, 1.0f})), std::invalid_argument,
                        says("[masked_softmax]", {"nan", "(2,)", "(2, 2, 4)"}));
}

BOOST_AUTO_TEST_CASE(layer_norm_shapes) {
  BOOST_CHECK_EXCEPTION(layer_norm(ones({2, 4}), {5}, Tensor(), Tensor()), std::invalid_argument,
                        says("[layer_norm]", {"(5,)", "(2, 4)"}));
  BOOST_CHECK_EXCEPTION(layer_norm(ones({2, 4}), {4}, ones({3}), Tensor()), std::invalid_argument,
                        says("[layer_norm]", {"gamma (3,)", "(4,)"}));
  BOOST_CHECK_EXCEPTION(layer_norm(ones({2, 4}), {4}, ones({4}), ones({2, 2})), std::invalid_argument,
                        says("[layer_norm]", {"beta (2, 2)", "(4,)"}));
}

BOOST_AUTO_TEST_CASE(cross_entropy_labels) {
  BOOST_CHECK_EXCEPTION(softmax_cross_entropy(ones({2, 5}), ones({3})), std::invalid_argument,
                        says("[softmax_cross_entropy]", {"labels (3,)", "(2, 5)"}));
  BOOST_CHECK_EXCEPTION(softmax_cross_entropy(ones({2, 5}), tensor({0.0f, 5.0f})), std::invalid_argument,
                        says("[softmax_cross_entropy]", {"label 5", "[0, 5)", "(2, 5)"}));
  BOOST_CHECK_EXCEPTION(softmax_cross_entropy(ones({2, 5}), tensor({0.5f, 1.0f})), std::invalid_argument,
                        says("[softmax_cross_entropy]", {"label 0.5", "(2, 5)"}));
}

BOOST_AUTO_TEST_CASE(empty_reductions_and_scalars) {
  BOOST_CHECK_EXCEPTION(max(ones({0, 3}), 0), std::invalid_argument, says("[max]", {"empty", "(0, 3)"}));
  BOOST_CHECK_EXCEPTION(max(ones({0})), std::invalid_argument, says("[max]", {"(0,)"}));
  BOOST_CHECK_EXCEPTION(mean(ones({2, 0})), std::invalid_argument, says("[mean]", {"(2, 0)"}));
  BOOST_CHECK_EXCEPTION(softmax(ones({})), std::invalid_argument, says("[softmax]", {"()"}));
  BOOST_CHECK_EXCEPTION(log_softmax(ones({})), std::invalid_argument, says("[log_softmax]", {"()"}));
}

BOOST_AUTO_TEST_CASE(bad_arguments) {
  BOOST_CHECK_EXCEPTION(dropout(ones({2}), 1.5f, true), std::invalid_argument, says("[dropout]", {"1.5"}));
  BOOST_CHECK_EXCEPTION(repeat_interleave(ones({2}), -1, 0), std::invalid_argument, says("[repeat_interleave]", {"-1"}));
  Tensor v = ones({3});
  BOOST_CHECK_EXCEPTION(xavier_uniform_(v), std::invalid_argument, says("[xavier_uniform_]", {"(3,)"}));
  Tensor b;
  BOOST_CHECK_EXCEPTION(linear_default_init_(v, b), std::invalid_argument, says("[linear_default_init_]", {"(3,)"}));
  // An undefined handle (a default-constructed Tensor) is an error, not a crash.
  // Inside an op it names the op (it used to say only "[Tensor] this tensor is undefined").
  BOOST_CHECK_EXCEPTION(ones({2}) + Tensor(), std::invalid_argument, says("[add]", {"input tensor is undefined"}));
  BOOST_CHECK_EXCEPTION(matmul(Tensor(), ones({2, 2})), std::invalid_argument,
                        says("[matmul]", {"input tensor is undefined"}));
  BOOST_CHECK_EXCEPTION(softmax(Tensor()), std::invalid_argument, says("[softmax]", {"undefined"}));
  BOOST_CHECK_EXCEPTION(sum(Tensor()), std::invalid_argument, says("[sum]", {"undefined"}));
  BOOST_CHECK_EXCEPTION(max(Tensor()), std::invalid_argument, says("[max]", {"undefined"}));
  BOOST_CHECK_EXCEPTION(stack({ones({2}), Tensor()}, 0), std::invalid_argument, says("[stack]", {"undefined"}));
  BOOST_CHECK_EXCEPTION(reshape(Tensor(), {2}), std::invalid_argument, says("[reshape]", {"undefined"}));
  // After the op has returned, the next error outside any op is the Tensor's own again.
  BOOST_CHECK_EXCEPTION(Tensor().shape(), std::invalid_argument, says("[Tensor]", {"undefined"}));
}

BOOST_AUTO_TEST_CASE(non_finite_values_when_checks_are_on) {
  // Off (the default): log(-1) is NaN, quietly, as in PyTorch.
  BOOST_TEST(std::isnan(log(tensor({-1.0f})).item()));
  CheckNumerics on;
  // On: the first op producing a non-finite output stops, naming the op and its shapes.
  BOOST_CHECK_EXCEPTION(log(tensor({1.0f, -1.0f})), std::runtime_error,
                        says<std::runtime_error>("[check_numerics]", {"'log'", "flat index 1", "log (2,) -> (2,)"}));
  BOOST_CHECK_EXCEPTION(ones({2, 2}) / zeros({2}), std::runtime_error,
                        says<std::runtime_error>("[check_numerics]", {"'div'", "div (2, 2) (2,) -> (2, 2)"}));
  // And in backward: d sqrt(x)/dx = 1/(2 sqrt x) is inf at 0.
  Tensor x = tensor({0.0f, 4.0f});
  x.requires_grad_();
  Tensor y = sum(sqrt(x));
  BOOST_CHECK_EXCEPTION(y.backward(), std::runtime_error,
                        says<std::runtime_error>("[check_numerics]", {"gradient", "'sqrt'"}));
}

BOOST_AUTO_TEST_SUITE_END()
