// tests/fuzz/fuzz_param_settings.cpp — parse_settings, the parser of a parameter file's
// settings blocks (core/io/param_file.h: the model's settings and a training run's), on
// arbitrary text. Bad input may only throw std::runtime_error; text that parses has unique
// keys, and format_settings gives back exactly the text.
#include <stdexcept>
#include <string>

#include "core/io/param_file.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  d2l::ModelSettings settings;
  try {
    settings = d2l::parse_settings(text);
  } catch (const std::runtime_error&) {
    return 0;  // the documented response to malformed text
  }
  for (size_t i = 0; i < settings.size(); ++i)
    for (size_t j = i + 1; j < settings.size(); ++j) D2L_FUZZ_CHECK(settings[i].first != settings[j].first);
  D2L_FUZZ_CHECK(d2l::format_settings(settings) == text);
  return 0;
}
