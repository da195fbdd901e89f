// tests/test_sec_seq2seq.cpp — 9.1 GRU (sec_gru), 9.6 encoder-decoder and 9.7 seq2seq
// (sec_seq2seq): the fused GRU against a reference built from core ops and by hand, its
// gradient checks, the encoder/decoder shapes the book prints, MaskedSoftmaxCELoss's book
// value, the Xavier rule of train_seq2seq, and the error messages.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/gru.h"
#include "layers/seq2seq.h"
#include "tests/gradcheck.h"
#include "tests/test_prelude.h"
#include "tools/d2l/train/train_seq2seq.h"

using d2l_test::random_ids;

namespace {

// One GRU layer written out step by step with core ops, PyTorch's formulas verbatim: the
// reference the fused gru_recurrence must match.
Tensor reference_layer(const Tensor& X, Tensor h, const Tensor& W_ih, const Tensor& W_hh, const Tensor& b_ih,
                       const Tensor& b_hh) {
  using namespace d2l;
  const int64_t D = W_hh.size(1);
  auto part = [D](const Tensor& w, int64_t g) { return slice(w, 0, g * D, (g + 1) * D); };
  std::vector<Tensor> hs;
  for (int64_t t = 0; t < X.size(0); ++t) {
    const Tensor x = select(X, 0, t);
    const Tensor r = sigmoid(linear(x, part(W_ih, 0), part(b_ih, 0)) + linear(h, part(W_hh, 0), part(b_hh, 0)));
    const Tensor z = sigmoid(linear(x, part(W_ih, 1), part(b_ih, 1)) + linear(h, part(W_hh, 1), part(b_hh, 1)));
    const Tensor n = tanh(linear(x, part(W_ih, 2), part(b_ih, 2)) + r * linear(h, part(W_hh, 2), part(b_hh, 2)));
    h = (1.0f - z) * n + z * h;
    hs.push_back(h);
  }
  return stack(hs, 0);
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  BOOST_REQUIRE(a.shape() == b.shape());
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, static_cast<double>(std::fabs(a.data()[i] - b.data()[i])));
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sec_seq2seq)

