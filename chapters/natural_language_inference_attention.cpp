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
// The set-up around the book's code (options, splits, the embedding's start, the alignment
// figure) is tools/d2l/train/nli_setup.h.
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
// The exercises (15.5 ex. 1: --grid or the size options; ex. 2 and 3: --ex N) are in
// chapters/exercises/natural_language_inference_attention.cpp; --list-exercises lists them.
// Run time: the program prints its estimate after the first 10 batches. The speed is the same
// per example on every data set (sentences are padded to 50 tokens), so the full SNLI split
// takes 549,367 x 4 / (examples/sec): see README.md for the figure measured on 2 cores. The
// shared export's 9.8k pairs x 4 epochs take about a minute; the bundled set's 6,000 pairs x
// 4 epochs about 45 s of CPU time.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "chapters/exercises/natural_language_inference_attention.h"
#include "core/nn/optim.h"
#include "core/shape.h"  // check
#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/train/nli_setup.h"
#include "tools/d2l/train/train_ch13.h"

using namespace d2l;

int main(int argc, char** argv) {
  CliArgs args("natural_language_inference_attention",
               "15.5 Natural Language Inference: Using Attention (sec_natural-language-inference-attention): "
               "decomposable attention on SNLI.");
  const NliOptions options(args);
  return run_chapter(args, argc, argv, [&](const std::string& out) {
    check(args.get_string("premise").empty() == args.get_string("hypothesis").empty(),
          "natural_language_inference_attention", "--premise and --hypothesis go together");
    const int64_t ex = args.get_int("ex");

    // ------------------------------------------------------------------------------------
    print_banner("读取数据集 / Reading the Dataset");
    const int64_t batch_size = args.get_int("batch-size"), num_steps = 50;
    const SNLISource source = resolve_snli_data(args.get_string("data"));
    std::cout << "data: " << source.description << "\n";
    SnliSplits snli = load_snli_splits(source, batch_size, num_steps, options.quick());
    SNLIDataLoader &train_iter = snli.train_iter, &test_iter = snli.test_iter;
    const Vocab& vocab = snli.vocab();

    // ------------------------------------------------------------------------------------
    print_banner("创建模型 / Creating the Model");
    const int64_t embed_size = args.get_int("embed-size"), num_hiddens = args.get_int("num-hiddens");
    // The book copies GloVe into the embedding; the bundled set brings its own vectors.
    const std::string embeddings = options.embeddings(source);
    refuse_save_over(args, {{"--data's training split", source.train_path},
                            {"--data's test split", source.test_path},
                            {"--embeddings", embeddings},
                            {"the training figure", out + "/train_ch13.png"},
                            {"the alignment figure", out + "/alignment.png"},
                            {"--premise's alignment figure", out + "/alignment_cli.png"}});
    const int64_t num_epochs = options.num_epochs();
    const float lr = args.get_float("lr");
    if (ex == 3)  // 15.5 ex. 3
      return similarity(args, vocab, train_iter, test_iter, snli.test_data, num_epochs, embeddings);
    if (args.get_flag("grid"))  // 15.5 ex. 1
      return run_grid(args, vocab, train_iter, test_iter, embed_size, num_epochs, embeddings, source.train_path, out);
    // The book: net = DecomposableAttention(vocab, embed_size, num_hiddens), its embedding
    // copied from GloVe.
    const std::unique_ptr<DecomposableAttention> net_ptr = make_net(
        vocab, embed_size, num_hiddens, args.get_flag("mask-pad"), embeddings, args.given("embeddings"), source.train_path);
    DecomposableAttention& net = *net_ptr;
    Checkpoint checkpoint = options.checkpoint(net, vocab, num_steps, static_cast<int64_t>(snli.train_data.labels.size()));
    options.load_if_given(net, checkpoint);

    // ------------------------------------------------------------------------------------
    print_banner("训练和评估模型 / Training and Evaluating the Model");
    std::printf("cpu: %s\n", openmp_settings().c_str());
    check(num_epochs > 0 || args.get_string("resume").empty(), "natural_language_inference_attention",
          "--resume continues a training: give --epochs more than the file's epochs");
    Adam trainer(net.parameters(), lr);
    if (num_epochs > 0) {
      // Beyond the book: the size of the run up front (the full SNLI split runs for hours on
      // a CPU), and its time estimate after the first 10 batches.
      std::printf("training on %lld examples x %lld epochs = %lld examples, %lld batches of %lld per epoch\n",
                  static_cast<long long>(snli.train_set->size()), static_cast<long long>(num_epochs),
                  static_cast<long long>(snli.train_set->size() * num_epochs),
                  static_cast<long long>(train_iter.num_batches()), static_cast<long long>(batch_size));
      std::fflush(stdout);
      // With --resume the trainer continues from the file; after the last epoch it writes
      // --save, before its figure.
      const TrainCh13Result result = train_ch13(net, forward_of(net), train_iter, test_iter, trainer, num_epochs,
                                                out + "/train_ch13.png", &checkpoint, 10);
      std::printf("test acc by epoch:");  // beyond the book: the Animator's third curve
      for (float a : result.test_acc_by_epoch) std::printf(" %.3f", a);
      std::printf("\n");
    } else {
      std::printf("test acc %.3f (no training: --epochs 0)\n", evaluate_accuracy(net, forward_of(net), test_iter));
      checkpoint.save(net);  // --save: the loaded parameters (and the file's training state)
    }

    // ------------------------------------------------------------------------------------
    print_banner("使用模型 / Using the Model");
    predict_and_draw(net, vocab, {"he", "is", "good", "."}, {"he", "is", "bad", "."}, out + "/alignment.png", true);
    if (!args.get_string("premise").empty())
      predict_and_draw(net, vocab, split_words(split_punctuation(args.get_string("premise"))),
                       split_words(split_punctuation(args.get_string("hypothesis"))), out + "/alignment_cli.png",
                       false);
    if (ex == 2) word_order(net, vocab, snli.test_data, 200);
  }, ChapterDefaults{/*threads=*/0, /*passive_openmp_wait=*/true});  // two threads, big GEMMs: see cli_args.h
}
