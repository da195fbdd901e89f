// tests/test_exercises_seq2seq_transformer_nli.cpp — the exercises of 9.7, 10.4, 10.5, 10.7
// and 15.5 answered by the chapter programs: the layers they add (the 10.4 variants,
// MultiHeadAttention's head mask and additive scoring) against references, and each
// exercise's --quick run with its numbers checked for sense.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/list.h"  // tier_name
#include "core/ops.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "layers/exercises/bahdanau_attention.h"
#include "layers/exercises/multihead_attention.h"
#include "layers/multihead_attention.h"
#include "layers/transformer.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using d2l::Shape;
using d2l::Tensor;
using d2l_test::message_has;
using d2l_test::random_ids;

namespace {

double max_abs_diff(const Tensor& a, const Tensor& b) {
  BOOST_REQUIRE(a.shape() == b.shape());
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, static_cast<double>(std::fabs(a.data()[i] - b.data()[i])));
  return m;
}

// Copies every parameter of `from` into `to`, matched by name (both must have the same names).
void copy_parameters(d2l::Module& from, d2l::Module& to) {
  auto src = from.named_parameters(), dst = to.named_parameters();
  BOOST_REQUIRE_EQUAL(src.size(), dst.size());
  for (size_t i = 0; i < src.size(); ++i) {
    BOOST_REQUIRE_EQUAL(src[i].first, dst[i].first);
    BOOST_REQUIRE(src[i].second.shape() == dst[i].second.shape());
    std::copy(src[i].second.data(), src[i].second.data() + src[i].second.numel(), dst[i].second.data());
  }
}

