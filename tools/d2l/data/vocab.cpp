// tools/d2l/data/vocab.cpp — the book's Vocab (sec_text_preprocessing), see vocab.h.
#include "tools/d2l/data/vocab.h"

#include <algorithm>

#include "core/shape.h"  // check

namespace d2l {

Vocab::Vocab(const std::vector<std::vector<std::string>>& tokens, int64_t min_freq,
             const std::vector<std::string>& reserved_tokens) {
  // count_corpus: a Counter over the flattened lines. Python's Counter remembers the
  // order in which keys were first inserted; we keep that order in token_freqs_ and
  // the position of each token in `first_seen`.
  std::unordered_map<std::string, int64_t> first_seen;
  for (const auto& line : tokens)
    for (const auto& token : line) {
      auto it = first_seen.find(token);
      if (it == first_seen.end()) {
        first_seen.emplace(token, static_cast<int64_t>(token_freqs_.size()));
        token_freqs_.emplace_back(token, 1);
      } else {
        ++token_freqs_[it->second].second;
      }
    }
  // sorted(..., key=freq, reverse=True) is stable: equal counts stay in first-seen order.
  std::stable_sort(token_freqs_.begin(), token_freqs_.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  auto add = [this](const std::string& token) {
    token_to_idx_.emplace(token, size());
    idx_to_token_.push_back(token);
  };
  add("<unk>");
  for (const auto& token : reserved_tokens) {
    check(token_to_idx_.count(token) == 0, "Vocab", "reserved token '", token,
          "' is '<unk>' or listed twice");
    add(token);
  }
  // A reserved token that also occurs in the corpus keeps its reserved index.
  for (const auto& [token, freq] : token_freqs_)
    if (freq >= min_freq && token_to_idx_.count(token) == 0) add(token);
}

int64_t Vocab::operator[](const std::string& token) const {
  auto it = token_to_idx_.find(token);
  return it == token_to_idx_.end() ? unk() : it->second;
}

std::vector<int64_t> Vocab::operator[](const std::vector<std::string>& tokens) const {
  std::vector<int64_t> indices;
  indices.reserve(tokens.size());
  for (const auto& token : tokens) indices.push_back((*this)[token]);
  return indices;
}

const std::string& Vocab::to_tokens(int64_t index) const {
  check(index >= 0 && index < size(), "Vocab::to_tokens", "index ", index, " out of range [0, ",
        size(), ")");
  return idx_to_token_[static_cast<size_t>(index)];
}

std::vector<std::string> Vocab::to_tokens(const std::vector<int64_t>& indices) const {
  std::vector<std::string> tokens;
  tokens.reserve(indices.size());
  for (int64_t index : indices) tokens.push_back(to_tokens(index));
  return tokens;
}

Tensor token_row(const Vocab& vocab, const std::vector<std::string>& tokens) {
  const std::vector<int64_t> ids = vocab[tokens];
  Tensor row = empty({1, static_cast<int64_t>(ids.size())});
  for (size_t i = 0; i < ids.size(); ++i) row.data()[i] = static_cast<float>(ids[i]);
  return row;
}

}  // namespace d2l