// --- GRU -------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(gru_by_hand) {
  // All weights 0: r = z = σ(0) = 0.5 and n = tanh(0) = 0, so h' = 0.5 h: 1 -> 0.5 -> 0.25.
  d2l::GRU gru(1, 1);
  for (Tensor& p : gru.parameters()) std::fill(p.data(), p.data() + p.numel(), 0.0f);
  auto [out, state] = gru(d2l::zeros({2, 1, 1}), d2l::ones({1, 1, 1}));
  BOOST_TEST(out.to_vector() == (std::vector<float>{0.5f, 0.25f}), tt::per_element());
  BOOST_TEST(state.shape() == (Shape{1, 1, 1}));
  BOOST_TEST(state.item() == 0.25f);
  // W_in = 1 (the n rows of weight_ih): from h = 0 with x = 0.5, h' = (1 - 0.5) tanh(0.5).
  gru.weight_ih[0].data()[2] = 1.0f;
  auto [out2, state2] = gru(d2l::full({1, 1, 1}, 0.5f));
  BOOST_TEST(out2.item() == 0.5 * std::tanh(0.5), tt::tolerance(1e-6));
  // b_hn sits inside the reset gate: with b_hn = 2 and r = 0.5, n = tanh(0.5 + 0.5 * 2).
  gru.bias_hh[0].data()[2] = 2.0f;
  auto [out3, state3] = gru(d2l::full({1, 1, 1}, 0.5f));
  BOOST_TEST(out3.item() == 0.5 * std::tanh(1.5), tt::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(gru_matches_reference) {
  d2l::manual_seed(1);
  d2l::GRU gru(5, 4, 3);  // three layers, dropout 0
  const Tensor X = d2l::normal(0, 1, {6, 3, 5}), H0 = d2l::normal(0, 1, {3, 3, 4});
  d2l::NoGrad no_grad;
  auto [out, state] = gru(X, H0);
  Tensor x = X;
  std::vector<Tensor> last;
  for (int64_t k = 0; k < 3; ++k) {
    x = reference_layer(x, d2l::select(H0, 0, k), gru.weight_ih[k], gru.weight_hh[k], gru.bias_ih[k], gru.bias_hh[k]);
    last.push_back(d2l::select(x, 0, 5));
  }
  BOOST_TEST(max_abs_diff(out, x) < 1e-6);
  BOOST_TEST(max_abs_diff(state, d2l::stack(last, 0)) < 1e-6);
  // No state means zeros, as nn.GRU.
  auto [out0, state0] = gru(X);
  auto [outz, statez] = gru(X, d2l::zeros({3, 3, 4}));
  BOOST_TEST(max_abs_diff(out0, outz) == 0.0);
}

BOOST_AUTO_TEST_CASE(gru_matches_pytorch) {
  // Every parameter k (in named_parameters order), X and H0 filled with 0.8 sin(0.7 i + off),
  // off = k, 10, 20; the expected values were printed by Debian's torch 1.13:
  //   g = torch.nn.GRU(3, 2, 2); p.copy_(det(p.shape, k)) for each parameter; g(X, H0)
  d2l::GRU gru(3, 2, 2);
  d2l_test::sine_fill_parameters(gru.parameters());
  d2l::NoGrad no_grad;
  auto [out, state] = gru(d2l_test::sine_fill({4, 2, 3}, 10.0f), d2l_test::sine_fill({2, 2, 2}, 20.0f));
  const std::vector<float> want_out{-0.311503f, -0.769168f, -0.007417f, 0.018853f, 0.162080f, -0.628493f,
                                    0.023937f,  -0.089299f, 0.395956f,  -0.336268f, 0.187066f, -0.071671f,
                                    0.355648f,  -0.350815f, 0.317606f,  0.069692f};
  const std::vector<float> want_state{-0.709505f, 0.311331f, -0.746276f, -0.636559f,
                                      0.355648f,  -0.350815f, 0.317606f, 0.069692f};
  // Absolute tolerance: the expected values carry 6 decimals (rounding <= 5e-7).
  for (size_t i = 0; i < want_out.size(); ++i) BOOST_TEST(std::fabs(out.data()[i] - want_out[i]) < 1.5e-6f);
  for (size_t i = 0; i < want_state.size(); ++i) BOOST_TEST(std::fabs(state.data()[i] - want_state[i]) < 1.5e-6f);
}

BOOST_AUTO_TEST_CASE(gru_parameters_as_pytorch) {
  d2l::manual_seed(2);
  d2l::GRU gru(5, 4, 2, 0.5f);
  d2l_test::expect_pytorch_rnn_parameters(gru.named_parameters(), 5, 4, 3);
}

BOOST_AUTO_TEST_CASE(gru_dropout_between_layers_only) {
  d2l::manual_seed(3);
  d2l::GRU one(4, 3, 1, 0.9f);
  const Tensor X = d2l::normal(0, 1, {2, 2, 4});
  d2l::NoGrad no_grad;
  auto [a, sa] = one(X);
  auto [b, sb] = one(X);
  BOOST_TEST(max_abs_diff(a, b) == 0.0);  // one layer: no dropout applies at all
  d2l::GRU two(4, 3, 2, 0.9f);
  auto [c, sc] = two(X);
  auto [d, sd] = two(X);
  BOOST_TEST(max_abs_diff(c, d) > 0.0);  // training: a new mask between the layers
  two.eval();
  auto [e, se] = two(X);
  auto [f, sf] = two(X);
  BOOST_TEST(max_abs_diff(e, f) == 0.0);
}

BOOST_AUTO_TEST_CASE(gradcheck_gru_recurrence) {
  d2l::manual_seed(4);
  const int64_t T = 4, B = 2, D = 3;
  BOOST_TEST(d2l::test::gradcheck(
      [](std::vector<Tensor>& x) { return d2l::gru_recurrence(x[0], x[1], x[2], x[3]); },
      {d2l::normal(0, 1, {T, B, 3 * D}), d2l::normal(0, 1, {B, D}), d2l::normal(0, 0.7f, {3 * D, D}),
       d2l::normal(0, 0.5f, {3 * D})},
      "gru_recurrence"));
  // One step (the attention decoder's case) and h0 without a gradient.
  const Tensor h0 = d2l::normal(0, 1, {B, D});
  BOOST_TEST(d2l::test::gradcheck(
      [h0](std::vector<Tensor>& x) { return d2l::gru_recurrence(x[0], h0, x[1], x[2]); },
      {d2l::normal(0, 1, {1, B, 3 * D}), d2l::normal(0, 0.7f, {3 * D, D}), d2l::normal(0, 0.5f, {3 * D})},
      "gru_recurrence one step"));
}

BOOST_AUTO_TEST_CASE(gradcheck_gru_all_parameters_multilayer) {
  d2l::manual_seed(5);
  d2l::GRU gru(3, 4, 2, 0.5f);
  // Both outputs feed the loss: output (every step of the last layer) and state (every layer).
  BOOST_TEST(d2l::test::gradcheck_layer(
      gru, [&gru](std::vector<Tensor>& x) { return gru(x[0], x[1]); },
      {d2l::normal(0, 1, {3, 2, 3}), d2l::normal(0, 1, {2, 2, 4})}, "GRU"));
}

BOOST_AUTO_TEST_CASE(gru_errors) {
  d2l::GRU gru(3, 4, 2);
  BOOST_CHECK_EXCEPTION(gru(d2l::zeros({2, 3})), std::invalid_argument, message_has({"[GRU]", "(2, 3)"}));
  BOOST_CHECK_EXCEPTION(gru(d2l::zeros({2, 1, 5})), std::invalid_argument,
                        message_has({"[GRU]", "input_size = 3", "(2, 1, 5)"}));
  BOOST_CHECK_EXCEPTION(gru(d2l::zeros({2, 1, 3}), d2l::zeros({1, 1, 4})), std::invalid_argument,
                        message_has({"[GRU]", "(1, 1, 4)", "(2, 1, 4)"}));
  BOOST_CHECK_EXCEPTION(d2l::GRU(3, 0), std::invalid_argument, message_has({"[GRU]", "num_hiddens (0)"}));
  BOOST_CHECK_EXCEPTION(d2l::GRU(3, 4, 1, 1.0f), std::invalid_argument, message_has({"[GRU]", "dropout"}));
  BOOST_CHECK_EXCEPTION(d2l::gru_recurrence(d2l::zeros({2, 1, 12}), d2l::zeros({2, 4}), d2l::zeros({12, 4}),
                                            d2l::zeros({12})),
                        std::invalid_argument, message_has({"[gru_recurrence]", "h0 (2, 4)", "(1, 4)"}));
  BOOST_CHECK_EXCEPTION(d2l::gru_recurrence(d2l::zeros({2, 1, 9}), d2l::zeros({1, 4}), d2l::zeros({12, 4}),
                                            d2l::zeros({12})),
                        std::invalid_argument, message_has({"[gru_recurrence]", "(2, 1, 9)", "(12, 4)"}));
}

// --- encoder, decoder (sec_seq2seq) ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(book_encoder_decoder_shapes) {
  d2l::manual_seed(6);
  d2l::Seq2SeqEncoder encoder(10, 8, 16, 2);
  encoder.eval();
  const Tensor X = d2l::zeros({4, 7});
  const d2l::EncoderOutputs enc = encoder(X);
  BOOST_TEST(enc[0].shape() == (Shape{7, 4, 16}));  // output.shape
  BOOST_TEST(enc[1].shape() == (Shape{2, 4, 16}));  // state.shape
  d2l::Seq2SeqDecoder decoder(10, 8, 16, 2);
  decoder.eval();
  auto [output, state] = decoder(X, decoder.init_state(enc));
  BOOST_TEST(output.shape() == (Shape{4, 7, 10}));
  BOOST_TEST(state.size() == 1u);
  BOOST_TEST(state[0].shape() == (Shape{2, 4, 16}));
}

