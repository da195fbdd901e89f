// tests/fuzz/fuzz_param_file.cpp — Module::load of a Linear(3, 2) from arbitrary bytes.
//
// The file ends in an FNV-1a checksum, which random bytes almost never match, so the first
// input byte picks a mode: odd, the rest is a file body and the harness appends its correct
// checksum (the fuzzer then explores the header, names, shapes and sizes); even, the rest is
// the whole file as given. Invariants: a failed load throws std::runtime_error and leaves
// every parameter bit for bit as it was; a load that succeeds read a file that save() writes
// back byte for byte.
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/random.h"
#include "layers/basic.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

uint64_t fnv1a(const std::string& s) {  // as core/module.cpp computes it
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::vector<float> snapshot(const d2l::Module& m) {
  std::vector<float> v;
  for (const d2l::Tensor& t : m.parameters()) v.insert(v.end(), t.data(), t.data() + t.numel());
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static d2l::Linear* net = [] {
    d2l::manual_seed(0);
    return new d2l::Linear(3, 2);  // lives for the whole run
  }();
  if (size == 0) return 0;
  std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    const uint64_t h = fnv1a(file);
    file.append(reinterpret_cast<const char*>(&h), sizeof h);
  }
  const std::string path = d2l_fuzz::write_scratch("param", reinterpret_cast<const uint8_t*>(file.data()), file.size());
  const std::vector<float> before = snapshot(*net);
  try {
    net->load(path);
  } catch (const std::runtime_error&) {
    const std::vector<float> after = snapshot(*net);
    D2L_FUZZ_CHECK(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)) == 0);
    return 0;
  }
  const std::string again = d2l_fuzz::scratch_path("param_saved");
  net->save(again);
  D2L_FUZZ_CHECK(slurp(again) == file);
  return 0;
}
