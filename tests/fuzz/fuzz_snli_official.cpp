// tests/fuzz/fuzz_snli_official.cpp — read_snli on the official SNLI 1.0 layout. When the
// first byte is odd, the official header row is put in front of the rest, so the fuzzer
// spends its time on rows; otherwise the bytes are the whole file, header included.
#include "tests/fuzz/fuzz_snli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return d2l_fuzz::fuzz_snli(
      "snli_official", data, size,
      "gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
      "sentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n");
}