int64_t count_parameters(d2l::Module& m) {
  int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

// Runs a chapter program with --out in a temporary directory; requires exit code 0.
struct ProgramRun {
  std::string text;  // stdout
  fs::path out;
  d2l_test::TempDir tmp;
  ProgramRun(const std::string& name, const std::string& args) : tmp(name + "_exercise") {
    const fs::path exe = fs::path(d2l_test::build_dir()) / "chapters" / name;
    BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built");
    out = tmp.path / "out";
    const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
    const int rc = d2l_test::run_command(exe.string() + " --threads 2 --out " + out.string() + " " + args, log, err);
    text = d2l_test::read_file(log);
    BOOST_REQUIRE_MESSAGE(rc == 0, name << " " << args << " exited with " << rc << "; stderr:\n"
                                        << d2l_test::read_file(err) << "\nstdout:\n" << text);
  }
  // The numbers on the first line that starts with `prefix`, after the prefix (words skipped).
  std::vector<double> numbers_after(const std::string& prefix) const {
    return d2l_test::numbers_after(text, prefix, ",s");
  }
  void require_png(const std::string& name) const {
    const fs::path p = out / name;
    int w = 0, h = 0, comp = 0;
    BOOST_TEST_MESSAGE("checking " << p);
    BOOST_CHECK_MESSAGE(fs::exists(p) && stbi_info(p.string().c_str(), &w, &h, &comp) == 1 && w > 100 && h > 100,
                        p << " missing or not a readable image");
  }
};

// The bundled NLI set's header and first `train` / `test` pairs, in a folder for --data, with
// the bundled word vectors that --quick's runs start from.
struct NliSubset {
  d2l_test::TempDir data{"nli_subset"};
  NliSubset(size_t train, size_t test) {
    keep("train.tsv", train);
    keep("test.tsv", test);
  }
  void keep(const std::string& name, size_t n) const {
    std::istringstream in(d2l_test::read_file("chapters/data/snli-small/" + name));
    std::string kept, line;
    for (size_t i = 0; i <= n && std::getline(in, line); ++i) kept += line + "\n";
    d2l_test::write_file(data.path / name, kept);
  }
  std::string args() const {
    return "--data " + data.path.string() + " --embeddings chapters/data/snli-small/vectors.txt";
  }
};

// The reference tier (FAST=0, the plain loops: several times slower than the fast tier).
bool reference_tier() { return std::string(d2l::kernels::tier_name()) == "reference"; }

// The 10.4 exercise table's row: epoch-1 loss, final loss, eval loss, bleu-4, bleu-100, tokens/sec.
struct Row {
  double first, last, eval, bleu4, bleu100, speed;
};
Row row(const ProgramRun& run, const std::string& setting) {
  const std::vector<double> v = run.numbers_after(setting + " ");
  BOOST_REQUIRE_EQUAL(v.size(), 6u);
  const Row r{v[0], v[1], v[2], v[3], v[4], v[5]};
  BOOST_TEST(std::isfinite(r.first));
  BOOST_TEST(r.last < r.first);  // the loss goes down in training
  BOOST_TEST(r.eval > 0.0);
  BOOST_TEST((r.bleu4 >= 0.0 && r.bleu4 <= 1.0));
  BOOST_TEST((r.bleu100 >= 0.0 && r.bleu100 <= 1.0));
  BOOST_TEST(r.speed > 0.0);
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(exercises_seq2seq_transformer_nli)

// --- 10.4: the variants -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(variant_gru_additive_is_the_books_model) {
  d2l::manual_seed(11);
  d2l::Seq2SeqEncoder enc(7, 3, 4, 2);
  d2l::Seq2SeqAttentionDecoder dec(6, 3, 4, 2);
  d2l::VariantSeq2SeqEncoder venc(d2l::RecurrentCell::gru, 7, 3, 4, 2);
  d2l::VariantAttentionDecoder vdec(d2l::RecurrentCell::gru, d2l::AttentionScoring::additive, 6, 3, 4, 2);
  copy_parameters(enc, venc);
  copy_parameters(dec, vdec);
  const Tensor X = random_ids(7, {2, 5}), Y = random_ids(6, {2, 4}), valid = d2l::tensor({3, 5});
  d2l::NoGrad no_grad;
  const auto [out, state] = dec(Y, dec.init_state(enc(X), valid));
  const auto [vout, vstate] = vdec(Y, vdec.init_state(venc(X), valid));
  BOOST_TEST(max_abs_diff(out, vout) == 0.0);
  BOOST_TEST(max_abs_diff(state[1], vstate[1]) == 0.0);
  BOOST_TEST(vstate.size() == 3u);
}

BOOST_AUTO_TEST_CASE(variant_lstm_dot_shapes_state_and_gradients) {
  d2l::manual_seed(12);
  d2l::VariantSeq2SeqEncoder enc(d2l::RecurrentCell::lstm, 7, 3, 4, 2);
  d2l::VariantAttentionDecoder dec(d2l::RecurrentCell::lstm, d2l::AttentionScoring::scaled_dot_product, 6, 3, 4, 2);
  BOOST_TEST(dynamic_cast<d2l::DotProductAttention*>(dec.attention) != nullptr);
  BOOST_TEST(dec.attention->parameters().empty());
  BOOST_TEST(dec.lstm->weight_ih[0].shape() == (Shape{16, 7}));  // 4 gates x 4; context 4 + embedding 3
  const Tensor X = random_ids(7, {2, 5}), Y = random_ids(6, {2, 4}), valid = d2l::tensor({3, 5});
  const d2l::EncoderOutputs enc_out = enc(X);
  BOOST_TEST(enc_out.size() == 3u);  // output, h_n, c_n
  const d2l::DecoderState s0 = dec.init_state(enc_out, valid);
  BOOST_TEST(s0.size() == 4u);  // the book's three, then the memory cell
  auto [out, state] = dec(Y, s0);
  BOOST_TEST(out.shape() == (Shape{2, 4, 6}));
  BOOST_TEST(state[3].shape() == (Shape{2, 2, 4}));
  BOOST_TEST(dec.attention_weights().size() == 4u);
  BOOST_TEST(dec.attention_weights()[0].shape() == (Shape{2, 1, 5}));
  // Decoding one step at a time from the returned state gives the same outputs (the state
  // carries h and c forward).
  d2l::DecoderState s = s0;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < 4; ++t) {
    auto [o, next] = dec(d2l::slice(Y, 1, t, t + 1), s);
    s = next;
    steps.push_back(o);
  }
  BOOST_TEST(max_abs_diff(d2l::concat(steps, 1), out) < 1e-6);
  // Gradients through the encoder, the LSTMs and dot-product attention.
  std::vector<Tensor> params = enc.parameters();
  for (const Tensor& p : dec.parameters()) params.push_back(p);
  BOOST_TEST(d2l::test::gradcheck(
      [&](std::vector<Tensor>&) { return dec(Y, dec.init_state(enc(X), valid)).first; }, {}, "VariantAttentionDecoder",
      params));
  BOOST_CHECK_EXCEPTION(dec.init_state({enc_out[0], enc_out[1]}, valid), std::invalid_argument,
                        message_has({"[VariantAttentionDecoder]", "{output, h_n, c_n}", "2 tensors"}));
  BOOST_CHECK_EXCEPTION(dec(Y, {s0[0], s0[1], s0[2]}), std::invalid_argument,
                        message_has({"[VariantAttentionDecoder]", "4 tensors", "got 3"}));
}

