// tools/d2l/figures/heatmaps.cpp — d2l.show_heatmaps (10.1 注意力提示 / Attention Cues,
// sec_attention-cues): one imshow per matrix in a rows × cols grid with shared axes and one
// colorbar, as the book's
//   fig, axes = plt.subplots(rows, cols, sharex=True, sharey=True)
//   ax.imshow(matrix, cmap=cmap); fig.colorbar(pcm, ax=axes, shrink=0.6)
// Like sharex/sharey, tick labels appear only on the bottom row and the first column; each
// bottom-row subplot gets the x label, each first-column one the y label, and every subplot
// its column's title. Unlike the book, whose colorbar shows the last matrix's range, all
// matrices share one colour scale, so the colorbar is true for every subplot.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/shape.h"  // check
#include "core/tensor.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/figures_style.h"
#include "tools/d2l/figures/surface.h"

namespace d2l {

namespace {

constexpr Rgb kBlack{0, 0, 0};

void check_grid(const HeatmapGrid& g, const HeatmapOptions& opt) {
  const Shape shape{g.rows, g.cols, g.height, g.width};
  check(g.rows > 0 && g.cols > 0 && g.height > 0 && g.width > 0, "show_heatmaps",
        "empty matrices: shape (rows, cols, height, width) = ", shape);
  check(g.values.size() == static_cast<size_t>(g.rows * g.cols * g.height * g.width), "show_heatmaps", "shape ",
        shape, " needs ", g.rows * g.cols * g.height * g.width, " values, got ", g.values.size());
  check(opt.titles.empty() || static_cast<int64_t>(opt.titles.size()) == g.cols, "show_heatmaps", "got ",
        opt.titles.size(), " titles for ", g.cols, " columns of ", shape, " (one per column, or none)");
  check(opt.row_labels.empty() || static_cast<int64_t>(opt.row_labels.size()) == g.rows, "show_heatmaps", "got ",
        opt.row_labels.size(), " row labels for ", g.rows, " rows of ", shape, " (one per row, or none)");
  check(opt.xticklabels.empty() || static_cast<int64_t>(opt.xticklabels.size()) == g.width, "show_heatmaps", "got ",
        opt.xticklabels.size(), " x tick labels for matrices ", shape, " (one per column of a matrix)");
  check(opt.yticklabels.empty() || static_cast<int64_t>(opt.yticklabels.size()) == g.height, "show_heatmaps",
        "got ", opt.yticklabels.size(), " y tick labels for matrices ", shape, " (one per row of a matrix)");
  check(std::isfinite(opt.tick_fontsize) && opt.tick_fontsize > 0 && opt.tick_fontsize <= 100, "show_heatmaps",
        "tick_fontsize must be in (0, 100] pt, got ", opt.tick_fontsize);
  colormap(opt.cmap, 0);  // throws for an unknown name
}

// Ticks of an imshow axis over n cells: integers in [-0.5, n - 0.5], or every cell when
// words label the cells.
std::vector<double> cell_ticks(int64_t n, float length_px, float font_px, bool x_axis, bool words) {
  if (words) {
    std::vector<double> all;
    for (int64_t i = 0; i < n; ++i) all.push_back(static_cast<double>(i));
    return all;
  }
  return max_n_locator(-0.5, n - 0.5, auto_nbins(length_px, font_px, x_axis), true);
}

std::vector<std::string> cell_tick_text(const std::vector<double>& ticks, const std::vector<std::string>& words) {
  if (!words.empty()) return words;
  return tick_labels(ticks);
}

float widest(const std::vector<std::string>& texts, float px) {
  float w = 0;
  for (const auto& t : texts) w = std::max(w, measure_text(t, px).width);
  return w;
}

}  // namespace

HeatmapLayout heatmap_layout(const HeatmapGrid& g, const HeatmapOptions& opt) {
  check_grid(g, opt);
  // Named ints, not a structured binding: lambdas below capture W and H, which C++17
  // does not allow for bindings (clang refuses it; GCC accepts it).
  const auto wh = figure_pixels(opt.figsize, opt.dpi, opt.fontsize, "show_heatmaps");
  const int W = wh.first, H = wh.second;
  const FigureStyle st(opt.dpi, opt.fontsize, opt.tick_fontsize);
  HeatmapLayout L;
  L.width = W;
  L.height = H;

  // The colour scale: min..max over the finite values of all matrices.
  bool any = false;
  for (float v : g.values) {
    if (!std::isfinite(v)) { ++L.nonfinite; continue; }
    L.vmin = any ? std::min(L.vmin, static_cast<double>(v)) : v;
    L.vmax = any ? std::max(L.vmax, static_cast<double>(v)) : v;
    any = true;
  }
  if (!any) L.vmin = 0, L.vmax = 1;
  if (L.vmin == L.vmax) {  // a constant grid: a scale around the value, no 0/0
    const double d = L.vmin == 0 ? 0.5 : 0.1 * std::fabs(L.vmin);
    L.vmin -= d;
    L.vmax += d;
  }

  // Fixed text extents. y tick labels are at most as wide as the last row's index.
  const bool xwords = !opt.xticklabels.empty(), ywords = !opt.yticklabels.empty();
  const float text_h = measure_text("0", st.tick_font).height();
  const float ytick_w = ywords ? widest(opt.yticklabels, st.tick_font)
                               : measure_text(std::to_string(g.height - 1), st.tick_font).width;
  const float xtick_h = xwords ? widest(opt.xticklabels, st.tick_font) : text_h;
  const float xlabel_h = opt.xlabel.empty() ? 0 : st.label_pad + measure_text(opt.xlabel, st.font).height();
  const float ylabel_w = opt.ylabel.empty() ? 0 : st.label_pad + measure_text(opt.ylabel, st.font).height();
  const float title_h = opt.titles.empty() ? 0 : st.title_pad + measure_text("0", st.title_font).height();
  // Row labels, turned 90° (a label's height is its width on the page), stand twice labelpad
  // off the y label, so the two do not read as one label of two lines.
  const float row_label_pad = 2 * st.label_pad;
  float row_label_w = 0;
  for (const std::string& t : opt.row_labels)
    row_label_w = std::max(row_label_w, row_label_pad + measure_text(t, st.font).height());
  const float left = st.border + row_label_w + ylabel_w + ytick_w + st.tick_pad + st.tick_len;
  const float top = st.border + std::max(title_h, 0.5f * text_h);
  const float bottom = st.tick_len + st.tick_pad + xtick_h + xlabel_h + st.border;
  const float cbar_gap = 6 * st.pt;
  // The colorbar: shrink=0.6 of the plotting height (what matplotlib shrinks), but never
  // taller than the heatmaps themselves; 20 times longer than wide (aspect=20).
  auto cbar_height = [&](float grid_h) {
    return std::round(std::min(grid_h, 0.6f * std::max(grid_h, H - top - bottom)));
  };
  auto cbar_width = [&](float grid_h) { return std::max(2.0f, std::round(cbar_height(grid_h) / 20)); };

  // Cell size s: the largest that fits, found by bisection since the gaps between rows
  // must also hold the titles. wspace = hspace = 0.2 of a subplot, as plt.subplots.
  float cbar_label_w = measure_text("0.00", st.tick_font).width, s = 0, wgap = 0, hgap = 0, gw = 0, gh = 0;
  auto fit = [&](float cell, bool snap) {
    wgap = 0.2f * g.width * cell;
    // a row's title sits under the ticks of the row above it
    hgap = std::max(0.2f * g.height * cell, title_h > 0 ? st.tick_len + title_h + 2 * st.pt : 0.0f);
    if (snap) wgap = std::round(wgap), hgap = std::round(hgap);
    gw = g.cols * g.width * cell + (g.cols - 1) * wgap;
    gh = g.rows * g.height * cell + (g.rows - 1) * hgap;
    const float right = cbar_gap + cbar_width(gh) + st.tick_len + st.tick_pad + cbar_label_w + st.border;
    return left + gw + right <= W && top + gh + bottom <= H;
  };
  for (int pass = 0; pass < 3; ++pass) {  // the colorbar's labels depend on its length
    float lo = 0, hi = static_cast<float>(std::max(W, H));
    for (int it = 0; it < 60; ++it) {
      const float mid = 0.5f * (lo + hi);
      (fit(mid, false) ? lo : hi) = mid;
    }
    s = lo >= 3 ? std::floor(lo) : lo;  // whole pixels per cell when cells are big: crisp
    fit(s, s >= 3);
    L.colorbar_ticks = max_n_locator(L.vmin, L.vmax, auto_nbins(cbar_height(gh), st.tick_font, false), false);
    const float w = widest(tick_labels(L.colorbar_ticks), st.tick_font);
    if (w <= cbar_label_w) break;
    cbar_label_w = w;
  }
  check(s > 0.05f, "show_heatmaps", "figsize (", opt.figsize.first, ", ", opt.figsize.second,
        ") is too small for the labels of matrices ", Shape{g.rows, g.cols, g.height, g.width},
        "; use a larger figsize or a smaller fontsize");
  // Panels too small to read (many layers or heads in the book's figsize): a larger canvas,
  // so that each panel's longer side is at least kMinPanelInches. Labels keep their size.
  const float min_panel = kMinPanelInches * static_cast<float>(opt.dpi);
  const float panel = static_cast<float>(std::max(g.height, g.width)) * s;
  if (panel < 0.98f * min_panel) {
    const float f = std::min(4.0f, 1.05f * min_panel / panel);
    HeatmapOptions bigger = opt;
    bigger.figsize = {opt.figsize.first * f, opt.figsize.second * f};
    return heatmap_layout(g, bigger);
  }
  L.cell = s;

  // Centre the whole block (labels, grid, colorbar) in the canvas.
  const float right = cbar_gap + cbar_width(gh) + st.tick_len + st.tick_pad + cbar_label_w + st.border;
  const float gx0 = std::round(0.5f * (W - (left + gw + right)) + left);
  const float gy0 = std::round(0.5f * (H - (top + gh + bottom)) + top);
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t c = 0; c < g.cols; ++c) {
      const float x0 = gx0 + c * (g.width * s + wgap), y0 = gy0 + r * (g.height * s + hgap);
      L.axes.push_back({x0, y0, x0 + g.width * s, y0 + g.height * s});
    }
  const float cb_h = cbar_height(gh), cb_x0 = std::round(gx0 + gw + cbar_gap);
  const float cb_y0 = std::round(gy0 + 0.5f * (gh - cb_h));
  L.colorbar = {cb_x0, cb_y0, cb_x0 + cbar_width(gh), cb_y0 + cb_h};

