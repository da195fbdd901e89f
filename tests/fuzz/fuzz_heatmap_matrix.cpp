// tests/fuzz/fuzz_heatmap_matrix.cpp — the heatmap tool's matrix reader (plain rows or a
// printed tensor, tools/programs/heatmap/heatmap_text.h) on arbitrary bytes, then the layout show_heatmaps
// would draw. Bad input may only throw std::runtime_error (the reader's errors) or
// std::invalid_argument (show_heatmaps' checks).
#include <stdexcept>
#include <string>

#include "tests/fuzz/fuzz_heatmap.h"
#include "tests/fuzz/fuzz_util.h"
#include "tools/programs/heatmap/heatmap_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const d2l::HeatmapGrid grid = d2l::parse_heatmap_text(text, "<fuzz>");
    D2L_FUZZ_CHECK(grid.rows >= 1 && grid.cols >= 1 && grid.height >= 1 && grid.width >= 1);
    D2L_FUZZ_CHECK(static_cast<int64_t>(grid.values.size()) == grid.rows * grid.cols * grid.height * grid.width);
    d2l_fuzz::check_heatmap_layout(grid);
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
