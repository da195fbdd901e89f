// chapters/natural_language_inference_attention.cpp — 15.5 自然语言推断：使用注意力 / Natural
// Language Inference: Using Attention (sec_natural-language-inference-attention).
//
// Trains the decomposable attention model (layers/natural_language_inference_attention.h) on
// SNLI with the book's settings and its train_ch13 (tools/d2l/train/train_ch13.h), then prints
//   read N examples                                   (twice: training and test split)
//   training on N examples x 4 epochs ...             (beyond the book: the size of the run,
//   estimated training time: ...                       and its time from the first batches)
//   loss 0.xxx, train acc 0.xxx, test acc 0.xxx
//   NNNN.N examples/sec on cpu
//   'contradiction'                                   predict_snli on the book's example,
//                                                     shown as the notebook shows a str
// and writes, under --out (default out/natural_language_inference_attention/):
//   train_ch13.png   the Animator's curves: train loss, train acc, test acc
//   alignment.png    beyond the book: the soft alignment of the book's example, β (each
//                    premise token over the hypothesis) and α (each hypothesis token over
//                    the premise, drawn transposed so both panels read premise × hypothesis)
//   alignment_cli.png the same for --premise "..." --hypothesis "..."
// Data: --data DIR, else data/snli_1.0/ from `make data`, else the bundled
// chapters/data/snli-small/; the program says which. With the shared export
// (--data ../shared/data/snli) it trains on validation.tsv, tests on test.tsv.
// The book starts the embedding from 100-d GloVe: with `make data` (SNLI and
// data/glove.6B.100d/vec.txt) this program runs the book's full setting, the 549,367
// training pairs with the GloVe embedding; --embeddings FILE names any GloVe text file; the
// bundled set brings its own word vectors (chapters/data/snli-small/vectors.txt); otherwise
// the embedding is trained from nn.Embedding's N(0, 1) init.
// --save FILE writes the parameters with the model's settings and the vocabulary's
// fingerprint (--load refuses a file for other data), Adam's state and the generator:
// --resume FILE continues the training up to --epochs as if it had never stopped. A FILE
// ending in .safetensors holds the parameters under the book's state_dict() names with the
// settings and the vocabulary, for PyTorch (tools/scripts/crossover_torch.py).
// Everything after "read N examples" depends on the random init and the shuffle, so the
// numbers differ from the book's.
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
// Run time: the program prints its estimate after the first 10 batches. The speed is the same
// per example on every data set (sentences are padded to 50 tokens), so the full SNLI split
// takes 549,367 x 4 / (examples/sec): see README.md for the figure measured on 2 cores. The
// shared export's 9.8k pairs x 4 epochs take about a minute; the bundled set's 6,000 pairs x
// 4 epochs about 45 s of CPU time.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "layers/exercises/natural_language_inference_attention.h"
#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/glove.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/ids_tensor.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/predict_snli.h"
#include "tools/d2l/train/train_ch13.h"

using namespace d2l;

