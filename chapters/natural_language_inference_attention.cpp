// chapters/natural_language_inference_attention.cpp — 15.5 自然语言推断：使用注意力 / Natural
// Language Inference: Using Attention (sec_natural-language-inference-attention).
//
// The book's code: SNLI read by load_data_snli, the decomposable attention model
// (layers/natural_language_inference_attention.h) with GloVe copied into its embedding,
// trained by train_ch13 for 4 epochs of Adam (lr 0.001), then predict_snli on the book's
// pair. Prints "read N examples" twice, the training's progress and the book's closing lines
// (loss, train acc, test acc; examples/sec), then 'contradiction' as the notebook shows it;
// writes train_ch13.png and alignment.png (beyond the book: the pair's soft alignment).
// The run around it (data, size and time of the run, --quick, --epochs, --save/--load/--resume,
// --premise/--hypothesis): chapters/run/natural_language_inference_attention.cpp and
// tools/d2l/train/nli_setup.h; exercises: chapters/exercises/.
#include <cstdio>

#include "core/nn/optim.h"
#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/train/nli_setup.h"

using namespace d2l;

void natural_language_inference_attention() {
  // ------------------------------------------------------------------------------------
  print_banner("读取数据集 / Reading the Dataset");
  const int64_t batch_size = 256, num_steps = 50;
  auto [train_iter, test_iter, vocab] = load_data_snli(batch_size, num_steps);

  // ------------------------------------------------------------------------------------
  print_banner("创建模型 / Creating the Model");
  const int64_t embed_size = 100, num_hiddens = 200;
  // net = DecomposableAttention(vocab, embed_size, num_hiddens), the 100-d GloVe vectors
  // copied into its embedding (the bundled data brings its own; nli_setup.h says which).
  DecomposableAttention& net = decomposable_attention(vocab, embed_size, num_hiddens);

  // ------------------------------------------------------------------------------------
  print_banner("训练和评估模型 / Training and Evaluating the Model");
  const float lr = 0.001f;
  const int64_t num_epochs = 4;
  Adam trainer(net.parameters(), lr);
  // The loss, CrossEntropyLoss(reduction="none"), is train_ch13's.
  train_ch13(net, train_iter, test_iter, trainer, num_epochs);

  // ------------------------------------------------------------------------------------
  print_banner("使用模型 / Using the Model");
  // The cell ends with the call, so the notebook shows the returned str.
  std::printf("'%s'\n", predict_snli(net, vocab, {"he", "is", "good", "."}, {"he", "is", "bad", "."}).c_str());
}

int main(int argc, char** argv) {
  return run_section("natural_language_inference_attention", argc, argv, natural_language_inference_attention);
}
