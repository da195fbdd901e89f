// tools/d2l/train/nli_setup.h — 15.5's run around the book's code
// (chapters/natural_language_inference_attention.cpp): the book's load_data_snli, its model
// with GloVe copied in and its train_ch13 as the program's options ask (tools/d2l/cli/run.h),
// each printing one line when an option changes the book's setting ("--epochs 2: 2 of the
// book's 4 epochs"); then what follows the book's code (the alignment figures, exercise 2).
// Outside a run (the tests) every function keeps the book's setting.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/optim.h"
#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_ch13.h"

namespace d2l {

// 15.5's options: --epochs, --batch-size, --data DIR, --embeddings FILE, --embed-size,
// --num-hiddens, --lr (15.5 ex. 1's sizes), --mask-pad, --premise/--hypothesis, --quick, and
// the resumable checkpoint family, whose --load starts the training from the file (--epochs
// 0: only predict).
void add_nli_options(CliArgs& args);

// The book's load_data_snli(batch_size, num_steps) in a run: --data (else data/snli_1.0/,
// else the bundled set; a line says which), --batch-size, and --quick's first 1024 training
// and 512 test pairs of each split as the file orders them.
SNLILoaders load_data_snli(int64_t batch_size, int64_t num_steps);

// What the run keeps of the data load_data_snli read: its source, the word vectors to start
// the embedding from (--embeddings when given, "" for the random init, else the data's own)
// and the test split's sentences (exercises 2 and 3 read them).
struct SnliRunData {
  SNLISource source;
  std::string embeddings;
  SNLIData test_data;
  Vocab vocab;  // the training split's
};
const SnliRunData& snli_run_data();  // after load_data_snli

// The book's net = DecomposableAttention(vocab, embed_size, num_hiddens) and its copy of
// GloVe into the embedding, in a run: --embed-size, --num-hiddens, --mask-pad (the pad-masked
// variant) and the run's word vectors; with --load, the parameters from the file (its
// settings must be this model's and vocabulary's). The run keeps the model, so what follows
// the book's code can use it.
DecomposableAttention& decomposable_attention(const Vocab& vocab, int64_t embed_size, int64_t num_hiddens);
DecomposableAttention& snli_run_net();  // the model decomposable_attention built

// The book's d2l.train_ch13(net, train_iter, test_iter, loss, trainer, num_epochs, devices)
// for 15.5 in a run: --epochs/--quick, --lr, --resume and --save (tools/d2l/train/checkpoint.h),
// beyond the book the size of the run and its time estimate, the test accuracy by epoch, and
// train_ch13.png; --epochs 0 only evaluates the loaded model.
void train_ch13(DecomposableAttention& net, SNLIDataLoader& train_iter, SNLIDataLoader& test_iter, Adam& trainer,
                int64_t num_epochs);

// In a run, after the book's code: the book's example's alignment (alignment.png), then
// --premise and --hypothesis's prediction and its alignment (alignment_cli.png).
void after_nli();

// The pieces exercises reuse --------------------------------------------------------------

// A sentence's words, split at spaces.
std::vector<std::string> split_words(const std::string& s);

// A model of the book's shape at these sizes (mask_pad: the pad-masked variant), its
// embedding started from the word vectors in `embeddings` when they have embed_size
// dimensions; other vectors are an error when named by --embeddings (must_match), else
// skipped. Prints the model's size and where its embedding starts.
std::unique_ptr<DecomposableAttention> make_net(const Vocab& vocab, int64_t embed_size, int64_t num_hiddens,
                                                bool mask_pad, const std::string& embeddings, bool must_match,
                                                const std::string& train_path);

// The model reads a batch as net(premises, hypotheses), each (batch_size, num_steps).
BatchForward forward_of(DecomposableAttention& net);

}  // namespace d2l
