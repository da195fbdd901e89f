// tests/test_tools_figures.cpp — tools/d2l/figures/ (figures.h, animator.h) and build/tools/heatmap: the
// PNGs are read back with stb_image and checked against matplotlib's facts (colormap
// anchors, MaxNLocator ticks, colour cycle) and the layout the code reports.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <cmath>
#include <limits>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/tensor.h"
#include "tests/test_util.h"
#include "tools/d2l/figures/animator.h"
#include "tools/d2l/figures/figures.h"

using d2l_test::message_has;
using d2l_test::run_capture;
using d2l_test::write_file;

namespace fs = std::filesystem;
using namespace d2l;

namespace {

// A scratch directory for this run, removed at exit.
const d2l_test::TempDir& scratch() {
  static const d2l_test::TempDir dir("figures");
  return dir;
}

struct Image {
  int width = 0, height = 0;
  std::shared_ptr<unsigned char> px;
  Rgb at(float x, float y) const {
    const int ix = static_cast<int>(x), iy = static_cast<int>(y);
    BOOST_REQUIRE(ix >= 0 && iy >= 0 && ix < width && iy < height);
    const unsigned char* p = px.get() + (static_cast<size_t>(iy) * width + ix) * 3;
    return {p[0], p[1], p[2]};
  }
};

Image load(const std::string& path) {
  Image im;
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &im.width, &im.height, &n, 3);
  BOOST_REQUIRE_MESSAGE(data != nullptr, "cannot read back " << path);
  im.px.reset(data, stbi_image_free);
  return im;
}

bool near(Rgb a, Rgb b, int tol = 2) {
  return std::abs(a.r - b.r) <= tol && std::abs(a.g - b.g) <= tol && std::abs(a.b - b.b) <= tol;
}
#define CHECK_COLOR(got, want, tol) \
  BOOST_CHECK_MESSAGE(near(got, want, tol), "got " << hex_str(got) << ", want " << hex_str(want))

// Pixels of text: dark grey to black (all text is black).
int dark_pixels(const Image& im, const Box& b) {
  int n = 0;
  for (int y = std::max(0, static_cast<int>(b.y0)); y < std::min(im.height, static_cast<int>(std::ceil(b.y1))); ++y)
    for (int x = std::max(0, static_cast<int>(b.x0)); x < std::min(im.width, static_cast<int>(std::ceil(b.x1))); ++x) {
      const Rgb c = im.at(x, y);
      n += c.r < 100 && c.g < 100 && c.b < 100;
    }
  return n;
}

HeatmapGrid eye_grid(int64_t n) {
  HeatmapGrid g{1, 1, n, n, std::vector<float>(n * n, 0.0f)};
  for (int64_t i = 0; i < n; ++i) g.values[i * n + i] = 1.0f;
  return g;
}

HeatmapOptions book_options() {
  HeatmapOptions opt;
  opt.xlabel = "Keys";
  opt.ylabel = "Queries";
  return opt;
}

std::string heatmap_tool() { return d2l_test::build_dir() + "/tools/heatmap"; }

// What an Animator printed into the temporary file `out`, line by line (newlines kept).
std::vector<std::string> lines_and_close(std::FILE* out) {
  std::rewind(out);
  std::vector<std::string> lines;
  char buf[512];
  while (std::fgets(buf, sizeof buf, out)) lines.push_back(buf);
  std::fclose(out);
  return lines;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_figures)

BOOST_AUTO_TEST_CASE(colormaps_match_matplotlib_anchors) {
  BOOST_CHECK(colormap("Reds", 0) == rgb_hex("#fff5f0"));
  BOOST_CHECK(colormap("Reds", 1) == rgb_hex("#67000d"));
  BOOST_CHECK(colormap("Blues", 0) == rgb_hex("#f7fbff"));
  BOOST_CHECK(colormap("Blues", 1) == rgb_hex("#08306b"));
  // t = 0.5 -> entry 128 -> 128/255 * 8 = 4.016, just past anchor 4 (#fb6a4a) toward 5
  // (#ef3b2c): r = 251 - 12 * 0.016 = 250.8, g = 106 - 47 * 0.016 = 105.3, b = 74 - 30 * 0.016 = 73.5.
  const Rgb mid = colormap("Reds", 0.5f);
  BOOST_CHECK_EQUAL(int(mid.r), 251);
  BOOST_CHECK_EQUAL(int(mid.g), 105);
  BOOST_CHECK_EQUAL(int(mid.b), 74);
  BOOST_CHECK_EXCEPTION(colormap("viridis", 0.5f), std::invalid_argument,
                        message_has({"[colormap]", "viridis", "Blues", "Reds"}));
}

BOOST_AUTO_TEST_CASE(ticks_follow_max_n_locator) {
  // An imshow axis over 10 cells spans [-0.5, 9.5]; at the book's 2.5-inch size matplotlib
  // shows 0 5 on x (3 bins) and 0 2 4 6 8 on y (5 bins).
  BOOST_CHECK(max_n_locator(-0.5, 9.5, 3, true) == (std::vector<double>{0, 5}));
  BOOST_CHECK(max_n_locator(-0.5, 9.5, 5, true) == (std::vector<double>{0, 2, 4, 6, 8}));
  BOOST_CHECK(max_n_locator(-0.5, 2.5, 9, true) == (std::vector<double>{0, 1, 2}));  // integers only
  const auto c = max_n_locator(0, 1, 4, false);                                      // 0.25 steps
  BOOST_REQUIRE_EQUAL(c.size(), 5u);
  BOOST_CHECK_CLOSE(c[1], 0.25, 1e-9);
  BOOST_CHECK(tick_labels({0, 0.25, 0.5}) == (std::vector<std::string>{"0.00", "0.25", "0.50"}));
  BOOST_CHECK(tick_labels({-1, 0, 1}) == (std::vector<std::string>{"\u22121", "0", "1"}));
  BOOST_CHECK(tick_labels({0, 0.1 + 0.2}) == (std::vector<std::string>{"0.0", "0.3"}));
}

