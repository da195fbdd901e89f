// tools/d2l/data/glove.h — 14.7 词的相似性和类比任务 / Word Similarity and Analogy (sec_synonyms):
// the book's TokenEmbedding, which 15.5 (sec_natural-language-inference-attention) uses to
// start the embedding layer from 100-d GloVe vectors.
//
// Reads the GloVe text format, one `word v1 ... vd` per line, separated by single spaces
// (glove.6B.100d.txt; fastText's .vec files too, whose first line "count dim" is skipped
// as the book skips it). A UTF-8 byte-order mark before the first word and "\r\n" line ends
// are dropped. Index 0 is '<unk>' with the zero vector, so a token that is not
// in the file looks up zeros: the book's unknown_idx = 0. Plain floats, no Tensor: the
// chapter copies lookup(vocab.idx_to_token()) into its Embedding weight.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace d2l {

class TokenEmbedding {
 public:
  // Throws std::invalid_argument naming the file and line when a value is not a finite
  // number or a line's dimension differs from the first line's, and for a missing or
  // empty file.
  explicit TokenEmbedding(const std::string& path);

  int64_t size() const { return static_cast<int64_t>(idx_to_token.size()); }  // len(), with '<unk>'
  int64_t dim() const { return dim_; }

  // The book's __getitem__: (tokens.size(), dim()) row-major, one row per token; a token
  // not in the file gets the zero row of '<unk>'.
  std::vector<float> lookup(const std::vector<std::string>& tokens) const;

  std::vector<std::string> idx_to_token;  // idx_to_token[0] == "<unk>"
  std::vector<float> idx_to_vec;          // (size(), dim()) row-major; row 0 all zeros
  std::unordered_map<std::string, int64_t> token_to_idx;
  static constexpr int64_t unknown_idx = 0;

 private:
  int64_t dim_ = 0;
};

}  // namespace d2l
