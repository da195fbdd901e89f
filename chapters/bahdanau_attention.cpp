// chapters/bahdanau_attention.cpp — 10.4 Bahdanau 注意力 / Bahdanau Attention
// (sec_seq2seq_attention).
//
// Prints, as the book:
//   the decoder's shape check  (torch.Size([4, 7, 10]), 3, torch.Size([4, 7, 16]), 2, torch.Size([4, 16]))
//   loss 0.xxx, NNNN.N tokens/sec on cpu        after training on the fra-eng pairs
//   go . => va !,  bleu 1.000                   for the book's four sentences (two spaces:
//                                               the book's print gets two f-strings)
// and writes, under --out (default out/bahdanau_attention/):
//   train_seq2seq.png   the loss curve (the book's Animator)
//   attention.png       the decoder's attention over the last sentence, keys cut to its
//                       length + 1 (the <eos>)
//   translate.png       the same for --translate "sentence"
// Data: --data PATH (a fra.txt), else data/fra-eng/fra.txt from `make data`, else the
// bundled chapters/data/fra-eng-small.txt; the first 600 pairs, as the book. The program
// says which file it read. --save FILE / --load FILE store and restore the trained
// parameters with the model's settings and both vocabularies' fingerprints (a file trained
// on other data is refused); with --load, training is skipped. --save also keeps Adam's
// state and the random generator, so --resume FILE continues the training exactly, e.g.
//   bahdanau_attention --save model.params
//   bahdanau_attention --load model.params --translate "i'm cold ."
//   bahdanau_attention --epochs 100 --save half.params
//   bahdanau_attention --resume half.params --save model.params     # epochs 101..250
// A FILE ending in .safetensors is read and written in that format instead: the parameters
// under the book's state_dict() names, the settings and both vocabularies in __metadata__,
// for PyTorch to load (tools/scripts/crossover_torch.py); no training state, so no --resume.
// Everything after the shape check depends on the random init and the shuffle, so the
// loss, the translations and the heatmap differ from the book's run in their details.
// Run time: about a minute for 250 epochs on 2 cores (--quick: 10 epochs, a few seconds).
//
// The exercises (this section's and 9.7's, whose training this section uses), each a
// setting; with any of them the program trains that model in place of the book's, then
// trains the book's model too (both from --seed) and prints one table row for each: loss
// of the first and last epoch, the masked loss of the trained model over all pairs, mean
// BLEU over the book's four sentences and over the first 100 pairs, and tokens/sec.
//   --rnn lstm             10.4 ex. 1: an LSTM (layers/lstm.h) in place of the GRU
//   --scoring dot          10.4 ex. 2: scaled dot-product scoring in place of additive
//   --scoring bilinear     10.3 ex. 2: the bilinear score qᵀ W k (BilinearAttention)
//   --no-loss-mask         9.7 ex. 2: the loss counts the padding too
//   --no-teacher-forcing   9.7 ex. 4: the decoder reads its own predictions in training
// and, without changing the training:
//   --cues                 10.1 ex. 1: for the last sentence (or --translate), each target
//                          step's input and output token and the source token it attends to
//                          most: the decoder state is the query (the volitional cue), the
//                          encoder's outputs the keys and values (the nonvolitional cues)
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "layers/exercises/bahdanau_attention.h"
#include "layers/seq2seq.h"
#include "tools/d2l/figures/token_names.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/cli/seq2seq_options.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