BOOST_AUTO_TEST_CASE(canvas_coverage_and_strokes) {
  Canvas c(4, 2);
  c.fill_rect({1.5f, 0, 2.5f, 1}, {0, 0, 0});  // half of pixels (1,0) and (2,0)
  BOOST_CHECK_EQUAL(int(c.pixel(1, 0).r), 128);
  BOOST_CHECK_EQUAL(int(c.pixel(2, 0).r), 128);
  BOOST_CHECK_EQUAL(int(c.pixel(0, 0).r), 255);
  BOOST_CHECK_EQUAL(int(c.pixel(1, 1).r), 255);
  Mask m(0, 0, 10, 10);
  stroke_segment(m, 0, 5, 10, 5, 2, Cap::kButt);  // covers rows 4 and 5 fully
  BOOST_CHECK_CLOSE(m.at(5, 4), 1.0f, 1e-4);
  BOOST_CHECK_CLOSE(m.at(5, 5), 1.0f, 1e-4);
  BOOST_CHECK_SMALL(m.at(5, 3), 1e-6f);
}

BOOST_AUTO_TEST_CASE(image_size_is_figsize_times_dpi) {
  show_heatmaps(eye_grid(10), book_options(), scratch()("eye.png"));
  const Image im = load(scratch()("eye.png"));
  BOOST_CHECK_EQUAL(im.width, 500);  // 2.5 in × 200 dpi
  BOOST_CHECK_EQUAL(im.height, 500);
  HeatmapOptions opt = book_options();
  opt.figsize = {3, 2};
  opt.dpi = 100;
  show_heatmaps(eye_grid(10), opt, scratch()("small.png"));
  const Image s = load(scratch()("small.png"));
  BOOST_CHECK_EQUAL(s.width, 300);
  BOOST_CHECK_EQUAL(s.height, 200);
}

