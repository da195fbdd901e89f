// tools/d2l/figures/plot.cpp — d2l.plot: line plots and scatter in the book's matplotlib style, used by
// 10.2 Nadaraya–Watson (truth, prediction, training points), 10.6 positional encoding
// (columns 6–9 over positions) and every training curve (tools/d2l/figures/animator.h).
//
// As d2l.set_axes does: x and y labels, the limits, a legend, a light grid
// (axes.grid(): #b0b0b0, 0.8 pt) at the ticks. Lines are 1.5 pt wide (lines.linewidth) with
// matplotlib's dash patterns scaled by the width, markers 'o' 6 pt across with a 1 pt edge.
// Log axes (xscale / yscale 'log', 10.7's cost of long sequences) draw log10 of the values.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include "core/shape.h"  // check
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/figures_style.h"
#include "tools/d2l/figures/surface.h"

namespace d2l {

namespace {

constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrid{0xb0, 0xb0, 0xb0};

// matplotlib's default property cycle (tab10) and its single-letter colours.
const char* const kCycle[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                              "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
Rgb letter_color(char c) {
  switch (c) {
    case 'b': return {0, 0, 255};
    case 'g': return {0, 128, 0};
    case 'r': return {255, 0, 0};
    case 'c': return {0, 191, 191};
    case 'm': return {191, 0, 191};
    case 'y': return {191, 191, 0};
    case 'k': return {0, 0, 0};
    default: return {255, 255, 255};  // 'w'
  }
}

struct Format {
  bool has_color = false;
  Rgb color;
  std::string line;  // "", "-", "--", "-.", ":"
  char marker = 0;   // 0, 'o', '.'
};

Format parse_fmt(const std::string& fmt, size_t series) {
  Format f;
  for (size_t i = 0; i < fmt.size();) {
    const char c = fmt[i];
    if (std::string("bgrcmykw").find(c) != std::string::npos && !f.has_color) {
      f.has_color = true;
      f.color = letter_color(c);
      ++i;
    } else if ((fmt.compare(i, 2, "--") == 0 || fmt.compare(i, 2, "-.") == 0) && f.line.empty()) {
      f.line = fmt.substr(i, 2);
      i += 2;
    } else if ((c == '-' || c == ':') && f.line.empty()) {
      f.line = std::string(1, c);
      ++i;
    } else if ((c == 'o' || c == '.') && !f.marker) {
      f.marker = c;
      ++i;
    } else {
      fail("plot", "series ", series, ": bad format '", fmt,
           "' (a colour letter of bgrcmykw, a line style of - -- -. : and/or a marker o .)");
    }
  }
  if (f.line.empty() && !f.marker) f.line = "-";
  return f;
}

// On-off lengths in pixels for a line style, matplotlib's patterns times the line width.
std::vector<float> dash_pattern(const std::string& line, float lw) {
  std::vector<float> d;
  if (line == "--") d = {3.7f, 1.6f};
  else if (line == "-.") d = {6.4f, 1.6f, 1.0f, 1.6f};
  else if (line == ":") d = {1.0f, 1.65f};
  for (float& v : d) v *= lw;
  return d;
}

struct Resolved {
  std::vector<Format> fmts;
  std::vector<Rgb> colors;
  std::vector<float> alphas;
  std::vector<std::string> labels;
};

Resolved resolve(const std::vector<Series>& series, const PlotOptions& opt) {
  check(!series.empty(), "plot", "nothing to plot: no series");
  check(opt.legend.size() <= series.size(), "plot", "legend has ", opt.legend.size(), " labels for ",
        series.size(), " series");
  Resolved r;
  size_t next = 0;  // the cycle advances only for series without a colour letter
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    check(s.x.size() == s.y.size(), "plot", "series ", i, ": x has ", s.x.size(), " values, y has ", s.y.size());
    const Format f = parse_fmt(s.fmt, i);
    r.fmts.push_back(f);
    r.colors.push_back(f.has_color ? f.color : rgb_hex(kCycle[next++ % 10]));
    const float alpha = s.alpha ? *s.alpha : (f.line.empty() ? 0.5f : 1.0f);
    check(alpha >= 0 && alpha <= 1, "plot", "series ", i, ": alpha must be in [0, 1], got ", alpha);
    r.alphas.push_back(alpha);
    r.labels.push_back(i < opt.legend.size() ? opt.legend[i] : s.label);
  }
  return r;
}

// Data limits with matplotlib's 5% margins, or the given limits.
std::pair<float, float> limits(const std::vector<Series>& series, bool x_axis,
                               const std::optional<std::pair<float, float>>& lim, const char* name) {
  if (lim) {
    check(std::isfinite(lim->first) && std::isfinite(lim->second) && lim->first < lim->second, "plot", name,
          " must be finite with low < high, got (", lim->first, ", ", lim->second, ")");
    return *lim;
  }
  float lo = INFINITY, hi = -INFINITY;
  for (const Series& s : series)
    for (size_t k = 0; k < s.x.size(); ++k)
      if (std::isfinite(s.x[k]) && std::isfinite(s.y[k])) {
        const float v = x_axis ? s.x[k] : s.y[k];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (lo > hi) return {0.0f, 1.0f};  // nothing finite: matplotlib's empty axes
  if (lo == hi) {                    // matplotlib's nonsingular(): widen by 5% of |v|
    const float d = lo == 0 ? 0.05f : 0.05f * std::fabs(lo);
    return {lo - d, hi + d};
  }
  const float m = 0.05f * (hi - lo);
  return {lo - m, hi + m};
}

float widest(const std::vector<std::string>& texts, float px) {
  float w = 0;
  for (const auto& t : texts) w = std::max(w, measure_text(t, px).width);
  return w;
}

// matplotlib's legend sizes, in units of the font size.
constexpr float kBorderPad = 0.4f, kLabelSpacing = 0.5f, kHandleLength = 2.0f, kHandleTextPad = 0.8f,
                kBorderAxesPad = 0.5f;

// loc='best': of matplotlib's candidate spots, in its order, the first that covers the
// fewest data points plus line segments.
Box best_legend_box(const std::vector<Series>& series, const PlotLayout& L, float w, float h, float pad) {
  const Box& a = L.axes;
  const float xl = a.x0 + pad, xr = a.x1 - pad - w, xc = a.cx() - 0.5f * w;
  const float yt = a.y0 + pad, yb = a.y1 - pad - h, yc = a.cy() - 0.5f * h;
  const std::pair<float, float> spots[] = {{xr, yt}, {xl, yt}, {xl, yb}, {xr, yb}, {xr, yc},
                                           {xl, yc}, {xr, yc}, {xc, yb}, {xc, yt}, {xc, yc}};
  Box best;
  long best_bad = -1;
  for (const auto& [x, y] : spots) {
    const Box b{x, y, x + w, y + h};
    long bad = 0;
    for (const Series& s : series)
      for (size_t k = 0; k < s.x.size(); ++k) {
        if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k])) continue;
        const float px = L.px(s.x[k]), py = L.py(s.y[k]);
        bad += px >= b.x0 && px <= b.x1 && py >= b.y0 && py <= b.y1;
        if (k + 1 < s.x.size() && std::isfinite(s.x[k + 1]) && std::isfinite(s.y[k + 1])) {
          // a segment crosses the box if a few points along it fall inside
          const float qx = L.px(s.x[k + 1]), qy = L.py(s.y[k + 1]);
          for (float t : {0.25f, 0.5f, 0.75f}) {
            const float mx = px + t * (qx - px), my = py + t * (qy - py);
            if (mx >= b.x0 && mx <= b.x1 && my >= b.y0 && my <= b.y1) { ++bad; break; }
          }
        }
      }
    if (best_bad < 0 || bad < best_bad) best = b, best_bad = bad;
  }
  return best;
}