// --- 10.5 ex. 2 and 10.7 ex. 2: MultiHeadAttention's head mask and additive scoring --------

BOOST_AUTO_TEST_CASE(head_mask_removes_exactly_one_head) {
  d2l::manual_seed(13);
  d2l::MultiHeadAttention mha(8, 2, 0.0f);  // no biases: the output is linear in the heads' outputs
  mha.eval();
  const Tensor Q = d2l::normal(0, 1, {2, 3, 8}), K = d2l::normal(0, 1, {2, 5, 8}), valid = d2l::tensor({2, 4});
  d2l::NoGrad no_grad;
  const Tensor all = mha(Q, K, K, valid);
  // Each mask acts while it lives; the layer then pools as before.
  const auto masked = [&](std::vector<float> factors) {
    const d2l::HeadMask mask(mha, std::move(factors));
    return mha(Q, K, K, valid);
  };
  BOOST_TEST(max_abs_diff(masked({1.0f, 1.0f}), all) == 0.0);
  const Tensor without0 = masked({0.0f, 1.0f});
  const Tensor without1 = masked({1.0f, 0.0f});
  // W_o(head 0 | head 1) = W_o(0 | head 1) + W_o(head 0 | 0).
  BOOST_TEST(max_abs_diff(without0 + without1, all) < 1e-5);
  BOOST_TEST(max_abs_diff(without0, all) > 1e-3);
  BOOST_TEST(max_abs_diff(masked({0.0f, 0.0f}), d2l::zeros({2, 3, 8})) == 0.0);
  BOOST_TEST(max_abs_diff(mha(Q, K, K, valid), all) == 0.0);  // every mask gone
  BOOST_CHECK_EXCEPTION(masked({1.0f, 0.0f, 1.0f}), std::invalid_argument,
                        message_has({"[HeadMask]", "3 factors", "2 heads"}));
}

BOOST_AUTO_TEST_CASE(additive_scoring_in_multihead_attention) {
  d2l::manual_seed(14);
  d2l::MultiHeadAttention mha(8, 2, 0.0f);
  const int64_t before = count_parameters(mha);
  d2l::use_additive_scoring(mha);
  d2l::use_additive_scoring(mha);  // once only
  // One MLP shared by the heads on 8 / 2 = 4-d projections: W_k, W_q (4 x 4), w_v (1 x 4).
  BOOST_TEST(count_parameters(mha) - before == 4 * 4 + 4 * 4 + 4);
  const Tensor Q = d2l::normal(0, 1, {2, 3, 8}), K = d2l::normal(0, 1, {2, 5, 8}), valid = d2l::tensor({2, 4});
  const Tensor out = mha(Q, K, K, valid);
  BOOST_TEST(out.shape() == (Shape{2, 3, 8}));
  // The weights readers take from attention->attention_weights are the additive ones: per
  // (item, head) row, masked to the valid length and summing to 1.
  const Tensor& w = mha.attention->attention_weights;
  BOOST_TEST(w.shape() == (Shape{4, 3, 5}));
  BOOST_TEST(w.at({0, 0, 2}) == 0.0f);  // item 0 has 2 valid keys
  BOOST_TEST(w.at({0, 0, 0}) + w.at({0, 0, 1}) == 1.0f, boost::test_tools::tolerance(1e-5f));
  BOOST_TEST(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return mha(x[0], x[1], x[1], valid); }, {Q, K},
                                  "MultiHeadAttention additive", mha.parameters()));
}

// --- the programs' --quick runs -----------------------------------------------------------
// The 10.4 variants train for 3 epochs (--quick trains 10, each run two models): their checks
// are of the rows, the first epoch's loss and the loss falling, which 3 epochs show on both
// tiers, and a third of the epochs keeps these five runs short on the reference tier.
const std::string kBahdanauEpochs = "--epochs 3";

