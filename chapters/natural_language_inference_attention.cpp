// chapters/natural_language_inference_attention.cpp — 15.5 自然语言推断：使用注意力 / Natural
// Language Inference: Using Attention (sec_natural-language-inference-attention).
//
// Trains the decomposable attention model (layers/natural_language_inference_attention.h) on
// SNLI with the book's settings and its train_ch13 (tools/train/train_ch13.h), then prints
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
// Run time: the program prints its estimate after the first 10 batches. The speed is the same
// per example on every data set (sentences are padded to 50 tokens), so the full SNLI split
// takes 549,367 x 4 / (examples/sec): see README.md for the figure measured on 2 cores. The
// shared export's 9.8k pairs x 4 epochs take about a minute; the bundled set's 6,000 pairs x
// 4 epochs about 45 s of CPU time.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/optim.h"
#include "core/random.h"
#include "layers/natural_language_inference_attention.h"
#include "tools/cli/cli_args.h"
#include "tools/data/glove.h"
#include "tools/data/snli_data.h"
#include "tools/figures/figures.h"
#include "tools/train/ids_tensor.h"
#include "tools/data/vocab_tokens.h"
#include "tools/train/checkpoint.h"
#include "tools/train/predict_snli.h"
#include "tools/train/train_ch13.h"

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
  auto net = std::make_unique<DecomposableAttention>(vocab.size(), embed_size, num_hiddens, embed_size,
                                                     2 * embed_size, 2 * num_hiddens, mask_pad, vocab["<pad>"]);
  std::cout << "vocab " << vocab.size() << ", " << net->num_parameters() << " parameters, <pad> "
            << (net->mask_pad ? "masked (--mask-pad)" : "not masked (as the book)") << "\n";
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

}  // namespace

int main(int argc, char** argv) {
  prefer_passive_openmp_wait(argv);  // two threads by default: see tools/cli/cli_args.h
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
  args.add_string("save", "", "write the trained parameters, the model's settings and the training state to FILE (FILE.safetensors: the parameters and settings in that format, for PyTorch)",
                  "FILE");
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
    const int64_t num_epochs = quick ? std::min<int64_t>(1, args.get_int("epochs")) : args.get_int("epochs");
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
         {"mask_pad", net.mask_pad ? "1" : "0"}, {"vocab", vocab_fingerprint(vocab)}},
        {{"batch_size", setting_number(batch_size)}, {"lr", setting_number(lr)},
         {"train_pairs", setting_number(static_cast<double>(train_data.labels.size()))}},
        args.get_string("save"), args.get_string("resume"));
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
    return 0;
  });
}
