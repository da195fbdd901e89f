// tests/test_sec_nadaraya_watson.cpp — 10.2 注意力汇聚：Nadaraya-Watson 核回归
// (sec_nadaraya-watson): the bmm demos of subsec_batch_dot and NWKernelRegression.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/nadaraya_watson.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/train/epochs.h"

using d2l::Shape;
using d2l::Tensor;

namespace {

// f(x) for one query over its own keys and values, straight from
// eq_nadaraya-watson-gaussian-para, in double.
double nw_reference(double x, const float* keys, const float* values, int64_t K, double w) {
  double num = 0, den = 0;
  for (int64_t j = 0; j < K; ++j) {
    const double u = (x - keys[j]) * w, k = std::exp(-u * u / 2);
    num += k * values[j];
    den += k;
  }
  return num / den;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sec_nadaraya_watson)

BOOST_AUTO_TEST_CASE(bmm_demos) {
  // (n, a, b) x (n, b, c) -> (n, a, c)
  BOOST_CHECK_EQUAL(d2l::shape_str(d2l::bmm(d2l::ones({2, 1, 4}), d2l::ones({2, 4, 6})).shape()), "(2, 1, 6)");
  // Weighted averages by bmm: weights 0.1 over 0..9 and 10..19 give 4.5 and 14.5.
  const Tensor weights = d2l::ones({2, 10}) * 0.1f;
  const Tensor values = d2l::reshape(d2l::arange(20), {2, 10});
  const Tensor y = d2l::bmm(d2l::unsqueeze(weights, 1), d2l::unsqueeze(values, -1));
  BOOST_TEST(y.shape() == (Shape{2, 1, 1}));
  BOOST_CHECK_CLOSE(y.data()[0], 4.5f, 1e-4);
  BOOST_CHECK_CLOSE(y.data()[1], 14.5f, 1e-4);
}

BOOST_AUTO_TEST_CASE(w_is_one_parameter_in_unit_interval) {
  for (uint64_t seed : {0u, 1u, 2u}) {
    d2l::manual_seed(seed);
    d2l::NWKernelRegression net;
    const auto p = net.named_parameters();
    BOOST_REQUIRE_EQUAL(p.size(), 1u);
    BOOST_CHECK_EQUAL(p[0].first, "w");
    BOOST_TEST(net.w.shape() == (Shape{1}));
    BOOST_CHECK(net.w.item() >= 0.0f && net.w.item() < 1.0f);
  }
}

BOOST_AUTO_TEST_CASE(hand_computed) {
  // w = 1, query 0, keys [0, 1], values [1, 3]: weights softmax([0, -1/2]) = [σ(1/2), 1 - σ(1/2)].
  d2l::NWKernelRegression net;
  net.w.data()[0] = 1.0f;
  const Tensor y = net(d2l::tensor({0}), d2l::tensor({{0, 1}}), d2l::tensor({{1, 3}}));
  const double a = 1.0 / (1.0 + std::exp(-0.5));
  BOOST_TEST(y.shape() == (Shape{1}));
  BOOST_CHECK_SMALL(y.item() - (a * 1 + (1 - a) * 3), 1e-6);
  BOOST_CHECK_SMALL(net.attention_weights.data()[0] - a, 1e-6);
}

BOOST_AUTO_TEST_CASE(matches_formula_on_book_shapes) {
  // Training layout: 50 queries, each against the other 49 points (keys (50, 49)).
  d2l::manual_seed(11);
  d2l::NWKernelRegression net;
  net.w.data()[0] = 2.5f;
  const int64_t n = 50, K = 49;
  const Tensor queries = d2l::rand({n}) * 5.0f, keys = d2l::rand({n, K}) * 5.0f, values = d2l::normal(0, 1, {n, K});
  const Tensor y = net(queries, keys, values);
  BOOST_TEST(y.shape() == (Shape{n}));
  BOOST_TEST(net.attention_weights.shape() == (Shape{n, K}));
  for (int64_t i = 0; i < n; ++i) {
    BOOST_CHECK_SMALL(y.data()[i] - nw_reference(queries.data()[i], keys.data() + i * K, values.data() + i * K, K, 2.5),
                      1e-5);
    double s = 0;
    for (int64_t j = 0; j < K; ++j) s += net.attention_weights.data()[i * K + j];
    BOOST_CHECK_SMALL(s - 1.0, 1e-5);
  }
}

BOOST_AUTO_TEST_CASE(gradcheck_w_queries_keys_values) {
  d2l::manual_seed(12);
  d2l::NWKernelRegression net;
  const std::vector<Tensor> in = {d2l::rand({4}) * 3.0f, d2l::rand({4, 5}) * 3.0f, d2l::normal(0, 1, {4, 5})};
  for (float w : {0.7f, 3.0f}) {
    net.w.data()[0] = w;
    BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return net(x[0], x[1], x[2]); }, in,
                                     "NWKernelRegression", net.parameters()));
  }
}

