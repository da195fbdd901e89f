// tests/fuzz/fuzz_glove.cpp — TokenEmbedding (the GloVe / fastText text reader) on arbitrary
// bytes. Bad input may only throw std::invalid_argument; a table that loads must be
// rectangular, finite, with '<unk>' the zero row 0, and lookup must agree with it.
#include <cmath>
#include <stdexcept>

#include "tests/fuzz/fuzz_util.h"
#include "tools/d2l/data/glove.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = d2l_fuzz::write_scratch("glove", data, size);
  try {
    const d2l::TokenEmbedding e(path);
    const int64_t d = e.dim();
    D2L_FUZZ_CHECK(d >= 1 && e.size() >= 2 && e.idx_to_token[0] == "<unk>");
    D2L_FUZZ_CHECK(static_cast<int64_t>(e.idx_to_vec.size()) == e.size() * d);
    for (int64_t k = 0; k < d; ++k) D2L_FUZZ_CHECK(e.idx_to_vec[k] == 0.0f);
    for (float v : e.idx_to_vec) D2L_FUZZ_CHECK(std::isfinite(v));
    // Neither a byte-order mark nor a carriage return sticks to a word.
    D2L_FUZZ_CHECK(e.idx_to_token[1].compare(0, 3, "\xEF\xBB\xBF") != 0);
    for (const std::string& t : e.idx_to_token) D2L_FUZZ_CHECK(t.find('\r') == std::string::npos);
    const std::vector<std::string> probe = {e.idx_to_token.back(), "\x01no such token\x01"};
    const std::vector<float> rows = e.lookup(probe);
    D2L_FUZZ_CHECK(static_cast<int64_t>(rows.size()) == 2 * d);
    const int64_t last = e.token_to_idx.at(probe[0]);
    for (int64_t k = 0; k < d; ++k) {
      D2L_FUZZ_CHECK(rows[k] == e.idx_to_vec[last * d + k]);
      if (e.token_to_idx.count(probe[1]) == 0) D2L_FUZZ_CHECK(rows[d + k] == 0.0f);
    }
  } catch (const std::invalid_argument&) {
    // the documented response to a malformed file
  }
  return 0;
}
