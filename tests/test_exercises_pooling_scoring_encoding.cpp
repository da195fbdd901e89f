// tests/test_exercises_pooling_scoring_encoding.cpp — the book's exercises of 10.1, 10.2,
// 10.3, 10.5 and 10.6 as their programs answer them (--ex N, and --pe learned in 10.7's program):
// each runs, writes its figures, and prints numbers that make sense for the question.
//
// The numbers are read back from the program's output lines (formats fixed in
// chapters/*.cpp) and checked against what must hold whatever the seed: softmax rows sum
// to 1; a learned w > 1 concentrates the weights; equal keys give the two scoring functions
// the same output and unequal keys do not; a learned positional table has the model's width
// and training moves only the rows of positions it sees; the bandwidth's error has its
// minimum inside the sweep; a sum score gives every query the same weights; heads differ on
// varied inputs; deep stacks without residual connections starve their first layer.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
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
// A printed tensor continues on the next lines while its parentheses are open: tensors print
// as PyTorch's do, wrapping a row at 80 columns (ten values of 1.0000 take two lines).
std::string line_after(const std::string& text, const std::string& head) {
  std::istringstream in(text);
  auto open = [](const std::string& s) {
    return std::count(s.begin(), s.end(), '(') - std::count(s.begin(), s.end(), ')');
  };
  for (std::string line; std::getline(in, line);)
    if (line.rfind(head, 0) == 0) {
      std::string rest = line.substr(head.size());
      if (rest.find("tensor(") != std::string::npos)
        for (std::string more; open(rest) > 0 && std::getline(in, more);) rest += " " + more;
      return rest;
    }
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
       "positional_encoding.png", "positional_encoding_change.png"});
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

// 10.2 ex. 3: the bandwidth chosen by leave-one-out lies inside the sweep, and beats the book's h = 1.
BOOST_AUTO_TEST_CASE(nadaraya_watson_ex3_bandwidth) {
  const std::string text = run_exercise("nadaraya_watson", "--ex 3", {"ex3_bandwidth.png", "ex3_fit.png"});
  // Rows "h\tw\tloo\ttest" for h = 0.05, ..., 2.00.
  std::vector<std::vector<double>> rows;
  for (int k = 1; k <= 40; ++k) {
    char head[16];
    std::snprintf(head, sizeof head, "%.2f\t", 0.05 * k);
    rows.push_back(numbers_in(line_after(text, head)));
    BOOST_REQUIRE_EQUAL(rows.back().size(), 3u);  // w, leave-one-out MSE, test MSE
    BOOST_CHECK_CLOSE(rows.back()[0], 1.0 / (0.05 * k), 0.1);
  }
  size_t best = 0;
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i][1] < rows[best][1]) best = i;
  BOOST_CHECK(best > 0 && best + 1 < rows.size());  // an interior minimum
  BOOST_CHECK_LT(rows[best][1], rows.front()[1]);
  BOOST_CHECK_LT(rows[best][1], rows.back()[1]);
  // "h = H (w = W), leave-one-out MSE L, test MSE T": the row's numbers.
  const std::vector<double> chosen = numbers_in(line_after(text, "best bandwidth by leave-one-out: h = "));
  BOOST_REQUIRE_EQUAL(chosen.size(), 4u);
  BOOST_CHECK_CLOSE(chosen[0], 0.05 * static_cast<double>(best + 1), 0.1);
  BOOST_CHECK_CLOSE(chosen[2], rows[best][1], 0.1);
  BOOST_CHECK_LT(chosen[3], rows[19][2]);  // a better test error than the book's h = 1
}