// record_figures: what plot() and show_heatmaps() were given, under the path each wrote, the
// last drawing to a path kept; nothing kept when not recording, and stopping forgets.
BOOST_AUTO_TEST_CASE(recorded_figures_keep_what_was_drawn) {
  const std::string path = scratch()("recorded.png"), map = scratch()("recorded_map.png");
  plot({{{0, 1}, {2, 3}, "-", "a", {}}}, PlotOptions{}, path);  // not recording: not kept
  record_figures(true);
  BOOST_CHECK_EXCEPTION(drawn_figure(path), std::out_of_range, message_has({"drawn_figure", "recorded.png"}));
  plot({{{0, 1}, {2, 3}, "-", "a", {}}}, PlotOptions{}, path);
  plot({{{0, 1, 2}, {4, 5, 6}, "-", "b", {}}, {{1}, {7}, "o", "", 0.5f}}, PlotOptions{}, path);  // replaces it
  show_heatmaps(eye_grid(3), book_options(), map);
  const DrawnFigure& d = drawn_figure(path);
  BOOST_REQUIRE_EQUAL(d.series.size(), 2u);
  BOOST_TEST(d.series[0].y == (std::vector<float>{4, 5, 6}));
  BOOST_TEST(d.series[0].label == "b");
  BOOST_TEST(d.series[1].x == (std::vector<float>{1}));
  BOOST_TEST(d.grid.values.empty());
  const DrawnFigure& m = drawn_figure(map);
  BOOST_TEST(m.series.empty());
  BOOST_TEST((m.grid.height == 3 && m.grid.width == 3));
  BOOST_TEST(m.grid.values == eye_grid(3).values);
  record_figures(false);
  BOOST_CHECK_THROW(drawn_figure(path), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(eye_heatmap_cells_and_colorbar) {
  const HeatmapGrid g = eye_grid(10);
  const HeatmapOptions opt = book_options();
  show_heatmaps(g, opt, scratch()("eye.png"));
  const Image im = load(scratch()("eye.png"));
  const HeatmapLayout L = heatmap_layout(g, opt);
  BOOST_REQUIRE_EQUAL(L.axes.size(), 1u);
  const Box& a = L.axes[0];
  auto cell = [&](int i, int j) { return im.at(a.x0 + (j + 0.5f) * L.cell, a.y0 + (i + 0.5f) * L.cell); };
  for (int i = 0; i < 10; ++i) CHECK_COLOR(cell(i, i), rgb_hex("#67000d"), 2);
  CHECK_COLOR(cell(0, 5), rgb_hex("#fff5f0"), 2);
  CHECK_COLOR(cell(7, 2), rgb_hex("#fff5f0"), 2);
  BOOST_CHECK_EQUAL(L.vmin, 0.0f);
  BOOST_CHECK_EQUAL(L.vmax, 1.0f);

  // The colorbar darkens channel by channel from bottom (0) to top (1); Reds' anchors are
  // non-increasing in r, g and b. Stay 3 pixels inside its frame.
  const Box& cb = L.colorbar;
  BOOST_REQUIRE(cb.height() > 20);
  Rgb prev = im.at(cb.cx(), cb.y1 - 3);
  CHECK_COLOR(prev, rgb_hex("#fff5f0"), 12);
  int changes = 0;
  for (float y = cb.y1 - 4; y >= cb.y0 + 3; y -= 1) {
    const Rgb c = im.at(cb.cx(), y);
    BOOST_CHECK_MESSAGE(c.r <= prev.r && c.g <= prev.g && c.b <= prev.b,
                        "colorbar not monotonic at y " << y << ": " << hex_str(prev) << " then " << hex_str(c));
    changes += !(c == prev);
    prev = c;
  }
  CHECK_COLOR(prev, rgb_hex("#67000d"), 12);
  BOOST_CHECK_GT(changes, 20);

  // Text where the layout says: labels, tick numbers of the colorbar.
  BOOST_CHECK_GT(dark_pixels(im, L.xlabels[0]), 30);
  BOOST_CHECK_GT(dark_pixels(im, L.ylabels[0]), 30);
  BOOST_CHECK_GT(dark_pixels(im, {cb.x1 + 2, cb.y0 - 20, static_cast<float>(im.width), cb.y1 + 20}), 30);
  // ... and none there when the labels are left out.
  HeatmapOptions bare = opt;
  bare.xlabel.clear();
  bare.ylabel.clear();
  show_heatmaps(g, bare, scratch()("bare.png"));
  const Image b = load(scratch()("bare.png"));
  const HeatmapLayout LB = heatmap_layout(g, bare);
  BOOST_CHECK(LB.xlabels[0].empty());
  // Below the tick numbers (tick 3.5 pt + pad 3.5 pt + a 10 pt line + 1.5 pt, at 200 dpi):
  // the x label's place in the first image, blank in the second.
  auto below_ticks = [](const HeatmapLayout& l, const Image& i) {
    const float skip = (3.5f + 3.5f + 10.0f + 1.5f) / 72 * 200;
    return Box{l.axes[0].x0, l.axes[0].y1 + skip, l.axes[0].x1, static_cast<float>(i.height)};
  };
  BOOST_CHECK_GT(dark_pixels(im, below_ticks(L, im)), 30);
  BOOST_CHECK_EQUAL(dark_pixels(b, below_ticks(LB, b)), 0);
}

BOOST_AUTO_TEST_CASE(grid_of_two_by_three_has_six_plot_areas) {
  HeatmapGrid g{2, 3, 4, 5, {}};
  for (int k = 0; k < 6; ++k)
    for (int e = 0; e < 20; ++e) g.values.push_back(static_cast<float>(k + 1));  // matrix k is all k+1
  HeatmapOptions opt = book_options();
  opt.titles = {"Head 1", "Head 2", "Head 3"};
  opt.figsize = {6, 3.5f};
  show_heatmaps(g, opt, scratch()("grid.png"));
  const Image im = load(scratch()("grid.png"));
  const HeatmapLayout L = heatmap_layout(g, opt);
  BOOST_REQUIRE_EQUAL(L.axes.size(), 6u);
  BOOST_REQUIRE_EQUAL(L.titles.size(), 6u);
  for (int k = 0; k < 6; ++k) {
    CHECK_COLOR(im.at(L.axes[k].cx(), L.axes[k].cy()), colormap("Reds", k / 5.0f), 2);
    BOOST_CHECK_GT(dark_pixels(im, L.titles[k]), 20);
  }
  // Along each row's middle, left of the colorbar: three separate non-white spans.
  for (int r = 0; r < 2; ++r) {
    int spans = 0;
    bool inside = false;
    // from just left of the first spine (past the y label and ticks)
    for (int x = static_cast<int>(L.axes[r * 3].x0) - 4; x < static_cast<int>(L.colorbar.x0) - 2; ++x) {
      const Rgb c = im.at(x, L.axes[r * 3].cy());
      const bool ink = c.r < 250 || c.g < 250 || c.b < 250;
      spans += ink && !inside;
      inside = ink;
    }
    BOOST_CHECK_EQUAL(spans, 3);
  }
  // x labels under the bottom row only, y labels left of the first column only.
  BOOST_CHECK_EQUAL(L.xlabels.size(), 3u);
  BOOST_CHECK_EQUAL(L.ylabels.size(), 2u);
  for (const Box& b : L.xlabels) BOOST_CHECK_GT(b.y0, L.axes[3].y1);
  for (const Box& b : L.ylabels) BOOST_CHECK_LT(b.x1, L.axes[0].x0);
}

// The Transformer's weights at 4 layers and 8 heads in the book's figsize (7, 3.5): the canvas
// grows until each panel's longer side is 0.6 inch, titles wider than a panel are
// shortened ("Head 3" -> "H3"), and no two titles or axis labels overlap (an axis label
// that would run into the next panel's is drawn once for the grid). The 2 x 4 default
// keeps its canvas and every label.
BOOST_AUTO_TEST_CASE(heatmap_many_panels_stay_readable) {
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  opt.figsize = {7.0f, 3.5f};
  for (int h = 1; h <= 8; ++h) opt.titles.push_back("Head " + std::to_string(h));
  const HeatmapGrid g{4, 8, 10, 10, std::vector<float>(4 * 8 * 100, 0.25f)};
  const HeatmapLayout L = heatmap_layout(g, opt);
  BOOST_TEST(L.width > 7 * 200);
  BOOST_TEST(L.axes[0].width() >= 0.98f * 0.6f * 200);
  // Grown, the panels hold "Head 3"; panels one column wide cannot, and get "H3".
  BOOST_TEST(L.title_text[2] == "Head 3");
  const HeatmapLayout N = heatmap_layout(HeatmapGrid{1, 8, 10, 1, std::vector<float>(80, 0.25f)}, opt);
  BOOST_TEST(N.title_text[2] == "H3");
  for (size_t k = 0; k + 1 < 8; ++k) BOOST_TEST(N.titles[k].x1 <= N.titles[k + 1].x0, k);
  auto apart_x = [](const Box& a, const Box& b) { return a.x1 <= b.x0 || b.x1 <= a.x0; };
  auto apart_y = [](const Box& a, const Box& b) { return a.y1 <= b.y0 || b.y1 <= a.y0; };
  for (size_t k = 0; k + 1 < 8; ++k) BOOST_TEST(apart_x(L.titles[k], L.titles[k + 1]), k);
  for (size_t k = 0; k + 1 < L.xlabels.size(); ++k) BOOST_TEST(apart_x(L.xlabels[k], L.xlabels[k + 1]), k);
  for (size_t k = 0; k + 1 < L.ylabels.size(); ++k) BOOST_TEST(apart_y(L.ylabels[k], L.ylabels[k + 1]), k);
  show_heatmaps(g, opt, scratch()("many.png"));
  BOOST_TEST(load(scratch()("many.png")).width == L.width);

  opt.titles.resize(4);
  const HeatmapGrid two{2, 4, 5, 10, std::vector<float>(2 * 4 * 50, 0.25f)};
  const HeatmapLayout D = heatmap_layout(two, opt);
  BOOST_TEST(D.width == 7 * 200);
  BOOST_TEST(D.title_text[2] == "Head 3");
  BOOST_TEST(D.xlabels.size() == 4u);
  BOOST_TEST(D.ylabels.size() == 1u);  // "Query positions" is taller than a row of 5 queries
  BOOST_TEST(std::fabs(D.ylabels[0].cy() - 0.5f * (D.axes[0].y0 + D.axes[7].y1)) < 1.0f);
}

// Rows of layers (10.7's figures at --num-layers 4): one label per row, left of that row's y
// label and apart from it, centred on the row, inside the canvas, apart from the next row's;
// "Layer 2" leads the tooltip. A count other than the rows is refused, naming the shape.
BOOST_AUTO_TEST_CASE(heatmap_row_labels_name_the_layers) {
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  opt.figsize = {7.0f, 3.5f};
  opt.titles = {"Head 1", "Head 2", "Head 3", "Head 4"};
  opt.row_labels = {"Layer 1", "Layer 2", "Layer 3", "Layer 4"};
  const HeatmapGrid g{4, 4, 10, 10, std::vector<float>(4 * 4 * 100, 0.25f)};
  const HeatmapLayout L = heatmap_layout(g, opt);
  BOOST_REQUIRE_EQUAL(L.row_labels.size(), 4u);
  BOOST_REQUIRE_EQUAL(L.ylabels.size(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    const Box& label = L.row_labels[r];
    const Box& axes = L.axes[r * 4];
    BOOST_TEST(label.x0 >= 0.0f, r);
    BOOST_TEST(label.x1 + 4.0f * 200 / 72 <= L.ylabels[r].x0, r);  // at least labelpad (4 pt) apart
    BOOST_TEST(std::fabs(label.cy() - axes.cy()) < 1.0f, r);
    BOOST_TEST(label.height() > label.width(), r);  // turned 90°
    if (r + 1 < 4) BOOST_TEST(label.y1 <= L.row_labels[r + 1].y0, r);
  }
  BOOST_TEST(L.row_label_font > 0.0f);
  show_heatmaps(g, opt, scratch()("layers.png"));
  BOOST_TEST(load(scratch()("layers.png")).width == L.width);
  BOOST_CHECK_EQUAL(heatmap_cell_tip(opt, 1, 0, 2, 3, 0.25f), "Layer 2, Head 1: Query positions 2, Key positions 3: 0.2500");
  opt.titles.clear();
  BOOST_CHECK_EQUAL(heatmap_cell_tip(opt, 3, 0, 0, 0, 1.0f), "Layer 4: Query positions 0, Key positions 0: 1.0000");
  opt.row_labels.pop_back();
  BOOST_CHECK_EXCEPTION(heatmap_layout(g, opt), std::invalid_argument,
                        message_has({"[show_heatmaps]", "3 row labels for 4 rows", "(4, 4, 10, 10)"}));
}

BOOST_AUTO_TEST_CASE(blues_nan_and_constant_matrices) {
  HeatmapGrid g{1, 1, 2, 2, {0.0f, NAN, 2.0f, 4.0f}};
  HeatmapOptions opt = book_options();
  opt.cmap = "Blues";
  show_heatmaps(g, opt, scratch()("nan.png"));
  const Image im = load(scratch()("nan.png"));
  const HeatmapLayout L = heatmap_layout(g, opt);
  BOOST_CHECK_EQUAL(L.nonfinite, 1);
  BOOST_CHECK_EQUAL(L.vmin, 0.0f);  // the scale ignores NaN
  BOOST_CHECK_EQUAL(L.vmax, 4.0f);
  const Box& a = L.axes[0];
  CHECK_COLOR(im.at(a.x0 + 1.5f * L.cell, a.y0 + 0.5f * L.cell), kNonFiniteColor, 0);
  CHECK_COLOR(im.at(a.x0 + 0.5f * L.cell, a.y0 + 0.5f * L.cell), rgb_hex("#f7fbff"), 2);
  CHECK_COLOR(im.at(a.x0 + 1.5f * L.cell, a.y0 + 1.5f * L.cell), rgb_hex("#08306b"), 2);
  CHECK_COLOR(im.at(a.x0 + 0.5f * L.cell, a.y0 + 1.5f * L.cell), colormap("Blues", 0.5f), 2);

  // A constant matrix: scale 0.3 ± 0.03, cells mid-scale, no division by zero.
  HeatmapGrid k{1, 1, 3, 3, std::vector<float>(9, 0.3f)};
  show_heatmaps(k, book_options(), scratch()("const.png"));
  const HeatmapLayout LK = heatmap_layout(k, book_options());
  BOOST_CHECK_CLOSE(LK.vmin, 0.27f, 1e-3);
  BOOST_CHECK_CLOSE(LK.vmax, 0.33f, 1e-3);
  const Image ik = load(scratch()("const.png"));
  CHECK_COLOR(ik.at(LK.axes[0].cx(), LK.axes[0].cy()), colormap("Reds", 0.5f), 2);
}

BOOST_AUTO_TEST_CASE(word_tick_labels_and_builtin_font) {
  HeatmapGrid g{1, 1, 2, 3, {0.1f, 0.7f, 0.2f, 0.5f, 0.2f, 0.3f}};
  HeatmapOptions opt;
  opt.xticklabels = {"a", "dog", "runs"};
  opt.yticklabels = {"dogs", "run"};
  opt.tick_fontsize = 8;
  for (bool builtin : {false, true}) {
    if (builtin) BOOST_CHECK(!set_font(""));
    else set_font(kDefaultFontPath());
    show_heatmaps(g, opt, scratch()("words.png"));
    const Image im = load(scratch()("words.png"));
    const HeatmapLayout L = heatmap_layout(g, opt);
    const Box& a = L.axes[0];
    // Turned words hang below the x axis, horizontal ones left of the y axis.
    BOOST_CHECK_GT(dark_pixels(im, {a.x0, a.y1 + 4, a.x1, static_cast<float>(im.height)}), 30);
    BOOST_CHECK_GT(dark_pixels(im, {0, a.y0, a.x0 - 4, a.y1}), 30);
    BOOST_CHECK_GT(measure_text("runs", 20).width, measure_text("a", 20).width);
  }
  BOOST_CHECK_EQUAL(set_font(kDefaultFontPath()), fs::exists(kDefaultFontPath()));
  opt.xticklabels = {"a", "dog"};
  BOOST_CHECK_EXCEPTION(heatmap_layout(g, opt), std::invalid_argument,
                        message_has({"[show_heatmaps]", "2 x tick labels", "(1, 1, 2, 3)"}));
}

BOOST_AUTO_TEST_CASE(heatmap_errors) {
  const auto pred = [](std::vector<std::string> p) { return message_has(std::move(p)); };
  BOOST_CHECK_EXCEPTION(heatmap_layout({1, 1, 0, 3, {}}, book_options()), std::invalid_argument,
                        pred({"[show_heatmaps]", "empty", "(1, 1, 0, 3)"}));
  BOOST_CHECK_EXCEPTION(heatmap_layout({1, 1, 2, 2, {1, 2, 3}}, book_options()), std::invalid_argument,
                        pred({"[show_heatmaps]", "needs 4 values, got 3"}));
  HeatmapOptions opt = book_options();
  opt.titles = {"Head 1"};
  BOOST_CHECK_EXCEPTION(heatmap_layout({1, 2, 2, 2, std::vector<float>(8, 0)}, opt), std::invalid_argument,
                        pred({"1 titles for 2 columns"}));
  opt = book_options();
  opt.figsize = {0, 2};
  BOOST_CHECK_EXCEPTION(heatmap_layout(eye_grid(3), opt), std::invalid_argument, pred({"figsize", "(0, 2)"}));
  opt = book_options();
  opt.figsize = {0.3f, 0.3f};
  BOOST_CHECK_EXCEPTION(heatmap_layout(eye_grid(3), opt), std::invalid_argument, pred({"too small"}));
  opt = book_options();
  opt.cmap = "reds";
  BOOST_CHECK_EXCEPTION(heatmap_layout(eye_grid(3), opt), std::invalid_argument, pred({"unknown colormap 'reds'"}));

  // Unwritable paths: a file used as a directory, and a directory as the target. The
  // second reaches the rename, which must clean up its temporary file.
  write_file(scratch()("plain_file"), "x");
  const std::string bad = scratch()("plain_file/eye.png");
  BOOST_CHECK_EXCEPTION(show_heatmaps(eye_grid(3), book_options(), bad), std::runtime_error,
                        message_has({"[show_heatmaps]", "cannot write", bad}));
  fs::create_directories(scratch()("a_dir"));
  BOOST_CHECK_EXCEPTION(show_heatmaps(eye_grid(3), book_options(), scratch()("a_dir")), std::runtime_error,
                        message_has({"cannot write", "a_dir"}));
  for (const auto& e : fs::directory_iterator(scratch().path))
    BOOST_CHECK_MESSAGE(e.path().string().find(".tmp.") == std::string::npos, "left behind " << e.path());
  BOOST_CHECK(fs::is_directory(scratch()("a_dir")));
}

BOOST_AUTO_TEST_CASE(tensor_overload) {
  std::vector<float> v(2 * 10 * 10, 0.0f);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 10; ++i) v[h * 100 + i * 10 + i] = 1.0f;
  const Tensor t = tensor(v, {1, 2, 10, 10});
  show_heatmaps(t, "Keys", "Queries", {"Head 1", "Head 2"}, {5, 2.5f}, "Reds", scratch()("tensor.png"));
  const Image im = load(scratch()("tensor.png"));
  BOOST_CHECK_EQUAL(im.width, 1000);
  const HeatmapGrid g = heatmap_grid(t);
  BOOST_CHECK_EQUAL(g.cols, 2);
  HeatmapOptions opt = book_options();
  opt.titles = {"Head 1", "Head 2"};
  opt.figsize = {5, 2.5f};
  const HeatmapLayout L = heatmap_layout(g, opt);
  CHECK_COLOR(im.at(L.axes[1].x0 + 3.5f * L.cell, L.axes[1].y0 + 3.5f * L.cell), rgb_hex("#67000d"), 2);
  BOOST_CHECK_EXCEPTION(heatmap_grid(tensor(std::vector<float>(4, 0), {2, 2})), std::invalid_argument,
                        message_has({"[show_heatmaps]", "4-D", "(2, 2)"}));
}

BOOST_AUTO_TEST_CASE(plot_draws_each_series_in_its_colour) {
  // y = 1 solid (C0), y = 2 dashed magenta, one scatter point (C1, the cycle's next colour).
  const std::vector<float> X{0, 1, 2, 3, 4};
  PlotOptions opt;
  opt.xlim = {{0, 4}};
  opt.ylim = {{0, 4}};
  std::vector<Series> s = make_series(X, {{1, 1, 1, 1, 1}, {2, 2, 2, 2, 2}}, opt);
  const PlotLayout L0 = plot_layout(s, opt);
  Series pt;
  pt.x = {static_cast<float>(0.5 * (L0.xticks[1] + L0.xticks[2]))};  // between grid lines
  pt.y = {static_cast<float>(0.5 * (L0.yticks[2] + L0.yticks[3]))};
  pt.fmt = "o";
  s.push_back(pt);
  plot(s, opt, scratch()("plot.png"));
  const Image im = load(scratch()("plot.png"));
  const PlotLayout L = plot_layout(s, opt);
  BOOST_CHECK_EQUAL(im.width, 700);  // (3.5, 2.5) in at 200 dpi
  BOOST_CHECK_EQUAL(im.height, 500);
  BOOST_REQUIRE_EQUAL(L.colors.size(), 3u);
  BOOST_CHECK(L.colors[0] == rgb_hex("#1f77b4"));
  BOOST_CHECK(L.colors[1] == rgb_hex("#bf00bf"));  // 'm' does not advance the cycle ...
  BOOST_CHECK(L.colors[2] == rgb_hex("#ff7f0e"));  // ... so the scatter gets C1
  CHECK_COLOR(im.at(L.px(0.7f), L.py(1)), rgb_hex("#1f77b4"), 0);
  int on = 0, off = 0;  // the dashed line: magenta dashes with gaps between
  for (float x = L.axes.x0 + 20; x < L.axes.x1 - 20; x += 1) {
    const Rgb c = im.at(x, L.py(2));
    on += near(c, rgb_hex("#bf00bf"), 0);
    off += c.g > 100;
  }
  BOOST_CHECK_GT(on, 50);
  BOOST_CHECK_GT(off, 10);
  // alpha 0.5 over white: (255 + 255) / 2, (127 + 255) / 2, (14 + 255) / 2
  CHECK_COLOR(im.at(L.px(pt.x[0]), L.py(pt.y[0])), (Rgb{255, 191, 135}), 2);
  BOOST_CHECK(L.legend.empty());
}

// Log axes: the ticks' log10 positions and their plain labels, a power law drawn straight,
// explicit x ticks, and the errors.
BOOST_AUTO_TEST_CASE(plot_log_axes) {
  const auto near_all = [](const std::vector<double>& got, const std::vector<double>& want) {
    BOOST_REQUIRE_EQUAL(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) BOOST_CHECK_SMALL(got[i] - want[i], 1e-9);
  };
  const double l2 = std::log10(2.0), l5 = std::log10(5.0);
  near_all(log_locator(std::log10(64.0), std::log10(4096.0), 8), {2, 2 + l2, 2 + l5, 3, 3 + l2});  // 1.8 decades
  near_all(log_locator(-3.2, 2.1, 8), {-3, -2, -1, 0, 1, 2});                                       // 5.3 decades
  near_all(log_locator(-3.2, 2.1, 2), {-3, 0});                                                     // every third
  near_all(log_locator(std::log10(3.0), std::log10(9.5), 5),
           {std::log10(3.0), std::log10(4.0), std::log10(5.0), std::log10(6.0), std::log10(7.0), std::log10(8.0),
            std::log10(9.0)});  // no 1, 2, 5 x 10^k inside but 5: 1 .. 9 x 10^k
  BOOST_CHECK(log_tick_labels({-3, -2 + l5, -1, 0, 1 + l2, 3, std::log10(64.0)}) ==
              (std::vector<std::string>{"0.001", "0.05", "0.1", "1", "20", "1000", "64"}));

  PlotOptions opt;
  opt.xlog = opt.ylog = true;
  opt.xticks = {64, 256, 1024, 4096, 100000};  // the last is outside the axis
  Series sq;  // y = n², a straight line of slope 2 on log-log axes
  for (float n : {64.0f, 256.0f, 1024.0f, 4096.0f}) sq.x.push_back(n), sq.y.push_back(n * n);
  sq.fmt = "r-";
  Series neg = sq;  // non-positive values are skipped
  neg.y = {-1, 0, 5, 6};
  neg.fmt = "b:";
  plot({sq, neg}, opt, scratch()("loglog.png"));
  const PlotLayout L = plot_layout({sq, neg}, opt);
  near_all(L.xticks, {std::log10(64.0), std::log10(256.0), std::log10(1024.0), std::log10(4096.0)});
  BOOST_CHECK(L.xticklabels == (std::vector<std::string>{"64", "256", "1024", "4096"}));
  // y from 5 to 4096² (7.2 decades): powers of 10 (every one or every other, as the height
  // allows), labelled with their values
  BOOST_REQUIRE_GE(L.yticks.size(), 3u);
  BOOST_CHECK_GE(L.yticks.back(), 6.0);
  for (size_t i = 0; i < L.yticks.size(); ++i) {
    BOOST_CHECK_SMALL(L.yticks[i] - std::round(L.yticks[i]), 1e-9);
    BOOST_CHECK(L.yticklabels[i] == std::to_string(std::llround(std::pow(10.0, L.yticks[i]))));
  }
  const Image im = load(scratch()("loglog.png"));
  // The midpoint in log space of the line from (64, 64²) to (4096, 4096²) is (512, 512²).
  CHECK_COLOR(im.at(L.px(std::log10(512.0f)), L.py(std::log10(512.0f * 512.0f))), (Rgb{255, 0, 0}), 0);

  const auto pred = [](std::vector<std::string> p) { return message_has(std::move(p)); };
  PlotOptions bad = opt;
  bad.xticks = {0};
  BOOST_CHECK_EXCEPTION(plot_layout({sq}, bad), std::invalid_argument, pred({"[plot]", "xticks", "log axis"}));
  bad = opt;
  bad.ylim = {{0, 10}};
  BOOST_CHECK_EXCEPTION(plot_layout({sq}, bad), std::invalid_argument, pred({"[plot]", "ylim", "log axis"}));
  BOOST_CHECK_EXCEPTION(log_locator(1, 1, 5), std::invalid_argument, pred({"log_locator"}));
}

BOOST_AUTO_TEST_CASE(plot_legend_labels_and_errors) {
  PlotOptions opt;
  opt.xlabel = "epoch";
  opt.ylabel = "loss";
  opt.legend = {"train", "test"};
  const std::vector<std::vector<float>> Y{{3, 2, 1.5f, 1.2f}, {3.2f, 2.4f, 2, 1.9f}};
  plot({1, 2, 3, 4}, Y, opt, scratch()("legend.png"));
  const Image im = load(scratch()("legend.png"));
  const PlotLayout L = plot_layout(make_series({1, 2, 3, 4}, Y, opt), opt);
  BOOST_REQUIRE(!L.legend.empty());
  BOOST_CHECK_GT(dark_pixels(im, L.legend), 30);    // the names
  BOOST_CHECK_GT(dark_pixels(im, L.xlabel), 20);
  BOOST_CHECK_GT(dark_pixels(im, L.ylabel), 20);
  int handle = 0;  // the first entry's line sample in C0
  for (float y = L.legend.y0; y < L.legend.cy(); ++y)
    for (float x = L.legend.x0; x < L.legend.cx(); ++x) handle += near(im.at(x, y), rgb_hex("#1f77b4"), 0);
  BOOST_CHECK_GT(handle, 20);

  const auto pred = [](std::vector<std::string> p) { return message_has(std::move(p)); };
  PlotOptions bad;
  bad.fmts = {"q-"};
  BOOST_CHECK_EXCEPTION(plot({}, {{1, 2}}, bad, scratch()("x.png")), std::invalid_argument,
                        pred({"[plot]", "bad format 'q-'"}));
  BOOST_CHECK_EXCEPTION(make_series({1, 2, 3}, {{1, 2}}, PlotOptions{}), std::invalid_argument,
                        pred({"[plot]", "X has 3 values but Y[0] has 2"}));
  bad = PlotOptions{};
  bad.xlim = {{2, 1}};
  BOOST_CHECK_EXCEPTION(plot_layout(make_series({}, {{1, 2}}, bad), bad), std::invalid_argument,
                        pred({"xlim", "(2, 1)"}));
  bad = PlotOptions{};
  bad.legend = {"a", "b"};
  BOOST_CHECK_EXCEPTION(make_series({}, {{1, 2}}, bad), std::invalid_argument, pred({"legend has 2 labels for 1"}));
}

BOOST_AUTO_TEST_CASE(animator_prints_a_tenth_of_the_run_and_writes_the_curve) {
  std::FILE* out = std::tmpfile();
  BOOST_REQUIRE(out);
  {
    Animator animator("epoch", {"loss"}, {1, 100}, 100, scratch()("loss.png"));
    animator.set_output(out, false);
    for (int epoch = 1; epoch <= 100; ++epoch) animator.add(static_cast<float>(epoch), {1.0f / epoch}, "12.5 tokens/sec");
    BOOST_CHECK_EQUAL(animator.last_line().rfind("epoch 100/100, loss 0.010, 12.5 tokens/sec, ", 0), 0u);
    BOOST_CHECK_EQUAL(animator.finish(), scratch()("loss.png"));
    BOOST_CHECK_EXCEPTION(animator.add(101, {0.0f}), std::invalid_argument,
                          message_has({"[Animator::add]", "after finish"}));
  }
  const std::vector<std::string> lines = lines_and_close(out);
  // epoch 1 (the first), then 10, 20, ..., 100: 11 progress lines, then "saved ...".
  BOOST_REQUIRE_EQUAL(lines.size(), 12u);
  BOOST_CHECK_EQUAL(lines[0].rfind("epoch 1/100, loss 1.000", 0), 0u);
  BOOST_CHECK_EQUAL(lines[1].rfind("epoch 10/100, loss 0.100", 0), 0u);
  BOOST_CHECK(lines[10].find("elapsed") != std::string::npos);
  BOOST_CHECK_EQUAL(lines[11], "saved " + scratch()("loss.png") + "\n");
  const Image im = load(scratch()("loss.png"));
  BOOST_CHECK_EQUAL(im.width, 700);
}

BOOST_AUTO_TEST_CASE(animator_prints_several_adds_at_one_x_once) {
  std::FILE* out = std::tmpfile();
  BOOST_REQUIRE(out);
  Animator animator("epoch", {"loss", "acc"}, {1, 2}, 2, scratch()("once.png"));
  animator.set_output(out, false);
  animator.add(1, {0.5f, std::nullopt});  // batch metrics ...
  animator.add(1, {0.4f, 0.7f});  // ... then the epoch's test metric at the same x
  animator.add(2, {0.3f, 0.8f});
  animator.finish();
  const std::vector<std::string> lines = lines_and_close(out);
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_CHECK_EQUAL(lines[0].rfind("epoch 1/2, loss 0.400, acc 0.700, ", 0), 0u);
  BOOST_CHECK_EQUAL(lines[1].rfind("epoch 2/2, loss 0.300, acc 0.800, ", 0), 0u);
}

BOOST_AUTO_TEST_CASE(animator_terminal_line_and_missing_values) {
  std::FILE* out = std::tmpfile();
  BOOST_REQUIRE(out);
  Animator animator("epoch", {"train loss", "test acc"}, {0, 2}, 2, scratch()("acc.png"));
  animator.set_output(out, true);
  animator.add(0.5f, {0.9f, std::nullopt});  // test acc only at epoch ends, like the book's None
  animator.add(1.0f, {0.7f, 0.6f});
  animator.add(2.0f, {0.5f, 0.8f});
  BOOST_CHECK_EQUAL(animator.series()[0].x.size(), 3u);
  BOOST_CHECK_EQUAL(animator.series()[1].x.size(), 2u);
  BOOST_CHECK_EXCEPTION(animator.add(2.0f, {0.5f}), std::invalid_argument,
                        message_has({"got 1 values for 2 series"}));
  animator.finish();
  std::rewind(out);
  std::string all;
  for (int ch; (ch = std::fgetc(out)) != EOF;) all += static_cast<char>(ch);
  std::fclose(out);
  BOOST_CHECK(all.find("\repoch 2/2, train loss 0.500, test acc 0.800") != std::string::npos);
  BOOST_CHECK(all.find("\nsaved ") != std::string::npos);  // the \r line was ended first
}

// A NaN loss used to be skipped like the book's None, so the progress line kept showing the
// last finite loss. It is printed as it is, once with a note on how to find its source.
BOOST_AUTO_TEST_CASE(animator_prints_a_nan_loss_and_says_how_to_find_it) {
  std::FILE* out = std::tmpfile();
  BOOST_REQUIRE(out);
  Animator animator("epoch", {"loss"}, {1, 3}, 3, scratch()("nan.png"));
  animator.set_output(out, false);
  animator.add(1, {0.5f});
  animator.add(2, {-std::numeric_limits<float>::quiet_NaN()});  // x86 makes negative NaNs
  BOOST_CHECK_EQUAL(animator.last_line().rfind("epoch 2/3, loss nan, ", 0), 0u);
  BOOST_TEST(animator.noted_non_finite());
  animator.add(3, {std::numeric_limits<float>::infinity()});
  BOOST_CHECK_EQUAL(animator.last_line().rfind("epoch 3/3, loss inf, ", 0), 0u);
  animator.finish();
  const std::vector<std::string> lines = lines_and_close(out);
  int notes = 0;
  for (const std::string& l : lines) notes += l.rfind("note: ", 0) == 0;
  BOOST_CHECK_EQUAL(notes, 1);  // once, at the first non-finite value
  const std::string all = [&] { std::string a; for (const auto& l : lines) a += l; return a; }();
  BOOST_TEST(all.find("note: loss is nan at epoch 2; rerun with D2L_CHECK_NUMERICS=1") != std::string::npos, all);
  BOOST_TEST(all.find("epoch 2/3, loss nan") != std::string::npos, all);
  BOOST_TEST(all.find("epoch 3/3, loss inf") != std::string::npos, all);
  BOOST_CHECK_EQUAL(d2l::format_metric(-std::numeric_limits<double>::quiet_NaN()), "nan");
  BOOST_CHECK_EQUAL(d2l::format_metric(0.25), "0.250");
}

BOOST_AUTO_TEST_CASE(heatmap_tool_success_and_errors) {
  const std::string tool = heatmap_tool();
  BOOST_REQUIRE_MESSAGE(fs::exists(tool), tool << " is missing: run make (D2L_BUILD names the build dir)");
  write_file(scratch()("two.txt"), "# two matrices\n1 0 0\n0 1 0\n\n0.5, 0.5, 0.5\n0.5, 0.5, 0.5\n");
  auto [rc, out] = run_capture(tool + " --xlabel Keys --ylabel Queries --title A --title B --out " + scratch()("two.png") +
                       " " + scratch()("two.txt"));
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK(out.find("1 x 2 grid of 2 x 3 matrices") != std::string::npos);
  const Image im = load(scratch()("two.png"));
  BOOST_CHECK_EQUAL(im.width, 500);
  HeatmapOptions opt = book_options();
  opt.titles = {"A", "B"};
  const HeatmapLayout L = heatmap_layout({1, 2, 2, 3, {1, 0, 0, 0, 1, 0, .5f, .5f, .5f, .5f, .5f, .5f}}, opt);
  CHECK_COLOR(im.at(L.axes[0].x0 + 0.5f * L.cell, L.axes[0].y0 + 0.5f * L.cell), rgb_hex("#67000d"), 2);
  CHECK_COLOR(im.at(L.axes[1].cx(), L.axes[1].cy()), colormap("Reds", 0.5f), 2);

  // A printed tensor (k, h, w) on stdin, with PyTorch's grad_fn suffix.
  std::tie(rc, out) = run_capture("printf 'tensor([[[0.1, 0.9]],\\n\\n        [[0.4, 0.6]]], grad_fn=<X>)' | " + tool +
                          " --out " + scratch()("t.png") + " -");
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK(out.find("1 x 2 grid of 1 x 2 matrices") != std::string::npos);

  write_file(scratch()("ragged.txt"), "1 2 3\n4 5\n");
  std::tie(rc, out) = run_capture(tool + " --out " + scratch()("r.png") + " " + scratch()("ragged.txt"));
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(out.find("error: " + scratch()("ragged.txt") + ":2: row has 2 values, expected 3") !=
                          std::string::npos, out);
  BOOST_CHECK(!fs::exists(scratch()("r.png")));

  std::tie(rc, out) = run_capture("printf '\\n  \\n' | " + tool + " -");
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(out.find("error: <stdin>: empty input") != std::string::npos, out);

  std::tie(rc, out) = run_capture("printf '1 nan\\n0 1\\n' | " + tool + " --out " + scratch()("n.png") + " -");
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK_MESSAGE(out.find("warning: [show_heatmaps] 1 NaN/inf value(s)") != std::string::npos, out);

  std::tie(rc, out) = run_capture("printf '1 0\\n0 1\\n' | " + tool + " --out " + scratch()("plain_file/x.png") + " -");
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(out.find("cannot write '" + scratch()("plain_file/x.png") + "'") != std::string::npos, out);

  std::tie(rc, out) = run_capture(tool);
  BOOST_CHECK_EQUAL(rc, 2);
  BOOST_CHECK(out.find("error: no input file") != std::string::npos && out.find("usage: heatmap") != std::string::npos);
  std::tie(rc, out) = run_capture(tool + " --colour red -");
  BOOST_CHECK_EQUAL(rc, 2);
  BOOST_CHECK(out.find("unknown option --colour") != std::string::npos);
  std::tie(rc, out) = run_capture(tool + " --missing-file-here " + scratch()("nope.txt"));
  BOOST_CHECK_EQUAL(rc, 2);
  std::tie(rc, out) = run_capture(tool + " " + scratch()("nope.txt"));
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK(out.find("cannot open '" + scratch()("nope.txt") + "'") != std::string::npos);
  std::tie(rc, out) = run_capture(tool + " --help");
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK(out.find("--xlabel") != std::string::npos);
}

// Every numeric option is range-checked when it is read: 4294967496 wrapped to 200 in an int
// and drew at 200 dpi; an overflowing --rows or a NaN figsize went through too.
BOOST_AUTO_TEST_CASE(heatmap_tool_numeric_options_are_range_checked) {
  const std::string tool = heatmap_tool();
  BOOST_REQUIRE_MESSAGE(fs::exists(tool), tool << " is missing: run make (D2L_BUILD names the build dir)");
  write_file(scratch()("eye2.txt"), "1 0\n0 1\n");
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"--dpi 4294967496", "error: [--dpi] must be in [10, 1200], got 4294967496"},
      {"--dpi 99999999999999999999", "error: [--dpi] expects an integer in [10, 1200], got '99999999999999999999'"},
      {"--dpi 0", "error: [--dpi] must be in [10, 1200], got 0"},
      {"--dpi 2.5", "error: [--dpi] expects an integer in [10, 1200], got '2.5'"},
      {"--rows -1", "error: [--rows] must be in [1, 100000], got -1"},
      {"--figsize nan,2", "error: [--figsize] expects a number in [0.01, 100], got 'nan'"},
      {"--figsize 2,1e39", "error: [--figsize] must be in [0.01, 100], got 1e39"},
      {"--figsize 2", "error: [--figsize] needs W,H in inches"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.args) {
      const std::string png = scratch()("range.png");
      fs::remove(png);
      auto [rc, out] = run_capture(tool + " " + c.args + " --out " + png + " " + scratch()("eye2.txt"));
      BOOST_CHECK_EQUAL(rc, 2);
      BOOST_CHECK_MESSAGE(out.find(c.says) != std::string::npos, out);
      BOOST_CHECK(!fs::exists(png));
    }
  }
  auto [rc, out] = run_capture(tool + " --dpi 20 --figsize 2,1.5 --out " + scratch()("ok.png") + " " + scratch()("eye2.txt"));
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK_EQUAL(load(scratch()("ok.png")).width, 40);
}

