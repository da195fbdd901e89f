// chapters/transformer_lm.cpp — 10.7 Transformer (sec_transformer), exercise 3: the encoder
// or the decoder for a language model?
//
// Trains a decoder-only Transformer (layers/transformer_lm.h) as a word-level language model
// on the English side of fra-eng (the sentences one after another, each ended by <eos>; every
// 10th sentence held out), prints its perplexity and text sampled from --prompt. Then trains
// the same model from the same seed without the causal mask, an encoder used as a language
// model, and prints the same numbers: its training loss collapses, since step t reads token
// t + 1 from its input, but when the next token is not there yet (generation) its
// predictions fail. The training loss is scored after training in eval mode, and also at
// each window's last step alone: the one step whose next token is outside the window, where
// the model without the mask can read nothing and its loss stays high. Finding "the step
// after mine" takes the position, which the embedding scale keeps readable
// (layers/transformer_lm.h; --embedding-scale 8 is the book's sqrt(64), and there the
// collapse barely shows). Perplexity is measured two ways on the held-out windows:
//   teacher-forced   the whole window in one forward (a no-mask model reads the answer)
//   next-token       for each t, the forward of tokens 0..t alone, its last output scored:
//                    what generation sees. For the causal model both are the same.
// Last, the cached decoding (each block keeps its past inputs, one new token per step)
// against feeding the whole sequence at every step, on a --gen-length token generation.
// Data: --data, else data/fra-eng/fra.txt (make data), else chapters/data/fra-eng-small.txt.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "layers/transformer_lm.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/vocab.h"

using namespace d2l;

namespace {

struct Settings {
  int64_t num_hiddens, num_layers, num_heads, num_steps, batch_size, epochs;
  float lr, dropout, embedding_scale;
};

// Windows of num_steps + 1 tokens from `stream`, starting at offset and every num_steps
// tokens (the book's sequential partitioning, 8.3): X is a window's first num_steps tokens,
// Y the same shifted by one.
std::vector<std::vector<int64_t>> windows(const std::vector<int64_t>& stream, int64_t num_steps, int64_t offset) {
  std::vector<std::vector<int64_t>> w;
  for (int64_t s = offset; s + num_steps + 1 <= static_cast<int64_t>(stream.size()); s += num_steps)
    w.emplace_back(stream.begin() + s, stream.begin() + s + num_steps + 1);
  return w;
}

// X (batch, T) and Y (batch, T) from windows [begin, end), taking tokens [0, T) and [1, T + 1).
std::pair<Tensor, Tensor> batch_of(const std::vector<std::vector<int64_t>>& w, size_t begin, size_t end, int64_t T) {
  const int64_t B = static_cast<int64_t>(end - begin);
  Tensor X = empty({B, T}), Y = empty({B, T});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      X.data()[b * T + t] = static_cast<float>(w[begin + b][t]);
      Y.data()[b * T + t] = static_cast<float>(w[begin + b][t + 1]);
    }
  return {X, Y};
}

// Mean cross-entropy per token over the windows, in eval mode (no dropout). next_token:
// score step t from the forward of steps 0..t alone (see the top of the file). Teacher-forced,
// also the mean over the last step of each window alone (*last_step, when not null): the
// one step whose next token is not in the window, which no model can read from its input.
double mean_loss(TransformerLM& net, const std::vector<std::vector<int64_t>>& w, int64_t T, bool next_token,
                 double* last_step = nullptr) {
  NoGrad no_grad;
  net.eval();
  double total = 0, last = 0;
  int64_t count = 0, windows = 0;
  for (size_t i = 0; i < w.size(); i += 64) {
    const auto [X, Y] = batch_of(w, i, std::min(w.size(), i + 64), T);
    if (!next_token) {
      const Tensor losses = softmax_cross_entropy(net(X), Y);  // (batch, T)
      total += sum(losses).item();
      last += sum(slice(losses, 1, T - 1, T)).item();
    } else {
      for (int64_t t = 0; t < T; ++t) {
        const Tensor logits = net(slice(X, 1, 0, t + 1));  // tokens 0..t, nothing after
        total += sum(softmax_cross_entropy(slice(logits, 1, t, t + 1), slice(Y, 1, t, t + 1))).item();
      }
    }
    count += X.numel();
    windows += X.size(0);
  }
  net.train();
  if (last_step) *last_step = last / static_cast<double>(windows);
  return total / static_cast<double>(count);
}