  // Label positions: beyond the tick labels by labelpad, as matplotlib places them.
  auto xlabel_y = [&](const Box& a) { return a.y1 + st.tick_len + st.tick_pad + xtick_h + st.label_pad; };
  auto ylabel_x = [&](const Box& a) { return a.x0 - st.tick_len - st.tick_pad - ytick_w - st.label_pad; };
  // Titles wider than a panel and its gap would run into each other: "Head 3" becomes "H3"
  // (a word and a number: its first letter and the number); other titles stay whole.
  L.title_text = opt.titles;
  float widest_title = 0;
  for (const std::string& t : opt.titles) widest_title = std::max(widest_title, measure_text(t, st.title_font).width);
  if (widest_title > g.width * s + 0.9f * wgap)
    for (std::string& t : L.title_text) {
      const size_t sp = t.rfind(' ');
      const bool number = sp != std::string::npos && sp + 1 < t.size() &&
                          t.find_first_not_of("0123456789", sp + 1) == std::string::npos;
      if (number) t = t.substr(0, 1) + t.substr(sp + 1);
    }
  // Still too wide (titles that are phrases): a smaller title font, down to 60%.
  L.title_font = st.title_font;
  widest_title = 0;
  for (const std::string& t : L.title_text) widest_title = std::max(widest_title, measure_text(t, st.title_font).width);
  if (widest_title > g.width * s + 0.9f * wgap)
    L.title_font = st.title_font * std::max(0.6f, (g.width * s + 0.9f * wgap) / widest_title);
  for (int64_t k = 0; k < g.rows * g.cols; ++k) {
    const Box& a = L.axes[k];
    if (!opt.titles.empty())
      L.titles.push_back(text_box(L.title_text[k % g.cols], L.title_font, a.cx(), a.y0 - st.title_pad,
                                  HAlign::kCenter, VAlign::kBottom));
  }
  // Row labels longer than a row and its gap: a smaller font, down to 60%, as for titles.
  L.row_label_font = st.font;
  const float row_span = g.height * s + 0.9f * hgap;
  const float longest_row_label = widest(opt.row_labels, st.font);
  if (longest_row_label > row_span) L.row_label_font = st.font * std::max(0.6f, row_span / longest_row_label);
  for (size_t r = 0; r < opt.row_labels.size(); ++r) {
    const Box& a = L.axes[r * static_cast<size_t>(g.cols)];
    const float x1 = ylabel_x(a) - ylabel_w - (row_label_pad - st.label_pad);  // row_label_pad off the y label
    L.row_labels.push_back(text_box(opt.row_labels[r], L.row_label_font, x1, a.cy(), HAlign::kRight, VAlign::kCenter, true));
  }
  // An axis label per column (row) when it fits beside the next one's, else one label
  // centred on the whole grid, as matplotlib's fig.supxlabel / supylabel would.
  const Box& first = L.axes[0];
  const Box& last = L.axes[static_cast<size_t>(g.rows * g.cols - 1)];
  const bool x_each = g.cols == 1 || measure_text(opt.xlabel, st.font).width <= g.width * s + 0.9f * wgap;
  const bool y_each = g.rows == 1 || measure_text(opt.ylabel, st.font).width <= g.height * s + 0.9f * hgap;
  for (int64_t c = 0; c < (x_each ? g.cols : 1); ++c) {
    const Box& a = L.axes[(g.rows - 1) * g.cols + c];
    const float cx = x_each ? a.cx() : 0.5f * (first.x0 + last.x1);
    L.xlabels.push_back(opt.xlabel.empty() ? Box{}
                                           : text_box(opt.xlabel, st.font, cx, xlabel_y(a), HAlign::kCenter, VAlign::kTop));
  }
  for (int64_t r = 0; r < (y_each ? g.rows : 1); ++r) {
    const Box& a = L.axes[r * g.cols];
    const float cy = y_each ? a.cy() : 0.5f * (first.y0 + last.y1);
    L.ylabels.push_back(opt.ylabel.empty() ? Box{}
                                           : text_box(opt.ylabel, st.font, ylabel_x(a), cy, HAlign::kRight,
                                                      VAlign::kCenter, true));
  }
  return L;
}

