// tests/fuzz/fuzz_snli_export.cpp — read_snli on the simple export premise<TAB>hypothesis<TAB>label
// (CSV-quoted fields, split_punctuation). When the first byte is odd, the export's header row
// is put in front of the rest; otherwise the bytes are the whole file.
#include "tests/fuzz/fuzz_snli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return d2l_fuzz::fuzz_snli("snli_export", data, size, "premise\thypothesis\tlabel\n");
}