// Most of the 10.4, 10.5 and 10.7 runs below train on the bundled corpus (600 pairs), and on
// the reference tier on its first 200 (a third of the time: fewer batches per epoch and per
// evaluation, the same models and code): their checks are of the printed rows, the loss
// falling and parameter counts, which any trained model shows, and the fast tier's pass runs
// them on the whole corpus. (The 10.1 cues below need the whole corpus's words.)
struct FraSubset {
  d2l_test::TempDir dir{"fra_subset"};
  FraSubset() {
    std::istringstream in(d2l_test::read_file("chapters/data/fra-eng-small.txt"));
    std::string kept, line;
    for (int i = 0; i < 200 && std::getline(in, line); ++i) kept += line + "\n";
    d2l_test::write_file(dir.path / "fra.txt", kept);
  }
  std::string args() const { return reference_tier() ? " --data " + (dir.path / "fra.txt").string() : ""; }
};

BOOST_AUTO_TEST_CASE(bahdanau_lstm_and_dot_product) {
  const FraSubset corpus;
  const ProgramRun lstm("bahdanau_attention", kBahdanauEpochs + " --rnn lstm" + corpus.args());
  const Row a = row(lstm, "lstm, additive"), book = row(lstm, "gru, additive (the book)");
  BOOST_TEST(a.first != book.first);
  const ProgramRun dot("bahdanau_attention", kBahdanauEpochs + " --scoring dot" + corpus.args());
  const Row d = row(dot, "gru, dot"), book2 = row(dot, "gru, additive (the book)");
  BOOST_TEST(d.first != book2.first);
  // The book's row is the same model trained from the same seed in both runs.
  BOOST_TEST(book.last == book2.last);
  BOOST_TEST(book.eval == book2.eval);
}

BOOST_AUTO_TEST_CASE(bahdanau_without_loss_mask_and_teacher_forcing) {
  const FraSubset corpus;
  const ProgramRun mask("bahdanau_attention", kBahdanauEpochs + " --no-loss-mask" + corpus.args());
  const Row m = row(mask, "gru, additive, no loss mask"), book = row(mask, "gru, additive (the book)");
  // Same init and batches: without the mask the first epoch's loss also counts the padding
  // positions (about log(vocab) each at the start) over the same number of valid tokens.
  BOOST_TEST(m.first > book.first);
  const ProgramRun tf("bahdanau_attention", kBahdanauEpochs + " --no-teacher-forcing" + corpus.args());
  const Row t = row(tf, "gru, additive, no teacher forcing");
  BOOST_TEST(t.last != book.last);
}

BOOST_AUTO_TEST_CASE(transformer_head_importance) {
  const FraSubset corpus;
  const ProgramRun run("transformer", "--quick --head-importance" + corpus.args());
  const std::vector<double> base = run.numbers_after("all heads: loss ");
  BOOST_REQUIRE(!base.empty());
  BOOST_TEST(base[0] > 0.0);
  // 3 attentions x 2 layers x 4 heads; masking a head changes the loss.
  int rows = 0, changed = 0;
  for (const char* a : {"encoder self-attention", "decoder self-attention", "decoder-encoder attention"})
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 4; ++h) {
        char prefix[64];
        std::snprintf(prefix, sizeof prefix, "%-26s %5d %4d ", a, l, h);
        const std::vector<double> v = run.numbers_after(prefix);
        BOOST_REQUIRE_EQUAL(v.size(), 2u);
        ++rows;
        changed += v[0] != 0.0;
        BOOST_TEST((v[1] >= -1.0 && v[1] <= 1.0));
      }
  BOOST_TEST(rows == 24);
  BOOST_TEST(changed == 24);
  run.require_png("head_importance.png");
}