// 10.3 ex. 2: the bilinear score on queries of length 20 and keys of length 2.
BOOST_AUTO_TEST_CASE(attention_scoring_ex2_bilinear) {
  const std::string text = run_exercise("attention_scoring_functions", "--ex 2", {"ex2_bilinear_attention.png"});
  BOOST_CHECK(text.find("(W): Linear(in_features=2, out_features=20, bias=False)") != std::string::npos);
  const size_t unequal = text.find("unequal, N(0, 1) keys:");
  BOOST_REQUIRE(unequal != std::string::npos);
  // Equal keys: the plain average of the valid values, as the other two scores give.
  BOOST_CHECK(text.find("[[10.0000, 11.0000, 12.0000, 13.0000]]], grad_fn=<BmmBackward0>)") < unequal);
  const std::vector<double> w = numbers_in(line_after(text.substr(unequal), "weights: "));
  BOOST_REQUIRE_EQUAL(w.size(), 20u);
  double s1 = 0, s2 = 0;
  for (size_t i = 0; i < 10; ++i) s1 += w[i], s2 += w[10 + i];
  BOOST_CHECK_SMALL(s1 - 1.0, 1e-3);
  BOOST_CHECK_SMALL(s2 - 1.0, 1e-3);
  BOOST_CHECK(w[2] == 0.0 && w[16] == 0.0);         // past valid lengths 2 and 6
  BOOST_CHECK(std::fabs(w[10] - w[11]) > 1e-3);    // unequal keys: unequal weights
}

// 10.3 ex. 3: with the sum score two different queries get the same weights.
BOOST_AUTO_TEST_CASE(attention_scoring_ex3_sum_score) {
  const std::string text = run_exercise("attention_scoring_functions", "--ex 3", {"ex3_sum_score.png"});
  const std::vector<double> d = numbers_in(line_after(text, "largest weight difference between the two queries: "));
  BOOST_REQUIRE_EQUAL(d.size(), 2u);
  BOOST_CHECK_SMALL(d[0], 1e-6);  // sum: identical
  BOOST_CHECK_GT(d[1], 0.01);     // scaled dot product: the query matters
}

// 10.5 ex. 1: on N(0, 1) inputs the heads' weights differ; on the book's all-ones they do not.
BOOST_AUTO_TEST_CASE(multihead_attention_ex1_heads_differ) {
  const std::string text = run_exercise("multihead_attention", "--ex 1", {"ex1_heads.png"});
  const std::vector<double> spread = numbers_in(line_after(text, "mean |w_i - w_j| between heads: "));
  BOOST_REQUIRE_EQUAL(spread.size(), 2u);
  BOOST_CHECK_GT(spread[0], 0.01);
  BOOST_CHECK_EQUAL(spread[1], 0.0);
  // Item 2 has 2 valid keys: no head attends most to a key past them.
  const std::string item2 = text.substr(text.find("item 2"));
  BOOST_CHECK(item2.find("->k3") == std::string::npos && item2.find("->k6") == std::string::npos);
}

// 10.6 ex. 1: without residual connections the first layer's gradient shrinks with depth and
// the output rows become alike; with residual connections and layer norm neither happens.
BOOST_AUTO_TEST_CASE(self_attention_ex1_deep_stacks) {
  const std::string text =
      run_exercise("self_attention_and_positional_encoding", "--ex 1", {"ex1_gradient.png", "ex1_similarity.png"});
  std::vector<double> plain_grad, plain_cos, res_grad;
  for (const int depth : {1, 2, 4, 8, 16}) {
    char head[64];
    std::snprintf(head, sizeof head, "%5d  %-28s ", depth, "attention only");
    const std::vector<double> p = numbers_in(line_after(text, head));
    std::snprintf(head, sizeof head, "%5d  %-28s ", depth, "attention + residual + norm");
    const std::vector<double> r = numbers_in(line_after(text, head));
    BOOST_REQUIRE(p.size() == 3u && r.size() == 3u);  // |grad| layer 1, output norm, row cosine
    plain_grad.push_back(p[0]), plain_cos.push_back(p[2]), res_grad.push_back(r[0]);
    BOOST_CHECK_LT(r[2], 0.9);  // residual rows stay apart
  }
  for (size_t i = 1; i < plain_grad.size(); ++i) BOOST_CHECK_LT(plain_grad[i], plain_grad[i - 1]);
  BOOST_CHECK_LT(plain_grad.back(), 1e-3 * plain_grad.front());
  BOOST_CHECK_GT(res_grad.back(), 0.1 * res_grad.front());
  BOOST_CHECK_GT(plain_cos.back(), 0.99);
}

