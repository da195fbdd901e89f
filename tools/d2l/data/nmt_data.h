// tools/d2l/data/nmt_data.h — 9.5 机器翻译与数据集 / Machine Translation and the Dataset
// (sec_machine_translation): the English–French pipeline the book builds and
// load_data_nmt, which chapters 9 and 10 train on.
//
//   read_data_nmt -> preprocess_nmt -> tokenize_nmt -> Vocab -> build_array_nmt -> batches
//
// Plain C++ containers only (no Tensor): ids are int64_t, stored row-major as
// (no. of sentence pairs, num_steps); the training loop turns each batch into tensors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "tools/d2l/data/data_root.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

using TokenLines = std::vector<std::vector<std::string>>;

// Where the fra-eng pairs come from, in this order: --data PATH; <root>/data/fra-eng/fra.txt
// (written by `make data`); the small corpus bundled with the repo,
// <root>/chapters/data/fra-eng-small.txt. `description` is what programs print after
// "using data: ". The root is the repository, found from any directory (data_root.h); when
// neither file is there the error names the directories tried and how to get the data.
struct DataSource {
  std::string path;
  std::string description;
};
DataSource resolve_nmt_data(const std::string& cli_path = "", const std::string& root = data_root());

// The whole file as one string, with a UTF-8 byte-order mark dropped and "\r\n" (or a lone
// "\r") turned into "\n" (text.h's normalize_text). A missing file throws, naming the path
// and how to get the data (`make data` or --data). Every line must be valid UTF-8 (error:
// file:line).
std::string read_data_nmt(const std::string& path);

// Lower-case (as Python's str.lower), U+202F and U+00A0 -> ' ', and a space before
// , . ! ? whenever the previous character is not a space (the book's no_space rule).
std::string preprocess_nmt(const std::string& text);

// Source and target token lists (space-split) of the tab-separated lines.
struct TokenizedNmt {
  TokenLines source, target;
};
// num_examples <= 0 means all lines. `file` only names the input in error messages. A line
// with a tab but no word on one side (e.g. a file of tabs) is an error naming file:line.
TokenizedNmt tokenize_nmt(const std::string& text, int64_t num_examples = 0,
                          const std::string& file = "<text>");

// The first num_steps tokens of `line`, or `line` padded with padding_token to num_steps.
std::vector<int64_t> truncate_pad(const std::vector<int64_t>& line, int64_t num_steps,
                                  int64_t padding_token);

// array: (N, num_steps) row-major ids of each line + '<eos>', truncated/padded;
// valid_len: (N,) number of entries that are not '<pad>' in each row.
struct NmtArray {
  std::vector<int64_t> array;
  std::vector<int64_t> valid_len;
  int64_t num_steps = 0;
  int64_t rows() const { return static_cast<int64_t>(valid_len.size()); }
};
NmtArray build_array_nmt(const TokenLines& lines, const Vocab& vocab, int64_t num_steps);

// One minibatch, as the book's `for X, X_valid_len, Y, Y_valid_len in train_iter`.
// X, Y: (batch_size, num_steps) row-major; the last batch of an epoch may be smaller.
struct NmtBatch {
  std::vector<int64_t> X, X_valid_len, Y, Y_valid_len;
  int64_t batch_size = 0, num_steps = 0;
};

// Uniform integer in [0, n): the shuffle's random source (default d2l::random_int).
using RandomInt = std::function<int64_t(int64_t)>;

struct NmtData {
  NmtArray src, tgt;
  Vocab src_vocab, tgt_vocab;
  int64_t batch_size = 0;
  std::string path;  // the file read
  // The book's d2l.load_array(..., is_train=True): a fresh shuffle of all pairs each
  // epoch (Fisher–Yates drawing from `random_int`), cut into batches of batch_size,
  // keeping the smaller last batch (DataLoader's drop_last=False).
  std::vector<NmtBatch> epoch_batches(const RandomInt& random_int = {}) const;
  // The batch holding rows order[begin, begin + count) (no shuffle): for tests and probes.
  NmtBatch gather(const std::vector<int64_t>& order, int64_t begin, int64_t count) const;
  // The book's `train_iter, src_vocab, tgt_vocab = load_data_nmt(...)`:
  //   auto [train_iter, src_vocab, tgt_vocab] = load_data_nmt(batch_size, num_steps);
  // binds the data itself (what train_seq2seq iterates) and its two vocabularies.
  template <size_t I>
  const auto& get() const {
    if constexpr (I == 0) return *this;
    else if constexpr (I == 1) return src_vocab;
    else return tgt_vocab;
  }
};

// The book's load_data_nmt(batch_size, num_steps, num_examples=600): vocabularies with
// min_freq 2 and reserved '<pad>' '<bos>' '<eos>', source and target arrays. Without a
// path: resolve_nmt_data()'s, or in a seq2seq program's run the run's (--data; see
// default_nmt_path).
NmtData load_data_nmt(int64_t batch_size, int64_t num_steps, int64_t num_examples = 600,
                      const std::string& path = "");

// What load_data_nmt reads when given no path: resolve_nmt_data().path unless a program's
// run set a function for it (tools/d2l/cli/seq2seq_run.h: --data, "using data: ...").
void set_default_nmt_path(std::function<std::string()> default_path);

}  // namespace d2l

// For the structured binding above.
namespace std {
template <>
struct tuple_size<d2l::NmtData> : integral_constant<size_t, 3> {};
template <size_t I>
struct tuple_element<I, d2l::NmtData> { using type = const d2l::Vocab; };
template <>
struct tuple_element<0, d2l::NmtData> { using type = const d2l::NmtData; };
}  // namespace std