namespace {

int64_t count_words(const std::string& s) {
  int64_t n = 0;
  for (const std::string& w : split(s, ' ')) n += !w.empty();
  return n;
}

// The book: concat the steps' weights, reshape to (1, 1, no. of steps, num_steps), and
// show the keys up to the source length + 1 (the source's <eos>).
void draw_attention(const std::vector<Tensor>& steps, const std::string& sentence, const std::string& translation,
                    int64_t num_steps, const std::string& path) {
  check(!steps.empty(), "bahdanau_attention", "no attention weights were saved for '", sentence, "'");
  std::vector<Tensor> rows;
  for (const Tensor& s : steps) rows.push_back(reshape(s, {1, num_steps}));  // step[0][0]
  const Tensor attention_weights = reshape(concat(rows, 0), {1, 1, -1, num_steps});
  const int64_t keys = std::min(count_words(sentence) + 1, num_steps);
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  opt.xnames = position_names(sentence, keys);  // the SVG's cell tooltips: source tokens,
  opt.ynames = position_names(translation, static_cast<int64_t>(steps.size()));  // the tokens each step predicts
  write_figure(path, [&] { show_heatmaps(slice(attention_weights, 3, 0, keys), opt, path); });
}

// The model an exercise trains: the book's (GRU, additive, mask, teacher forcing) unless
// the command line changes one part.
struct Setting {
  RecurrentCell cell = RecurrentCell::gru;
  AttentionScoring scoring = AttentionScoring::additive;
  bool loss_mask = true, teacher_forcing = true;

