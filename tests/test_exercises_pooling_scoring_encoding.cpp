// tests/test_exercises_pooling_scoring_encoding.cpp — the book's exercises of 10.1, 10.2,
// 10.3 and 10.6 as their programs answer them (--ex N, and --pe learned in 10.7's program):
// each runs, writes its figures, and prints numbers that make sense for the question.
//
// The numbers are read back from the program's output lines (formats fixed in
// chapters/*.cpp) and checked against what must hold whatever the seed: softmax rows sum
// to 1; a learned w > 1 concentrates the weights; equal keys give the two scoring functions
// the same output and unequal keys do not; a learned positional table has the model's width
// and training moves only the rows of positions it sees.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace fs = std::filesystem;
using d2l_test::build_dir;
using d2l_test::read_file;
using d2l_test::run_command;
using d2l_test::TempDir;

namespace {

// Runs build/chapters/<name> with `args` and --out in a fresh folder; checks exit 0, that
// each PNG is written, decodes and is printed, and that nothing else is left there.
// Returns stdout.
std::string run_exercise(const std::string& name, const std::string& args, const std::vector<std::string>& pngs) {
  const fs::path exe = fs::path(build_dir()) / "chapters" / name;
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built");
  TempDir tmp(name + "_ex");
  const fs::path out = tmp.path / "out", log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const int rc = run_command(exe.string() + " --threads 2 --out " + out.string() + " " + args, log, err);
  BOOST_CHECK_MESSAGE(rc == 0, name << " " << args << " exited with " << rc << "; stderr:\n" << read_file(err));
  const std::string text = read_file(log);
  for (const std::string& png : pngs) {
    const fs::path p = out / png;
    int w = 0, h = 0, comp = 0;
    BOOST_CHECK_MESSAGE(stbi_info(p.string().c_str(), &w, &h, &comp) == 1 && w > 100 && h > 100,
                        name << ": " << p << " missing or not a readable image");
    BOOST_CHECK_MESSAGE(text.find("saved " + p.string()) != std::string::npos, name << ": " << p << " not printed");
  }
  size_t files = 0;
  if (fs::exists(out))
    for (const auto& e : fs::directory_iterator(out)) files += e.is_regular_file();
  BOOST_CHECK_EQUAL(files, pngs.size());
  return text;
}

// The line that starts with `head` (the first one), without the head; fails the test when absent.
std::string line_after(const std::string& text, const std::string& head) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(head, 0) == 0) return line.substr(head.size());
  BOOST_ERROR("no line starting with '" << head << "' in:\n" << text);
  return "";
}

