// tools/d2l/figures/figures.cpp — what the heatmaps and plots share: colormaps, tick positions and
// labels, the figure-size checks (tools/d2l/figures/figures.h).
#include "tools/d2l/figures/figures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/shape.h"  // check
#include "tools/d2l/cli/source_trace.h"
#include "tools/d2l/figures/surface.h"
#include "tools/d2l/figures/figures_style.h"

namespace d2l {

namespace {

// The nine ColorBrewer anchors matplotlib builds its sequential maps from.
const std::map<std::string, std::array<const char*, 9>>& anchors() {
  static const std::map<std::string, std::array<const char*, 9>> a{
      {"Reds", {"#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#a50f15", "#67000d"}},
      {"Blues", {"#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"}},
  };
  return a;
}

// matplotlib's LinearSegmentedColormap with N = 256: entry i is the piecewise-linear
// interpolation at i / 255 over anchors placed at 0, 1/8, ..., 1.
std::array<Rgb, 256> make_lut(const std::array<const char*, 9>& hex) {
  std::array<Rgb, 9> a;
  for (size_t k = 0; k < 9; ++k) a[k] = rgb_hex(hex[k]);
  std::array<Rgb, 256> lut;
  for (int i = 0; i < 256; ++i) {
    const double x = i / 255.0 * 8.0;
    const int k = std::min(7, static_cast<int>(x));
    const double f = x - k;
    auto mix = [&](uint8_t lo, uint8_t hi) { return static_cast<uint8_t>(std::lround(lo + (hi - lo) * f)); };
    lut[i] = {mix(a[k].r, a[k + 1].r), mix(a[k].g, a[k + 1].g), mix(a[k].b, a[k + 1].b)};
  }
  return lut;
}

const std::array<Rgb, 256>& lut(const std::string& cmap) {
  static std::map<std::string, std::array<Rgb, 256>> cache;
  auto it = cache.find(cmap);
  if (it != cache.end()) return it->second;
  auto a = anchors().find(cmap);
  if (a == anchors().end()) {
    std::string known;
    for (const auto& name : colormap_names()) known += (known.empty() ? "" : ", ") + name;
    fail("colormap", "unknown colormap '", cmap, "' (known: ", known, ")");
  }
  return cache.emplace(cmap, make_lut(a->second)).first->second;
}

// MaxNLocator's _Edge_integer: floor/ceil of x / step that forgives rounding error.
struct Edge {
  double step, offset;
  bool close_to(double ms, double edge) const {
    const double tol =
        offset > 0 ? std::min(0.4999, std::max(1e-10, std::pow(10.0, std::log10(offset / step) - 12))) : 1e-10;
    return std::fabs(ms - edge) < tol;
  }
  double le(double x) const {
    const double d = std::floor(x / step), m = x - d * step;
    return close_to(m / step, 1) ? d + 1 : d;
  }
  double ge(double x) const {
    const double d = std::floor(x / step), m = x - d * step;
    return close_to(m / step, 0) ? d : d + 1;
  }
};

}  // namespace

std::vector<std::string> colormap_names() {
  std::vector<std::string> names;
  for (const auto& kv : anchors()) names.push_back(kv.first);
  return names;
}

Rgb colormap(const std::string& cmap, float t) {
  const auto& table = lut(cmap);
  const float scaled = std::isnan(t) ? 0.0f : t * 256.0f;  // matplotlib: x * N, N -> N - 1
  const int i = scaled <= 0 ? 0 : scaled >= 255 ? 255 : static_cast<int>(scaled);
  return table[i];
}

// matplotlib's MaxNLocator._raw_ticks (ticks.py), steps [1, 2, 2.5, 5, 10], min_n_ticks 2.
std::vector<double> max_n_locator(double vmin, double vmax, int nbins, bool integer) {
  check(std::isfinite(vmin) && std::isfinite(vmax) && vmin < vmax && nbins >= 1, "max_n_locator",
        "needs finite vmin < vmax and nbins >= 1, got ", vmin, ", ", vmax, ", ", nbins);
  // scale_range: ticks are computed relative to an offset when the range is tiny next to
  // its mean, and steps are scaled to the range's decade.
  const double dv = vmax - vmin, meanv = 0.5 * (vmax + vmin);
  const double offset =
      std::fabs(meanv) / dv < 100 ? 0.0 : std::copysign(std::pow(10.0, std::floor(std::log10(std::fabs(meanv)))), meanv);
  const double scale = std::pow(10.0, std::floor(std::log10(dv / nbins)));
  const double lo = vmin - offset, hi = vmax - offset;
  std::vector<double> steps;
  for (double s : {0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0, 20.0}) {
    const double v = s * scale;
    if (!integer || v < 1 || std::fabs(v - std::round(v)) < 0.001) steps.push_back(v);
  }
  const double raw_step = (hi - lo) / nbins;
  size_t istep = 0;
  while (istep + 1 < steps.size() && steps[istep] < raw_step) ++istep;
  std::vector<double> ticks;
  for (size_t k = istep + 1; k-- > 0;) {  // from the first large-enough step down
    double step = steps[k];
    if (integer && std::floor(hi) - std::ceil(lo) >= 1) step = std::max(1.0, step);
    const double best_vmin = std::floor(lo / step) * step;
    const Edge edge{step, offset};
    const double low = edge.le(lo - best_vmin), high = edge.ge(hi - best_vmin);
    ticks.clear();
    const double tol = 1e-10 * dv;
    for (double n = low; n <= high; ++n) {
      const double t = n * step + best_vmin;
      if (t >= lo - tol && t <= hi + tol) ticks.push_back(t + offset);
    }
    if (ticks.size() >= 2) break;
  }
  return ticks;
}

std::vector<double> log_locator(double lo, double hi, int nbins) {
  check(std::isfinite(lo) && std::isfinite(hi) && lo < hi && nbins >= 1, "log_locator",
        "needs finite lo < hi and nbins >= 1, got lo ", lo, ", hi ", hi, ", nbins ", nbins);
  const double span = hi - lo;
  const int step = span <= 2.5 ? 1 : std::max(1, static_cast<int>(std::ceil(span / nbins)));
  auto ticks_with = [&](const std::vector<int>& mults) {
    std::vector<double> t;
    for (int e = static_cast<int>(std::floor(lo)); e <= static_cast<int>(std::ceil(hi)); ++e) {
      if (((e % step) + step) % step != 0) continue;
      for (int m : mults) {
        const double v = e + std::log10(static_cast<double>(m));
        if (v >= lo - 1e-9 && v <= hi + 1e-9) t.push_back(v);
      }
    }
    return t;
  };
  std::vector<double> ticks = ticks_with(span <= 2.5 ? std::vector<int>{1, 2, 5} : std::vector<int>{1});
  if (ticks.size() < 2) ticks = ticks_with({1, 2, 3, 4, 5, 6, 7, 8, 9});
  return ticks;
}

std::vector<std::string> log_tick_labels(const std::vector<double>& ticks) {
  std::vector<std::string> out;
  for (double t : ticks) {
    const double v = std::pow(10.0, t);
    // 3 significant digits, written without an exponent
    const int decimals = std::max(0, 2 - static_cast<int>(std::floor(t + 1e-9)));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", std::min(decimals, 12), v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {  // drop trailing zeros and a bare point
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks) {
  double big = 0;
  for (double t : ticks) big = std::max(big, std::fabs(t));
  const bool sci = big >= 1e6 || (big > 0 && big < 1e-4);
  int decimals = 0;  // the fewest that show every tick exactly
  while (!sci && decimals < 8) {
    const double p = std::pow(10.0, decimals);
    bool exact = true;
    for (double t : ticks) exact = exact && std::fabs(std::round(t * p) - t * p) < 1e-6 * std::max(1.0, big * p);
    if (exact) break;
    ++decimals;
  }
  auto format = [&](int digits) {
    std::vector<std::string> out;
    for (double t : ticks) {
      char buf[64];
      if (sci) std::snprintf(buf, sizeof buf, "%.*g", digits, t);
      else std::snprintf(buf, sizeof buf, "%.*f", digits, t);
      std::string s = buf;
      if (s[0] == '-') s = std::stod(s) == 0 ? s.substr(1) : "\u2212" + s.substr(1);  // no "−0"
      out.push_back(s);
    }
    return out;
  };
  // Ticks that differ get labels that differ: a nearly constant range (1 to 1.0000001) passes
  // the exactness test above at 0 decimals and would label every tick "1". More digits, up
  // to what a double holds, until no two distinct ticks share a label.
  auto distinct = [&](const std::vector<std::string>& labels) {
    for (size_t i = 0; i < ticks.size(); ++i)
      for (size_t j = i + 1; j < ticks.size(); ++j)
        if (ticks[i] != ticks[j] && labels[i] == labels[j]) return false;
    return true;
  };
  int digits = sci ? 3 : decimals;
  std::vector<std::string> out = format(digits);
  while (!distinct(out) && digits < 17) out = format(++digits);
  return out;
}

int auto_nbins(float length_px, float font_px, bool x_axis) {
  const int space = static_cast<int>(std::floor(length_px / (font_px * (x_axis ? 3.0f : 2.0f))));
  return std::min(9, std::max(1, space));
}

std::pair<int, int> figure_pixels(std::pair<float, float> figsize, int dpi, float fontsize, const char* op) {
  const auto [w, h] = figsize;
  check(std::isfinite(w) && std::isfinite(h) && w > 0 && h > 0 && w <= 100 && h <= 100, op,
        "figsize must be in (0, 100] inches, got (", w, ", ", h, ")");
  check(dpi >= 10 && dpi <= 1200, op, "dpi must be in [10, 1200], got ", dpi);
  check(std::isfinite(fontsize) && fontsize > 0 && fontsize <= 100, op, "fontsize must be in (0, 100] pt, got ",
        fontsize);
  const int pw = static_cast<int>(std::lround(w * dpi)), ph = static_cast<int>(std::lround(h * dpi));
  check(pw >= 16 && ph >= 16 && pw <= 20000 && ph <= 20000, op, "figsize (", w, ", ", h, ") at dpi ", dpi,
        " gives ", pw, " x ", ph, " pixels; need 16 to 20000 a side");
  return {pw, ph};
}

namespace {
struct FigureErrors {
  bool keep_going = false;
  std::vector<std::string> messages;
};
FigureErrors& figure_error_list() {
  static FigureErrors e;
  return e;
}
}  // namespace

void keep_going_after_figure_errors(bool on) { figure_error_list().keep_going = on; }
const std::vector<std::string>& figure_errors() { return figure_error_list().messages; }

std::string book_svg_sibling(const std::string& path) {
  const char* trace = std::getenv("D2L_BOOK_TRACE");
  if (trace == nullptr || *trace == '\0' || figure_format(path, "book") != FigureFormat::kPng) return "";
  return std::filesystem::path(path).replace_extension(".svg").string();
}

bool write_figure(const std::string& path, const std::function<void()>& draw, const char* file, int line) {
  try {
    draw();
  } catch (const std::exception& e) {
    if (!figure_error_list().keep_going) throw;
    figure_error_list().messages.push_back(e.what());
    return false;
  }
  std::printf("saved %s\n", path.c_str());
  std::fflush(stdout);
  trace_source("figure", file, line, path);
  return true;
}

}  // namespace d2l