// Trains net on the windows of `train` (a fresh random offset and order each epoch) with
// Adam and gradient clipping at 1, printing the mean training loss of some epochs.
void train_lm(TransformerLM& net, const std::vector<int64_t>& train, const Settings& s, const char* name) {
  Adam optimizer(net.parameters(), s.lr);
  for (int64_t epoch = 1; epoch <= s.epochs; ++epoch) {
    auto w = windows(train, s.num_steps, random_int(s.num_steps));
    for (size_t i = w.size(); i > 1; --i) std::swap(w[i - 1], w[random_int(static_cast<int64_t>(i))]);
    double total = 0;
    int64_t count = 0;
    for (size_t i = 0; i < w.size(); i += s.batch_size) {
      const auto [X, Y] = batch_of(w, i, std::min(w.size(), i + s.batch_size), s.num_steps);
      optimizer.zero_grad();
      Tensor loss = mean(softmax_cross_entropy(net(X), Y));
      loss.backward();
      clip_grad_norm(net.parameters(), 1.0f);
      optimizer.step();
      total += loss.item() * static_cast<double>(X.numel());
      count += X.numel();
    }
    const double last = total / static_cast<double>(count);
    if (epoch == 1 || epoch % std::max<int64_t>(1, s.epochs / 5) == 0 || epoch == s.epochs)
      std::printf("%s epoch %lld/%lld, training loss %.3f (perplexity %.2f)\n", name, static_cast<long long>(epoch),
                  static_cast<long long>(s.epochs), last, std::exp(last));
  }
}

std::string words(const Vocab& vocab, const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids) text += (text.empty() ? "" : " ") + vocab.to_tokens(id);
  return text;
}

// Continues `prompt` by num_preds tokens, each sampled from the softmax of the last output
// (greedy: the argmax), with the cache (one new token per forward) or, without it, the whole
// sequence fed again at every step. Returns the new tokens.
std::vector<int64_t> generate(TransformerLM& net, const std::vector<int64_t>& prompt, int64_t num_preds, bool greedy,
                              bool cached) {
  NoGrad no_grad;
  net.eval();
  std::vector<int64_t> seq = prompt, out;
  std::vector<Tensor> cache;
  for (int64_t step = 0; step < num_preds; ++step) {
    const size_t from = cached && step > 0 ? seq.size() - 1 : 0;  // the cache holds the rest
    Tensor X = empty({1, static_cast<int64_t>(seq.size() - from)});
    for (size_t i = from; i < seq.size(); ++i) X.data()[i - from] = static_cast<float>(seq[i]);
    const Tensor logits = net(X, cached ? &cache : nullptr);
    const Tensor last = softmax(select(select(logits, 0, 0), 0, logits.size(1) - 1));  // (vocab_size,)
    int64_t next = 0;
    if (greedy) {
      next = static_cast<int64_t>(argmax(last, 0).item());
    } else {
      float u = random_uniform(), acc = 0;
      for (next = 0; next < last.numel() - 1; ++next)
        if ((acc += last.data()[next]) > u) break;
    }
    seq.push_back(next);
    out.push_back(next);
  }
  net.train();
  return out;
}

// The training windows scored after training in eval mode (the per-epoch losses above run
// with dropout, which blurs what the model has learned), all steps and the last alone; the
// held-out windows both ways.
struct Scores {
  double train_loss, train_last_step, teacher_forced, next_token;
};