HeatmapGrid heatmap_grid(const std::vector<int64_t>& shape, std::vector<float> values, const std::string& name) {
  if (shape.size() < 2 || shape.size() > 4)
    throw std::runtime_error(name + ": shape " + shape_str(shape) + " has " + std::to_string(shape.size()) +
                             (shape.size() == 1 ? " dimension" : " dimensions") + "; a heatmap needs 2 (queries, keys), 3 (cols, queries, keys) or 4 "
                             "(rows, cols, queries, keys)");
  for (int64_t d : shape)
    if (d == 0) throw std::runtime_error(name + ": shape " + shape_str(shape) + " is empty: nothing to draw");
  size_t count = 1;  // the shape's product, capped just past values.size() so it cannot overflow
  for (int64_t d : shape)
    count = static_cast<size_t>(d) > values.size() / count ? values.size() + 1 : count * static_cast<size_t>(d);
  if (count != values.size())
    throw std::runtime_error(name + ": shape " + shape_str(shape) + " does not hold the " +
                             std::to_string(values.size()) + " values given");
  std::vector<int64_t> s4(4 - shape.size(), 1);  // (q, k) -> (1, 1, q, k); (c, q, k) -> (1, c, q, k)
  s4.insert(s4.end(), shape.begin(), shape.end());
  return {s4[0], s4[1], s4[2], s4[3], std::move(values)};
}