void draw_marker(Surface& c, char marker, float x, float y, Rgb color, float alpha, const FigureStyle& st,
                 const Box& clip) {
  // markersize 6 pt ('.' is half that) with a 1 pt edge in the same colour: with alpha
  // the edge shows as a darker ring, as in matplotlib.
  const float r = (marker == '.' ? 1.5f : 3.0f) * st.pt, e = 0.5f * st.pt;
  c.disc(x, y, r, color, alpha, clip);
  c.disc(x, y, r + e, color, alpha, clip, r - e);
}

// The series as the axes see them: on a log axis, log10 of the values (values <= 0 become
// NaN, which the drawing skips with a warning).
std::vector<Series> on_axes(const std::vector<Series>& series, const PlotOptions& opt) {
  if (!opt.xlog && !opt.ylog) return series;
  auto log_of = [](std::vector<float>& v) {
    for (float& x : v) x = x > 0 ? std::log10(x) : NAN;
  };
  std::vector<Series> out = series;
  for (Series& s : out) {
    if (opt.xlog) log_of(s.x);
    if (opt.ylog) log_of(s.y);
  }
  return out;
}

// A log axis's limits given in data units, in log10.
std::optional<std::pair<float, float>> log_limits(const std::optional<std::pair<float, float>>& lim, bool log,
                                                  const char* name) {
  if (!lim || !log) return lim;
  check(lim->first > 0 && lim->second > 0, "plot", name, " of a log axis must be > 0, got (", lim->first, ", ",
        lim->second, ")");
  return std::make_pair(std::log10(lim->first), std::log10(lim->second));
}

}  // namespace