Scores train_and_score(TransformerLM& net, const std::vector<int64_t>& train, const std::vector<int64_t>& valid,
                       const Settings& s, const char* name) {
  train_lm(net, train, s, name);
  Scores sc{};
  sc.train_loss = mean_loss(net, windows(train, s.num_steps, 0), s.num_steps, false, &sc.train_last_step);
  const auto w = windows(valid, s.num_steps, 0);
  sc.teacher_forced = mean_loss(net, w, s.num_steps, false);
  sc.next_token = mean_loss(net, w, s.num_steps, true);
  return sc;
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("transformer_lm",
               "10.7 Transformer, exercise 3: a decoder-only Transformer language model on the English side of "
               "fra-eng (perplexity, text from a prompt), the same model without the causal mask, and cached "
               "decoding's speed-up.");
  args.add_string("data", "", "fra-eng file (default: data/fra-eng/fra.txt, else the bundled small corpus)", "PATH");
  args.add_int("num-examples", 20000, "sentences read from the file (0: all)", 0, 100000000);
  args.add_int("epochs", 60, "training epochs of each model", 1, 100000);
  args.add_int("num-steps", 32, "tokens per training window", 2, 1024);
  args.add_int("batch-size", 8, "windows per batch", 1, 4096);
  args.add_float("lr", 0.01, "Adam's learning rate", 0.0, 10.0);
  args.add_int("num-hiddens", 64, "model width", 4, 4096);
  args.add_int("num-layers", 2, "decoder blocks", 1, 64);
  args.add_int("num-heads", 4, "attention heads", 1, 64);
  args.add_float("dropout", 0.1, "dropout", 0.0, 0.9);
  args.add_float("embedding-scale", 0.5,
                 "the token embedding's factor before the positional encoding (the book's: sqrt(num-hiddens))", 0.0,
                 1000.0);
  args.add_string("prompt", "i'm", "the words the samples continue", "TEXT");
  args.add_int("num-preds", 12, "tokens sampled after the prompt", 1, 4000);
  args.add_int("gen-length", 400, "tokens generated for the cached-decoding timing", 1, 4000);
  args.add_flag("quick", "40 epochs, 1000 sentences, a 40-token timing: the test suite's run");
  return run_chapter(args, argc, argv, [&](const std::string&) {
    const bool quick = args.get_flag("quick");
    const Settings s{args.get_int("num-hiddens"), args.get_int("num-layers"), args.get_int("num-heads"),
                     args.get_int("num-steps"), args.get_int("batch-size"), quick ? 40 : args.get_int("epochs"),
                     args.get_float("lr"), args.get_float("dropout"), args.get_float("embedding-scale")};
    const DataSource source = resolve_nmt_data(args.get_string("data"));
    std::printf("using data: %s\n", source.description.c_str());
    const int64_t num_examples = quick ? 1000 : args.get_int("num-examples");
    const TokenLines english = tokenize_nmt(preprocess_nmt(read_data_nmt(source.path)), num_examples, source.path).source;
    const Vocab vocab(english, 0, {"<eos>"});
    // The stream: sentences one after another, each ended by <eos>; every 10th held out.
    std::vector<int64_t> train, valid;
    for (size_t i = 0; i < english.size(); ++i) {
      std::vector<int64_t>& to = i % 10 == 9 ? valid : train;
      for (const auto& w : english[i]) to.push_back(vocab[w]);
      to.push_back(vocab["<eos>"]);
    }
    check(static_cast<int64_t>(valid.size()) > s.num_steps, "transformer_lm", "the held-out text (", valid.size(),
          " tokens) is shorter than one window of --num-steps ", s.num_steps, " + 1");
    std::printf("data: %zu sentences, %zu training and %zu held-out tokens, vocab %lld\n", english.size(),
                train.size(), valid.size(), static_cast<long long>(vocab.size()));
    // A unigram model's held-out perplexity: the baseline any language model should beat.
    std::vector<double> freq(static_cast<size_t>(vocab.size()), 1.0);  // add-one smoothing
    for (int64_t id : train) freq[id] += 1;
    const double total = std::accumulate(freq.begin(), freq.end(), 0.0);
    double unigram = 0;
    for (int64_t id : valid) unigram -= std::log(freq[id] / total);
    std::printf("unigram baseline: held-out perplexity %.2f\n", std::exp(unigram / static_cast<double>(valid.size())));

    std::vector<int64_t> prompt;
    const TokenizedNmt prompt_words = tokenize_nmt(preprocess_nmt(args.get_string("prompt")) + "\tx", 0, "--prompt");
    for (const auto& w : prompt_words.source.at(0)) prompt.push_back(vocab[w]);
    const std::string prompt_text = words(vocab, prompt);
    const int64_t num_preds = args.get_int("num-preds");

    Scores scores[2];
    std::unique_ptr<TransformerLM> causal_net;
    for (int causal = 1; causal >= 0; --causal) {
      print_banner(causal ? "decoder-only (causal mask)" : "without the causal mask (an encoder as a language model)");
      manual_seed(static_cast<uint64_t>(args.get_int("seed")));
      auto net = std::make_unique<TransformerLM>(vocab.size(), s.num_hiddens, 2 * s.num_hiddens, s.num_heads,
                                                 s.num_layers, s.dropout, causal == 1);
      net->embedding_scale = s.embedding_scale;
      if (causal) std::printf("%lld parameters\n", static_cast<long long>(net->num_parameters()));
      const Scores& sc = scores[causal] = train_and_score(*net, train, valid, s, causal ? "causal" : "no mask");
      std::printf("training loss (eval mode) %.3f, at each window's last step %.3f\n", sc.train_loss,
                  sc.train_last_step);
      std::printf("held-out perplexity: teacher-forced %.2f, next-token %.2f\n", std::exp(sc.teacher_forced),
                  std::exp(sc.next_token));
      std::printf("greedy:  %s => %s\n", prompt_text.c_str(), words(vocab, generate(*net, prompt, num_preds, true, false)).c_str());
      for (int i = 0; i < 2; ++i)
        std::printf("sampled: %s => %s\n", prompt_text.c_str(),
                    words(vocab, generate(*net, prompt, num_preds, false, false)).c_str());
      if (causal) causal_net = std::move(net);
    }
    print_banner("causal mask or none");
    // training loss: the training windows in eval mode; last step: that loss at each window's
    // last step alone, whose next token lies outside the window; perplexities: held out.
    std::printf("%-10s %14s %10s %22s %18s\n", "model", "training loss", "last step", "teacher-forced ppl",
                "next-token ppl");
    for (int causal = 1; causal >= 0; --causal)
      std::printf("%-10s %14.3f %10.3f %22.2f %18.2f\n", causal ? "causal" : "no mask", scores[causal].train_loss,
                  scores[causal].train_last_step, std::exp(scores[causal].teacher_forced),
                  std::exp(scores[causal].next_token));
    std::printf("no mask / causal training loss: %.3f\n", scores[0].train_loss / scores[1].train_loss);

    print_banner("cached decoding");
    const int64_t gen = quick ? 40 : args.get_int("gen-length");
    double seconds[2];
    std::vector<int64_t> tokens[2];
    for (int cached = 0; cached < 2; ++cached) {
      const auto t0 = std::chrono::steady_clock::now();
      tokens[cached] = generate(*causal_net, prompt, gen, true, cached == 1);
      seconds[cached] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("%lld greedy tokens: whole sequence each step %.3f s, cached %.3f s: %.1fx faster; same tokens: %s\n",
                static_cast<long long>(gen), seconds[0], seconds[1], seconds[0] / seconds[1],
                tokens[0] == tokens[1] ? "yes" : "no");
  }, ChapterDefaults{/*threads=*/1});
}
