// tools/d2l/data/vocab.h — 8.2 文本预处理 / Text Preprocessing (sec_text_preprocessing): Vocab.
//
// The book's d2l.Vocab maps tokens to indices: index 0 is '<unk>', then the reserved
// tokens in the order given, then every token seen at least min_freq times, most
// frequent first. Ties keep first-seen order, because the book sorts the items of a
// collections.Counter (insertion-ordered) with Python's stable sorted(). Tokens never
// seen, or cut by min_freq, map to unk() = 0.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace d2l {

class Vocab {
 public:
  // tokens: one list of tokens per line (the book's 2-D list). Reserved tokens must be
  // distinct and must not be '<unk>' (the book would silently give them two indices).
  explicit Vocab(const std::vector<std::vector<std::string>>& tokens = {}, int64_t min_freq = 0,
                 const std::vector<std::string>& reserved_tokens = {});

  int64_t size() const { return static_cast<int64_t>(idx_to_token_.size()); }  // len(vocab)
  int64_t operator[](const std::string& token) const;                           // unk() if absent
  std::vector<int64_t> operator[](const std::vector<std::string>& tokens) const;
  const std::string& to_tokens(int64_t index) const;
  std::vector<std::string> to_tokens(const std::vector<int64_t>& indices) const;
  int64_t unk() const { return 0; }

  // (token, count) pairs, most frequent first, ties in first-seen order (the book's
  // token_freqs), including tokens cut by min_freq.
  const std::vector<std::pair<std::string, int64_t>>& token_freqs() const { return token_freqs_; }
  const std::vector<std::string>& idx_to_token() const { return idx_to_token_; }

 private:
  std::vector<std::pair<std::string, int64_t>> token_freqs_;
  std::vector<std::string> idx_to_token_;
  std::unordered_map<std::string, int64_t> token_to_idx_;
};

// The book's torch.tensor(vocab[tokens]).reshape((1, -1)) (15.5 predict_snli): the tokens'
// ids as one row, a (1, n) tensor of float ids as the layers read them.
Tensor token_row(const Vocab& vocab, const std::vector<std::string>& tokens);

}  // namespace d2l
