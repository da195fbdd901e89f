// tests/fuzz/fuzz_heatmap_matrix.cpp — the heatmap tool's matrix reader (plain rows or a
// printed tensor) on arbitrary bytes, then the layout show_heatmaps would draw.
//
// The reader lives inside the tool (tools/cli/heatmap.cpp: parse_plain, parse_tensor in an
// anonymous namespace, no header), so this target compiles that file into itself with its
// main renamed, and repeats the tool's choice between the two forms. A reusable
// parse function in tools/ would make this unnecessary (reported in
// notes/reliability_findings.md). Bad input may only throw std::runtime_error (the tool's
// errors) or std::invalid_argument (show_heatmaps' checks).
#define main heatmap_cli_main
#include "tools/cli/heatmap.cpp"
#undef main

#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size), name = "<fuzz>";
  try {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return 0;  // the tool: "empty input"
    d2l::HeatmapGrid grid;
    if (text[first] == '[' || text.compare(first, 7, "tensor(") == 0) {
      grid = parse_tensor(text, name);
    } else {
      Matrices m = parse_plain(text, name);
      if (m.count == 0) return 0;  // the tool: "no numbers found"
      grid = {1, m.count, m.height, m.width, std::move(m.values)};
    }
    // (A line holding only \f or \v reads as a row of no values, a 1 x 0 matrix: not a crash,
    // heatmap_layout refuses it, but a confusing message; see notes/reliability_findings.md.)
    D2L_FUZZ_CHECK(static_cast<int64_t>(grid.values.size()) == grid.rows * grid.cols * grid.height * grid.width);
    d2l::HeatmapOptions opt;
    opt.dpi = 20;  // a small canvas: the layout, not the pixels, is under test
    const d2l::HeatmapLayout layout = d2l::heatmap_layout(grid, opt);
    D2L_FUZZ_CHECK(static_cast<int64_t>(layout.axes.size()) == grid.rows * grid.cols);
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