BOOST_AUTO_TEST_CASE(transformer_depth_and_additive_scoring) {
  // Five epochs each: these checks are of the models' sizes and the printed ranges, not of
  // how far they train (five, so the two scorings' losses already part in their printed
  // digits on both tiers).
  const FraSubset corpus;
  const ProgramRun one("transformer", "--epochs 5 --num-layers 1" + corpus.args());
  const ProgramRun two("transformer", "--epochs 5 --num-layers 2" + corpus.args());
  const ProgramRun additive("transformer", "--epochs 5 --scoring additive" + corpus.args());
  const std::vector<double> p1 = one.numbers_after("parameters "), p2 = two.numbers_after("parameters "),
                            pa = additive.numbers_after("parameters ");
  BOOST_REQUIRE_EQUAL(p1.size(), 7u);  // parameters, seconds, loss, eval loss, bleu-4, bleu-100, tokens/sec
  BOOST_REQUIRE_EQUAL(p2.size(), 7u);
  BOOST_REQUIRE_EQUAL(pa.size(), 7u);
  // One more layer = one more encoder block and one more decoder block of the book's sizes.
  d2l::EncoderBlock eb(32, 32, 32, 32, {32}, 32, 64, 4, 0.1f);
  d2l::DecoderBlock db(32, 32, 32, 32, {32}, 32, 64, 4, 0.1f, 0);
  BOOST_TEST(p2[0] - p1[0] == static_cast<double>(count_parameters(eb) + count_parameters(db)));
  // Additive scoring adds one MLP (W_k, W_q 8 x 8, w_v 1 x 8) to each of the 3 x 2 attentions.
  BOOST_TEST(pa[0] - p2[0] == 6.0 * (8 * 8 + 8 * 8 + 8));
  for (const auto* v : {&p1, &p2, &pa}) {
    BOOST_TEST((*v)[1] > 0.0);                            // training seconds
    BOOST_TEST(((*v)[4] >= 0.0 && (*v)[4] <= 1.0));      // bleu-4
    BOOST_TEST(((*v)[5] >= 0.0 && (*v)[5] <= 1.0));      // bleu-100
  }
  BOOST_TEST((pa[2] != p2[2] || pa[3] != p2[3]));  // another model, another loss
}

BOOST_AUTO_TEST_CASE(nli_grid) {
  // Six models, one epoch each: the checks are of the table's rows and figures, not of what
  // the models learn, so they train on the bundled set's first 256 pairs and are tested on its
  // first 128 (--quick alone takes 1024 and 512: a minute and a half on the reference tier),
  // with the bundled word vectors as --quick's run starts from.
  const NliSubset subset(256, 128);
  const ProgramRun run("natural_language_inference_attention", "--quick --grid " + subset.args());
  BOOST_TEST(run.text.find("\nread 256 examples\nread 128 examples\n") != std::string::npos);
  int rows = 0;
  for (const char* h : {"100", "200"})
    for (const char* lr : {"0.0003", "0.001", "0.003"}) {
      char prefix[64];
      std::snprintf(prefix, sizeof prefix, "%11s %8s ", h, lr);
      const std::vector<double> v = run.numbers_after(prefix);
      BOOST_REQUIRE_EQUAL(v.size(), 2u);  // one epoch's test acc, examples/sec
      BOOST_TEST((v[0] > 0.0 && v[0] < 1.0));
      BOOST_TEST(v[1] > 0.0);
      run.require_png(std::string("grid_h") + h + "_lr" + lr + ".png");
      ++rows;
    }
  BOOST_TEST(rows == 6);
}

// 10.3 ex. 2 in 10.4's model, and 10.1 ex. 1: which source token each target step attends to.
BOOST_AUTO_TEST_CASE(bahdanau_bilinear_scoring_and_cues) {
  const ProgramRun run("bahdanau_attention", kBahdanauEpochs + " --scoring bilinear --cues");
  const Row b = row(run, "gru, bilinear"), book = row(run, "gru, additive (the book)");
  BOOST_TEST(b.first != book.first);
  BOOST_TEST(std::isfinite(b.last));
  BOOST_TEST(b.last < b.first);
  BOOST_TEST(run.text.find("keys and values (nonvolitional cues): the encoder's outputs at 'i'm' 'home' '.' "
                           "'<eos>'") != std::string::npos);
  // Rows "step reads writes 'token' (weight)": step 1 reads <bos>, every token is a source token.
  std::istringstream in(run.text.substr(run.text.find("attends most to (weight)")));
  std::string line;
  std::getline(in, line);
  int steps = 0;
  while (std::getline(in, line) && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
    ++steps;
    std::istringstream words(line);
    std::string step, reads, writes, token, weight;
    words >> step >> reads >> writes >> token >> weight;
    if (steps == 1) BOOST_TEST(reads == "<bos>");
    BOOST_TEST((token == "'i'm'" || token == "'home'" || token == "'.'" || token == "'<eos>'"), line);
    const double w = std::stod(weight.substr(1));
    BOOST_TEST((w > 0.25 && w <= 1.0), line);  // the largest of at most 4 weights
  }
  BOOST_TEST(steps >= 1);
}