// Every number in `s` ("tensor([1.0000, 0.9999])" -> {1, 0.9999}), digits after "[" "(" "," or " ".
std::vector<double> numbers_in(const std::string& s) {
  std::vector<double> v;
  for (size_t i = 0; i < s.size();) {
    const bool starts = (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-') &&
                        (i == 0 || std::string("[(, \t=").find(s[i - 1]) != std::string::npos);
    if (!starts) {
      ++i;
      continue;
    }
    size_t used = 0;
    v.push_back(std::stod(s.substr(i), &used));
    i += used;
  }
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(exercises_pooling_scoring_encoding)

// 10.1 ex. 2: softmax over the rows of a random 10x10 matrix.
BOOST_AUTO_TEST_CASE(attention_cues_ex2_random_softmax) {
  const std::string text = run_exercise("attention_cues", "--ex 2", {"ex2_random_attention_weights.png"});
  const std::vector<double> sums = numbers_in(line_after(text, "row sums: "));
  BOOST_REQUIRE_EQUAL(sums.size(), 10u);
  for (double s : sums) BOOST_CHECK_SMALL(s - 1.0, 1e-4);  // printed to 4 decimals
  const std::vector<double> ends = numbers_in(line_after(text, "smallest weight: "));
  BOOST_REQUIRE_GE(ends.size(), 2u);
  // Every weight strictly between 0 and 1, and not uniform (a random matrix).
  BOOST_CHECK(ends[0] > 0.0 && ends[0] < 0.1 && ends[1] > 0.1 && ends[1] < 1.0);
  // The row maxima: each at least the uniform 0.1.
  for (double m : numbers_in(line_after(text, "largest weight per row: "))) BOOST_CHECK_GE(m, 0.1);
}

// 10.2 ex. 1: more training points help the non-parametric model, which stays far from the
// trained one (its width is fixed at 1).
BOOST_AUTO_TEST_CASE(nadaraya_watson_ex1_more_points) {
  const std::string text = run_exercise("nadaraya_watson", "--ex 1 --quick --n-train 400", {"ex1_n_train.png"});
  const std::vector<double> n50 = numbers_in(line_after(text, "50\t")), n400 = numbers_in(line_after(text, "400\t"));
  BOOST_REQUIRE_EQUAL(n50.size(), 3u);  // non-parametric MSE, parametric MSE, learned w
  BOOST_REQUIRE_EQUAL(n400.size(), 3u);
  BOOST_CHECK_LT(n400[0], n50[0]);  // more points: a better non-parametric fit
  BOOST_CHECK_LT(n50[1], n50[0]);   // the trained width beats w = 1 at either size
  BOOST_CHECK_LT(n400[1], n400[0]);
  BOOST_CHECK_GT(n400[2], 1.0);     // both learn a narrower kernel than w = 1
  BOOST_CHECK_GT(n50[2], 1.0);
  BOOST_CHECK(text.find("n_train = 400, NWKernelRegression:\nepoch 1, loss ") != std::string::npos);
}

// 10.2 ex. 2: the learned w > 1 narrows the kernel: larger largest weights, fewer keys.
BOOST_AUTO_TEST_CASE(nadaraya_watson_ex2_learned_w_sharpens) {
  const std::string text = run_exercise("nadaraya_watson", "--ex 2 --quick", {"ex2_attention_w.png"});
  // "I, learned w = W: the kernel's bandwidth 1/w = B (w = 1: 1)": I, W, 1 (of 1/w), B, 1, 1.
  const std::vector<double> w = numbers_in(line_after(text, "initial w = "));
  BOOST_REQUIRE_EQUAL(w.size(), 6u);
  BOOST_CHECK(w[0] >= 0.0 && w[0] < 1.0);
  BOOST_CHECK_GT(w[1], 1.0);
  BOOST_CHECK_CLOSE(w[3], 1.0 / w[1], 0.1);
  // Rows: w, 1/w, mean largest weight, mean effective no. of keys, test MSE.
  const std::vector<double> one = numbers_in(line_after(text, "1.0000\t1.0000\t"));
  char head[32];
  std::snprintf(head, sizeof head, "%.4f\t", w[1]);
  const std::vector<double> learned = numbers_in(line_after(text, head));
  BOOST_REQUIRE_EQUAL(one.size(), 3u);
  BOOST_REQUIRE_EQUAL(learned.size(), 4u);
  BOOST_CHECK_GT(learned[1], one[0]);  // each query's largest weight grows
  BOOST_CHECK_LT(learned[2], one[1]);  // over fewer effective keys
  BOOST_CHECK(one[1] > 1.0 && one[1] <= 50.0 && learned[2] >= 1.0);
}

// 10.2 ex. 4: the new pooling trains (its loss falls) and its width stays positive.
BOOST_AUTO_TEST_CASE(nadaraya_watson_ex4_new_pooling) {
  const std::string text = run_exercise("nadaraya_watson", "--ex 4 --quick", {"ex4_adaptive.png", "ex4_attention.png"});
  const size_t at = text.find("NWAdaptiveKernelRegression (lr 0.05):\n");
  BOOST_REQUIRE(at != std::string::npos);
  const std::vector<double> first = numbers_in(line_after(text.substr(at), "epoch 10, loss "));
  const std::vector<double> last = numbers_in(line_after(text.substr(at), "epoch 50, loss "));
  BOOST_REQUIRE(first.size() == 1u && last.size() == 1u);
  BOOST_CHECK_LT(last[0], first[0]);
  // "w = W, v = V; width w(x) at x = 0, 2.5, 5: W0, W1, W2"
  const std::vector<double> p = numbers_in(line_after(text, "learned: w = "));
  BOOST_REQUIRE_EQUAL(p.size(), 8u);
  BOOST_CHECK_CLOSE(p[5], p[0], 0.1);  // w(0) = w
  BOOST_CHECK_CLOSE(p[7], p[0] * std::exp(5.0 * p[1]), 0.5);
  BOOST_CHECK(p[5] > 0.0 && p[6] > 0.0 && p[7] > 0.0);
  for (const char* model : {"NWKernelRegression\t", "NWAdaptiveKernelRegression\t"}) {
    const std::vector<double> row = numbers_in(line_after(text, model));
    BOOST_REQUIRE_EQUAL(row.size(), 3u);  // training loss, test MSE, mean largest weight
    BOOST_CHECK(std::isfinite(row[0]) && row[1] > 0.0 && row[1] < 1.0 && row[2] > 0.02 && row[2] < 1.0);
  }
}

// 10.3 ex. 1: equal keys give both scoring functions the same output, unequal keys do not.
BOOST_AUTO_TEST_CASE(attention_scoring_ex1_unequal_keys) {
  const std::string text = run_exercise("attention_scoring_functions", "--ex 1",
                                        {"ex1_additive_attention.png", "ex1_dot_product_attention.png"});
  const size_t unequal = text.find("unequal, N(0, 1) keys:");
  BOOST_REQUIRE(unequal != std::string::npos);
  const std::vector<double> same = numbers_in(line_after(text.substr(0, unequal), "largest |additive - dot product|: "));
  const std::vector<double> apart = numbers_in(line_after(text.substr(unequal), "largest |additive - dot product|: "));
  BOOST_REQUIRE(same.size() == 1u && apart.size() == 1u);
  BOOST_CHECK_EQUAL(same[0], 0.0);
  BOOST_CHECK_GT(apart[0], 0.1);
  // With equal keys both print the book's averages of the valid values.
  BOOST_CHECK(text.find("[[10.0000, 11.0000, 12.0000, 13.0000]]], grad_fn=<BmmBackward0>)") < unequal);
}

// 10.6 ex. 2: a learned positional encoding trained in the Transformer (10.7's program).
BOOST_AUTO_TEST_CASE(transformer_learned_positional_encoding) {
  const std::string text = run_exercise(
      "transformer", "--quick --pe learned",
      {"loss.png", "encoder_self_attention.png", "decoder_self_attention.png", "decoder_encoder_attention.png",
       "positional_encoding.png"});
  BOOST_CHECK(text.find("learned P: encoder torch.Size([1, 1000, 32]), decoder torch.Size([1, 1000, 32])") !=
              std::string::npos);
  for (const char* part : {"encoder: rows 0..9 moved by ", "decoder: rows 0..9 moved by "}) {
    // "M on average (largest L); rows 10..999 by M' (largest L')": M, L, 10, M', L'.
    const std::vector<double> v = numbers_in(line_after(text, part));
    BOOST_REQUIRE_EQUAL(v.size(), 5u);
    BOOST_CHECK_GT(v[0], 1e-3);  // trained rows moved
    BOOST_CHECK_GE(v[1], v[0]);
    BOOST_CHECK_EQUAL(v[2], 10.0);
    BOOST_CHECK_EQUAL(v[3], 0.0);  // rows no training sequence reaches did not
    BOOST_CHECK_EQUAL(v[4], 0.0);
  }
  const std::vector<double> loss = numbers_in(line_after(text, "loss "));
  BOOST_REQUIRE(!loss.empty());
  BOOST_CHECK(std::isfinite(loss[0]) && loss[0] < 1.0);
}

// Question-only exercise numbers and unknown encodings are usage errors (exit 2).
BOOST_AUTO_TEST_CASE(exercise_options_refuse_bad_values) {
  TempDir tmp("exercise_options");
  const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const std::string chapters = build_dir() + "/chapters/";
  BOOST_CHECK_EQUAL(run_command(chapters + "nadaraya_watson --ex 3", log, err), 2);
  BOOST_CHECK(read_file(err).find("error: [--ex] exercise 3 of this section is a question without a computation; "
                                  "--ex takes 1, 2, 4") != std::string::npos);
  BOOST_CHECK_EQUAL(run_command(chapters + "attention_cues --ex 5", log, err), 2);
  BOOST_CHECK(read_file(err).find("error: [--ex] must be in [0, 2], got 5") != std::string::npos);
  BOOST_CHECK_EQUAL(run_command(chapters + "transformer --pe rotary", log, err), 2);
  BOOST_CHECK(read_file(err).find("error: [--pe] expects sinusoidal or learned, got 'rotary'") != std::string::npos);
  BOOST_CHECK_EQUAL(run_command(chapters + "attention_scoring_functions --help", log, err), 0);
  BOOST_CHECK(read_file(log).find("--ex N") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
