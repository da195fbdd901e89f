// chapters/exercises/natural_language_inference_attention.cpp — the exercises of 15.5
// 自然语言推断：使用注意力 / Natural Language Inference: Using Attention
// (tools/d2l/cli/exercises.h).
//
// The exercise (15.5 ex. 1, other hyper-parameters): --embed-size N, --num-hiddens N, --lr X
// and --epochs N set one run (the book: 100, 200, 0.001, 4; with an embed size other than
// the word vectors' the embedding starts from the random init); --grid instead trains a
// small grid, --num-hiddens 100 and 200 x --lr 0.0003, 0.001 and 0.003 at --embed-size
// and --epochs, and prints each one's test accuracy after every epoch (figures:
// grid_h<num_hiddens>_lr<lr>.png).
// Exercises 2 and 3 (--ex N):
//   --ex 2  word order: after the section's training (or --load), the probabilities for
//           hypotheses whose meaning word order decides ("a man bites a dog ." against "a
//           dog bites a man ."), and for the first 200 test pairs with their hypothesis's
//           words shuffled, how many predictions change and the largest change.
//   --ex 3  a graded similarity in [0, 1]: DecomposableSimilarity (one sigmoid output)
//           trained for --epochs by squared error on a proxy target from the labels
//           (entailment 1, neutral 0.5, contradiction 0); prints each epoch's loss and test
//           error, the mean score per label, and the scores of a few pairs.
#include "chapters/exercises/natural_language_inference_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/random.h"
#include "core/shape.h"  // check
#include "layers/exercises/natural_language_inference_attention.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/data/glove.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/ids_tensor.h"
#include "tools/d2l/train/nli_setup.h"
#include "tools/d2l/train/train_ch13.h"

using namespace d2l;

namespace {

void similarity(const CliArgs& args);

// The book's data as the section reads it (tools/d2l/train/nli_setup.h), under its banners.
SNLILoaders read_data() {
  print_banner("读取数据集 / Reading the Dataset");
  SNLILoaders data = load_data_snli(256, 50);
  print_banner("创建模型 / Creating the Model");
  return data;
}

// The run's epochs: --epochs, at most 1 with --quick.
int64_t run_epochs() {
  const int64_t epochs = run_args().get_int("epochs");
  return run_args().get_flag("quick") ? std::min<int64_t>(1, epochs) : epochs;
}

const ExerciseList exercises(
    {{1, "other hyper-parameters: a grid of num_hiddens x lr, test accuracy by epoch",
      "build/chapters/natural_language_inference_attention --grid"},
     {2, "word order is lost (after the training, predictions for hypotheses with their words permuted)"},
     {3, "a graded similarity in [0, 1] (a regression variant trained on a proxy target: entailment 1, neutral "
         "0.5, contradiction 0)",
      [](const CliArgs& args, const std::string&) { similarity(args); }}},
    [](CliArgs& args) {
      args.add_flag("grid",
                    "15.5 ex. 1: train num_hiddens 100, 200 x lr 0.0003, 0.001, 0.003 and tabulate test acc");
    });

// The model's class probabilities for one pair, as predict_snli reads it (unpadded, eval
// mode, no graph): softmax of Y_hat, in the label order entailment, contradiction, neutral.
std::vector<float> snli_probabilities(DecomposableAttention& net, const Vocab& vocab,
                                      const std::vector<std::string>& premise,
                                      const std::vector<std::string>& hypothesis) {
  net.eval();
  NoGrad no_grad;
  auto row = [&vocab](const std::vector<std::string>& tokens) {
    std::vector<float> ids;
    for (int64_t i : vocab[tokens]) ids.push_back(static_cast<float>(i));
    return tensor(ids, {1, static_cast<int64_t>(ids.size())});
  };
  return softmax(net(row(premise), row(hypothesis))).to_vector();
}

std::string join_tokens(const std::vector<std::string>& tokens) {
  std::string s;
  for (const std::string& t : tokens) s += (s.empty() ? "" : " ") + t;
  return s;
}

}  // namespace

