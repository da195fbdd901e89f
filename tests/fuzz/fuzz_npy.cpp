// tests/fuzz/fuzz_npy.cpp — the .npy reader (tools/d2l/figures/npy.h) on arbitrary bytes, then the
// matrices in show_heatmaps' layout and the layout it would draw. Bad input may only throw
// std::runtime_error (the reader's and heatmap_grid's errors) or std::invalid_argument
// (show_heatmaps' checks); the reader must never allocate for data that is not there.
#include <sstream>
#include <stdexcept>
#include <string>

#include "tests/fuzz/fuzz_heatmap.h"
#include "tests/fuzz/fuzz_util.h"
#include "tools/d2l/figures/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    d2l::NpyArray a = d2l::read_npy(in, "<fuzz>");
    size_t count = 1;
    for (int64_t d : a.shape) {
      D2L_FUZZ_CHECK(d >= 0);
      count *= static_cast<size_t>(d);
    }
    D2L_FUZZ_CHECK(a.values.size() == count);
    D2L_FUZZ_CHECK(a.values.size() * (a.descr[2] == '4' ? 4 : 8) < size);  // every value came from the input
    D2L_FUZZ_CHECK(a.major_version >= 1 && a.major_version <= 3);
    const d2l::HeatmapGrid grid = d2l::heatmap_grid(a.shape, std::move(a.values), "<fuzz>");
    d2l_fuzz::check_heatmap_layout(grid);
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
