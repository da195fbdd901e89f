// tools/d2l/train/nli_setup.h — what 15.5's program (chapters/natural_language_inference_attention.cpp)
// sets up around the book's code: its options, the SNLI splits (--quick's shorter ones), the
// model with its embedding started from word vectors, the batch forward for train_ch13, and
// the prediction with its alignment drawn.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_ch13.h"

namespace d2l {

// 15.5's options: --epochs, --batch-size, --data DIR, --embeddings FILE, --embed-size,
// --num-hiddens, --lr (15.5 ex. 1's sizes), --mask-pad, --premise/--hypothesis, --quick, and
// the resumable checkpoint family, whose --load starts the training from the file (--epochs
// 0: only predict).
class NliOptions : public CheckpointOptions {
 public:
  explicit NliOptions(CliArgs& args);

  bool quick() const;
  int64_t num_epochs() const;  // --epochs; with --quick at most 1; with --load and no --epochs, 0
  // --load FILE: CheckpointOptions::load_if_given, saying "(training skipped)" when it is.
  bool load_if_given(Module& net, Checkpoint& checkpoint) const;
  // The word vectors to start the embedding from: --embeddings when given ("" for the random
  // init), else the data's own (SNLISource::embeddings).
  std::string embeddings(const SNLISource& source) const;
  // The classifier's checkpoint: the model's settings (sizes, <pad> masking, the vocabulary's
  // fingerprint) and the run's (batch size, lr, training pairs); the vocabulary's tokens go
  // into a .safetensors file's metadata.
  Checkpoint checkpoint(const DecomposableAttention& net, const Vocab& vocab, int64_t num_steps,
                        int64_t train_pairs) const;

 private:
  const CliArgs& args_;
};

// The book's load_data_snli(batch_size, num_steps) in two steps, so that --quick can keep the
// first 1024 training and 512 test pairs of each split as the file orders them.
struct SnliSplits {
  SNLIData train_data, test_data;
  std::shared_ptr<const SNLIDataset> train_set, test_set;
  SNLIDataLoader train_iter, test_iter;
  const Vocab& vocab() const { return train_set->vocab; }
};
SnliSplits load_snli_splits(const SNLISource& source, int64_t batch_size, int64_t num_steps, bool quick);

// A sentence's words, split at spaces.
std::vector<std::string> split_words(const std::string& s);

// The book's net = DecomposableAttention(vocab, embed_size, num_hiddens): the MLPs' input
// sizes follow from the two sizes (attend reads an embedding, compare an embedding and its
// aligned partner, aggregate both comparisons' sums). Starts the embedding from the word
// vectors in `embeddings` when they have embed_size dimensions (the book's copy of GloVe);
// other vectors are an error when named by --embeddings (must_match), else skipped (the
// bundled set's own vectors with another --embed-size). Prints the model's size and where
// its embedding starts.
std::unique_ptr<DecomposableAttention> make_net(const Vocab& vocab, int64_t embed_size, int64_t num_hiddens,
                                                bool mask_pad, const std::string& embeddings, bool must_match,
                                                const std::string& train_path);

// The model reads a batch as net(premises, hypotheses), each (batch_size, num_steps).
BatchForward forward_of(DecomposableAttention& net);

// predict_snli, printed as the notebook shows the returned str ('contradiction'; a pair not
// the book's with its call), then the alignment the prediction used drawn to `path`:
// β (m, n) and αᵀ (m, n), both panels premise × hypothesis.
void predict_and_draw(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                      const std::vector<std::string>& hypothesis, const std::string& path, bool book_example);

}  // namespace d2l