std::vector<Series> make_series(const std::vector<float>& X, const std::vector<std::vector<float>>& Ys,
                                const PlotOptions& opt) {
  check(!Ys.empty(), "plot", "nothing to plot: Y is empty");
  check(!opt.fmts.empty(), "plot", "fmts is empty");
  check(opt.legend.size() <= Ys.size(), "plot", "legend has ", opt.legend.size(), " labels for ", Ys.size(),
        " series");
  std::vector<Series> out;
  for (size_t i = 0; i < Ys.size(); ++i) {
    Series s;
    s.y = Ys[i];
    if (X.empty()) {
      for (size_t k = 0; k < s.y.size(); ++k) s.x.push_back(static_cast<float>(k));
    } else {
      check(X.size() == Ys[i].size(), "plot", "X has ", X.size(), " values but Y[", i, "] has ", Ys[i].size());
      s.x = X;
    }
    s.fmt = opt.fmts[i % opt.fmts.size()];  // d2l.plot zips and drops extra series; we cycle
    if (i < opt.legend.size()) s.label = opt.legend[i];
    out.push_back(std::move(s));
  }
  return out;
}

PlotLayout plot_layout(const std::vector<Series>& data_series, const PlotOptions& opt) {
  const Resolved r = resolve(data_series, opt);
  const std::vector<Series> series = on_axes(data_series, opt);
  const auto [W, H] = figure_pixels(opt.figsize, opt.dpi, opt.fontsize, "plot");
  const FigureStyle st(opt.dpi, opt.fontsize, opt.fontsize);
  PlotLayout L;
  L.width = W;
  L.height = H;
  L.colors = r.colors;
  std::tie(L.xmin, L.xmax) = limits(series, true, log_limits(opt.xlim, opt.xlog, "xlim"), "xlim");
  std::tie(L.ymin, L.ymax) = limits(series, false, log_limits(opt.ylim, opt.ylog, "ylim"), "ylim");
  // The ticks of one axis at a given length in pixels, and their labels.
  auto axis_ticks = [&](bool x_axis, float length, std::vector<double>& ticks, std::vector<std::string>& labels) {
    const bool log = x_axis ? opt.xlog : opt.ylog;
    const float lo = x_axis ? L.xmin : L.ymin, hi = x_axis ? L.xmax : L.ymax;
    const int nbins = auto_nbins(length, st.font, x_axis);
    ticks.clear();
    if (x_axis && !opt.xticks.empty()) {
      for (double t : opt.xticks) {
        check(!log || t > 0, "plot", "xticks of a log axis must be > 0, got ", t);
        const double at = log ? std::log10(t) : t;
        if (at >= lo - 1e-6 * (hi - lo) && at <= hi + 1e-6 * (hi - lo)) ticks.push_back(at);
      }
    } else {
      ticks = log ? log_locator(lo, hi, nbins) : max_n_locator(lo, hi, nbins, false);
    }
    labels = log ? log_tick_labels(ticks) : tick_labels(ticks);
  };

  // Margins depend on the tick labels, which depend on the axes' length: iterate.
  const float text_h = measure_text("0", st.font).height();
  const float xlabel_h = opt.xlabel.empty() ? 0 : st.label_pad + text_h;
  const float ylabel_w = opt.ylabel.empty() ? 0 : st.label_pad + text_h;
  float ytick_w = measure_text("0.0", st.font).width, last_xtick_w = ytick_w;
  for (int pass = 0; pass < 3; ++pass) {
    const float left = st.border + ylabel_w + ytick_w + st.tick_pad + st.tick_len;
    const float right = st.border + 0.5f * last_xtick_w;
    const float bottom = st.tick_len + st.tick_pad + text_h + xlabel_h + st.border;
    const float top = st.border + 0.5f * text_h;
    L.axes = {std::round(left), std::round(top), std::round(W - right), std::round(H - bottom)};
    check(L.axes.width() > 8 && L.axes.height() > 8, "plot", "figsize (", opt.figsize.first, ", ",
          opt.figsize.second, ") is too small for the tick labels; use a larger figsize or a smaller fontsize");
    axis_ticks(true, L.axes.width(), L.xticks, L.xticklabels);
    axis_ticks(false, L.axes.height(), L.yticks, L.yticklabels);
    const float yw = widest(L.yticklabels, st.font);
    const auto& xl = L.xticklabels;
    const float xw = xl.empty() ? 0 : measure_text(xl.back(), st.font).width;
    if (yw == ytick_w && xw == last_xtick_w) break;
    ytick_w = yw;
    last_xtick_w = xw;
  }
  if (!opt.xlabel.empty())
    L.xlabel = text_box(opt.xlabel, st.font, L.axes.cx(), L.axes.y1 + st.tick_len + st.tick_pad + text_h + st.label_pad,
                        HAlign::kCenter, VAlign::kTop);
  if (!opt.ylabel.empty())
    L.ylabel = text_box(opt.ylabel, st.font, L.axes.x0 - st.tick_len - st.tick_pad - ytick_w - st.label_pad,
                        L.axes.cy(), HAlign::kRight, VAlign::kCenter, true);

  std::vector<std::string> shown;
  for (const auto& l : r.labels)
    if (!l.empty()) shown.push_back(l);
  if (!shown.empty()) {
    const float fs = st.font;
    const float w = (2 * kBorderPad + kHandleLength + kHandleTextPad) * fs + widest(shown, fs);
    const float h = (2 * kBorderPad + kLabelSpacing * (shown.size() - 1)) * fs + shown.size() * text_h;
    L.legend = best_legend_box(series, L, w, h, kBorderAxesPad * fs);
  }
  return L;
}

