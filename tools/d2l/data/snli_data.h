// tools/d2l/data/snli_data.h — 15.4 自然语言推断与数据集 / Natural Language Inference and the Dataset
// (sec_natural-language-inference-and-dataset): read_snli, SNLIDataset, load_data_snli.
//
// The book reads the official SNLI 1.0 files and hands (premise, hypothesis, label) index
// tensors to a DataLoader. Here everything is plain C++ (std::vector<int64_t>, row-major
// (batch_size, num_steps)) so the chapter program builds its tensors from one batch at a
// time. Labels are the book's: 0 entailment, 1 contradiction, 2 neutral.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/d2l/data/data_root.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

// The book's three lists, one entry per sentence pair. Sentences are tokens joined by
// single spaces, as the book's extract_text leaves them.
struct SNLIData {
  std::vector<std::string> premises, hypotheses;
  std::vector<int64_t> labels;  // 0 entailment, 1 contradiction, 2 neutral
};

// Reads one split. path_or_dir is a file, or a directory holding snli_1.0_train.txt /
// snli_1.0_test.txt (the book's layout; is_train picks one). The format is chosen by the
// header row, never by the file name:
//  (a) the official SNLI 1.0 text file: columns gold_label, sentence1_binary_parse,
//      sentence2_binary_parse, ...; sentences from the binary parses with the brackets
//      removed; rows whose gold_label is '-' (no annotator majority) are dropped;
//  (b) the simple export `premise<TAB>hypothesis<TAB>label` (labels 0 entailment,
//      1 neutral, 2 contradiction, remapped to the book's numbering; -1, the export's
//      spelling of '-', is dropped); fields may be CSV-quoted, and the raw sentences are
//      tokenised with split_punctuation so they look like the parser-tokenised ones.
// Throws std::invalid_argument naming the file and line for a malformed row (wrong
// column count, unknown label, invalid UTF-8, bad quoting), and for an empty split.
SNLIData read_snli(const std::string& path_or_dir, bool is_train);

// Tokenises one raw English sentence the way SNLI's parser did, returning the tokens
// joined by single spaces: "A man's dog runs." -> "A man 's dog runs ." See snli_data.cpp.
std::string split_punctuation(const std::string& sentence);

// d2l.tokenize(lines, token='word'): Python's line.split(), case kept.
std::vector<std::vector<std::string>> tokenize_words(const std::vector<std::string>& lines);

// The book's SNLIDataset: the vocabulary of the training split (premises and hypotheses,
// min_freq 5, reserved '<pad>'), or the one given (the test split reuses the training
// vocabulary), and every sentence as num_steps indices, truncated or padded with '<pad>'.
// Prints "read N examples" as the book does.
class SNLIDataset {
 public:
  SNLIDataset(const SNLIData& dataset, int64_t num_steps, const Vocab* vocab = nullptr);

  int64_t size() const { return static_cast<int64_t>(labels.size()); }  // len(dataset)

  int64_t num_steps;
  Vocab vocab;
  std::vector<int64_t> premises, hypotheses;  // (size(), num_steps), row-major
  std::vector<int64_t> labels;                // (size(),)
};

// One minibatch: X[0] = premises, X[1] = hypotheses, Y = labels (the book's (X, Y)).
struct SNLIBatch {
  int64_t batch_size = 0, num_steps = 0;
  std::vector<int64_t> premises, hypotheses;  // (batch_size, num_steps), row-major
  std::vector<int64_t> labels;                // (batch_size,)
};

// Draws an integer uniform in [0, n): d2l::random_int (core/random.h) by default.
using RandomInt = std::function<int64_t(int64_t)>;

// torch.utils.data.DataLoader(dataset, batch_size, shuffle): the last batch may be
// smaller. With shuffle, start_epoch() draws a new order (Fisher–Yates with random_int),
// so the order follows d2l::manual_seed; without it, batches keep the file order.
class SNLIDataLoader {
 public:
  SNLIDataLoader(std::shared_ptr<const SNLIDataset> dataset, int64_t batch_size, bool shuffle,
                 RandomInt random_int = {});
  void start_epoch();  // call once before each pass over the batches
  int64_t num_batches() const;
  SNLIBatch batch(int64_t i) const;  // i in [0, num_batches())
  const SNLIDataset& dataset() const { return *dataset_; }
  const std::vector<int64_t>& order() const { return order_; }  // example indices of this epoch

 private:
  std::shared_ptr<const SNLIDataset> dataset_;
  int64_t batch_size_;
  bool shuffle_;
  RandomInt random_int_;
  std::vector<int64_t> order_;
};

// Where the data comes from: the command line first, then the downloaded data set, then
// the small set bundled with the repository (so every program runs offline).
struct SNLISource {
  std::string train_path, test_path;
  std::string description;  // one line for the program to print
  // Word vectors that go with the data (GloVe's text format): with `make data`'s SNLI, the
  // book's <root>/data/glove.6B.100d/vec.txt when it is there; with the bundled set its own
  // vectors.txt, which stands in for GloVe; empty for every other source.
  std::string embeddings;
};

// --data DIR (holding snli_1.0_train.txt + snli_1.0_test.txt, or train.tsv + test.tsv, or
// the shared export's validation.tsv + test.tsv, which trains on the dev split because the
// 550k-pair train split is not available offline); else <root>/data/snli_1.0/ (written by
// `make data`, with <root>/data/glove.6B.100d/vec.txt as `embeddings` when present: the
// book's full setting); else the bundled <root>/chapters/data/snli-small/ (with its
// vectors.txt as `embeddings`). cli_dir "" = no flag.
SNLISource resolve_snli_data(const std::string& cli_dir, const std::string& root = data_root());

// The book's load_data_snli on a given source: train_iter (shuffled), test_iter (in order)
// and the training vocabulary. A program's load_data_snli(batch_size, num_steps), which
// finds the source from its options, is 15.5's (tools/d2l/train/nli_setup.h).
struct SNLILoaders {
  SNLIDataLoader train_iter, test_iter;
  Vocab vocab;
};
SNLILoaders load_data_snli(int64_t batch_size, int64_t num_steps, const SNLISource& source,
                           RandomInt random_int = {});

}  // namespace d2l