BOOST_AUTO_TEST_CASE(sgd_step_lowers_the_loss) {
  // The book's training step (loss = Σ (ŷ - y)² / 2, SGD): one step with a small learning
  // rate must lower the loss, as the gradient points uphill.
  d2l::manual_seed(13);
  d2l::NWKernelRegression net;
  net.w.data()[0] = 0.5f;
  const Tensor x = d2l::rand({8}) * 5.0f, keys = d2l::rand({8, 7}) * 5.0f;
  const Tensor values = d2l::sin(keys), y = d2l::sin(x);
  auto loss = [&] { return d2l::sum(d2l::pow(net(x, keys, values) - y, 2.0f) * 0.5f); };
  Tensor l0 = loss();
  l0.backward();
  const float g = net.w.grad().item();
  BOOST_CHECK(g != 0.0f);
  net.w.data()[0] -= 0.01f * g;
  BOOST_CHECK_LT(loss().item(), l0.item());
}

BOOST_AUTO_TEST_CASE(errors) {
  d2l::NWKernelRegression net;
  BOOST_CHECK_EXCEPTION(net(d2l::ones({3}), d2l::ones({2, 4}), d2l::ones({2, 4})), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          const std::string m = e.what();
                          return m.find("[NWKernelRegression]") != std::string::npos &&
                                 m.find("(3,)") != std::string::npos && m.find("(2, 4)") != std::string::npos;
                        });
  BOOST_CHECK_THROW(net(d2l::ones({2}), d2l::ones({2, 4}), d2l::ones({2, 3})), std::invalid_argument);
}

// NWAdaptiveKernelRegression (the section's exercise 4): the kernel's width w(x) = w·exp(v x)
// depends on the query.
BOOST_AUTO_TEST_CASE(adaptive_starts_as_the_books_model) {
  d2l::manual_seed(14);
  d2l::NWAdaptiveKernelRegression adaptive;
  const auto p = adaptive.named_parameters();
  BOOST_REQUIRE_EQUAL(p.size(), 2u);
  BOOST_CHECK_EQUAL(p[0].first, "w");
  BOOST_CHECK_EQUAL(p[1].first, "v");
  BOOST_CHECK(adaptive.w.item() >= 0.0f && adaptive.w.item() < 1.0f);
  BOOST_CHECK_EQUAL(adaptive.v.item(), 0.0f);
  // v = 0: exactly NWKernelRegression with the same w.
  d2l::NWKernelRegression book;
  book.w.data()[0] = adaptive.w.item();
  const Tensor q = d2l::rand({6}) * 5.0f, keys = d2l::rand({6, 9}) * 5.0f, values = d2l::normal(0, 1, {6, 9});
  const std::vector<float> a = adaptive(q, keys, values).to_vector(), b = book(q, keys, values).to_vector();
  for (size_t i = 0; i < a.size(); ++i) BOOST_CHECK_SMALL(a[i] - b[i], 1e-6f);
}

