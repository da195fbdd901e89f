// tests/fuzz/fuzz_heatmap.h — what both heatmap readers' fuzz targets check of a grid read from
// arbitrary bytes: show_heatmaps lays it out with one axes per matrix.
#pragma once
#include <cstdint>

#include "tests/fuzz/fuzz_util.h"
#include "tools/d2l/figures/figures.h"

namespace d2l_fuzz {

inline void check_heatmap_layout(const d2l::HeatmapGrid& grid) {
  d2l::HeatmapOptions opt;
  opt.dpi = 20;  // a small canvas: the layout, not the pixels, is under test
  const d2l::HeatmapLayout layout = d2l::heatmap_layout(grid, opt);
  D2L_FUZZ_CHECK(static_cast<int64_t>(layout.axes.size()) == grid.rows * grid.cols);
}

}  // namespace d2l_fuzz
