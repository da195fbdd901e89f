// tests/fuzz/fuzz_safetensors.cpp — the safetensors reader (core/io/safetensors.h) on arbitrary
// bytes. Bad input may only throw std::runtime_error; what it accepts must be sound: every
// tensor's values are exactly shape's product, all of them came from the input, and the
// file written back from them reads back to the same tensors and metadata.
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/io/safetensors.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const d2l::SafetensorsFile f = d2l::parse_safetensors(bytes, "<fuzz>");
    size_t total = 0;
    for (const d2l::SafetensorsTensor& t : f.tensors) {
      size_t count = 1;
      for (int64_t d : t.shape) {
        D2L_FUZZ_CHECK(d >= 0);
        count *= static_cast<size_t>(d);
      }
      D2L_FUZZ_CHECK(t.values.size() == count);
      total += count * (t.dtype == "F64" ? 8 : t.dtype == "F32" ? 4 : 2);
    }
    D2L_FUZZ_CHECK(total + 8 <= size);  // every value came from the input
    // Written back as F32 and read again: the same names, shapes and bits.
    const d2l::SafetensorsFile g = d2l::parse_safetensors(d2l::format_safetensors(f.tensors, f.metadata), "<again>");
    D2L_FUZZ_CHECK(g.metadata == f.metadata && g.tensors.size() == f.tensors.size());
    for (size_t i = 0; i < f.tensors.size(); ++i) {
      D2L_FUZZ_CHECK(g.tensors[i].name == f.tensors[i].name && g.tensors[i].shape == f.tensors[i].shape);
      D2L_FUZZ_CHECK(g.tensors[i].values.size() == f.tensors[i].values.size());
      if (!f.tensors[i].values.empty())
        D2L_FUZZ_CHECK(std::memcmp(g.tensors[i].values.data(), f.tensors[i].values.data(),
                                   4 * f.tensors[i].values.size()) == 0);
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
