// tests/test_sec_positional_encoding.cpp — 10.6 自注意力和位置编码
// (sec_self-attention-and-positional-encoding): self-attention shapes and PositionalEncoding.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/random.h"
#include "layers/exercises/self_attention_and_positional_encoding.h"
#include "layers/multihead_attention.h"
#include "layers/self_attention_and_positional_encoding.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using d2l::Shape;
using d2l::Tensor;

namespace {

// eq_positional-encoding-def in double: column 2j is sin(i ω_j), 2j+1 is cos(i ω_j), with
// ω_j = 1 / 10000^(2j/d).
double pe_formula(int64_t i, int64_t col, int64_t d) {
  const int64_t two_j = col - col % 2;
  const double x = static_cast<double>(i) / std::pow(10000.0, static_cast<double>(two_j) / d);
  return col % 2 == 0 ? std::sin(x) : std::cos(x);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sec_positional_encoding)

BOOST_AUTO_TEST_CASE(self_attention_book_shape) {
  // queries = keys = values = X ones (2, 4, 100), valid_lens [3, 2] -> (2, 4, 100).
  d2l::MultiHeadAttention attention(100, 100, 100, 100, 5, 0.5f);
  attention.eval();
  const Tensor X = d2l::ones({2, 4, 100});
  BOOST_CHECK_EQUAL(d2l::shape_str(attention(X, X, X, d2l::tensor({3, 2})).shape()), "(2, 4, 100)");
}

BOOST_AUTO_TEST_CASE(table_matches_formula) {
  d2l::PositionalEncoding pe(32, 0.0f, 1000);
  BOOST_TEST(pe.P.shape() == (Shape{1, 1000, 32}));
  BOOST_CHECK(!pe.P.requires_grad());
  BOOST_CHECK(pe.parameters().empty());  // a fixed table, nothing to learn
  const float* P = pe.P.data();
  BOOST_CHECK_EQUAL(P[0], 0.0f);  // sin(0)
  BOOST_CHECK_EQUAL(P[1], 1.0f);  // cos(0)
  // The book's plotted columns 6-9 and a few others, at positions up to 59 (float32 keeps
  // the argument i / 10000^(2j/d) to ~1e-7 relative, so the sin/cos agree to ~1e-5).
  for (int64_t i : {1, 2, 7, 30, 59})
    for (int64_t col : {0, 1, 6, 7, 8, 9, 20, 31})
      BOOST_CHECK_SMALL(P[i * 32 + col] - pe_formula(i, col, 32), 2e-5);
  // Hand values: P[1, 0] = sin 1, P[1, 1] = cos 1, P[10, 2] = sin(10 / 10000^(2/32)) = sin(5.6234).
  BOOST_CHECK_SMALL(P[32 + 0] - std::sin(1.0), 1e-6);
  BOOST_CHECK_SMALL(P[32 + 1] - std::cos(1.0), 1e-6);
  BOOST_CHECK_SMALL(P[10 * 32 + 2] - std::sin(5.6234132519), 1e-5);
}

BOOST_AUTO_TEST_CASE(relative_position_is_a_rotation) {
  // subsec_positional-encoding: (p[i+δ, 2j], p[i+δ, 2j+1]) is (p[i, 2j], p[i, 2j+1]) times
  // [[cos δω, sin δω], [-sin δω, cos δω]], whatever i.
  d2l::PositionalEncoding pe(16, 0.0f, 100);
  const float* P = pe.P.data();
  const int64_t d = 16, delta = 5;
  for (int64_t j = 0; j < d / 2; ++j) {
    const double w = 1.0 / std::pow(10000.0, 2.0 * j / d), c = std::cos(delta * w), s = std::sin(delta * w);
    for (int64_t i : {0, 3, 40}) {
      const double a = P[i * d + 2 * j], b = P[i * d + 2 * j + 1];
      BOOST_CHECK_SMALL(c * a + s * b - P[(i + delta) * d + 2 * j], 2e-5);
      BOOST_CHECK_SMALL(-s * a + c * b - P[(i + delta) * d + 2 * j + 1], 2e-5);
    }
  }
}

BOOST_AUTO_TEST_CASE(forward_adds_the_table) {
  d2l::manual_seed(30);
  d2l::PositionalEncoding pe(8, 0.5f, 20);
  pe.eval();  // dropout off
  const Tensor X = d2l::normal(0, 1, {3, 6, 8});
  const Tensor Y = pe(X);
  BOOST_TEST(Y.shape() == X.shape());
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 6 * 8; ++i) BOOST_CHECK_EQUAL(Y.data()[b * 48 + i], X.data()[b * 48 + i] + pe.P.data()[i]);
  BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return pe(x[0]); }, {X}, "PositionalEncoding"));
}