namespace {

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

std::string show(const std::vector<std::string>& tokens) {  // Python's repr of a list of str
  std::string s = "[";
  for (size_t i = 0; i < tokens.size(); ++i) s += (i ? ", '" : "'") + tokens[i] + "'";
  return s + "]";
}

// Predicts, then draws the alignment the prediction used: β (m, n) and αᵀ (m, n).
void predict_and_draw(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                      const std::vector<std::string>& hypothesis, const std::string& path, bool book_example) {
  const std::string label = predict_snli(net, vocab, premise, hypothesis);
  // The book's cell ends with the call, so the notebook shows the returned str: 'contradiction'.
  // A pair from --premise/--hypothesis is labelled with its call (it is not the book's).
  if (book_example) std::cout << "'" << label << "'\n";
  else std::cout << "predict_snli(" << show(premise) << ", " << show(hypothesis) << "): '" << label << "'\n";
  const int64_t m = static_cast<int64_t>(premise.size()), n = static_cast<int64_t>(hypothesis.size());
  const Tensor beta = reshape(net.attend.beta_weights, {1, 1, m, n});
  const Tensor alpha = reshape(transpose(net.attend.alpha_weights, 1, 2), {1, 1, m, n});
  HeatmapOptions opt;
  opt.xlabel = "hypothesis";
  opt.ylabel = "premise";
  opt.titles = {"beta: over hypothesis", "alpha: over premise"};
  opt.xticklabels = hypothesis;
  opt.yticklabels = premise;
  // About 0.3 inch per cell plus room for the words, two panels side by side.
  const float cell = std::max(m, n) > 12 ? 0.22f : 0.3f;
  opt.figsize = {std::max(3.5f, 2.0f * cell * n + 2.4f), std::max(2.5f, cell * m + 1.6f)};
  opt.fontsize = opt.tick_fontsize = std::max(m, n) > 12 ? 7.0f : 9.0f;
  write_figure(path, [&] { show_heatmaps(concat({beta, alpha}, 1), opt, path); });
}

// The book's net = DecomposableAttention(vocab, embed_size, num_hiddens): the MLPs' input
// sizes follow from the two sizes (attend reads an embedding, compare an embedding and its
// aligned partner, aggregate both comparisons' sums). Starts the embedding from the word
// vectors in `embeddings` when they have embed_size dimensions; other vectors are an error
// when named by --embeddings (must_match), else skipped (the bundled set's own vectors with
// another --embed-size).
std::unique_ptr<DecomposableAttention> make_net(const Vocab& vocab, int64_t embed_size, int64_t num_hiddens,
                                                bool mask_pad, const std::string& embeddings, bool must_match,
                                                const std::string& train_path) {
  auto net = make_decomposable_attention(vocab.size(), embed_size, num_hiddens, embed_size,
                                         2 * embed_size, 2 * num_hiddens, mask_pad, vocab["<pad>"]);
  std::cout << "vocab " << vocab.size() << ", " << net->num_parameters() << " parameters, <pad> "
            << (mask_pad ? "masked (--mask-pad)" : "not masked (as the book)") << "\n";
  std::unique_ptr<TokenEmbedding> glove;
  if (!embeddings.empty()) glove = std::make_unique<TokenEmbedding>(embeddings);
  check(!glove || !must_match || glove->dim() == embed_size, "natural_language_inference_attention", embeddings,
        " has ", glove ? glove->dim() : 0, "-d vectors, the model needs embed_size ", embed_size);
  if (glove && glove->dim() == embed_size) {
    const std::vector<float> embeds = glove->lookup(vocab.idx_to_token());
    std::copy(embeds.begin(), embeds.end(), net->embedding.weight.data());
    int64_t found = 0;
    for (const std::string& t : vocab.idx_to_token()) found += t != "<unk>" && glove->token_to_idx.count(t);
    std::cout << "embedding from " << embeddings << ": " << found << " of " << vocab.size()
              << " tokens found, the rest start at zero\n";
  } else if (glove) {
    std::cout << "embedding: default init N(0, 1), trained (" << embeddings << " has " << glove->dim()
              << "-d vectors, --embed-size is " << embed_size << ")\n";
  } else {
    std::cout << "embedding: default init N(0, 1), trained (no word vectors"
              << (train_path.find("snli_1.0_train.txt") != std::string::npos
                      ? ": `make data` fetches the book's data/glove.6B.100d/vec.txt)\n"
                      : ")\n");
  }
  return net;
}

BatchForward forward_of(DecomposableAttention& net) {
  // The model reads a batch as net(premises, hypotheses), each (batch_size, num_steps).
  return [&net](const SNLIBatch& b) {
    return net(ids_tensor(b.premises, {b.batch_size, b.num_steps}),
               ids_tensor(b.hypotheses, {b.batch_size, b.num_steps}));
  };
}

// 15.5 ex. 1: a small grid of num_hiddens x lr, each trained from the same seed; one row
// per setting with its test accuracy after every epoch.
void run_grid(const CliArgs& args, const Vocab& vocab, SNLIDataLoader& train_iter, SNLIDataLoader& test_iter,
              int64_t embed_size, int64_t num_epochs, const std::string& embeddings, const std::string& train_path,
              const std::string& out) {
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
      const std::string figure = out + "/grid_h" + std::to_string(num_hiddens) + "_lr" + python_float(lr) + ".png";
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

// 15.5 ex. 2: the model's main drawback, word order. Attend aligns each token with a
// softmax-weighted sum over the other sentence, compare looks at each token with its
// alignment alone, aggregate sums over positions: nothing depends on where a word stands,
// so a hypothesis with its words permuted gets the same prediction (up to the order of the
// float sums). Prints the probabilities for pairs whose meaning word order decides, then,
// over the first test pairs, how often a random permutation of the hypothesis's words
// changes the prediction and the largest change of a probability.
void word_order(DecomposableAttention& net, const Vocab& vocab, const SNLIData& test_data, int64_t pairs) {
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
void similarity(const Vocab& vocab, SNLIDataLoader& train_iter, SNLIDataLoader& test_iter, const SNLIData& test_data,
                int64_t embed_size, int64_t num_hiddens, float lr, int64_t num_epochs, const std::string& embeddings) {
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

int main(int argc, char** argv) {
  prefer_passive_openmp_wait(argv);  // two threads by default: see tools/d2l/cli/cli_args.h
  CliArgs args("natural_language_inference_attention",
               "15.5 Natural Language Inference: Using Attention (sec_natural-language-inference-attention): "
               "decomposable attention on SNLI.");
  args.add_int("epochs", 4, "training epochs (the book: 4)", 0, 100000);
  args.add_int("batch-size", 256, "minibatch size (the book: 256)", 1, 1000000);
  args.add_string("data", "", "SNLI directory (snli_1.0_*.txt, train/test.tsv or validation/test.tsv)", "DIR");
  args.add_string("embeddings", "",
                  "GloVe text file (word v1 ... v100 per line) to start the embedding from (default: the bundled "
                  "set's vectors.txt when training on it; \"\" for the random init)",
                  "FILE");
  args.add_int("embed-size", 100, "15.5 ex. 1: embedding size (the book: 100, the word vectors' size)", 1, 100000);
  args.add_int("num-hiddens", 200, "15.5 ex. 1: hidden units of the three MLPs (the book: 200)", 1, 100000);
  args.add_float("lr", 0.001, "15.5 ex. 1: Adam's learning rate (the book: 0.001)", 1e-8, 10.0);
  args.add_flag("grid", "15.5 ex. 1: train num_hiddens 100, 200 x lr 0.0003, 0.001, 0.003 and tabulate test acc");
  args.add_flag("mask-pad", "mask <pad> in the soft alignment and the sums (the book does not)");
  args.add_string("premise", "", "a premise to classify and draw, e.g. \"a man is sleeping .\"");
  args.add_string("hypothesis", "", "its hypothesis (needs --premise)");
  args.add_flag("quick", "1 epoch on at most 1024 training and 512 test pairs (CI)");
  args.add_int("ex", 0, "run the section's exercise N: 2 = word order is lost (after the training, predictions for "
               "hypotheses with their words permuted); 3 = a graded similarity in [0, 1] (a regression variant "
               "trained on a proxy target: entailment 1, neutral 0.5, contradiction 0); 1 = other hyper-parameters "
               "are --grid and the size options; 0 = the section's code", 0, 3);
  args.add_string("save", "", "write the trained parameters, the model's settings and the training state to FILE (FILE.safetensors: the parameters and settings in that format, for PyTorch)",
                  "FILE");
  args.add_int("save-every", 0,
               "also write --save after every N epochs (0: after the last only); --resume continues any of them", 0,
               100000);
  args.add_string("load", "", "start from these parameters (same data and vocabulary); --epochs 0 to only predict",
                  "FILE");
  args.add_string("resume", "", "continue the training saved in FILE up to --epochs, exactly as if it had never stopped",
                  "FILE");
  add_chapter_options(args, "out/natural_language_inference_attention");
  args.parse_or_exit(argc, argv);
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);
    check(args.get_string("premise").empty() == args.get_string("hypothesis").empty(),
          "natural_language_inference_attention", "--premise and --hypothesis go together");

    // ------------------------------------------------------------------------------------
    print_banner("读取数据集 / Reading the Dataset");
    const bool quick = args.get_flag("quick");
    const int64_t batch_size = args.get_int("batch-size"), num_steps = 50;
    const SNLISource source = resolve_snli_data(args.get_string("data"));
    std::cout << "data: " << source.description << "\n";
    SNLIData train_data = read_snli(source.train_path, true), test_data = read_snli(source.test_path, false);
    if (quick) {  // the first pairs of each split, as the file orders them
      auto cut = [](SNLIData& d, size_t n) {
        n = std::min(n, d.labels.size());
        d.premises.resize(n), d.hypotheses.resize(n), d.labels.resize(n);
      };
      cut(train_data, 1024), cut(test_data, 512);
    }
    // load_data_snli(batch_size, num_steps), split in two so --quick can shorten the splits.
    auto train_set = std::make_shared<const SNLIDataset>(train_data, num_steps);
    auto test_set = std::make_shared<const SNLIDataset>(test_data, num_steps, &train_set->vocab);
    SNLIDataLoader train_iter(train_set, batch_size, true), test_iter(test_set, batch_size, false);
    const Vocab& vocab = train_set->vocab;

    // ------------------------------------------------------------------------------------
    print_banner("创建模型 / Creating the Model");
    const int64_t embed_size = args.get_int("embed-size"), num_hiddens = args.get_int("num-hiddens");
    // The book copies GloVe into the embedding; the bundled set brings its own vectors for that
    // (source.embeddings), used unless --embeddings names a file, or "" for the random init.
    const std::string embeddings = args.given("embeddings") ? args.get_string("embeddings") : source.embeddings;
    // --save is none of the files this program reads or writes (refused before the training).
    refuse_save_over(args, {{"--data's training split", source.train_path},
                            {"--data's test split", source.test_path},
                            {"--embeddings", embeddings},
                            {"the training figure", out + "/train_ch13.png"},
                            {"the alignment figure", out + "/alignment.png"},
                            {"--premise's alignment figure", out + "/alignment_cli.png"}});
    const int64_t num_epochs = quick ? std::min<int64_t>(1, args.get_int("epochs")) : args.get_int("epochs");
    const int64_t ex = args.get_int("ex");
    check(ex != 1, "natural_language_inference_attention",
          "exercise 1 (other hyper-parameters) is --grid, or one setting with --embed-size, --num-hiddens, --lr");
    if (ex == 3) {
      check(args.get_string("save").empty() && args.get_string("load").empty() && args.get_string("resume").empty() &&
                !args.get_flag("grid"),
            "natural_language_inference_attention", "--ex 3 trains its own model: --save, --load, --resume and --grid "
            "are for the classifier");
      manual_seed(static_cast<uint64_t>(args.get_int("seed")));
      similarity(vocab, train_iter, test_iter, test_data, embed_size, num_hiddens, args.get_float("lr"), num_epochs,
                 embeddings);
      return 0;
    }
    if (args.get_flag("grid")) {
      check(num_epochs > 0, "natural_language_inference_attention", "--grid trains: give --epochs 1 or more");
      check(args.get_string("save").empty() && args.get_string("load").empty() && args.get_string("resume").empty(),
            "natural_language_inference_attention", "--grid trains six models: --save, --load and --resume are for one");
      run_grid(args, vocab, train_iter, test_iter, embed_size, num_epochs, embeddings, source.train_path, out);
      return 0;
    }
    // The book: net = DecomposableAttention(vocab, embed_size, num_hiddens); the layer takes
    // len(vocab) (and, for --mask-pad, the id of '<pad>').
    const std::unique_ptr<DecomposableAttention> net_ptr = make_net(
        vocab, embed_size, num_hiddens, args.get_flag("mask-pad"), embeddings, args.given("embeddings"), source.train_path);
    DecomposableAttention& net = *net_ptr;
    // What a parameter file must match to be loaded here, and what a resumed run must match.
    check(args.get_string("load").empty() || args.get_string("resume").empty(), "natural_language_inference_attention",
          "--load (start from parameters) and --resume (continue a training) exclude each other");
    const float lr = args.get_float("lr");
    Checkpoint checkpoint(
        {{"model", "decomposable_attention"}, {"embed_size", setting_number(embed_size)},
         {"num_hiddens", setting_number(num_hiddens)}, {"num_steps", setting_number(num_steps)},
         {"mask_pad", args.get_flag("mask-pad") ? "1" : "0"}, {"vocab", vocab_fingerprint(vocab)}},
        {{"batch_size", setting_number(batch_size)}, {"lr", setting_number(lr)},
         {"train_pairs", setting_number(static_cast<double>(train_data.labels.size()))}},
        args.get_string("save"), args.get_string("resume"));
    check(args.get_int("save-every") == 0 || !args.get_string("save").empty(), "natural_language_inference_attention",
          "--save-every needs --save FILE: where to write the checkpoints");
    checkpoint.set_save_every(args.get_int("save-every"));
    checkpoint.set_safetensors_metadata({{"vocab.tokens", vocab_tokens_json(vocab)}});
    if (!args.get_string("load").empty()) {
      checkpoint.load(net, args.get_string("load"));
      std::cout << "loaded " << args.get_string("load") << "\n";
    }

    // ------------------------------------------------------------------------------------
    print_banner("训练和评估模型 / Training and Evaluating the Model");
    std::printf("cpu: %s\n", openmp_settings().c_str());
    const BatchForward forward = forward_of(net);
    check(num_epochs > 0 || args.get_string("resume").empty(), "natural_language_inference_attention",
          "--resume continues a training: give --epochs more than the file's epochs");
    Adam trainer(net.parameters(), lr);
    if (num_epochs > 0) {
      // Beyond the book: the size of the run up front, and after the first 10 batches the time
      // it will take at the measured speed (the full SNLI split runs for hours on a CPU).
      std::printf("training on %lld examples x %lld epochs = %lld examples, %lld batches of %lld per epoch\n",
                  static_cast<long long>(train_set->size()), static_cast<long long>(num_epochs),
                  static_cast<long long>(train_set->size() * num_epochs),
                  static_cast<long long>(train_iter.num_batches()), static_cast<long long>(batch_size));
      std::fflush(stdout);
      // With --resume the trainer continues from the file; after the last epoch it writes
      // --save, before its figure.
      const TrainCh13Result result =
          train_ch13(net, forward, train_iter, test_iter, trainer, num_epochs, out + "/train_ch13.png", &checkpoint, 10);
      std::printf("test acc by epoch:");  // beyond the book: the Animator's third curve
      for (float a : result.test_acc_by_epoch) std::printf(" %.3f", a);
      std::printf("\n");
    } else {
      std::printf("test acc %.3f (no training: --epochs 0)\n", evaluate_accuracy(net, forward, test_iter));
      checkpoint.save(net);  // --save: the loaded parameters (and the file's training state)
    }

    // ------------------------------------------------------------------------------------
    print_banner("使用模型 / Using the Model");
    predict_and_draw(net, vocab, {"he", "is", "good", "."}, {"he", "is", "bad", "."}, out + "/alignment.png", true);
    if (!args.get_string("premise").empty())
      predict_and_draw(net, vocab, split_words(split_punctuation(args.get_string("premise"))),
                       split_words(split_punctuation(args.get_string("hypothesis"))), out + "/alignment_cli.png",
                       false);
    if (ex == 2) word_order(net, vocab, test_data, 200);
    return 0;
  });
}