  std::string scoring_name() const {
    return scoring == AttentionScoring::additive   ? "additive"
           : scoring == AttentionScoring::bilinear ? "bilinear"
                                                   : "dot";
  }
  bool is_book() const {
    return cell == RecurrentCell::gru && scoring == AttentionScoring::additive && loss_mask && teacher_forcing;
  }
  std::string name() const {
    std::string s = std::string(cell == RecurrentCell::gru ? "gru" : "lstm") + ", " + scoring_name();
    if (!loss_mask) s += ", no loss mask";
    if (!teacher_forcing) s += ", no teacher forcing";
    return s;
  }
};

// A value the option does not take is bad usage: "error: [--rnn] ..." and exit status 2.
Setting read_setting(const CliArgs& args) {
  Setting s;
  const std::string& rnn = args.get_string("rnn");
  const std::string& scoring = args.get_string("scoring");
  if (rnn != "gru" && rnn != "lstm") throw UsageError("[--rnn] expects gru or lstm, got '" + rnn + "'");
  if (scoring != "additive" && scoring != "dot" && scoring != "bilinear")
    throw UsageError("[--scoring] expects additive, dot or bilinear, got '" + scoring + "'");
  s.cell = rnn == "lstm" ? RecurrentCell::lstm : RecurrentCell::gru;
  s.scoring = scoring == "dot"        ? AttentionScoring::scaled_dot_product
              : scoring == "bilinear" ? AttentionScoring::bilinear
                                      : AttentionScoring::additive;
  s.loss_mask = !args.get_flag("no-loss-mask");
  s.teacher_forcing = !args.get_flag("no-teacher-forcing");
  return s;
}

// The book's classes for the book's cell and scoring (so its run is unchanged), else the
// exercises' variants (layers/bahdanau_attention.h).
struct Model {
  std::unique_ptr<Encoder> encoder;
  std::unique_ptr<AttentionDecoder> decoder;
};
Model make_model(const Setting& s, int64_t src_vocab, int64_t tgt_vocab, int64_t embed_size, int64_t num_hiddens,
                 int64_t num_layers, float dropout) {
  Model m;
  if (s.cell == RecurrentCell::gru && s.scoring == AttentionScoring::additive) {
    m.encoder = std::make_unique<Seq2SeqEncoder>(src_vocab, embed_size, num_hiddens, num_layers, dropout);
    m.decoder = std::make_unique<Seq2SeqAttentionDecoder>(tgt_vocab, embed_size, num_hiddens, num_layers, dropout);
  } else {
    m.encoder = std::make_unique<VariantSeq2SeqEncoder>(s.cell, src_vocab, embed_size, num_hiddens, num_layers, dropout);
    m.decoder = std::make_unique<VariantAttentionDecoder>(s.cell, s.scoring, tgt_vocab, embed_size, num_hiddens,
                                                          num_layers, dropout);
  }
  return m;
}

// 10.1 ex. 1: the volitional and nonvolitional cues of translation, in the trained model.
// The keys and values (nonvolitional cues: what is there to be looked at) are the encoder's
// outputs, one per source token; the query (the volitional cue: what the decoder wants next)
// is the decoder's hidden state after reading the previous target token. For each target
// step: the token read, the token produced, and the source token given the most weight.
void print_cues(const std::string& sentence, const std::string& translation, const std::vector<Tensor>& steps,
                int64_t num_steps) {
  print_banner("练习 10.1.1 / Exercise 10.1 ex. 1: volitional and nonvolitional cues in translation");
  std::vector<std::string> source;
  for (const std::string& w : split(sentence, ' '))
    if (!w.empty()) source.push_back(w);
  source.push_back("<eos>");
  std::vector<std::string> target;
  for (const std::string& w : split(translation, ' '))
    if (!w.empty()) target.push_back(w);
  target.push_back("<eos>");
  std::printf("keys and values (nonvolitional cues): the encoder's outputs at");
  for (const std::string& w : source) std::printf(" '%s'", w.c_str());
  std::printf("\nqueries (volitional cues): the decoder's state after reading each target-side input\n");
  std::printf("%-5s %-12s %-12s %s\n", "step", "reads", "writes", "attends most to (weight)");
  const int64_t keys = std::min<int64_t>(static_cast<int64_t>(source.size()), num_steps);
  for (size_t t = 0; t < steps.size() && t < target.size(); ++t) {
    const std::vector<float> w = reshape(steps[t], {-1}).to_vector();  // (num_steps,)
    const int64_t best = std::max_element(w.begin(), w.begin() + keys) - w.begin();
    std::printf("%-5zu %-12s %-12s '%s' (%.3f)\n", t + 1, t == 0 ? "<bos>" : target[t - 1].c_str(),
                target[t].c_str(), source[static_cast<size_t>(best)].c_str(), w[static_cast<size_t>(best)]);
  }
}

std::string format_fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// One row of the exercise table. Its epoch-1 column is the first epoch this run trained:
// after --resume that is a later epoch, and the cell says which ("epoch 6: 0.218").
void print_row(const std::string& name, const TrainSeq2SeqResult& r, const Seq2SeqScores& scores, double bleu4) {
  if (r.epoch_loss.empty())  // --load: nothing was trained in this run
    std::printf("%-40s %12s %11s %9.3f %7.3f %8.3f %11s\n", name.c_str(), "(loaded)", "-", scores.loss, bleu4,
                scores.bleu, "-");
  else if (r.first_epoch > 1)  // --resume: epoch 1 was trained by an earlier run; say which epoch this is
    std::printf("%-40s %12s %11.3f %9.3f %7.3f %8.3f %11.1f\n", name.c_str(),
                ("epoch " + std::to_string(r.first_epoch) + ": " + format_fixed(r.epoch_loss.front())).c_str(), r.loss,
                scores.loss, bleu4, scores.bleu, r.tokens_per_sec);
  else
    std::printf("%-40s %12.3f %11.3f %9.3f %7.3f %8.3f %11.1f\n", name.c_str(), r.epoch_loss.front(), r.loss,
                scores.loss, bleu4, scores.bleu, r.tokens_per_sec);
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("bahdanau_attention", "10.4 Bahdanau Attention (sec_seq2seq_attention): a GRU encoder-decoder with "
                                     "additive attention, trained on English-French pairs.");
  const Seq2SeqOptions seq2seq(args, 250, 10);
  args.add_string("rnn", "gru", "10.4 ex. 1: the recurrent cell, gru (the book) or lstm", "CELL");
  args.add_string("scoring", "additive", "10.4 ex. 2: the attention scoring, additive (the book) or dot (scaled "
                  "dot-product); 10.3 ex. 2: bilinear (q W k)", "FN");
  args.add_flag("cues", "10.1 ex. 1: after translating, print for the last sentence (or --translate) which source "
                "token each target step attends to most: the queries (decoder states) against the keys (encoder "
                "outputs)");
  args.add_flag("no-loss-mask", "9.7 ex. 2: train with a loss that counts the padding too");
  args.add_flag("no-teacher-forcing", "9.7 ex. 4: train feeding the decoder its own predictions");
  add_chapter_options(args, "out/bahdanau_attention", /*seed=*/0, /*threads=*/1);  // small matrices: see cli_args.h
  args.parse_or_exit(argc, argv);
  Setting setting;
  try {
    setting = read_setting(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s (see --help)\n", e.what());
    return 2;
  }
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);

    // ------------------------------------------------------------------------------------
    print_banner("10.4.2 定义注意力解码器 / Defining the Decoder with Attention");
    {
      Seq2SeqEncoder encoder(10, 8, 16, 2);
      encoder.eval();
      Seq2SeqAttentionDecoder decoder(10, 8, 16, 2);
      decoder.eval();
      const Tensor X = zeros({4, 7});  // (batch_size, num_steps)
      const DecoderState state0 = decoder.init_state(encoder(X), Tensor());
      auto [output, state] = decoder(X, state0);
      // output.shape, len(state), state[0].shape, len(state[1]), state[1][0].shape
      std::printf("(%s, %zu, %s, %lld, %s)\n", torch_size(output.shape()).c_str(), state.size(),
                  torch_size(state[0].shape()).c_str(), static_cast<long long>(state[1].size(0)),
                  torch_size(select(state[1], 0, 0).shape()).c_str());
    }

    // ------------------------------------------------------------------------------------
    print_banner("10.4.3 训练 / Training");
    // The book's hyper-parameters.
    const int64_t embed_size = 32, num_hiddens = 32, num_layers = 2;
    const float dropout = 0.1f;
    const int64_t batch_size = 64, num_steps = 10;
    const float lr = 0.005f;
    const DataSource source = resolve_nmt_data(seq2seq.data());
    std::printf("using data: %s\n", source.description.c_str());
    // --save is none of the files this program reads or writes (refused before the training).
    refuse_save_over(args, {{"--data", source.path},
                            {"the loss figure", out + "/train_seq2seq.png"},
                            {"the attention figure", out + "/attention.png"},
                            {"--translate's figure", out + "/translate.png"}});
    const NmtData data = load_data_nmt(batch_size, num_steps, 600, source.path);
    const Vocab &src_vocab = data.src_vocab, &tgt_vocab = data.tgt_vocab;
    // An exercise's run and the book's run it is compared with both start from --seed.
    if (!setting.is_book()) manual_seed(static_cast<uint64_t>(args.get_int("seed")));
    const Model model = make_model(setting, src_vocab.size(), tgt_vocab.size(), embed_size, num_hiddens, num_layers,
                                   dropout);
    EncoderDecoder net(*model.encoder, *model.decoder);
    // What a parameter file must match to be loaded here, and what a resumed run must match
    // (an exercise's setting is added, so the book's files keep their settings).
    ModelSettings model_settings{
        {"model", "bahdanau_attention"}, {"embed_size", setting_number(embed_size)},
        {"num_hiddens", setting_number(num_hiddens)}, {"num_layers", setting_number(num_layers)},
        {"dropout", setting_number(dropout)}, {"num_steps", setting_number(num_steps)},
        {"src_vocab", vocab_fingerprint(src_vocab)}, {"tgt_vocab", vocab_fingerprint(tgt_vocab)}};
    ModelSettings run_settings{{"batch_size", setting_number(batch_size)}, {"lr", setting_number(lr)}};
    if (setting.cell != RecurrentCell::gru) model_settings.push_back({"rnn", "lstm"});
    if (setting.scoring != AttentionScoring::additive) model_settings.push_back({"scoring", setting.scoring_name()});
    if (!setting.loss_mask) run_settings.push_back({"loss_mask", "off"});
    if (!setting.teacher_forcing) run_settings.push_back({"teacher_forcing", "off"});
    Checkpoint checkpoint = seq2seq.checkpoint(model_settings, run_settings);
    checkpoint.set_safetensors_metadata({{"src_vocab.tokens", vocab_tokens_json(src_vocab)},
                                         {"tgt_vocab.tokens", vocab_tokens_json(tgt_vocab)}});
    TrainSeq2SeqResult trained;
    seq2seq.train_or_load(net, checkpoint, [&](int64_t num_epochs) {
      TrainSeq2SeqOptions options{out + "/train_seq2seq.png", true, &checkpoint};
      options.loss_mask = setting.loss_mask;
      options.teacher_forcing = setting.teacher_forcing;
      trained = train_seq2seq(net, data, lr, num_epochs, tgt_vocab, "cpu", options);
    });

    const std::vector<std::string> engs{"go .", "i lost .", "he's calm .", "i'm home ."};
    const std::vector<std::string> fras{"va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."};
    std::vector<Tensor> dec_attention_weight_seq;
    std::string last_translation;
    double bleu4 = 0;  // mean over the four, for the exercise table
    for (size_t i = 0; i < engs.size(); ++i) {
      auto [translation, weights] = predict_seq2seq(net, engs[i], src_vocab, tgt_vocab, num_steps, "cpu", true);
      // print(f'{eng} => {translation}, ', f'bleu ...'): print's separator adds a second space.
      const double b = bleu(translation, fras[i], 2);
      std::printf("%s => %s,  bleu %.3f\n", engs[i].c_str(), translation.c_str(), b);
      bleu4 += b / static_cast<double>(engs.size());
      dec_attention_weight_seq = weights;
      last_translation = translation;
    }
    draw_attention(dec_attention_weight_seq, engs.back(), last_translation, num_steps, out + "/attention.png");
    if (args.get_flag("cues") && seq2seq.translate().empty()) {
      print_cues(engs.back(), last_translation, dec_attention_weight_seq, num_steps);
    }

    if (const std::string& sentence = seq2seq.translate(); !sentence.empty()) {
      auto [translation, weights] = predict_seq2seq(net, sentence, src_vocab, tgt_vocab, num_steps, "cpu", true);
      std::printf("%s => %s\n", sentence.c_str(), translation.c_str());
      draw_attention(weights, lower_utf8(sentence), translation, num_steps, out + "/translate.png");
      if (args.get_flag("cues")) print_cues(lower_utf8(sentence), translation, weights, num_steps);
    }

    if (!setting.is_book()) {
      // ----------------------------------------------------------------------------------
      print_banner("练习 / Exercises: " + setting.name() + " against the book's gru, additive");
      const Seq2SeqScores scores = evaluate_seq2seq(net, data, 100);
      // The book's model, trained the same number of epochs from the same seed.
      manual_seed(static_cast<uint64_t>(args.get_int("seed")));
      const Model book = make_model(Setting{}, src_vocab.size(), tgt_vocab.size(), embed_size, num_hiddens,
                                    num_layers, dropout);
      EncoderDecoder book_net(*book.encoder, *book.decoder);
      const TrainSeq2SeqResult book_trained =
          train_seq2seq(book_net, data, lr, seq2seq.num_epochs(), tgt_vocab, "cpu", {"", false, nullptr});
      double book_bleu4 = 0;
      for (size_t i = 0; i < engs.size(); ++i)
        book_bleu4 += bleu(predict_seq2seq(book_net, engs[i], src_vocab, tgt_vocab, num_steps).first, fras[i], 2) /
                      static_cast<double>(engs.size());
      const Seq2SeqScores book_scores = evaluate_seq2seq(book_net, data, 100);
      std::printf("%-40s %12s %11s %9s %7s %8s %11s\n", "setting", "epoch-1 loss", "final loss", "eval loss",
                  "bleu-4", "bleu-100", "tokens/sec");
      print_row(setting.name(), trained, scores, bleu4);
      print_row(Setting{}.name() + " (the book)", book_trained, book_scores, book_bleu4);
      std::printf("(final loss: the training objective of the last epoch; eval loss: the masked loss per target "
                  "token of the trained model, in eval mode with teacher forcing, over all %lld pairs; bleu-4: "
                  "mean over the four sentences above; bleu-100: mean over the first %lld pairs)\n",
                  static_cast<long long>(data.src.rows()), static_cast<long long>(scores.pairs));
    }
    return 0;
  });
}