// Exercise numbers a program does not run and unknown encodings are usage errors (exit 2).
BOOST_AUTO_TEST_CASE(exercise_options_refuse_bad_values) {
  TempDir tmp("exercise_options");
  const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const std::string chapters = build_dir() + "/chapters/";
  const std::pair<const char*, const char*> refused[] = {
      {"multihead_attention --ex 2", "error: [--ex] exercise 2 of this section is answered by another command; run: "
                                     "build/chapters/transformer --head-importance"},
      {"self_attention_and_positional_encoding --ex 2", "run: build/chapters/transformer --pe learned"},
      {"attention_cues --ex 1", "run: build/chapters/bahdanau_attention --cues"},
      {"nadaraya_watson --ex 5", "error: [--ex] must be in [0, 4], got 5"},
      {"attention_cues --ex 5", "error: [--ex] must be in [0, 2], got 5"},
      {"transformer --pe rotary", "error: [--pe] expects sinusoidal or learned, got 'rotary'"}};
  for (const auto& [command, message] : refused) {
    BOOST_CHECK_EQUAL(run_command(chapters + command, log, err), 2);
    BOOST_CHECK_MESSAGE(read_file(err).find(message) != std::string::npos, command << ": " << read_file(err));
  }
  BOOST_CHECK_EQUAL(run_command(chapters + "attention_scoring_functions --help", log, err), 0);
  BOOST_CHECK(read_file(log).find("--ex N") != std::string::npos);
}

// --list-exercises: one line per exercise, "N<TAB>question<TAB>command", the command being the
// program's own --ex N, another program's, or this one's with an option; exit 0.
BOOST_AUTO_TEST_CASE(list_exercises) {
  TempDir tmp("list_exercises");
  const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const std::string chapters = build_dir() + "/chapters/";
  BOOST_REQUIRE_EQUAL(run_command(chapters + "attention_cues --list-exercises", log, err), 0);
  BOOST_CHECK_EQUAL(read_file(log),
                    "1\tvolitional and nonvolitional cues in machine translation\tbuild/chapters/bahdanau_attention "
                    "--cues\n"
                    "2\tsoftmax over a random 10x10 matrix, drawn as attention weights\tbuild/chapters/attention_cues "
                    "--ex 2\n");
  // Every line of every section has three fields, and the numbers rise.
  for (const char* name : {"nadaraya_watson", "attention_scoring_functions", "bahdanau_attention", "multihead_attention",
                           "self_attention_and_positional_encoding", "transformer",
                           "natural_language_inference_attention"}) {
    BOOST_REQUIRE_EQUAL(run_command(chapters + name + " --list-exercises", log, err), 0);
    std::istringstream lines(read_file(log));
    int previous = 0, count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
      const size_t a = line.find('\t'), b = line.find('\t', a + 1);
      BOOST_REQUIRE_MESSAGE(a != std::string::npos && b != std::string::npos && line.find('\t', b + 1) == std::string::npos,
                            name << ": " << line);
      BOOST_CHECK_GT(std::stoi(line.substr(0, a)), previous);
      previous = std::stoi(line.substr(0, a));
      BOOST_CHECK_EQUAL(line.compare(b + 1, 15, "build/chapters/"), 0);
    }
    BOOST_CHECK_MESSAGE(count >= 2, name << " lists " << count << " exercises");
  }
  // An exercise the section's code answers runs under its own program's --ex N.
  BOOST_REQUIRE_EQUAL(run_command(chapters + "natural_language_inference_attention --list-exercises", log, err), 0);
  BOOST_CHECK(read_file(log).find("\tbuild/chapters/natural_language_inference_attention --ex 2\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