// 15.5 ex. 1: a small grid of num_hiddens x lr, each trained from the same seed; one row
// per setting with its test accuracy after every epoch.
void run_grid() {
  const CliArgs& args = run_args();
  SNLILoaders data = read_data();
  SNLIDataLoader &train_iter = data.train_iter, &test_iter = data.test_iter;
  const Vocab& vocab = data.vocab;
  const int64_t embed_size = args.get_int("embed-size"), num_epochs = run_epochs();
  const std::string& embeddings = snli_run_data().embeddings;
  const std::string& train_path = snli_run_data().source.train_path;
  check(num_epochs > 0, "natural_language_inference_attention", "--grid trains: give --epochs 1 or more");
  check(args.get_string("save").empty() && args.get_string("load").empty() && args.get_string("resume").empty(),
        "natural_language_inference_attention", "--grid trains six models: --save, --load and --resume are for one");
  struct Row {
    int64_t num_hiddens;
    float lr;
    std::vector<float> test_acc;
    double examples_per_sec;
  };
  std::vector<Row> rows;
  for (int64_t num_hiddens : {100, 200})
    for (float lr : {0.0003f, 0.001f, 0.003f}) {
      print_banner("练习 / Exercise 15.5.1: embed_size " + std::to_string(embed_size) + ", num_hiddens " +
                   std::to_string(num_hiddens) + ", lr " + python_float(lr));
      manual_seed(static_cast<uint64_t>(args.get_int("seed")));
      auto net = make_net(vocab, embed_size, num_hiddens, args.get_flag("mask-pad"), embeddings,
                          args.given("embeddings"), train_path);
      Adam trainer(net->parameters(), lr);
      const std::string figure = run_out() + "/grid_h" + std::to_string(num_hiddens) + "_lr" + python_float(lr) + ".png";
      const TrainCh13Result r = train_ch13(*net, forward_of(*net), train_iter, test_iter, trainer, num_epochs, figure);
      rows.push_back({num_hiddens, lr, r.test_acc_by_epoch, r.examples_per_sec});
    }
  print_banner("练习 / Exercise 15.5.1: test accuracy by epoch, embed_size " + std::to_string(embed_size));
  std::printf("%11s %8s  test acc after epoch 1..%lld   examples/sec\n", "num_hiddens", "lr",
              static_cast<long long>(num_epochs));
  for (const Row& r : rows) {
    std::printf("%11lld %8s ", static_cast<long long>(r.num_hiddens), python_float(r.lr).c_str());
    for (float a : r.test_acc) std::printf(" %.3f", a);
    std::printf("   %.1f\n", r.examples_per_sec);
  }
}

