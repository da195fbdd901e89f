// chapters/transformer.cpp — 10.7 Transformer (sec_transformer): the book's code. Prints, in
// the book's order and format (shapes as torch.Size([...]), tensors as PyTorch prints them),
// the position-wise FFN, layer norm against batch norm, the shapes of AddNorm, EncoderBlock,
// TransformerEncoder and DecoderBlock; then trains the 2-layer, 4-head Transformer on fra-eng,
// prints the loss line, the four translations with BLEU and the attention weights' shapes,
// and writes under --out (out/transformer/) loss.png and encoder_self_attention.png,
// decoder_self_attention.png, decoder_encoder_attention.png (one heatmap per layer and head).
// After the demos everything depends on the random init, so numbers differ from the book's.
// Options (--data, --epochs, --quick, --save/--load/--resume, --translate, --pe-offset) are
// done around this code: chapters/run/transformer.cpp. Exercises (--num-layers, --scoring
// additive, --pe learned, --head-importance): chapters/exercises/transformer.cpp.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "core/ops.h"
#include "layers/transformer.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/token_names.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

void transformer() {
  // ------------------------------------------------------------------------------------
  print_banner("基于位置的前馈网络 / positionwise feed-forward network");
  PositionWiseFFN ffn(4, 4, 8);
  ffn.eval();
  std::cout << select(ffn(ones({2, 3, 4})), 0, 0) << "\n";

  // ------------------------------------------------------------------------------------
  print_banner("残差连接和层规范化 / residual connection and layer normalization");
  {
    LayerNorm ln(2);
    const Tensor X = tensor({{1, 2}, {2, 3}});
    // nn.BatchNorm1d(2) in training mode normalises each column with the batch's own
    // mean and (biased) variance: the same formula as layer_norm, over dim 0 instead.
    const Tensor centred = X - mean(X, 0, true);
    const Tensor bn = centred / sqrt(mean(centred * centred, 0, true) + 1e-5f);
    // print('layer norm:', ln(X), '\nbatch norm:', bn(X)): print's separator leaves a space at
    // the end of the first line, before the '\n' that starts the second argument.
    std::cout << "layer norm: " << ln(X) << " \nbatch norm: " << bn << "\n";
  }
  AddNorm add_norm({3, 4}, 0.5f);
  add_norm.eval();
  std::cout << torch_size(add_norm(ones({2, 3, 4}), ones({2, 3, 4})).shape()) << "\n";

  // ------------------------------------------------------------------------------------
  print_banner("编码器 / encoder");
  Tensor X = ones({2, 100, 24});
  const Tensor valid_lens = tensor({3, 2});
  EncoderBlock encoder_blk(24, 24, 24, 24, {100, 24}, 24, 48, 8, 0.5f);
  encoder_blk.eval();
  std::cout << torch_size(encoder_blk(X, valid_lens).shape()) << "\n";
  {
    TransformerEncoder encoder(200, 24, 24, 24, 24, {100, 24}, 24, 48, 8, 2, 0.5f);
    encoder.eval();
    std::cout << torch_size(encoder(ones({2, 100}), valid_lens)[0].shape()) << "\n";
  }

  // ------------------------------------------------------------------------------------
  print_banner("解码器 / decoder");
  DecoderBlock decoder_blk(24, 24, 24, 24, {100, 24}, 24, 48, 8, 0.5f, 0);
  decoder_blk.eval();
  X = ones({2, 100, 24});
  DecoderState state{encoder_blk(X, valid_lens), valid_lens, Tensor()};
  std::cout << torch_size(decoder_blk.forward(X, state).shape()) << "\n";

  // ------------------------------------------------------------------------------------
  print_banner("训练 / training");
  const int64_t num_hiddens = 32, num_layers = 2;
  const float dropout = 0.1f;
  const int64_t batch_size = 64, num_steps = 10;
  const float lr = 0.005f;
  const int64_t num_epochs = 200;
  const int64_t ffn_num_input = 32, ffn_num_hiddens = 64, num_heads = 4;
  const int64_t key_size = 32, query_size = 32, value_size = 32;
  const Shape norm_shape{32};

  auto [train_iter, src_vocab, tgt_vocab] = load_data_nmt(batch_size, num_steps);
  TransformerEncoder encoder(src_vocab.size(), key_size, query_size, value_size, num_hiddens, norm_shape,
                             ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout);
  TransformerDecoder decoder(tgt_vocab.size(), key_size, query_size, value_size, num_hiddens, norm_shape,
                             ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout);
  EncoderDecoder net(encoder, decoder);
  train_seq2seq(net, train_iter, lr, num_epochs, tgt_vocab, "cpu");

  const std::vector<std::string> engs{"go .", "i lost .", "he's calm .", "i'm home ."};
  const std::vector<std::string> fras{"va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."};
  std::string translation;
  AttentionWeightSeq dec_attention_weight_seq;
  for (size_t i = 0; i < engs.size(); ++i) {
    std::tie(translation, dec_attention_weight_seq) =
        predict_seq2seq(net, engs[i], src_vocab, tgt_vocab, num_steps, "cpu", true);
    // print(f'{eng} => {translation}, ', f'bleu ...'): print's separator adds a second space.
    std::printf("%s => %s,  bleu %.3f\n", engs[i].c_str(), translation.c_str(), bleu(translation, fras[i], 2));
  }

  // ------------------------------------------------------------------------------------
  print_banner("注意力权重 / attention weights of the last sentence");
  const Tensor enc_attention_weights =
      reshape(concat(encoder.attention_weights, 0), {num_layers, num_heads, -1, num_steps});
  std::cout << torch_size(enc_attention_weights.shape()) << "\n";
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  opt.titles = {"Head 1", "Head 2", "Head 3", "Head 4"};
  opt.row_labels = {"Layer 1", "Layer 2"};  // each row is one layer, as the book's text says
  opt.figsize = {7.0f, 3.5f};
  // The SVG's cell tooltips name the tokens: the source's, then the ones the decoder read
  // (<bos> first) and predicted.
  opt.xnames = opt.ynames = position_names(engs.back(), num_steps);
  const std::string encoder_path = figure_path("encoder_self_attention.png");
  write_figure(encoder_path, [&] { show_heatmaps(enc_attention_weights, opt, encoder_path); });

  const Tensor dec_self_attention_weights =
      decoder_attention_weights(dec_attention_weight_seq.all, 0, num_layers, num_heads, num_steps);
  const Tensor dec_inter_attention_weights =
      decoder_attention_weights(dec_attention_weight_seq.all, 1, num_layers, num_heads, num_steps);
  std::cout << "(" << torch_size(dec_self_attention_weights.shape()) << ", "
            << torch_size(dec_inter_attention_weights.shape()) << ")\n";
  // The keys up to the translation's length + 1 (<bos> and its tokens).
  const int64_t shown = std::min(static_cast<int64_t>(split(translation).size()) + 1, num_steps);
  opt.xnames = position_names("<bos> " + translation, num_steps);
  opt.ynames = position_names(translation, num_steps);
  const std::string self_path = figure_path("decoder_self_attention.png");
  write_figure(self_path, [&] { show_heatmaps(slice(dec_self_attention_weights, 3, 0, shown), opt, self_path); });
  opt.xnames = position_names(engs.back(), num_steps);
  const std::string inter_path = figure_path("decoder_encoder_attention.png");
  write_figure(inter_path, [&] { show_heatmaps(dec_inter_attention_weights, opt, inter_path); });
}

int main(int argc, char** argv) { return run_section("transformer", argc, argv, transformer); }