void plot(const std::vector<Series>& data_series, const PlotOptions& opt, const std::string& path) {
  record_drawn(path, data_series, nullptr);
  const std::string svg = book_svg_sibling(path);
  if (!svg.empty()) plot(data_series, opt, svg);
  const PlotLayout L = plot_layout(data_series, opt);
  const Resolved r = resolve(data_series, opt);
  const std::vector<Series> series = on_axes(data_series, opt);
  const FigureStyle st(opt.dpi, opt.fontsize, opt.fontsize);
  const float lw = 1.5f * st.pt;
  const Box& a = L.axes;
  const std::unique_ptr<Surface> surface = make_surface(path, L.width, L.height, opt.dpi, "plot");
  Surface& c = *surface;

  // Grid under the data, at the ticks (axes.grid: 0.8 pt).
  for (double t : L.xticks) c.rule(L.px(t), a.y0, L.px(t), a.y1, 0.8f * st.pt, kGrid);
  for (double t : L.yticks) c.rule(a.x0, L.py(t), a.x1, L.py(t), 0.8f * st.pt, kGrid);

  // Series in order; a non-finite point breaks the line.
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const Format& f = r.fmts[i];
    std::vector<Polyline> runs(1);
    size_t skipped = 0;
    for (size_t k = 0; k < s.x.size(); ++k) {
      if (std::isfinite(s.x[k]) && std::isfinite(s.y[k])) {
        runs.back().push_back({L.px(s.x[k]), L.py(s.y[k])});
      } else {  // a NaN or inf point breaks the line
        ++skipped;
        if (!runs.back().empty()) runs.emplace_back();
      }
    }
    if (!f.line.empty()) c.lines(runs, lw, dash_pattern(f.line, lw), r.colors[i], r.alphas[i], a);
    if (f.marker)
      for (size_t k = 0; k < s.x.size(); ++k)
        if (std::isfinite(s.x[k]) && std::isfinite(s.y[k]))
          draw_marker(c, f.marker, L.px(s.x[k]), L.py(s.y[k]), r.colors[i], r.alphas[i], st, a);
    if (skipped)
      std::fprintf(stderr, "warning: [plot] series %zu: skipped %zu non-finite point(s) in %s\n", i, skipped,
                   path.c_str());
  }

  // Spines over the data, ticks pointing out, their numbers, the labels.
  c.frame_rect(a, st.spine, kBlack);
  const auto &xl = L.xticklabels, &yl = L.yticklabels;
  for (size_t k = 0; k < xl.size(); ++k) {
    const float x = L.px(L.xticks[k]);
    c.rule(x, a.y1, x, a.y1 + st.tick_len, st.tick_width, kBlack);
    c.text(xl[k], st.font, x, a.y1 + st.tick_len + st.tick_pad, HAlign::kCenter, VAlign::kTop);
  }
  for (size_t k = 0; k < yl.size(); ++k) {
    const float y = L.py(L.yticks[k]);
    c.rule(a.x0 - st.tick_len, y, a.x0, y, st.tick_width, kBlack);
    c.text(yl[k], st.font, a.x0 - st.tick_len - st.tick_pad, y, HAlign::kRight, VAlign::kCenter);
  }
  if (!opt.xlabel.empty()) c.text(opt.xlabel, st.font, L.xlabel.cx(), L.xlabel.y0, HAlign::kCenter, VAlign::kTop);
  if (!opt.ylabel.empty())
    c.text(opt.ylabel, st.font, L.ylabel.x1, L.ylabel.cy(), HAlign::kRight, VAlign::kCenter, kBlack, true);

  // Legend: a white, 80%-opaque rounded box with a light edge, one row per named series.
  if (!L.legend.empty()) {
    const float fs = st.font, text_h = measure_text("0", fs).height();
    c.rounded_rect(L.legend, 0.2f * fs, {255, 255, 255}, 0.8f, {0xcc, 0xcc, 0xcc}, 1.0f * st.pt);
    float y = L.legend.y0 + kBorderPad * fs;
    for (size_t i = 0; i < series.size(); ++i) {
      if (r.labels[i].empty()) continue;
      const float x0 = L.legend.x0 + kBorderPad * fs, x1 = x0 + kHandleLength * fs, cy = y + 0.5f * text_h;
      if (!r.fmts[i].line.empty())
        c.lines({{{x0, cy}, {x1, cy}}}, lw, dash_pattern(r.fmts[i].line, lw), r.colors[i], r.alphas[i], L.legend);
      if (r.fmts[i].marker) draw_marker(c, r.fmts[i].marker, 0.5f * (x0 + x1), cy, r.colors[i], r.alphas[i], st, L.legend);
      c.text(r.labels[i], fs, x1 + kHandleTextPad * fs, cy, HAlign::kLeft, VAlign::kCenter);
      y += text_h + kLabelSpacing * fs;
    }
  }
  c.save(path, "plot");
}

void plot(const std::vector<float>& X, const std::vector<std::vector<float>>& Ys, const PlotOptions& opt,
          const std::string& path) {
  PlotOptions named = opt;
  named.legend.clear();  // make_series put the names into the series' labels
  plot(make_series(X, Ys, opt), named, path);
}

namespace {
struct FigureRecord {
  bool on = false;
  std::map<std::string, DrawnFigure> drawn;
};
FigureRecord& figure_record() {
  static FigureRecord r;
  return r;
}
}  // namespace

void record_figures(bool on) {
  figure_record().on = on;
  if (!on) figure_record().drawn.clear();
}

const DrawnFigure& drawn_figure(const std::string& path) {
  const auto it = figure_record().drawn.find(path);
  if (it == figure_record().drawn.end())
    throw std::out_of_range("drawn_figure: no figure was drawn to '" + path + "' while recording");
  return it->second;
}

void record_drawn(const std::string& path, const std::vector<Series>& series, const HeatmapGrid* grid) {
  if (!figure_record().on) return;
  DrawnFigure& d = figure_record().drawn[path];
  d.series = series;
  d.grid = grid ? *grid : HeatmapGrid{};
}

}  // namespace d2l
