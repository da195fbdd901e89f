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
// The exercises, each a setting (--rnn lstm, --scoring dot, --cues, ...), are in
// chapters/exercises/bahdanau_attention.cpp; --list-exercises lists them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "chapters/exercises/bahdanau_attention.h"
#include "core/ops.h"
#include "layers/bahdanau_attention.h"
#include "layers/exercises/bahdanau_attention.h"
#include "layers/seq2seq.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/token_names.h"
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

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("bahdanau_attention", "10.4 Bahdanau Attention (sec_seq2seq_attention): a GRU encoder-decoder with "
                                     "additive attention, trained on English-French pairs.");
  const Seq2SeqOptions seq2seq(args, 250, 10);
  args.add_string("dump-attention", "", "write the attention weights of the last sentence (or --translate) as a "
                  ".npy array (decoding steps, num_steps): every step's weights over all key positions", "FILE.npy");
  return run_chapter(args, argc, argv, [&](const std::string& out) {
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
    const int64_t embed_size = 32, num_hiddens = 32, num_layers = 2;
    const float dropout = 0.1f;
    const int64_t batch_size = 64, num_steps = 10;
    const float lr = 0.005f;
    const DataSource source = resolve_nmt_data(seq2seq.data());
    std::printf("using data: %s\n", source.description.c_str());
    refuse_save_over(args, {{"--data", source.path},
                            {"the loss figure", out + "/train_seq2seq.png"},
                            {"the attention figure", out + "/attention.png"},
                            {"--translate's figure", out + "/translate.png"},
                            {"the --dump-attention array", args.get_string("dump-attention")}});
    const NmtData data = load_data_nmt(batch_size, num_steps, 600, source.path);
    const Vocab &src_vocab = data.src_vocab, &tgt_vocab = data.tgt_vocab;
    const Setting setting = Setting::from(args);  // the book's model, unless an exercise's option changes it
    const Model model = make_model(setting, args, src_vocab.size(), tgt_vocab.size(), embed_size, num_hiddens,
                                   num_layers, dropout);
    EncoderDecoder net(*model.encoder, *model.decoder);
    // What a parameter file must match to be loaded here, and what a resumed run must match.
    ModelSettings hyper{{"embed_size", setting_number(embed_size)}, {"num_hiddens", setting_number(num_hiddens)},
                        {"num_layers", setting_number(num_layers)}, {"dropout", setting_number(dropout)},
                        {"num_steps", setting_number(num_steps)}};
    ModelSettings run{{"batch_size", setting_number(batch_size)}, {"lr", setting_number(lr)}};
    setting.add_to(hyper, run);
    Checkpoint checkpoint = seq2seq.checkpoint("bahdanau_attention", hyper, data, run);
    TrainSeq2SeqResult trained;
    seq2seq.train_or_load(net, checkpoint, [&](int64_t num_epochs) {
      trained = train_seq2seq(net, data, lr, num_epochs, tgt_vocab, "cpu",
                              setting.train_options(out + "/train_seq2seq.png", &checkpoint));
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
    if (args.get_flag("cues") && seq2seq.translate().empty())
      print_cues(engs.back(), last_translation, dec_attention_weight_seq, num_steps);

    if (const std::string& sentence = seq2seq.translate(); !sentence.empty()) {
      auto [translation, weights] = predict_seq2seq(net, sentence, src_vocab, tgt_vocab, num_steps, "cpu", true);
      std::printf("%s => %s\n", sentence.c_str(), translation.c_str());
      draw_attention(weights, lower_utf8(sentence), translation, num_steps, out + "/translate.png");
      if (args.get_flag("cues")) print_cues(lower_utf8(sentence), translation, weights, num_steps);
      if (const std::string& path = args.get_string("dump-attention"); !path.empty())
        write_attention_npy(weights, num_steps, path);
    } else if (const std::string& path = args.get_string("dump-attention"); !path.empty()) {
      write_attention_npy(dec_attention_weight_seq, num_steps, path);
    }
    if (!setting.is_book())  // an exercise's setting: the book's model is trained beside it
      compare_with_book(setting, args, net, data, trained, bleu4, [&] {
        return make_model(Setting{}, args, src_vocab.size(), tgt_vocab.size(), embed_size, num_hiddens, num_layers,
                          dropout);
      }, seq2seq.num_epochs(), lr, num_steps, engs, fras);
  }, ChapterDefaults{/*threads=*/1});  // small matrices: see tools/d2l/cli/cli_args.h
}
