// tests/test_sec_transformer.cpp — 10.7 Transformer (sec_transformer): the book's demo
// values and shapes, gradient checks of every block, the causal mask, and cached decoding.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "core/autograd.h"
#include "core/nn/init.h"
#include "core/nn/module.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/exercises/self_attention_and_positional_encoding.h"  // make_positional_encoding
#include "layers/transformer.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::random_ids;

namespace {

bool all_close(const Tensor& a, const Tensor& b, float tol) {
  if (a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (std::fabs(a.data()[i] - b.data()[i]) > tol) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sec_transformer)

BOOST_AUTO_TEST_CASE(ffn_demo_rows_are_identical) {
  // The book: ffn(torch.ones((2, 3, 4)))[0] has 3 equal rows of 8 (every position alike).
  manual_seed(0);
  PositionWiseFFN ffn(4, 4, 8);
  ffn.eval();
  const Tensor Y = ffn(ones({2, 3, 4}));
  BOOST_TEST(Y.shape() == (Shape{2, 3, 8}));
  for (int64_t t = 1; t < 3; ++t)
    for (int64_t j = 0; j < 8; ++j) BOOST_TEST(Y.at({0, t, j}) == Y.at({0, 0, j}));
}

BOOST_AUTO_TEST_CASE(layer_norm_demo) {
  // ln(X) for X = [[1, 2], [2, 3]]: each row becomes (-1, 1) up to eps = 1e-5:
  // (x - mean) / sqrt(var + eps) = ±0.5 / sqrt(0.25 + 1e-5) = ±0.99998.
  LayerNorm ln(2);
  const Tensor Y = ln(tensor({{1, 2}, {2, 3}}));
  const float v = 0.5f / std::sqrt(0.25f + 1e-5f);
  BOOST_TEST(all_close(Y, tensor({{-v, v}, {-v, v}}), 1e-6f));
}

BOOST_AUTO_TEST_CASE(book_shapes) {
  manual_seed(0);
  AddNorm add_norm({3, 4}, 0.5f);
  add_norm.eval();
  BOOST_TEST(add_norm(ones({2, 3, 4}), ones({2, 3, 4})).shape() == (Shape{2, 3, 4}));

  const Tensor X = ones({2, 100, 24}), valid_lens = tensor({3, 2});
  EncoderBlock encoder_blk(24, 24, 24, 24, {100, 24}, 24, 48, 8, 0.5f);
  encoder_blk.eval();
  const Tensor enc = encoder_blk(X, valid_lens);
  BOOST_TEST(enc.shape() == (Shape{2, 100, 24}));

  TransformerEncoder encoder(200, 24, 24, 24, 24, {100, 24}, 24, 48, 8, 2, 0.5f);
  encoder.eval();
  BOOST_TEST(encoder(ones({2, 100}), valid_lens)[0].shape() == (Shape{2, 100, 24}));

  DecoderBlock decoder_blk(24, 24, 24, 24, {100, 24}, 24, 48, 8, 0.5f, 0);
  decoder_blk.eval();
  DecoderState state{enc, valid_lens, Tensor()};
  BOOST_TEST(decoder_blk.forward(X, state).shape() == (Shape{2, 100, 24}));
  BOOST_TEST(state[2].shape() == (Shape{2, 100, 24}));  // the block cached its input
}

BOOST_AUTO_TEST_CASE(gradcheck_ffn_and_add_norm) {
  manual_seed(1);
  PositionWiseFFN ffn(4, 6, 3);
  BOOST_TEST(test::gradcheck([&](std::vector<Tensor>& x) { return ffn(x[0]); }, {normal(0, 1, {2, 3, 4})},
                             "PositionWiseFFN", ffn.parameters()));
  AddNorm add_norm({3}, 0.0f);
  normal_(add_norm.ln.weight, 1, 0.5f);  // off the default 1/0 so γ and β really get tested
  normal_(add_norm.ln.bias, 0, 0.5f);
  BOOST_TEST(test::gradcheck([&](std::vector<Tensor>& x) { return add_norm(x[0], x[1]); },
                             {normal(0, 1, {2, 4, 3}), normal(0, 1, {2, 4, 3})}, "AddNorm", add_norm.parameters()));
}

BOOST_AUTO_TEST_CASE(gradcheck_layer_norm_both_shapes) {
  manual_seed(2);
  for (const Shape& ns : {Shape{8}, Shape{5, 4}}) {
    LayerNorm ln(ns);
    normal_(ln.weight, 1, 0.5f);
    normal_(ln.bias, 0, 0.5f);
    Shape in{2};
    in.insert(in.end(), ns.begin(), ns.end());
    BOOST_TEST(test::gradcheck([&](std::vector<Tensor>& x) { return ln(x[0]); }, {normal(0, 1, in)}, "LayerNorm",
                               ln.parameters()));
  }
}

BOOST_AUTO_TEST_CASE(gradcheck_encoder_block) {
  manual_seed(3);
  EncoderBlock blk(8, 8, 8, 8, {8}, 8, 12, 2, 0.0f);
  const Tensor valid_lens = tensor({3, 5});
  BOOST_TEST(test::gradcheck([&](std::vector<Tensor>& x) { return blk(x[0], valid_lens); }, {normal(0, 1, {2, 5, 8})},
                             "EncoderBlock", blk.parameters()));
}

BOOST_AUTO_TEST_CASE(gradcheck_decoder_block_training_with_causal_mask) {
  manual_seed(4);
  DecoderBlock blk(8, 8, 8, 8, {8}, 8, 12, 2, 0.0f, 0);
  blk.train();  // training mode: the causal mask is on
  const Tensor enc = normal(0, 1, {2, 4, 8}), enc_valid_lens = tensor({4, 2});
  BOOST_TEST(test::gradcheck(
      [&](std::vector<Tensor>& x) {
        DecoderState state{x[1], enc_valid_lens, Tensor()};
        return blk.forward(x[0], state);
      },
      {normal(0, 1, {2, 5, 8}), enc}, "DecoderBlock", blk.parameters()));
}

BOOST_AUTO_TEST_CASE(causal_mask_hides_the_future) {
  // Changing the target token at step 3 must leave the outputs at steps 0..2 unchanged.
  manual_seed(5);
  TransformerDecoder decoder(20, 8, 8, 8, 8, {8}, 8, 16, 2, 2, 0.0f);
  decoder.train();
  const Tensor enc = normal(0, 1, {2, 4, 8}), enc_valid_lens = tensor({4, 3});
  Tensor X = random_ids(20, {2, 6});
  const Tensor Y1 = decoder(X, decoder.init_state({enc}, enc_valid_lens)).first;
  X.at({0, 3}) = static_cast<float>((static_cast<int64_t>(X.at({0, 3})) + 7) % 20);
  const Tensor Y2 = decoder(X, decoder.init_state({enc}, enc_valid_lens)).first;
  BOOST_TEST(all_close(slice(Y1, 1, 0, 3), slice(Y2, 1, 0, 3), 0.0f));
  BOOST_TEST(!all_close(slice(Y1, 1, 3, 4), slice(Y2, 1, 3, 4), 1e-4f));
}

BOOST_AUTO_TEST_CASE(cached_decoding_matches_the_whole_prefix) {
  // Step-by-step prediction (eval mode, one token at a time, each block attending to its
  // key/value cache) must give the same logits as one training-mode pass over the whole
  // prefix with the causal mask, once positions are the true ones (pe_offset). With the
  // book's default (position 0 at every step) the two differ: that is the quirk.
  manual_seed(6);
  TransformerDecoder decoder(20, 8, 8, 8, 8, {8}, 8, 16, 2, 2, 0.0f);
  const Tensor enc = normal(0, 1, {1, 4, 8}), enc_valid_lens = tensor({3});
  const Tensor X = random_ids(20, {1, 5});
  NoGrad no_grad;
  decoder.train();  // dropout is 0, so training mode only switches the causal mask on
  const Tensor whole = decoder(X, decoder.init_state({enc}, enc_valid_lens)).first;
  decoder.eval();
  for (bool pe_offset : {true, false}) {
    decoder.pe_offset = pe_offset;
    DecoderState state = decoder.init_state({enc}, enc_valid_lens);
    bool same = true;
    for (int64_t t = 0; t < 5; ++t) {
      auto [logits, next] = decoder(slice(X, 1, t, t + 1), state);
      state = next;
      same = same && all_close(logits, slice(whole, 1, t, t + 1), 1e-5f);
    }
    BOOST_TEST(same == pe_offset);
  }
}

BOOST_AUTO_TEST_CASE(learned_positional_encoding_in_encoder_and_decoder) {
  // pe = "learned" (10.6's exercise 2): each of encoder and decoder gets a table P of the
  // model's width as a parameter, "encoder.pos_encoding.P"; the book's default has none.
  // The exercise's encoding by name, as chapters/exercises/transformer.cpp passes it.
  auto pe = [](const std::string& kind) -> PositionalEncodingMaker {
    return [kind](int64_t h, float dropout) { return make_positional_encoding(kind, h, dropout); };
  };
  manual_seed(7);
  const int64_t num_hiddens = 8;
  TransformerEncoder encoder(20, 8, 8, 8, num_hiddens, {num_hiddens}, 8, 16, 2, 2, 0.0f, false, pe("learned"));
  TransformerDecoder decoder(20, 8, 8, 8, num_hiddens, {num_hiddens}, 8, 16, 2, 2, 0.0f, pe("learned"));
  EncoderDecoder net(encoder, decoder);
  int64_t tables = 0;
  for (const auto& [name, p] : net.named_parameters())
    if (name == "encoder.pos_encoding.P" || name == "decoder.pos_encoding.P") {
      BOOST_TEST(p.shape() == (Shape{1, 1000, num_hiddens}));
      ++tables;
    }
  BOOST_CHECK_EQUAL(tables, 2);
  BOOST_CHECK_EQUAL(encoder.pos_encoding->type_name(), "LearnedPositionalEncoding");
  TransformerEncoder book(20, 8, 8, 8, num_hiddens, {num_hiddens}, 8, 16, 2, 2, 0.0f);
  BOOST_CHECK_EQUAL(book.pos_encoding->type_name(), "PositionalEncoding");
  BOOST_CHECK_EQUAL(net.num_parameters() - 2 * 1000 * num_hiddens,
                    book.num_parameters() +
                        TransformerDecoder(20, 8, 8, 8, num_hiddens, {num_hiddens}, 8, 16, 2, 2, 0.0f).num_parameters());
  // The encoder adds the table's rows of its input's positions only: for a 1-step input,
  // changing row 5 leaves the output as it was, changing row 0 moves it.
  encoder.eval();
  const Tensor X = random_ids(20, {1, 1});
  NoGrad no_grad;
  const Tensor before = encoder(X, Tensor())[0];
  encoder.pos_encoding->P.data()[5 * num_hiddens] += 1.0f;  // row 5: beyond the sequence
  BOOST_TEST(all_close(encoder(X, Tensor())[0], before, 0.0f));
  encoder.pos_encoding->P.data()[0] += 1.0f;  // row 0: the sequence's one position
  BOOST_TEST(!all_close(encoder(X, Tensor())[0], before, 1e-4f));
  BOOST_CHECK_THROW(TransformerDecoder(20, 8, 8, 8, 8, {8}, 8, 16, 2, 2, 0.0f, pe("rotary")), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(errors_name_the_layer) {
  AddNorm add_norm({4}, 0.0f);
  BOOST_CHECK_EXCEPTION(add_norm(ones({2, 4}), ones({3, 4})), std::invalid_argument, [](const std::invalid_argument& e) {
    const std::string m = e.what();
    return m.find("[AddNorm]") != std::string::npos && m.find("(2, 4)") != std::string::npos &&
           m.find("(3, 4)") != std::string::npos;
  });
  TransformerDecoder decoder(10, 4, 4, 4, 4, {4}, 4, 8, 2, 2, 0.0f);
  BOOST_CHECK_EXCEPTION(decoder(ones({1, 1}), DecoderState{}), std::invalid_argument,
                        [](const std::invalid_argument& e) { return std::string(e.what()).find("[TransformerDecoder]") == 0; });
}

// The debug views name a weight by parameter_name, from the registrations alone: for the
// whole encoder (blocks registered through Blocks, the book's blks) it must spell every parameter as
// named_parameters() does, e.g. "blks.block1.attention.W_q.weight".
BOOST_AUTO_TEST_CASE(debug_names_match_named_parameters) {
  TransformerEncoder encoder(200, 24, 24, 24, 24, {100, 24}, 24, 48, 8, 2, 0.5f);
  const auto named = encoder.named_parameters();
  BOOST_REQUIRE(!named.empty());
  bool saw_block1 = false;
  for (const auto& [name, t] : named) {
    BOOST_TEST(parameter_name(t) == name);
    saw_block1 = saw_block1 || name == "blks.block1.attention.W_q.weight";
  }
  BOOST_TEST(saw_block1);
}

BOOST_AUTO_TEST_SUITE_END()