BOOST_AUTO_TEST_CASE(adaptive_width_per_query) {
  d2l::manual_seed(15);
  d2l::NWAdaptiveKernelRegression net;
  net.w.data()[0] = 1.5f;
  net.v.data()[0] = -0.3f;
  const int64_t n = 7, K = 11;
  const Tensor q = d2l::rand({n}) * 5.0f, keys = d2l::rand({n, K}) * 5.0f, values = d2l::normal(0, 1, {n, K});
  const Tensor y = net(q, keys, values);
  BOOST_TEST(y.shape() == (Shape{n}));
  BOOST_TEST(net.attention_weights.shape() == (Shape{n, K}));
  const Tensor widths = net.width(q);
  for (int64_t i = 0; i < n; ++i) {
    const double wx = 1.5 * std::exp(-0.3 * q.data()[i]);  // w(x) by hand
    BOOST_CHECK_SMALL(widths.data()[i] - wx, 1e-5);
    BOOST_CHECK_SMALL(y.data()[i] - nw_reference(q.data()[i], keys.data() + i * K, values.data() + i * K, K, wx), 1e-5);
  }
  // Hand values: w(0) = w, w(2) = 1.5 e^(-0.6) = 0.823217.
  BOOST_CHECK_SMALL(net.width(d2l::tensor({0, 2})).data()[1] - 0.823217f, 1e-5f);
  BOOST_CHECK_EQUAL(net.width(d2l::tensor({0, 2})).data()[0], 1.5f);
}

BOOST_AUTO_TEST_CASE(adaptive_gradcheck_w_v_queries_keys_values) {
  d2l::manual_seed(16);
  d2l::NWAdaptiveKernelRegression net;
  const std::vector<Tensor> in = {d2l::rand({4}) * 3.0f, d2l::rand({4, 5}) * 3.0f, d2l::normal(0, 1, {4, 5})};
  for (const auto& [w, v] : {std::pair<float, float>{0.7f, 0.0f}, {2.0f, 0.4f}, {3.0f, -0.5f}}) {
    net.w.data()[0] = w;
    net.v.data()[0] = v;
    BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return net(x[0], x[1], x[2]); }, in,
                                     "NWAdaptiveKernelRegression", net.parameters()));
  }
  BOOST_CHECK_EXCEPTION(net(d2l::ones({3}), d2l::ones({2, 4}), d2l::ones({2, 4})), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          const std::string m = e.what();
                          return m.find("[NWAdaptiveKernelRegression]") != std::string::npos &&
                                 m.find("(3,)") != std::string::npos;
                        });
}

