// tools/d2l/train/nli_setup.cpp — 15.5's run around the book's code (see the header).
#include "tools/d2l/train/nli_setup.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "core/io/json.h"  // quote_input
#include "core/ops.h"
#include "core/shape.h"  // check
#include "layers/exercises/natural_language_inference_attention.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/data/glove.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/ids_tensor.h"

namespace d2l {

namespace {

struct NliRun {
  SnliRunData data;
  int64_t train_pairs = 0, batch_size = 0;
  std::unique_ptr<DecomposableAttention> net;
  std::unique_ptr<Checkpoint> checkpoint;
};
NliRun& nli_run() {
  static NliRun run;
  return run;
}

// An option given on the command line that changes the book's value: the value, and a line
// saying so ("--embed-size 50: instead of the book's 100"); else the book's value.
template <class T>
T book_or_option(const std::string& option, T book) {
  if (!run_given(option)) return book;
  T value;
  if constexpr (std::is_integral<T>::value) value = run_args().get_int(option);
  else value = run_args().get_float(option);
  if (value != book)
    std::cout << "--" << option << " " << value << ": instead of the book's " << book << "\n";
  return value;
}

bool quick() { return in_run() && run_args().get_flag("quick"); }

std::string show(const std::vector<std::string>& tokens) {  // Python's repr of a list of str
  std::string s = "[";
  for (size_t i = 0; i < tokens.size(); ++i) s += (i ? ", '" : "'") + tokens[i] + "'";
  return s + "]";
}

// predict_snli, printed as the notebook shows the returned str (a pair not the book's with
// its call), then the alignment the prediction used drawn to `path`: β (m, n) and αᵀ (m, n),
// both panels premise × hypothesis.
void predict_and_draw(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                      const std::vector<std::string>& hypothesis, const std::string& path, bool book_example) {
  const std::string label = predict_snli(net, vocab, premise, hypothesis);
  if (!book_example) {  // a reader's pair: say which of its words the model cannot see
    std::string unknown;
    for (const std::vector<std::string>* side : {&premise, &hypothesis})
      for (const std::string& w : *side)
        if (vocab[w] == vocab.unk()) unknown += (unknown.empty() ? "" : ", ") + quote_input(w, 40, '\'');
    if (!unknown.empty()) std::cout << "note: not in the vocabulary, read as <unk>: " << unknown << "\n";
    std::cout << "predict_snli(" << show(premise) << ", " << show(hypothesis) << "): '" << label << "'\n";
  }
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

}  // namespace

void add_nli_options(CliArgs& args) {
  args.add_int("epochs", 4, "training epochs (the book: 4)", 0, 100000);
  args.add_int("batch-size", 256, "minibatch size (the book: 256)", 1, 1000000);
  args.add_string("data", "", "SNLI directory (snli_1.0_*.txt, train/test.tsv or validation/test.tsv)", "DIR");
  args.add_string("embeddings", "",
                  "GloVe text file (word v1 ... v100 per line) to start the embedding from (default: the bundled "
                  "set's vectors.txt when training on it; \"\" for the random init)",
                  "FILE");
  args.allow_empty("embeddings");  // "": the random init
  args.add_int("embed-size", 100, "15.5 ex. 1: embedding size (the book: 100, the word vectors' size)", 1, 100000);
  args.add_int("num-hiddens", 200, "15.5 ex. 1: hidden units of the three MLPs (the book: 200)", 1, 100000);
  args.add_float("lr", 0.001, "15.5 ex. 1: Adam's learning rate (the book: 0.001)", 1e-8, 10.0);
  args.add_flag("mask-pad", "mask <pad> in the soft alignment and the sums (the book does not)");
  args.add_string("premise", "", "a premise to classify and draw, e.g. \"a man is sleeping .\"");
  args.add_string("hypothesis", "", "its hypothesis (needs --premise)");
  args.add_flag("quick", "1 epoch on at most 1024 training and 512 test pairs (CI)");
  const CheckpointOptions saving(args, /*resumable=*/true,
                                 "write the trained parameters, the model's settings and the training state to FILE "
                                 "(FILE.safetensors: the parameters and settings in that format, for PyTorch)",
                                 "read parameters from FILE instead of training, as 10.4 and 10.7 do (same data and "
                                 "vocabulary); with --epochs N, train them N epochs more");
}

SNLILoaders load_data_snli(int64_t batch_size, int64_t num_steps) {
  NliRun& run = nli_run();
  run.data.source = resolve_snli_data(in_run() ? run_args().get_string("data") : "");
  const SNLISource& source = run.data.source;
  run.data.embeddings = run_given("embeddings") ? run_args().get_string("embeddings") : source.embeddings;
  std::cout << "data: " << source.description << "\n";
  batch_size = book_or_option("batch-size", batch_size);
  SNLIData train_data = read_snli(source.train_path, true), test_data = read_snli(source.test_path, false);
  if (quick()) {  // the first pairs of each split, as the file orders them
    std::cout << "--quick: the first 1024 training and 512 test pairs\n";
    auto cut = [](SNLIData& d, size_t n) {
      n = std::min(n, d.labels.size());
      d.premises.resize(n), d.hypotheses.resize(n), d.labels.resize(n);
    };
    cut(train_data, 1024), cut(test_data, 512);
  }
  auto train_set = std::make_shared<const SNLIDataset>(train_data, num_steps);
  auto test_set = std::make_shared<const SNLIDataset>(test_data, num_steps, &train_set->vocab);
  run.data.test_data = std::move(test_data);
  run.data.vocab = train_set->vocab;
  run.train_pairs = train_set->size();
  run.batch_size = batch_size;
  return {SNLIDataLoader(train_set, batch_size, true), SNLIDataLoader(test_set, batch_size, false), train_set->vocab};
}

const SnliRunData& snli_run_data() { return nli_run().data; }

DecomposableAttention& decomposable_attention(const Vocab& vocab, int64_t embed_size, int64_t num_hiddens) {
  NliRun& run = nli_run();
  const std::string out = run_out();
  if (in_run())
    refuse_save_over(run_args(), {{"--data's training split", run.data.source.train_path},
                                  {"--data's test split", run.data.source.test_path},
                                  {"--embeddings", run.data.embeddings},
                                  {"the training figure", out + "/train_ch13.png"},
                                  {"the alignment figure", out + "/alignment.png"},
                                  {"--premise's alignment figure", out + "/alignment_cli.png"}});
  embed_size = book_or_option("embed-size", embed_size);
  num_hiddens = book_or_option("num-hiddens", num_hiddens);
  const bool mask_pad = in_run() && run_args().get_flag("mask-pad");
  run.net = make_net(vocab, embed_size, num_hiddens, mask_pad, run.data.embeddings, run_given("embeddings"),
                     run.data.source.train_path);
  if (!in_run()) return *run.net;
  // The classifier's checkpoint: the model's settings (sizes, <pad> masking, the vocabulary's
  // fingerprint) and the run's (batch size, lr, training pairs); the vocabulary's tokens go
  // into a .safetensors file's metadata.
  const CliArgs& args = run_args();
  const std::string resume = args.get_string("resume");
  if (!args.get_string("load").empty() && !resume.empty())  // as CheckpointOptions says it
    throw std::invalid_argument("--load (skip training) and --resume (continue training) exclude each other");
  if (args.get_int("save-every") > 0 && args.get_string("save").empty())
    throw std::invalid_argument("[--save-every] needs --save FILE: where to write the checkpoints");
  run.checkpoint = std::make_unique<Checkpoint>(
      ModelSettings{{"model", "decomposable_attention"}, {"embed_size", setting_number(embed_size)},
                    {"num_hiddens", setting_number(num_hiddens)}, {"num_steps", setting_number(50)},
                    {"mask_pad", mask_pad ? "1" : "0"}, {"vocab", vocab_fingerprint(vocab)}},
      ModelSettings{{"batch_size", setting_number(args.get_int("batch-size"))},
                    {"lr", setting_number(args.get_float("lr"))},
                    {"train_pairs", setting_number(static_cast<double>(run.train_pairs))}},
      args.get_string("save"), resume);
  run.checkpoint->set_save_every(args.get_int("save-every"));
  run.checkpoint->set_safetensors_metadata({{"vocab.tokens", vocab_tokens_json(vocab)}});
  if (!args.get_string("load").empty()) {
    run.checkpoint->load(*run.net, args.get_string("load"));
    // --load skips the training, as in every program with --load, unless --epochs asks for more.
    std::printf("loaded %s%s\n", args.get_string("load").c_str(), run_given("epochs") ? "" : " (training skipped)");
    std::fflush(stdout);
  }
  return *run.net;
}

void train_ch13(DecomposableAttention& net, SNLIDataLoader& train_iter, SNLIDataLoader& test_iter, Adam& trainer,
                int64_t num_epochs) {
  Checkpoint* checkpoint = nli_run().checkpoint.get();
  if (in_run()) {
    const int64_t book_epochs = num_epochs;
    if (!run_args().get_string("load").empty() && !run_given("epochs")) num_epochs = 0;  // --load: no training
    else if (run_given("epochs") && run_args().get_int("epochs") != book_epochs) {
      num_epochs = run_args().get_int("epochs");
      std::printf("--epochs %lld: %lld of the book's %lld epochs\n", static_cast<long long>(num_epochs),
                  static_cast<long long>(num_epochs), static_cast<long long>(book_epochs));
    }
    if (quick() && num_epochs > 1) {
      num_epochs = 1;
      std::printf("--quick: 1 of the book's %lld epochs\n", static_cast<long long>(book_epochs));
    }
    trainer.lr = book_or_option("lr", trainer.lr);
  }
  std::printf("cpu: %s\n", openmp_settings().c_str());
  check(num_epochs > 0 || !checkpoint || checkpoint->resume_path().empty(), "natural_language_inference_attention",
        "--resume continues a training: give --epochs more than the file's epochs");
  const BatchForward forward = forward_of(net);
  if (num_epochs == 0) {
    std::printf("test acc %.3f (no training: %s)\n", evaluate_accuracy(net, forward, test_iter),
                run_given("epochs") ? "--epochs 0" : "--load");
    if (checkpoint) checkpoint->save(net);  // --save: the loaded parameters (and the file's training state)
    return;
  }
  // Beyond the book: the size of the run up front (the full SNLI split runs for hours on a
  // CPU), and its time estimate after the first 10 batches.
  const int64_t examples = train_iter.dataset().size();
  std::printf("training on %lld examples x %lld epochs = %lld examples, %lld batches of %lld per epoch\n",
              static_cast<long long>(examples), static_cast<long long>(num_epochs),
              static_cast<long long>(examples * num_epochs), static_cast<long long>(train_iter.num_batches()),
              static_cast<long long>(nli_run().batch_size));
  std::fflush(stdout);
  // With --resume the trainer continues from the file; after the last epoch it writes --save,
  // before its figure.
  const TrainCh13Result result = train_ch13(net, forward, train_iter, test_iter, trainer, num_epochs,
                                            figure_path("train_ch13.png"), checkpoint, 10);
  std::printf("test acc by epoch:");  // beyond the book: the Animator's third curve
  for (float a : result.test_acc_by_epoch) std::printf(" %.3f", a);
  std::printf("\n");
}

DecomposableAttention& snli_run_net() {
  check(nli_run().net != nullptr, "snli_run_net", "no model yet: the book's code builds it");
  return *nli_run().net;
}

void after_nli() {
  DecomposableAttention& net = snli_run_net();
  const SnliRunData& data = snli_run_data();
  predict_and_draw(net, data.vocab, {"he", "is", "good", "."}, {"he", "is", "bad", "."}, figure_path("alignment.png"),
                   true);
  if (!run_args().get_string("premise").empty())
    predict_and_draw(net, data.vocab, split_words(split_punctuation(run_args().get_string("premise"))),
                     split_words(split_punctuation(run_args().get_string("hypothesis"))),
                     figure_path("alignment_cli.png"), false);
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

std::unique_ptr<DecomposableAttention> make_net(const Vocab& vocab, int64_t embed_size, int64_t num_hiddens,
                                                bool mask_pad, const std::string& embeddings, bool must_match,
                                                const std::string& train_path) {
  auto net = make_decomposable_attention(vocab.size(), embed_size, num_hiddens, embed_size, 2 * embed_size,
                                         2 * num_hiddens, mask_pad, vocab["<pad>"]);
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
  return [&net](const SNLIBatch& b) {
    return net(ids_tensor(b.premises, {b.batch_size, b.num_steps}),
               ids_tensor(b.hypotheses, {b.batch_size, b.num_steps}));
  };
}

}  // namespace d2l