// 15.5 ex. 2: the model's main drawback, word order. Attend aligns each token with a
// softmax-weighted sum over the other sentence, compare looks at each token with its
// alignment alone, aggregate sums over positions: nothing depends on where a word stands,
// so a hypothesis with its words permuted gets the same prediction (up to the order of the
// float sums). Prints the probabilities for pairs whose meaning word order decides, then,
// over the first test pairs, how often a random permutation of the hypothesis's words
// changes the prediction and the largest change of a probability.
void word_order(int64_t pairs) {
  DecomposableAttention& net = snli_run_net();
  const Vocab& vocab = snli_run_data().vocab;
  const SNLIData& test_data = snli_run_data().test_data;
  print_banner("练习 2 / Exercise 15.5.2: word order is lost");
  const std::vector<std::pair<std::string, std::vector<std::string>>> examples = {
      {"a man bites a dog .", {"a man bites a dog .", "a dog bites a man ."}},
      {"a woman is holding a child .", {"a woman is holding a child .", "a child is holding a woman ."}},
      {"the dog is chasing the cat .", {"the cat is chasing the dog .", "cat the chasing is dog the ."}}};
  std::printf("%-32s %-32s %10s %13s %8s  %s\n", "premise", "hypothesis", "entailment", "contradiction", "neutral",
              "prediction");
  for (const auto& [premise, hypotheses] : examples)
    for (const std::string& hypothesis : hypotheses) {
      const std::vector<float> p = snli_probabilities(net, vocab, split_words(premise), split_words(hypothesis));
      const int64_t label = std::max_element(p.begin(), p.end()) - p.begin();
      std::printf("%-32s %-32s %10.6f %13.6f %8.6f  %s\n", premise.c_str(), hypothesis.c_str(), p[0], p[1], p[2],
                  snli_label_name(label).c_str());
    }
  // Random permutations of the first test pairs' hypotheses (d2l::random_int, --seed).
  const int64_t n = std::min<int64_t>(pairs, static_cast<int64_t>(test_data.labels.size()));
  int64_t changed = 0, reordered = 0;
  float largest = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<std::string> premise = split_words(test_data.premises[static_cast<size_t>(i)]);
    std::vector<std::string> hypothesis = split_words(test_data.hypotheses[static_cast<size_t>(i)]);
    if (premise.empty() || hypothesis.empty()) continue;
    const std::vector<float> before = snli_probabilities(net, vocab, premise, hypothesis);
    const std::vector<std::string> original = hypothesis;
    for (int64_t j = static_cast<int64_t>(hypothesis.size()) - 1; j > 0; --j)  // Fisher-Yates
      std::swap(hypothesis[static_cast<size_t>(j)], hypothesis[static_cast<size_t>(random_int(j + 1))]);
    reordered += hypothesis != original;
    const std::vector<float> after = snli_probabilities(net, vocab, premise, hypothesis);
    for (size_t c = 0; c < 3; ++c) largest = std::max(largest, std::fabs(after[c] - before[c]));
    changed += std::max_element(after.begin(), after.end()) - after.begin() !=
               std::max_element(before.begin(), before.end()) - before.begin();
  }
  std::printf("first %lld test pairs, hypothesis words shuffled (%lld reordered): prediction changed for %lld, "
              "largest change of a probability %.2e\n",
              static_cast<long long>(n), static_cast<long long>(reordered), static_cast<long long>(changed),
              static_cast<double>(largest));
}

