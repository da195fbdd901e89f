// tests/test_sec_lstm.cpp — 9.2 LSTM (sec_lstm), the layer 10.4's first exercise trains in
// place of the GRU: by hand, against PyTorch's nn.LSTM on a fixed example, PyTorch's
// parameter names and shapes, gradient checks, and the error messages.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/lstm.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using d2l_test::message_has;

namespace tt = boost::test_tools;
using d2l::Shape;
using d2l::Tensor;

BOOST_AUTO_TEST_SUITE(sec_lstm)

BOOST_AUTO_TEST_CASE(lstm_by_hand) {
  // All weights 0: i = f = o = σ(0) = 0.5 and g = tanh(0) = 0, so c' = 0.5 c and
  // h' = 0.5 tanh(c'): from c0 = 1, c = 0.5, 0.25 and h = 0.5 tanh(0.5), 0.5 tanh(0.25).
  d2l::LSTM lstm(1, 1);
  for (Tensor& p : lstm.parameters()) std::fill(p.data(), p.data() + p.numel(), 0.0f);
  auto [out, state] = lstm(d2l::zeros({2, 1, 1}), d2l::LSTMState{d2l::zeros({1, 1, 1}), d2l::ones({1, 1, 1})});
  BOOST_TEST(out.data()[0] == 0.5 * std::tanh(0.5), tt::tolerance(1e-6));
  BOOST_TEST(out.data()[1] == 0.5 * std::tanh(0.25), tt::tolerance(1e-6));
  BOOST_TEST(state.c.item() == 0.25f);
  BOOST_TEST(state.h.item() == out.data()[1]);
  // The g rows (the third block of 4h = 4 rows) carry the input: W_ig = 1, x = 0.5, from
  // zeros: c' = 0.5 tanh(0.5), h' = 0.5 tanh(c').
  lstm.weight_ih[0].data()[2] = 1.0f;
  auto [out2, state2] = lstm(d2l::full({1, 1, 1}, 0.5f));
  const double c = 0.5 * std::tanh(0.5);
  BOOST_TEST(state2.c.item() == c, tt::tolerance(1e-6));
  BOOST_TEST(out2.item() == 0.5 * std::tanh(c), tt::tolerance(1e-6));
  // The f rows (second block) gate the old memory: b_hf = 100 makes f = 1, so c0 = 1 is
  // kept whole (plus 0.5 tanh(0.5) from the input).
  lstm.bias_hh[0].data()[1] = 100.0f;
  auto [out3, state3] = lstm(d2l::full({1, 1, 1}, 0.5f), d2l::LSTMState{d2l::zeros({1, 1, 1}), d2l::ones({1, 1, 1})});
  BOOST_TEST(state3.c.item() == 1.0 + c, tt::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(lstm_matches_pytorch) {
  // Every parameter k (in named_parameters order), X, h0 and c0 filled with
  // 0.8 sin(0.7 i + off), off = k, 10, 20, 30; the expected values were printed once by
  // tests/lstm_torch.py (Debian's python3-torch): nn.LSTM(3, 2, num_layers=2), the same
  // fill, lstm(X, (h0, c0)).
  d2l::LSTM lstm(3, 2, 2);
  d2l_test::sine_fill_parameters(lstm.parameters());
  d2l::NoGrad no_grad;
  using d2l_test::sine_fill;
  auto [out, state] = lstm(sine_fill({4, 2, 3}, 10.0f), d2l::LSTMState{sine_fill({2, 2, 2}, 20.0f), sine_fill({2, 2, 2}, 30.0f)});
  const std::vector<float> want_out{0.078283f, 0.026672f,  0.086322f, -0.027612f, 0.155661f, -0.024362f,
                                    0.126208f, -0.115704f, 0.159463f, -0.035791f, 0.117430f, -0.086672f,
                                    0.159375f, -0.108648f, 0.134375f, -0.065801f};
  const std::vector<float> want_h{-0.302717f, 0.033271f, -0.544636f, -0.361719f,
                                  0.159375f,  -0.108648f, 0.134375f, -0.065801f};
  const std::vector<float> want_c{-0.873996f, 0.039795f, -0.827296f, -0.484783f,
                                  0.869742f,  -0.617208f, 0.846428f, -0.564655f};
  BOOST_TEST(out.shape() == (Shape{4, 2, 2}));
  BOOST_TEST(state.h.shape() == (Shape{2, 2, 2}));
  BOOST_TEST(state.c.shape() == (Shape{2, 2, 2}));
  // Absolute tolerance: the expected values carry 6 decimals (rounding <= 5e-7).
  for (size_t i = 0; i < want_out.size(); ++i) BOOST_TEST(std::fabs(out.data()[i] - want_out[i]) < 1.5e-6f);
  for (size_t i = 0; i < want_h.size(); ++i) BOOST_TEST(std::fabs(state.h.data()[i] - want_h[i]) < 1.5e-6f);
  for (size_t i = 0; i < want_c.size(); ++i) BOOST_TEST(std::fabs(state.c.data()[i] - want_c[i]) < 1.5e-6f);
}

BOOST_AUTO_TEST_CASE(lstm_parameters_as_pytorch) {
  d2l::manual_seed(2);
  d2l::LSTM lstm(5, 4, 2, 0.5f);
  d2l_test::expect_pytorch_rnn_parameters(lstm.named_parameters(), 5, 4, 4);
  BOOST_TEST(lstm.extra_repr() == "5, 4, num_layers=2, dropout=0.5");
}

BOOST_AUTO_TEST_CASE(gradcheck_lstm_all_parameters_multilayer) {
  d2l::manual_seed(5);
  d2l::LSTM lstm(3, 4, 2, 0.5f);
  // All three outputs feed the loss: output (every step of the last layer), h_n and c_n.
  BOOST_TEST(d2l::test::gradcheck_layer(
      lstm,
      [&lstm](std::vector<Tensor>& x) -> std::vector<Tensor> {
        const auto [out, state] = lstm(x[0], d2l::LSTMState{x[1], x[2]});
        return {out, state.h, state.c};
      },
      {d2l::normal(0, 1, {3, 2, 3}), d2l::normal(0, 1, {2, 2, 4}), d2l::normal(0, 1, {2, 2, 4})}, "LSTM"));
  // From zeros (no state given), one step.
  BOOST_TEST(d2l::test::gradcheck(
      [&lstm](std::vector<Tensor>& x) { return lstm(x[0]).first; }, {d2l::normal(0, 1, {1, 3, 3})}, "LSTM one step",
      lstm.parameters()));
}

BOOST_AUTO_TEST_CASE(lstm_errors) {
  d2l::LSTM lstm(3, 4, 2);
  BOOST_CHECK_EXCEPTION(lstm(d2l::zeros({2, 3})), std::invalid_argument, message_has({"[LSTM]", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(lstm(d2l::zeros({2, 1, 5})), std::invalid_argument, message_has({"[LSTM]", "(2, 1, 5)"}));
  BOOST_CHECK_EXCEPTION(lstm(d2l::zeros({2, 1, 3}), d2l::LSTMState{d2l::zeros({1, 1, 4}), d2l::zeros({1, 1, 4})}),
                        std::invalid_argument, message_has({"[LSTM]", "(1, 1, 4)", "(2, 1, 4)"}));
  BOOST_CHECK_EXCEPTION(lstm(d2l::zeros({2, 1, 3}), d2l::LSTMState{d2l::zeros({2, 1, 4}), Tensor()}), std::invalid_argument,
                        message_has({"[LSTM]", "both h and c"}));
  BOOST_CHECK_EXCEPTION(d2l::LSTM(0, 4), std::invalid_argument, message_has({"[LSTM]", "input_size (0)"}));
  BOOST_CHECK_EXCEPTION(d2l::LSTM(3, 4, 1, 1.0f), std::invalid_argument, message_has({"[LSTM]", "dropout"}));
}

BOOST_AUTO_TEST_SUITE_END()
