// tools/d2l/figures/token_names.h — what each position of a seq2seq heatmap stands for, for the
// cells' tooltips in the SVG figures (HeatmapOptions::xnames / ynames, tools/d2l/figures/figures.h),
// so a reader hovering over 10.4's or 10.7's attention reads the tokens.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace d2l {

// The sentence's words (split at spaces, as predict_seq2seq splits the source), then
// "<eos>", then "<pad>" up to n positions; cut to n: position_names("go .", 5) is
// {"go", ".", "<eos>", "<pad>", "<pad>"}.
inline std::vector<std::string> position_names(const std::string& sentence, int64_t n) {
  std::vector<std::string> names;
  std::string word;
  for (size_t i = 0; i <= sentence.size(); ++i) {
    if (i == sentence.size() || sentence[i] == ' ') {
      if (!word.empty()) names.push_back(word);
      word.clear();
    } else {
      word += sentence[i];
    }
  }
  names.push_back("<eos>");
  while (static_cast<int64_t>(names.size()) < n) names.push_back("<pad>");
  names.resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
  return names;
}

}  // namespace d2l