std::string heatmap_cell_tip(const HeatmapOptions& opt, int64_t row, int64_t col, int64_t i, int64_t j, float value) {
  auto name = [](const std::vector<std::string>& names, const std::vector<std::string>& ticks, int64_t k) {
    const std::vector<std::string>& n = names.empty() ? ticks : names;
    return static_cast<size_t>(k) < n.size() ? " '" + n[static_cast<size_t>(k)] + "'" : std::string();
  };
  char v[32];
  std::snprintf(v, sizeof v, "%.4f", static_cast<double>(value));
  const bool has_row = static_cast<size_t>(row) < opt.row_labels.size(), has_col = static_cast<size_t>(col) < opt.titles.size();
  std::string tip = has_row ? opt.row_labels[static_cast<size_t>(row)] + (has_col ? ", " : ": ") : "";
  if (has_col) tip += opt.titles[static_cast<size_t>(col)] + ": ";
  tip += (opt.ylabel.empty() ? std::string("row") : opt.ylabel) + " " + std::to_string(i) +
         name(opt.ynames, opt.yticklabels, i) + ", ";
  tip += (opt.xlabel.empty() ? std::string("column") : opt.xlabel) + " " + std::to_string(j) +
         name(opt.xnames, opt.xticklabels, j) + ": " + v;
  return tip;
}