BOOST_AUTO_TEST_CASE(forward_at_an_offset_adds_the_later_rows) {
  // pe(X, offset) adds rows offset .. offset + no. of steps - 1 of P: the positions of a
  // slice that starts later in the sequence (the Transformer decoder's pe_offset).
  d2l::manual_seed(32);
  d2l::PositionalEncoding pe(8, 0.5f, 20);
  pe.eval();
  const Tensor X = d2l::normal(0, 1, {2, 5, 8});
  const Tensor Y = pe(X, 7);
  BOOST_TEST(Y.shape() == X.shape());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 5 * 8; ++i)
      BOOST_CHECK_EQUAL(Y.data()[b * 40 + i], X.data()[b * 40 + i] + pe.P.data()[7 * 8 + i]);
  // The last rows of the table: offset + no. of steps == max_len is allowed.
  BOOST_CHECK_EQUAL(pe(d2l::zeros({1, 5, 8}), 15).data()[4 * 8 + 1], pe.P.data()[19 * 8 + 1]);
  BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return pe(x[0], 7); }, {X}, "PositionalEncoding offset"));
}

BOOST_AUTO_TEST_CASE(dropout_in_training) {
  d2l::manual_seed(31);
  d2l::PositionalEncoding pe(8, 0.5f, 20);
  const Tensor Y = pe(d2l::zeros({1, 20, 8}));
  // Each entry is dropped (0) or kept and doubled: 2 P.
  int64_t kept = 0;
  for (int64_t i = 0; i < Y.numel(); ++i) {
    const float y = Y.data()[i], p = pe.P.data()[i];
    BOOST_CHECK(y == 0.0f || std::fabs(y - 2 * p) <= 1e-6f);
    kept += y != 0.0f;
  }
  BOOST_CHECK(kept > 40 && kept < 120);  // about half of 160
}

BOOST_AUTO_TEST_CASE(zeros_in_give_exactly_P) {
  // PositionalEncoding(64, dropout=0.0, max_len=200) on zeros (1, 50, 64) -> (1, 50, 64),
  // which is then exactly P[:, :50, :].
  d2l::PositionalEncoding pos_enc(64, 0.0f, 200);
  const Tensor X_pe = pos_enc(d2l::zeros({1, 50, 64}));
  BOOST_CHECK_EQUAL(d2l::shape_str(X_pe.shape()), "(1, 50, 64)");
  for (int64_t i = 0; i < X_pe.numel(); ++i) BOOST_REQUIRE_EQUAL(X_pe.data()[i], pos_enc.P.data()[i]);
}

BOOST_AUTO_TEST_CASE(odd_num_hiddens) {
  // d = 5: columns sin, cos, sin, cos, sin; the last sin has no cos partner.
  d2l::PositionalEncoding pe(5, 0.0f, 10);
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t col = 0; col < 5; ++col) BOOST_CHECK_SMALL(pe.P.data()[i * 5 + col] - pe_formula(i, col, 5), 1e-5);
}

BOOST_AUTO_TEST_CASE(errors) {
  d2l::PositionalEncoding pe(8, 0.0f, 20);
  auto says = [](std::vector<std::string> parts) {
    return [parts](const std::invalid_argument& e) {
      for (const auto& p : parts)
        if (std::string(e.what()).find(p) == std::string::npos) return false;
      return true;
    };
  };
  BOOST_CHECK_EXCEPTION(pe(d2l::zeros({1, 21, 8})), std::invalid_argument,
                        says({"[PositionalEncoding]", "max_len = 20", "(1, 21, 8)"}));
  BOOST_CHECK_EXCEPTION(pe(d2l::zeros({1, 5, 8}), 16), std::invalid_argument,
                        says({"[PositionalEncoding]", "(1, 5, 8) at offset 16", "rows 16..20", "max_len = 20"}));
  BOOST_CHECK_EXCEPTION(pe(d2l::zeros({1, 5, 8}), -1), std::invalid_argument,
                        says({"[PositionalEncoding]", "at offset -1"}));
  BOOST_CHECK_EXCEPTION(pe(d2l::zeros({1, 5, 7})), std::invalid_argument,
                        says({"[PositionalEncoding]", "num_hiddens = 8", "(1, 5, 7)"}));
  BOOST_CHECK_EXCEPTION(d2l::PositionalEncoding(0, 0.1f), std::invalid_argument, says({"[PositionalEncoding]"}));
}