// 15.5 ex. 3: a graded similarity in [0, 1] from the same attend/compare/aggregate steps
// (DecomposableSimilarity: one output and a sigmoid), trained by squared error. SNLI has no
// graded score, so the target is a proxy built from its labels, ordered by how much the
// hypothesis agrees with the premise: entailment 1, neutral 0.5, contradiction 0. Prints
// each epoch's training loss and test error, the mean score the trained model gives the
// test pairs of each label, and the scores of a few pairs.
namespace {
void similarity(const CliArgs& args) {
  SNLILoaders data = read_data();
  SNLIDataLoader &train_iter = data.train_iter, &test_iter = data.test_iter;
  const Vocab& vocab = data.vocab;
  const SNLIData& test_data = snli_run_data().test_data;
  const int64_t num_epochs = run_epochs();
  const std::string& embeddings = snli_run_data().embeddings;
  check(args.get_string("save").empty() && args.get_string("load").empty() && args.get_string("resume").empty() &&
            !args.get_flag("grid"),
        "natural_language_inference_attention", "--ex 3 trains its own model: --save, --load, --resume and --grid "
        "are for the classifier");
  manual_seed(static_cast<uint64_t>(args.get_int("seed")));
  const int64_t embed_size = args.get_int("embed-size"), num_hiddens = args.get_int("num-hiddens");
  const float lr = args.get_float("lr");
  print_banner("练习 3 / Exercise 15.5.3: a graded similarity between 0 and 1");
  DecomposableSimilarity net(vocab.size(), embed_size, num_hiddens);
  if (!embeddings.empty()) {
    const TokenEmbedding glove(embeddings);
    if (glove.dim() == embed_size) {
      const std::vector<float> embeds = glove.lookup(vocab.idx_to_token());
      std::copy(embeds.begin(), embeds.end(), net.net.embedding.weight.data());
      std::cout << "embedding from " << embeddings << "\n";
    }
  }
  // The proxy target by label id (0 entailment, 1 contradiction, 2 neutral).
  const float target_of[3] = {1.0f, 0.0f, 0.5f};
  auto batch_tensors = [&](const SNLIBatch& b) {
    std::vector<float> t;
    for (int64_t l : b.labels) t.push_back(target_of[l]);
    return std::make_tuple(ids_tensor(b.premises, {b.batch_size, b.num_steps}),
                           ids_tensor(b.hypotheses, {b.batch_size, b.num_steps}),
                           tensor(t, {b.batch_size}));
  };
  Adam trainer(net.parameters(), lr);
  double sums[3] = {0, 0, 0};
  int64_t counts[3] = {0, 0, 0};
  for (int64_t epoch = 0; epoch < num_epochs; ++epoch) {
    net.train();
    train_iter.start_epoch();
    double loss_sum = 0;
    int64_t seen = 0;
    for (int64_t i = 0; i < train_iter.num_batches(); ++i) {
      const SNLIBatch b = train_iter.batch(i);
      const auto [P, H, T] = batch_tensors(b);
      trainer.zero_grad();
      Tensor l = sum(pow(net(P, H) - T, 2.0f));
      l.backward();
      trainer.step();
      loss_sum += l.item();
      seen += b.batch_size;
    }
    net.eval();
    NoGrad no_grad;
    double test_sum = 0;
    int64_t test_seen = 0;
    for (int64_t& c : counts) c = 0;
    for (double& x : sums) x = 0;
    for (int64_t i = 0; i < test_iter.num_batches(); ++i) {
      const SNLIBatch b = test_iter.batch(i);
      const auto [P, H, T] = batch_tensors(b);
      const std::vector<float> y = net(P, H).to_vector(), t = T.to_vector();
      for (size_t k = 0; k < y.size(); ++k) {
        test_sum += (y[k] - t[k]) * (y[k] - t[k]);
        sums[b.labels[k]] += y[k];
        ++counts[b.labels[k]];
      }
      test_seen += b.batch_size;
    }
    std::printf("epoch %lld, loss %.4f, test mse %.4f\n", static_cast<long long>(epoch + 1),
                loss_sum / static_cast<double>(seen), test_sum / static_cast<double>(test_seen));
  }
  std::printf("mean score on the test pairs: entailment %.3f, neutral %.3f, contradiction %.3f (targets 1, 0.5, 0)\n",
              sums[0] / std::max<int64_t>(1, counts[0]), sums[2] / std::max<int64_t>(1, counts[2]),
              sums[1] / std::max<int64_t>(1, counts[1]));
  // A few pairs: the book's example and the first test pair of each label.
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs = {
      {{"he", "is", "good", "."}, {"he", "is", "bad", "."}}, {{"he", "is", "good", "."}, {"he", "is", "good", "."}}};
  std::vector<std::string> notes = {"(the book's example)", "(the same sentence)"};
  for (int64_t label : {0, 2, 1})
    for (size_t i = 0; i < test_data.labels.size(); ++i)
      if (test_data.labels[i] == label && !test_data.premises[i].empty() && !test_data.hypotheses[i].empty()) {
        pairs.push_back({split_words(test_data.premises[i]), split_words(test_data.hypotheses[i])});
        notes.push_back("(test pair labelled " + snli_label_name(label) + ")");
        break;
      }
  net.eval();
  NoGrad no_grad;
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto row = [&vocab](const std::vector<std::string>& tokens) {
      std::vector<float> ids;
      for (int64_t id : vocab[tokens]) ids.push_back(static_cast<float>(id));
      return tensor(ids, {1, static_cast<int64_t>(ids.size())});
    };
    std::printf("similarity %.3f  %s | %s  %s\n", net(row(pairs[i].first), row(pairs[i].second)).item(),
                join_tokens(pairs[i].first).c_str(), join_tokens(pairs[i].second).c_str(), notes[i].c_str());
  }
}
}  // namespace