// The section's training loop (tools/d2l/train/epochs.h): outside a run the book's 5 epochs
// at its lr; in a run with the room's options, --epochs and --lr change them, --save writes
// w after the last epoch and --load reads it back in place of every epoch.
BOOST_AUTO_TEST_CASE(epoch_animator_runs_the_book_loop_as_the_options_ask) {
  auto epochs_run = [](d2l::NWKernelRegression& net, d2l::SGD& trainer) {
    d2l::EpochAnimator animator(net, trainer, 5, "loss.png");
    std::vector<int64_t> seen;
    for (int64_t epoch : animator.epochs()) {
      trainer.zero_grad();
      d2l::sum(net.w * net.w).backward();  // a step that moves w: w -= lr * 2w
      trainer.step();
      seen.push_back(epoch);
      animator.add(epoch + 1, 1.0f);
    }
    return seen;
  };
  d2l::NWKernelRegression book;
  book.w.data()[0] = 1.0f;
  d2l::SGD book_trainer(book.parameters(), 0.1f);
  {
    const d2l_test::TempDir cwd("epoch_animator_cwd");  // outside a run the curve goes to ./loss.png
    const std::filesystem::path here = std::filesystem::current_path();
    std::filesystem::current_path(cwd.path);
    const std::vector<int64_t> seen = epochs_run(book, book_trainer);
    std::filesystem::current_path(here);
    BOOST_TEST(seen == (std::vector<int64_t>{0, 1, 2, 3, 4}));
    BOOST_TEST(std::filesystem::exists(cwd("loss.png")));
  }
  BOOST_TEST(book_trainer.lr == 0.1f);
  BOOST_TEST(book.w.item() == std::pow(0.8f, 5.0f), boost::test_tools::tolerance(1e-6f));
  {  // the record of the steps: w = 1 at the start, then dL/dw = 2w before each step, 0.8w after
    const d2l::EpochRecord& r = d2l::epoch_record();
    BOOST_TEST(r.names == (std::vector<std::string>{"w"}));
    BOOST_TEST(r.start == (std::vector<float>{1.0f}));
    BOOST_REQUIRE_EQUAL(r.steps.size(), 5u);
    float w = 1.0f;
    for (size_t k = 0; k < 5; ++k) {
      BOOST_TEST(r.steps[k].epoch == static_cast<int64_t>(k + 1));
      BOOST_TEST(r.steps[k].loss == 1.0f);
      BOOST_TEST(r.steps[k].grads[0] == 2.0f * w, boost::test_tools::tolerance(1e-6f));
      w *= 0.8f;
      BOOST_TEST(r.steps[k].values[0] == w, boost::test_tools::tolerance(1e-6f));
    }
  }

  const d2l_test::TempDir dir("epoch_animator");
  auto in_run = [&](const std::vector<std::string>& options, d2l::NWKernelRegression& net, d2l::SGD& trainer) {
    d2l::CliArgs args("nadaraya_watson", "10.2");
    args.add_int("epochs", 5, "", 1, 100000);
    args.add_float("lr", 0.5, "", 0.0, 100.0);
    args.add_flag("quick", "");
    const d2l::CheckpointOptions saving(args, /*resumable=*/false);
    args.parse(options);
    d2l::begin_run(args, dir.path.string());
    try {
      const std::vector<int64_t> seen = epochs_run(net, trainer);
      d2l::end_run();
      return seen;
    } catch (...) {
      d2l::end_run();
      throw;
    }
  };
  d2l::NWKernelRegression trained;
  trained.w.data()[0] = 1.0f;
  d2l::SGD trainer(trained.parameters(), 0.5f);
  BOOST_TEST(in_run({"--epochs", "3", "--lr", "0.25", "--save", dir("w.params")}, trained, trainer) ==
             (std::vector<int64_t>{0, 1, 2}));
  BOOST_TEST(trainer.lr == 0.25f);
  BOOST_TEST(trained.w.item() == 0.125f);  // 1 x 0.5 x 0.5 x 0.5
  {  // --epochs 3 --lr 0.25: gradients 2w = 2, 1, 0.5, and w after each step 0.5, 0.25, 0.125
    const d2l::EpochRecord& r = d2l::epoch_record();
    BOOST_REQUIRE_EQUAL(r.steps.size(), 3u);
    BOOST_TEST(r.start == (std::vector<float>{1.0f}));
    BOOST_TEST((std::vector<float>{r.steps[0].grads[0], r.steps[1].grads[0], r.steps[2].grads[0]}) ==
               (std::vector<float>{2.0f, 1.0f, 0.5f}));
    BOOST_TEST((std::vector<float>{r.steps[0].values[0], r.steps[1].values[0], r.steps[2].values[0]}) ==
               (std::vector<float>{0.5f, 0.25f, 0.125f}));
  }
  BOOST_TEST(std::filesystem::exists(dir("loss.png")));
  d2l::NWKernelRegression loaded;
  d2l::SGD unused(loaded.parameters(), 0.5f);
  BOOST_TEST(in_run({"--load", dir("w.params")}, loaded, unused).empty());
  BOOST_TEST(loaded.w.item() == 0.125f);
  BOOST_TEST(d2l::epoch_record().steps.empty());  // --load: no step, and the previous run's forgotten
}

BOOST_AUTO_TEST_SUITE_END()
