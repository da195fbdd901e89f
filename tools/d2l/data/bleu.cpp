// tools/d2l/data/bleu.cpp — the book's bleu (sec_seq2seq, eq_bleu), see bleu.h.
#include "tools/d2l/data/bleu.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/shape.h"  // check
#include "tools/d2l/data/text.h"

namespace d2l {

double bleu(const std::string& pred_seq, const std::string& label_seq, int64_t k) {
  check(k >= 1, "bleu", "k (the longest n-gram) must be >= 1, got ", k);
  // str.split(' ') as in the book: "" is one empty token, so len_pred >= 1.
  const std::vector<std::string> pred = split(pred_seq, ' '), label = split(label_seq, ' ');
  const auto len_pred = static_cast<int64_t>(pred.size());
  const auto len_label = static_cast<int64_t>(label.size());
  // The book's loop reaches n = len_pred + 1 when len_pred < k and divides by
  // len_pred - n + 1 = 0 (ZeroDivisionError). Such a prediction has no k-gram at all,
  // so p_k = 0 is the natural value and the product, hence the score, is 0.
  if (len_pred < k) return 0.0;
  double score = std::exp(std::min(0.0, 1.0 - static_cast<double>(len_label) / len_pred));
  for (int64_t n = 1; n <= k; ++n) {
    // label_subs: how many of each label n-gram are still free to be matched (clipping).
    // An n-gram is keyed by its tokens, as the book's ' '.join is (tokens hold no ' ').
    std::map<std::vector<std::string>, int64_t> label_subs;
    for (int64_t i = 0; i + n <= len_label; ++i)
      ++label_subs[std::vector<std::string>(label.begin() + i, label.begin() + i + n)];
    int64_t num_matches = 0;
    for (int64_t i = 0; i + n <= len_pred; ++i) {
      auto it = label_subs.find(std::vector<std::string>(pred.begin() + i, pred.begin() + i + n));
      if (it != label_subs.end() && it->second > 0) {
        ++num_matches;
        --it->second;
      }
    }
    const double p_n = static_cast<double>(num_matches) / static_cast<double>(len_pred - n + 1);
    score *= std::pow(p_n, std::pow(0.5, static_cast<double>(n)));
  }
  return score;
}

}  // namespace d2l
