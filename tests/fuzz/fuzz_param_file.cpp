// tests/fuzz/fuzz_param_file.cpp — read_param_file for a Linear(3, 2) from arbitrary bytes:
// the header, the settings block, the parameters and the training section (Adam's moments,
// the generator, the curves) of core/io/param_file.h.
//
// The file ends in an FNV-1a checksum, which random bytes almost never match, so the first
// input byte picks the mode. Bit 0 set: the rest is a file body and the harness appends its
// correct checksum (the fuzzer then explores everything after the header); clear: the rest
// is the whole file as given. Bit 1 set: the loading run expects the settings
// model=linear, in=3 (else none). Invariants: a failed read throws std::runtime_error and
// changes no parameter; a file that reads is one that save_param_file writes back byte for
// byte (with the settings and the training state read), its training state is accepted by
// an Adam over the model's parameters, and its generator state by set_rng_state.
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/nn/optim.h"
#include "core/io/param_file.h"
#include "core/random.h"
#include "core/nn/basic.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

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
    const uint64_t h = d2l::fnv1a64(file.data(), file.size());
    file.append(reinterpret_cast<const char*>(&h), sizeof h);
  }
  const d2l::ModelSettings settings =
      (data[0] & 2) ? d2l::ModelSettings{{"model", "linear"}, {"in", "3"}} : d2l::ModelSettings{};
  const std::string path = d2l_fuzz::write_scratch("param", reinterpret_cast<const uint8_t*>(file.data()), file.size());
  const std::vector<float> before = snapshot(*net);
  d2l::ParamFileContents contents;
  try {
    contents = d2l::read_param_file(path, *net, settings);
  } catch (const std::runtime_error&) {
    const std::vector<float> after = snapshot(*net);
    D2L_FUZZ_CHECK(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)) == 0);
    return 0;
  }
  D2L_FUZZ_CHECK(contents.settings == settings);
  d2l::copy_parameters(contents, *net);
  const std::string again = d2l_fuzz::scratch_path("param_saved");
  d2l::save_param_file(again, *net, settings, contents.training ? &*contents.training : nullptr);
  D2L_FUZZ_CHECK(slurp(again) == file);
  if (contents.training) {
    const d2l::AdamState& s = contents.training->optimizer;
    d2l::Adam adam(net->parameters(), s.lr, s.beta1, s.beta2, s.eps, s.weight_decay);
    adam.load_state(s);  // must not throw: the reader checked every size
    d2l::set_rng_state(contents.training->rng);
  }
  return 0;
}