// The two 15.5 exercises below: --quick on the whole bundled set (1024 training pairs, 450
// test pairs), and on the reference tier on its first 256 and 200 (a third of the time: the
// training's one epoch is one batch instead of four; 200 test pairs are what ex. 2 shuffles):
// their checks are of what any trained model shows, and the fast tier's pass runs them whole.
std::string nli_exercise_args(int ex, const NliSubset& subset) {
  return "--quick --ex " + std::to_string(ex) + (reference_tier() ? " " + subset.args() : "");
}

// 15.5 ex. 2: permuting a hypothesis's words changes no prediction.
BOOST_AUTO_TEST_CASE(nli_word_order_is_lost) {
  const NliSubset subset(256, 200);
  const ProgramRun run("natural_language_inference_attention", nli_exercise_args(2, subset));
  char same_row[80], swapped_row[80];  // the program's "%-32s %-32s" premise, hypothesis
  std::snprintf(same_row, sizeof same_row, "%-32s %-32s", "a man bites a dog .", "a man bites a dog .");
  std::snprintf(swapped_row, sizeof swapped_row, "%-32s %-32s", "a man bites a dog .", "a dog bites a man .");
  const std::vector<double> same = run.numbers_after(same_row), swapped = run.numbers_after(swapped_row);
  BOOST_REQUIRE(same.size() == 3u && swapped.size() == 3u);
  for (size_t c = 0; c < 3; ++c) BOOST_TEST(std::fabs(same[c] - swapped[c]) < 1e-5);
  BOOST_TEST(std::fabs(same[0] + same[1] + same[2] - 1.0) < 1e-4);
  // "first 200 test pairs, hypothesis words shuffled (R reordered): prediction changed for C,
  // largest change of a probability D": 200, C, D ("(R" is not a word of its own).
  const std::vector<double> v = run.numbers_after("first ");
  BOOST_REQUIRE_EQUAL(v.size(), 3u);
  BOOST_TEST(v[0] == 200.0);
  BOOST_TEST(v[1] == 0.0);
  BOOST_TEST(v[2] < 1e-5);
}

// 15.5 ex. 3: the similarity model trains and scores every pair in (0, 1).
BOOST_AUTO_TEST_CASE(nli_graded_similarity) {
  const NliSubset subset(256, 200);
  const ProgramRun run("natural_language_inference_attention", nli_exercise_args(3, subset));
  const std::vector<double> e = run.numbers_after("epoch 1, loss ");
  BOOST_REQUIRE(!e.empty());
  BOOST_TEST((std::isfinite(e[0]) && e[0] > 0.0 && e[0] < 0.5));  // squared error of targets in [0, 1]
  std::istringstream in(run.text);
  int pairs = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("similarity ", 0) == 0) {
      ++pairs;
      const double s = std::stod(line.substr(11));
      BOOST_TEST((s > 0.0 && s < 1.0), line);
    }
  BOOST_TEST(pairs == 5);
}

BOOST_AUTO_TEST_CASE(bad_exercise_options) {
  for (const auto& [name, args, says] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"bahdanau_attention", "--quick --rnn rnn", "error: [--rnn] expects gru or lstm, got 'rnn'"},
           {"bahdanau_attention", "--quick --scoring mlp",
            "error: [--scoring] expects additive, dot or bilinear, got 'mlp'"},
           {"transformer", "--quick --scoring mlp", "error: [--scoring] expects dot or additive, got 'mlp'"},
           {"transformer", "--quick --pe rotary", "error: [--pe] expects sinusoidal or learned, got 'rotary'"},
           {"transformer", "--quick --ex 7", "error: [--ex] must be in [0, 6], got 7"},
           {"transformer", "--quick --ex 3", "error: [--ex] exercise 3 of this section is answered by another "
                                             "command; run: build/chapters/transformer_lm"}}) {
    const fs::path exe = fs::path(d2l_test::build_dir()) / "chapters" / name;
    d2l_test::TempDir tmp("bad_exercise");
    const auto [rc, text] = d2l_test::run_capture(exe.string() + " --out " + tmp("out") + " " + args);
    BOOST_TEST(rc == 2);  // bad usage, before any training
    BOOST_TEST(text.find(says) != std::string::npos, name << " " << args << " printed:\n" << text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
