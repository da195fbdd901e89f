// tests/fuzz/fuzz_snli.h — the body of both SNLI targets: read_snli (which picks the format by
// the header row), then split_punctuation's idempotence and SNLIDataset's shapes on the result.
#pragma once
#include <iostream>
#include <stdexcept>
#include <string>

#include "tests/fuzz/fuzz_util.h"
#include "tools/d2l/data/snli_data.h"

namespace d2l_fuzz {

// SNLIDataset prints "read N examples"; silence std::cout for one scope, even if it throws.
struct QuietCout {
  std::streambuf* old = std::cout.rdbuf(nullptr);
  ~QuietCout() {
    std::cout.rdbuf(old);
    std::cout.clear();
  }
};

inline int fuzz_snli(const char* tag, const uint8_t* data, size_t size, const std::string& header) {
  std::string bytes;
  if (size > 0 && (data[0] & 1)) bytes = header + std::string(reinterpret_cast<const char*>(data) + 1, size - 1);
  else bytes.assign(reinterpret_cast<const char*>(data), size);
  const std::string path = write_scratch(tag, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  try {
    const d2l::SNLIData d = d2l::read_snli(path, true);
    D2L_FUZZ_CHECK(!d.labels.empty());
    D2L_FUZZ_CHECK(d.premises.size() == d.labels.size() && d.hypotheses.size() == d.labels.size());
    for (int64_t y : d.labels) D2L_FUZZ_CHECK(y >= 0 && y < 3);
    // Already tokenised text comes back unchanged (snli_data.cpp's promise).
    for (const std::string& p : d.premises) {
      const std::string once = d2l::split_punctuation(p);
      D2L_FUZZ_CHECK(d2l::split_punctuation(once) == once);
    }
    const int64_t num_steps = 6;
    QuietCout quiet;
    const d2l::SNLIDataset set(d, num_steps);
    D2L_FUZZ_CHECK(set.premises.size() == d.labels.size() * num_steps);
    for (int64_t id : set.premises) D2L_FUZZ_CHECK(id >= 0 && id < set.vocab.size());
  } catch (const std::invalid_argument&) {
    // the documented response to a malformed file
  }
  return 0;
}

}  // namespace d2l_fuzz