// Values spanning -3e38..3e38 are finite floats whose range max - min overflows float to inf:
// (v - min) / inf put every cell at 0, one colour. The scale is computed in double.
BOOST_AUTO_TEST_CASE(heatmap_value_range_beyond_float) {
  HeatmapGrid g{1, 1, 1, 3, {-3e38f, 0.0f, 3e38f}};
  const HeatmapOptions opt = book_options();
  const HeatmapLayout L = heatmap_layout(g, opt);
  BOOST_TEST(L.vmin == -3e38f);
  BOOST_TEST(L.vmax == 3e38f);
  BOOST_TEST(std::isfinite(L.vmax - L.vmin));
  show_heatmaps(g, opt, scratch()("huge.png"));
  const Image im = load(scratch()("huge.png"));
  const Box& a = L.axes[0];
  CHECK_COLOR(im.at(a.x0 + 0.5f * L.cell, a.cy()), colormap("Reds", 0.0f), 2);
  CHECK_COLOR(im.at(a.x0 + 1.5f * L.cell, a.cy()), colormap("Reds", 0.5f), 2);
  CHECK_COLOR(im.at(a.x0 + 2.5f * L.cell, a.cy()), colormap("Reds", 1.0f), 2);
}

BOOST_AUTO_TEST_SUITE_END()