// LearnedPositionalEncoding (the section's exercise 2): the same forward over a table that
// is a parameter.
BOOST_AUTO_TEST_CASE(learned_table_is_a_parameter_of_the_models_width) {
  d2l::manual_seed(33);
  d2l::LearnedPositionalEncoding pe(32, 0.1f);  // the Transformer's num_hiddens, the book's max_len
  const auto params = pe.named_parameters();
  BOOST_REQUIRE_EQUAL(params.size(), 1u);
  BOOST_CHECK_EQUAL(params[0].first, "P");
  BOOST_TEST(pe.P.shape() == (Shape{1, 1000, 32}));  // (1, max_len, num_hiddens)
  BOOST_CHECK(pe.P.requires_grad());
  BOOST_CHECK_EQUAL(pe.num_parameters(), 32000);
  // Starts N(0, 1) as the book's BERT position embedding: mean ~0, variance ~1 over 32000 draws.
  const std::vector<float> v = pe.P.to_vector();
  double m = 0, s2 = 0;
  for (float x : v) m += x;
  m /= static_cast<double>(v.size());
  for (float x : v) s2 += (x - m) * (x - m);
  s2 /= static_cast<double>(v.size());
  BOOST_CHECK_SMALL(m, 0.03);
  BOOST_CHECK_SMALL(s2 - 1.0, 0.05);
  // Prints as a module of its own, with its dropout.
  BOOST_CHECK_EQUAL(pe.repr(), "LearnedPositionalEncoding(\n  (dropout): Dropout(p=0.1, inplace=False)\n)");
  // make_positional_encoding picks the class by name.
  BOOST_CHECK_EQUAL(d2l::make_positional_encoding("learned", 16, 0.0f, 50)->P.shape()[2], 16);
  BOOST_CHECK(d2l::make_positional_encoding("sinusoidal", 16, 0.0f, 50)->parameters().empty());
  BOOST_CHECK_EXCEPTION(d2l::make_positional_encoding("rotary", 16, 0.0f), std::invalid_argument,
                        d2l_test::message_has({"[make_positional_encoding]", "'rotary'", "sinusoidal", "learned"}));
}

BOOST_AUTO_TEST_CASE(learned_forward_gradient_reaches_only_the_used_rows) {
  d2l::manual_seed(34);
  d2l::LearnedPositionalEncoding pe(6, 0.5f, 12);
  pe.eval();  // dropout off
  const Tensor X = d2l::normal(0, 1, {2, 4, 6});
  const Tensor Y = pe(X, 3);  // rows 3..6
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 4 * 6; ++i)
      BOOST_CHECK_EQUAL(Y.data()[b * 24 + i], X.data()[b * 24 + i] + pe.P.data()[3 * 6 + i]);
  // Finite differences for X and for every entry of P (at offset 0 and 3).
  for (int64_t offset : {0, 3})
    BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return pe(x[0], offset); }, {X},
                                     "LearnedPositionalEncoding", pe.parameters()));
  // d Σ Y / d P: the batch size (2) on rows 3..6, exactly 0 elsewhere: a row no sequence
  // reaches never changes in training.
  pe.zero_grad();
  d2l::sum(pe(X, 3)).backward();
  const std::vector<float> g = pe.P.grad().to_vector();
  for (int64_t row = 0; row < 12; ++row)
    for (int64_t c = 0; c < 6; ++c) BOOST_CHECK_EQUAL(g[row * 6 + c], row >= 3 && row <= 6 ? 2.0f : 0.0f);
  BOOST_CHECK_EXCEPTION(pe(d2l::zeros({1, 5, 6}), 8), std::invalid_argument,
                        d2l_test::message_has({"[LearnedPositionalEncoding]", "at offset 8", "max_len = 12"}));
  BOOST_CHECK_EXCEPTION(d2l::LearnedPositionalEncoding(4, 0.0f, 0), std::invalid_argument,
                        d2l_test::message_has({"[LearnedPositionalEncoding]", "max_len (0)"}));
}

BOOST_AUTO_TEST_SUITE_END()
