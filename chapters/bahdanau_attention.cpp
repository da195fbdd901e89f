// chapters/bahdanau_attention.cpp — 10.4 Bahdanau 注意力 / Bahdanau Attention
// (sec_seq2seq_attention): the book's code. Prints the decoder's shape check, the training's
// "loss 0.xxx, NNNN.N tokens/sec on cpu", and "go . => va !,  bleu 1.000" for the book's
// four sentences (two spaces: the book's print joins two strings); writes, under --out
// (out/bahdanau_attention/), train_seq2seq.png (the loss curve) and attention.png (the last
// sentence's attention, keys up to its <eos>). After the shape check everything depends on
// the random init and the shuffle, so the details differ from the book's run.
// Options (--data, --epochs, --quick, --save/--load/--resume, --translate, --dump-attention)
// are done by the library around this code: chapters/run/bahdanau_attention.cpp. Exercises
// (--rnn lstm, --scoring dot, ...): chapters/exercises/bahdanau_attention.cpp.
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "core/ops.h"
#include "layers/bahdanau_attention.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/token_names.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

void bahdanau_attention() {
  // ------------------------------------------------------------------------------------
  print_banner("10.4.2 定义注意力解码器 / Defining the Decoder with Attention");
  {
    Seq2SeqEncoder encoder(10, 8, 16, 2);
    encoder.eval();
    Seq2SeqAttentionDecoder decoder(10, 8, 16, 2);
    decoder.eval();
    const Tensor X = zeros({4, 7});  // (batch_size, num_steps)
    DecoderState state = decoder.init_state(encoder(X), Tensor());
    Tensor output;
    std::tie(output, state) = decoder(X, state);
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
  const int64_t num_epochs = 250;

  auto [train_iter, src_vocab, tgt_vocab] = load_data_nmt(batch_size, num_steps);
  Seq2SeqEncoder encoder(src_vocab.size(), embed_size, num_hiddens, num_layers, dropout);
  Seq2SeqAttentionDecoder decoder(tgt_vocab.size(), embed_size, num_hiddens, num_layers, dropout);
  EncoderDecoder net(encoder, decoder);
  train_seq2seq(net, train_iter, lr, num_epochs, tgt_vocab, "cpu");

  const std::vector<std::string> engs{"go .", "i lost .", "he's calm .", "i'm home ."};
  const std::vector<std::string> fras{"va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."};
  std::string translation;
  std::vector<Tensor> dec_attention_weight_seq;
  for (size_t i = 0; i < engs.size(); ++i) {
    std::tie(translation, dec_attention_weight_seq) =
        predict_seq2seq(net, engs[i], src_vocab, tgt_vocab, num_steps, "cpu", true);
    // print(f'{eng} => {translation}, ', f'bleu ...'): print's separator adds a second space.
    std::printf("%s => %s,  bleu %.3f\n", engs[i].c_str(), translation.c_str(), bleu(translation, fras[i], 2));
  }

  // torch.cat([step[0][0][0] for step in dec_attention_weight_seq], 0).reshape((1, 1, -1, num_steps))
  std::vector<Tensor> steps;
  for (const Tensor& step : dec_attention_weight_seq) steps.push_back(reshape(step, {1, num_steps}));
  const Tensor attention_weights = reshape(concat(steps, 0), {1, 1, -1, num_steps});
  // The keys up to the last sentence's length plus one: its <eos>.
  const int64_t keys = static_cast<int64_t>(split(engs.back()).size()) + 1;
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  opt.xnames = position_names(engs.back(), keys);  // the SVG's cell tooltips: the source tokens
  opt.ynames = position_names(translation, static_cast<int64_t>(steps.size()));  // and the predicted ones
  const std::string path = figure_path("attention.png");
  write_figure(path, [&] { show_heatmaps(slice(attention_weights, 3, 0, keys), opt, path); });
}

int main(int argc, char** argv) { return run_section("bahdanau_attention", argc, argv, bahdanau_attention); }