BOOST_AUTO_TEST_CASE(gradcheck_seq2seq_encoder) {
  d2l::manual_seed(7);
  d2l::Seq2SeqEncoder encoder(6, 3, 4, 2, 0.3f);
  encoder.eval();
  const Tensor X = random_ids(6, {2, 3});
  BOOST_TEST(d2l::test::gradcheck(
      [&](std::vector<Tensor>&) {
        const d2l::EncoderOutputs enc = encoder(X);
        return d2l::concat({d2l::reshape(enc[0], {-1}), d2l::reshape(enc[1], {-1})}, 0);
      },
      {}, "Seq2SeqEncoder", encoder.parameters()));
}

BOOST_AUTO_TEST_CASE(gradcheck_seq2seq_decoder) {
  d2l::manual_seed(8);
  d2l::Seq2SeqDecoder decoder(5, 3, 4, 2);
  const Tensor X = random_ids(5, {2, 3});
  BOOST_TEST(d2l::test::gradcheck(
      [&](std::vector<Tensor>& x) {
        auto [out, state] = decoder(X, {x[0]});
        return d2l::concat({d2l::reshape(out, {-1}), d2l::reshape(state[0], {-1})}, 0);
      },
      {d2l::normal(0, 1, {2, 2, 4})}, "Seq2SeqDecoder", decoder.parameters()));
}