void show_heatmaps(const HeatmapGrid& g, const HeatmapOptions& opt, const std::string& path) {
  record_drawn(path, {}, &g);
  const std::string svg = book_svg_sibling(path);
  if (!svg.empty()) show_heatmaps(g, opt, svg);
  const HeatmapLayout L = heatmap_layout(g, opt);
  const FigureStyle st(opt.dpi, opt.fontsize, opt.tick_fontsize);
  const std::unique_ptr<Surface> surface = make_surface(path, L.width, L.height, opt.dpi, "show_heatmaps");
  Surface& c = *surface;
  auto color_of = [&](float v) {
    return std::isfinite(v) ? colormap(opt.cmap, static_cast<float>((v - L.vmin) / (L.vmax - L.vmin))) : kNonFiniteColor;
  };

  // Cells, nearest-neighbour like imshow.
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t col = 0; col < g.cols; ++col)
      c.cells(L.axes[r * g.cols + col], g.height, g.width,
              [&](int64_t i, int64_t j) { return color_of(g.at(r, col, i, j)); },
              [&](int64_t i, int64_t j) { return heatmap_cell_tip(opt, r, col, i, j, g.at(r, col, i, j)); });

  // Spines, ticks on every subplot, tick labels on the outer ones (sharex / sharey).
  const bool xwords = !opt.xticklabels.empty(), ywords = !opt.yticklabels.empty();
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t col = 0; col < g.cols; ++col) {
      const Box& a = L.axes[r * g.cols + col];
      c.frame_rect(a, st.spine, kBlack);
      const auto xt = cell_ticks(g.width, a.width(), st.tick_font, true, xwords);
      const auto yt = cell_ticks(g.height, a.height(), st.tick_font, false, ywords);
      const auto xs = cell_tick_text(xt, opt.xticklabels), ys = cell_tick_text(yt, opt.yticklabels);
      for (size_t k = 0; k < xt.size(); ++k) {
        const float x = a.x0 + (static_cast<float>(xt[k]) + 0.5f) * L.cell;
        c.rule(x, a.y1, x, a.y1 + st.tick_len, st.tick_width, kBlack);
        if (r == g.rows - 1)
          c.text(xs[k], st.tick_font, x, a.y1 + st.tick_len + st.tick_pad, HAlign::kCenter, VAlign::kTop, kBlack,
                 xwords);
      }
      for (size_t k = 0; k < yt.size(); ++k) {
        const float y = a.y0 + (static_cast<float>(yt[k]) + 0.5f) * L.cell;
        c.rule(a.x0 - st.tick_len, y, a.x0, y, st.tick_width, kBlack);
        if (col == 0)
          c.text(ys[k], st.tick_font, a.x0 - st.tick_len - st.tick_pad, y, HAlign::kRight, VAlign::kCenter);
      }
      if (!opt.titles.empty())
        c.text(L.title_text[col], L.title_font, a.cx(), a.y0 - st.title_pad, HAlign::kCenter, VAlign::kBottom);
    }
  for (size_t k = 0; k < L.xlabels.size() && !opt.xlabel.empty(); ++k)
    c.text(opt.xlabel, st.font, L.xlabels[k].cx(), L.xlabels[k].y0, HAlign::kCenter, VAlign::kTop);
  for (size_t k = 0; k < L.ylabels.size() && !opt.ylabel.empty(); ++k)
    c.text(opt.ylabel, st.font, L.ylabels[k].x1, L.ylabels[k].cy(), HAlign::kRight, VAlign::kCenter, kBlack, true);
  for (size_t k = 0; k < L.row_labels.size(); ++k)
    c.text(opt.row_labels[k], L.row_label_font, L.row_labels[k].x1, L.row_labels[k].cy(), HAlign::kRight,
           VAlign::kCenter, kBlack, true);

  // The colorbar: vmin at the bottom, one cell per pixel row (the colour at its centre),
  // ticks and numbers on its right.
  const Box& cb = L.colorbar;
  const int64_t strip_rows = Mask(cb).height;
  c.cells(cb, strip_rows, 1, [&](int64_t i, int64_t) {
    return colormap(opt.cmap, (cb.y1 - (cb.y0 + static_cast<float>(i) + 0.5f)) / cb.height());
  });
  c.frame_rect(cb, st.spine, kBlack);
  const auto labels = tick_labels(L.colorbar_ticks);
  for (size_t k = 0; k < labels.size(); ++k) {
    const float y = cb.y1 - static_cast<float>((L.colorbar_ticks[k] - L.vmin) / (L.vmax - L.vmin)) * cb.height();
    c.rule(cb.x1, y, cb.x1 + st.tick_len, y, st.tick_width, kBlack);
    c.text(labels[k], st.tick_font, cb.x1 + st.tick_len + st.tick_pad, y, HAlign::kLeft, VAlign::kCenter);
  }

  if (L.nonfinite > 0) {
    size_t first = 0;
    while (std::isfinite(g.values[first])) ++first;
    const int64_t j = first % g.width, i = first / g.width % g.height, col = first / (g.width * g.height) % g.cols,
                  r = first / (g.width * g.height * g.cols);
    std::fprintf(stderr, "warning: [show_heatmaps] %lld NaN/inf value(s), first at [%lld, %lld, %lld, %lld] = %g; "
                 "drawn grey (%s) in %s\n", static_cast<long long>(L.nonfinite), static_cast<long long>(r),
                 static_cast<long long>(col), static_cast<long long>(i), static_cast<long long>(j),
                 static_cast<double>(g.values[first]), hex_str(kNonFiniteColor).c_str(), path.c_str());
  }
  c.save(path, "show_heatmaps");
}

}  // namespace d2l
