// tools/d2l/train/nli_setup.cpp — 15.5's set-up around the book's code (see the header).
#include "tools/d2l/train/nli_setup.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "core/io/json.h"  // quote_input
#include "core/ops.h"
#include "core/shape.h"  // check
#include "layers/exercises/natural_language_inference_attention.h"
#include "tools/d2l/data/glove.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/ids_tensor.h"
#include "tools/d2l/train/predict_snli.h"

namespace d2l {

namespace {

std::string show(const std::vector<std::string>& tokens) {  // Python's repr of a list of str
  std::string s = "[";
  for (size_t i = 0; i < tokens.size(); ++i) s += (i ? ", '" : "'") + tokens[i] + "'";
  return s + "]";
}

// The options that come before the checkpoint family in --help.
CliArgs& with_nli_head(CliArgs& args) {
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
  return args;
}

}  // namespace

NliOptions::NliOptions(CliArgs& args)
    : CheckpointOptions(with_nli_head(args), /*resumable=*/true,
                        "write the trained parameters, the model's settings and the training state to FILE "
                        "(FILE.safetensors: the parameters and settings in that format, for PyTorch)",
                        "read parameters from FILE instead of training, as 10.4 and 10.7 do (same data and "
                        "vocabulary); with --epochs N, train them N epochs more"),
      args_(args) {}

bool NliOptions::quick() const { return args_.get_flag("quick"); }

int64_t NliOptions::num_epochs() const {
  // --load skips the training, as in every program with --load, unless --epochs asks for more.
  if (!load_path().empty() && !args_.given("epochs")) return 0;
  return quick() ? std::min<int64_t>(1, args_.get_int("epochs")) : args_.get_int("epochs");
}

bool NliOptions::load_if_given(Module& net, Checkpoint& checkpoint) const {
  return CheckpointOptions::load_if_given(net, checkpoint, num_epochs() == 0 ? " (training skipped)" : "");
}

std::string NliOptions::embeddings(const SNLISource& source) const {
  return args_.given("embeddings") ? args_.get_string("embeddings") : source.embeddings;
}

Checkpoint NliOptions::checkpoint(const DecomposableAttention& net, const Vocab& vocab, int64_t num_steps,
                                  int64_t train_pairs) const {
  Checkpoint checkpoint = CheckpointOptions::checkpoint(
      {{"model", "decomposable_attention"}, {"embed_size", setting_number(args_.get_int("embed-size"))},
       {"num_hiddens", setting_number(args_.get_int("num-hiddens"))}, {"num_steps", setting_number(num_steps)},
       {"mask_pad", args_.get_flag("mask-pad") ? "1" : "0"}, {"vocab", vocab_fingerprint(vocab)}},
      {{"batch_size", setting_number(args_.get_int("batch-size"))}, {"lr", setting_number(args_.get_float("lr"))},
       {"train_pairs", setting_number(static_cast<double>(train_pairs))}});
  checkpoint.set_safetensors_metadata({{"vocab.tokens", vocab_tokens_json(vocab)}});
  return checkpoint;
}

SnliSplits load_snli_splits(const SNLISource& source, int64_t batch_size, int64_t num_steps, bool quick) {
  SNLIData train_data = read_snli(source.train_path, true), test_data = read_snli(source.test_path, false);
  if (quick) {  // the first pairs of each split, as the file orders them
    auto cut = [](SNLIData& d, size_t n) {
      n = std::min(n, d.labels.size());
      d.premises.resize(n), d.hypotheses.resize(n), d.labels.resize(n);
    };
    cut(train_data, 1024), cut(test_data, 512);
  }
  auto train_set = std::make_shared<const SNLIDataset>(train_data, num_steps);
  auto test_set = std::make_shared<const SNLIDataset>(test_data, num_steps, &train_set->vocab);
  return {std::move(train_data), std::move(test_data), train_set, test_set,
          SNLIDataLoader(train_set, batch_size, true), SNLIDataLoader(test_set, batch_size, false)};
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

// Predicts, then draws the alignment the prediction used: β (m, n) and αᵀ (m, n).
void predict_and_draw(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                      const std::vector<std::string>& hypothesis, const std::string& path, bool book_example) {
  const std::string label = predict_snli(net, vocab, premise, hypothesis);
  // The book's cell ends with the call, so the notebook shows the returned str: 'contradiction'.
  // A pair from --premise/--hypothesis is labelled with its call (it is not the book's).
  if (book_example) {
    std::cout << "'" << label << "'\n";
  } else {  // a reader's pair: say which of its words the model cannot see
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
  // The model reads a batch as net(premises, hypotheses), each (batch_size, num_steps).
  return [&net](const SNLIBatch& b) {
    return net(ids_tensor(b.premises, {b.batch_size, b.num_steps}),
               ids_tensor(b.hypotheses, {b.batch_size, b.num_steps}));
  };
}

}  // namespace d2l