BOOST_AUTO_TEST_CASE(decoder_errors) {
  d2l::Seq2SeqDecoder decoder(5, 3, 4, 2);
  BOOST_CHECK_EXCEPTION(decoder.init_state({d2l::zeros({1})}), std::invalid_argument,
                        message_has({"[Seq2SeqDecoder]", "1 tensors"}));
  BOOST_CHECK_EXCEPTION(decoder(d2l::zeros({2, 3, 1}), {d2l::zeros({2, 2, 4})}), std::invalid_argument,
                        message_has({"[Seq2SeqDecoder]", "(2, 3, 1)"}));
  BOOST_CHECK_EXCEPTION(decoder(d2l::full({2, 3}, 7.0f), {d2l::zeros({2, 2, 4})}), std::invalid_argument,
                        message_has({"[embedding]", "7"}));
}

// --- MaskedSoftmaxCELoss -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(masked_softmax_ce_loss_book_value) {
  // The book's sanity check: equal logits over 10 classes cost log 10 = 2.3026 per token;
  // valid lengths 4, 2, 0 of 4 steps give 2.3026, 1.1513, 0.
  const d2l::MaskedSoftmaxCELoss loss;
  const Tensor l = loss(d2l::ones({3, 4, 10}), d2l::ones({3, 4}), d2l::tensor({4, 2, 0}));
  BOOST_TEST(l.shape() == (Shape{3}));
  BOOST_TEST(l.data()[0] == std::log(10.0), tt::tolerance(1e-6));
  BOOST_TEST(l.data()[1] == std::log(10.0) / 2, tt::tolerance(1e-6));
  BOOST_TEST(l.data()[2] == 0.0f);
  BOOST_TEST(d2l::str(l) == "tensor([2.3026, 1.1513, 0.0000])");
}

BOOST_AUTO_TEST_CASE(gradcheck_masked_softmax_ce_loss) {
  d2l::manual_seed(9);
  const d2l::MaskedSoftmaxCELoss loss;
  const Tensor label = random_ids(5, {3, 4}), valid_len = d2l::tensor({4, 1, 0});
  BOOST_TEST(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return loss(x[0], label, valid_len); },
                                  {d2l::normal(0, 1, {3, 4, 5})}, "MaskedSoftmaxCELoss"));
  // Padding positions get exactly zero gradient.
  Tensor pred = d2l::normal(0, 1, {3, 4, 5});
  pred.requires_grad_(true);
  d2l::sum(loss(pred, label, valid_len)).backward();
  const Tensor g = pred.grad();
  for (int64_t c = 0; c < 5; ++c) {
    BOOST_TEST(g.at({1, 1, c}) == 0.0f);
    BOOST_TEST(g.at({2, 0, c}) == 0.0f);
  }
}

BOOST_AUTO_TEST_CASE(masked_softmax_ce_loss_errors) {
  const d2l::MaskedSoftmaxCELoss loss;
  BOOST_CHECK_EXCEPTION(loss(d2l::ones({3, 4, 10}), d2l::ones({3, 5}), d2l::tensor({1, 1, 1})), std::invalid_argument,
                        message_has({"[MaskedSoftmaxCELoss]", "(3, 4, 10)", "(3, 5)"}));
  BOOST_CHECK_EXCEPTION(loss(d2l::ones({3, 4, 10}), d2l::ones({3, 4}), d2l::tensor({1, 1})), std::invalid_argument,
                        message_has({"[MaskedSoftmaxCELoss]", "(2,)", "(3, 4)"}));
}

// --- train_seq2seq's initialisation ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(xavier_rule) {
  d2l::Seq2SeqEncoder encoder(10, 8, 16, 2);
  d2l::Seq2SeqDecoder decoder(10, 8, 16, 2);
  d2l::EncoderDecoder net(encoder, decoder);
  const std::vector<std::string> done = d2l::xavier_init_weights(net);
  const std::set<std::string> got(done.begin(), done.end());
  const std::set<std::string> want{"encoder.rnn.weight_ih_l0", "encoder.rnn.weight_hh_l0", "encoder.rnn.weight_ih_l1",
                                   "encoder.rnn.weight_hh_l1", "decoder.rnn.weight_ih_l0", "decoder.rnn.weight_hh_l0",
                                   "decoder.rnn.weight_ih_l1", "decoder.rnn.weight_hh_l1", "decoder.dense.weight"};
  BOOST_TEST((got == want));
  // Xavier's bound for decoder.rnn.weight_ih_l0 (48, 24): sqrt(6 / 72).
  float m = 0;
  for (float v : decoder.rnn.weight_ih[0].to_vector()) m = std::max(m, std::fabs(v));
  BOOST_TEST(m <= std::sqrt(6.0f / 72.0f));
  BOOST_TEST(m > 0.9f * std::sqrt(6.0f / 72.0f));
}

BOOST_AUTO_TEST_SUITE_END()
