// tests/fuzz/fuzz_nmt.cpp — the fra-eng pipeline on arbitrary bytes: read_data_nmt (UTF-8
// check), preprocess_nmt, tokenize_nmt, then the vocabularies and arrays load_data_nmt builds.
// Bad input may only throw std::invalid_argument; a result must satisfy the shapes nmt_data.h
// promises.
#include <stdexcept>

#include "tests/fuzz/fuzz_util.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = d2l_fuzz::write_scratch("nmt", data, size);
  try {
    const std::string text = d2l::read_data_nmt(path);
    const std::string pre = d2l::preprocess_nmt(text);
    // Lower-casing and the no-space rule keep valid UTF-8 valid (throws if not: a crash here).
    d2l::validate_utf8(pre, "<preprocessed>", 1);
    const d2l::TokenizedNmt tok = d2l::tokenize_nmt(pre, 0, path);
    D2L_FUZZ_CHECK(!tok.source.empty() && tok.source.size() == tok.target.size());
    // "\r\n" and lone "\r" line ends and a leading byte-order mark never reach a token.
    D2L_FUZZ_CHECK(text.find('\r') == std::string::npos && text.compare(0, 3, "\xEF\xBB\xBF") != 0);
    for (const auto* side : {&tok.source, &tok.target})
      for (const auto& line : *side) {
        bool word = false;
        for (const std::string& t : line) word = word || !t.empty();
        D2L_FUZZ_CHECK(word);  // a side without a word is refused
      }
    const std::vector<std::string> reserved = {"<pad>", "<bos>", "<eos>"};
    const d2l::Vocab src_vocab(tok.source, 2, reserved);
    const int64_t num_steps = 4;
    const d2l::NmtArray src = d2l::build_array_nmt(tok.source, src_vocab, num_steps);
    D2L_FUZZ_CHECK(src.rows() == static_cast<int64_t>(tok.source.size()));
    D2L_FUZZ_CHECK(src.array.size() == tok.source.size() * num_steps);
    for (int64_t v : src.valid_len) D2L_FUZZ_CHECK(v >= 0 && v <= num_steps);  // a literal "<pad>" token counts as padding
    for (int64_t id : src.array) D2L_FUZZ_CHECK(id >= 0 && id < src_vocab.size());
  } catch (const std::invalid_argument&) {
    // the documented response to a malformed file
  }
  return 0;
}
