// tools/d2l/figures/figures.h — the book's figures as PNG or SVG files, without Python: d2l.show_heatmaps
// (10.1 注意力提示 / Attention Cues, sec_attention-cues, and every attention section after it)
// and d2l.plot (Nadaraya–Watson, positional encoding, every training-loss curve).
//
// The look follows the book's matplotlib: DejaVu Sans at 10 pt (titles 12 pt), 0.8 pt black
// spines, ticks 3.5 pt long pointing out, the Reds/Blues colormaps, the default colour cycle,
// a light grid. Sizes are in inches as in the book (figsize) and rendered at `dpi`, 200 by
// default, so a 2.5-inch heatmap is 500 × 500 pixels. The canvas is exactly figsize × dpi,
// laid out tightly around the labels (the book's SVGs are cropped the same way, by
// bbox_inches='tight'). A path ending in .svg gives the same figure as SVG, with text as
// text, as the book's d2l.use_svg_display shows it (tools/d2l/figures/surface.h); .png or no
// extension gives a PNG, any other extension is refused. Every file is written to a
// temporary file and renamed.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/d2l/figures/raster/canvas.h"

namespace d2l {

class Tensor;

// --- colormaps -------------------------------------------------------------------------
// matplotlib's "Reds" and "Blues": linear interpolation over the nine ColorBrewer anchors,
// sampled into a 256-entry table, and a value t in [0, 1] picks entry min(255, ⌊256 t⌋),
// exactly as matplotlib's Colormap does. Unknown names throw, listing the known ones.
Rgb colormap(const std::string& cmap, float t);
std::vector<std::string> colormap_names();
// Non-finite values (NaN, ±inf) are drawn in this grey, which neither colormap contains.
constexpr Rgb kNonFiniteColor{128, 128, 128};

// --- ticks -----------------------------------------------------------------------------
// matplotlib's MaxNLocator: at most about nbins intervals with steps 1, 2, 2.5, 5 × 10^k
// (2.5 dropped when integer), ticks returned only inside [vmin, vmax]. E.g. an imshow axis
// over 10 cells spans [-0.5, 9.5]: nbins 3 gives 0 5, nbins 5 gives 0 2 4 6 8.
std::vector<double> max_n_locator(double vmin, double vmax, int nbins, bool integer);
// Tick labels with one number of decimals for all, enough to tell them apart ("0.00",
// "0.25", ...), and matplotlib's minus sign U+2212 for negatives.
std::vector<std::string> tick_labels(const std::vector<double>& ticks);
// A log axis from 10^lo to 10^hi (lo, hi in log10): the log10 of its ticks, 1, 2, 5 x 10^k
// when it spans under 2.5 decades, else every power of 10 (every other, ... to keep about
// nbins), else, when fewer than two of those fall inside, 1 .. 9 x 10^k.
std::vector<double> log_locator(double lo, double hi, int nbins);
// The value 10^t of each tick written plainly: "0.002", "0.5", "64", "1000".
std::vector<std::string> log_tick_labels(const std::vector<double>& ticks);

// --- d2l.show_heatmaps -------------------------------------------------------------------
// The matrices of a 4-D tensor (rows, cols, height, width) as plain floats, row-major.
struct HeatmapGrid {
  int64_t rows = 0, cols = 0, height = 0, width = 0;
  std::vector<float> values;  // rows * cols * height * width
  float at(int64_t r, int64_t c, int64_t i, int64_t j) const {
    return values[static_cast<size_t>(((r * cols + c) * height + i) * width + j)];
  }
};

struct HeatmapOptions {
  std::string xlabel, ylabel;                  // the book: 'Keys', 'Queries'
  std::vector<std::string> titles;             // one per column ('Head 1', ...), or none
  // One per row of matrices, or none: what tells the rows apart when each is another layer
  // ('Layer 1', ...; the book's figures leave it to the text). Drawn turned 90° left of the
  // row, beyond its y label, and put before the title in the cells' tooltips.
  std::vector<std::string> row_labels;
  std::pair<float, float> figsize{2.5f, 2.5f};  // inches (width, height), the book's default
  std::string cmap = "Reds";                   // or "Blues" (positional encoding)
  int dpi = 200;
  float fontsize = 10;                         // points: labels, ticks, colorbar; titles 1.2×
  // Word labels instead of integer ticks, e.g. premise and hypothesis tokens for the NLI
  // alignment weights (15.5, sec_natural-language-inference-attention): one per column /
  // row of each matrix. x words are turned 90°. Long sentences read better at 7–8 pt.
  std::vector<std::string> xticklabels, yticklabels;
  float tick_fontsize = 10;
  // What each key (column) and query (row) stands for, e.g. the tokens of a translation, for
  // the cells' tooltips in an SVG ("Head 1: Query positions 2 'va', Key positions 0 'go':
  // 0.9213"); not drawn. Default: the tick labels' words, else the index alone.
  std::vector<std::string> xnames, ynames;
};

// Where everything goes, in pixels; tests use it to find cells without hard-coding.
struct HeatmapLayout {
  int width = 0, height = 0;      // figsize × dpi
  std::vector<Box> axes;          // rows * cols image areas, row-major; cells are square
  float cell = 0;                 // side of one matrix cell in pixels
  Box colorbar;                   // the colour strip, vmin at the bottom
  // The colour scale over all matrices (finite values). double: the span vmax - vmin of two
  // finite floats can overflow float (-3e38..3e38), which painted every cell one colour.
  double vmin = 0, vmax = 1;
  std::vector<double> colorbar_ticks;
  std::vector<Box> xlabels;       // under each bottom-row axes (empty box: no label), or one
                                  // under the whole grid when the label is wider than a panel
  std::vector<Box> ylabels;       // left of each first-column axes, or one for the grid likewise
  std::vector<Box> titles;        // over every axes (the book sets one per subplot)
  std::vector<Box> row_labels;    // left of each row's y label (none without row_labels)
  float row_label_font = 0;       // pixels: the label size, smaller for labels taller than a row
  std::vector<std::string> title_text;  // as drawn: "Head 3" shortened to "H3" when too wide
  float title_font = 0;           // pixels: the style's title size, smaller for titles too wide
  int64_t nonfinite = 0;          // NaN/inf values, drawn in kNonFiniteColor
};

// Checks the grid and options (std::invalid_argument "[show_heatmaps] ..." naming the
// shape) and computes the layout. figsize is a minimum: when a panel's longer side would be
// under kMinPanelInches (many layers or heads), the canvas grows until it is not, so the
// figure reads at any number of panels; labels and titles never overlap (see HeatmapLayout).
constexpr float kMinPanelInches = 0.6f;
HeatmapLayout heatmap_layout(const HeatmapGrid& grid, const HeatmapOptions& opt);
// Draws and writes the PNG or SVG. Non-finite values are drawn grey with a warning on stderr; a
// constant grid gets a colour scale of value ± 10% (± 0.5 around 0) and mid-scale cells.
void show_heatmaps(const HeatmapGrid& grid, const HeatmapOptions& opt, const std::string& path);

// The book's signature, for a 4-D tensor (rows, cols, height, width)
// (tools/d2l/figures/figures_tensor.cpp). `titles` may be empty.
void show_heatmaps(const Tensor& matrices, const HeatmapOptions& opt, const std::string& path);
void show_heatmaps(const Tensor& matrices, const std::string& xlabel, const std::string& ylabel,
                   const std::vector<std::string>& titles, const std::string& path);
void show_heatmaps(const Tensor& matrices, const std::string& xlabel, const std::string& ylabel,
                   const std::vector<std::string>& titles, std::pair<float, float> figsize,
                   const std::string& cmap, const std::string& path);
HeatmapGrid heatmap_grid(const Tensor& matrices);  // 4-D only; the check names the shape
// An array of 2 to 4 dimensions read from a file (values in C order) in show_heatmaps'
// layout: (queries, keys) is one matrix, (cols, queries, keys) one row of matrices,
// (rows, cols, queries, keys) the grid. Other shapes and empty arrays throw
// std::runtime_error "NAME: ..." naming the shape.
HeatmapGrid heatmap_grid(const std::vector<int64_t>& shape, std::vector<float> values, const std::string& name);

// --- d2l.plot ----------------------------------------------------------------------------
// One curve. fmt is matplotlib's format string: an optional colour letter (b g r c m y k
// w), a line style ("-", "--", "-.", ":") and/or the marker "o" or "."; "o" alone is a
// scatter. Without a colour letter the series takes the next colour of matplotlib's cycle
// (C0 #1f77b4, C1 #ff7f0e, C2 #2ca02c, C3 #d62728, ...), which only such series advance.
struct Series {
  std::vector<float> x, y;
  std::string fmt = "-";
  std::string label;                 // shown in the legend when not empty
  std::optional<float> alpha;        // default 1, or 0.5 for a marker-only series
};

struct PlotOptions {
  std::string xlabel, ylabel;
  std::vector<std::string> legend;   // labels of the first series, in order (the book's legend=)
  std::optional<std::pair<float, float>> xlim, ylim;  // default: the data ± 5% (matplotlib)
  std::vector<std::string> fmts{"-", "m--", "g-.", "r:"};  // d2l.plot's defaults
  std::pair<float, float> figsize{3.5f, 2.5f};  // d2l.set_figsize's default
  int dpi = 200;
  float fontsize = 10;
  // matplotlib's xscale='log' / yscale='log' (d2l.plot takes them too): the axis runs in
  // log10 of the values, values <= 0 are skipped like non-finite ones, and the ticks sit at
  // 1, 2, 5 x 10^k (an axis under 2.5 decades) or at powers of 10, labelled with the values
  // themselves ("0.05", "200"). xlim and ylim stay in data units.
  bool xlog = false, ylog = false;
  // Tick positions in data units instead of the locator's (e.g. the sizes measured); those
  // outside the axis are dropped.
  std::vector<double> xticks;
};

// On a log axis the layout's limits and ticks are log10 values, and px / py take log10 values.
struct PlotLayout {
  int width = 0, height = 0;
  Box axes;                          // the data area
  float xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  std::vector<double> xticks, yticks;
  std::vector<std::string> xticklabels, yticklabels;
  Box xlabel, ylabel, legend;        // empty boxes when absent
  std::vector<Rgb> colors;           // each series' resolved colour
  float px(float x) const { return axes.x0 + (x - xmin) / (xmax - xmin) * axes.width(); }
  float py(float y) const { return axes.y1 - (y - ymin) / (ymax - ymin) * axes.height(); }
};

PlotLayout plot_layout(const std::vector<Series>& series, const PlotOptions& opt);
// Series with their own x (Nadaraya–Watson: truth and prediction over x_test, the training
// points over x_train). opt.legend, when given, names the first series; opt.fmts is unused.
void plot(const std::vector<Series>& series, const PlotOptions& opt, const std::string& path);
// The book's d2l.plot(X, Y, ...): every Y over the same X (empty X: 0, 1, 2, ...), with
// fmts[i % fmts.size()] and legend[i].
void plot(const std::vector<float>& X, const std::vector<std::vector<float>>& Ys, const PlotOptions& opt,
          const std::string& path);
std::vector<Series> make_series(const std::vector<float>& X, const std::vector<std::vector<float>>& Ys,
                                const PlotOptions& opt);

// The tooltip of cell (i, j) of the subplot at grid row `row`, column `col` in an SVG heatmap:
// row label and subplot title, query (row) label, key (column) label and the weight with 4
// decimals ("Layer 2, Head 1: Queries 0 'je', Keys 1 'go': 0.2500").
std::string heatmap_cell_tip(const HeatmapOptions& opt, int64_t row, int64_t col, int64_t i, int64_t j, float value);

// --- what a program drew, as numbers ------------------------------------------------------
// For a caller that runs a program's code and draws its figures itself (the browser's 10.2
// panel runs the section's code and shows its data): while record_figures(true) is in force,
// plot() and show_heatmaps() keep what they were given under the path they write, the last
// drawing to each path kept. record_figures(false) stops and forgets them.
struct DrawnFigure {
  std::vector<Series> series;  // plot()'s
  HeatmapGrid grid;            // show_heatmaps()'
};
void record_figures(bool on);
// The figure last drawn to `path` while recording; std::out_of_range naming the path if none.
const DrawnFigure& drawn_figure(const std::string& path);
// Called by plot() and show_heatmaps(); nothing happens unless recording.
void record_drawn(const std::string& path, const std::vector<Series>& series, const HeatmapGrid* grid);

// --- a program's figures ------------------------------------------------------------------
// write_figure(path, draw) runs draw, which writes the PNG at path, and prints "saved PATH".
// By default a failure throws, as the figure functions do. A program with more to lose than
// one figure (a chapter program: the trained model, its other figures) first calls
// keep_going_after_figure_errors(); then write_figure remembers the failure in
// figure_errors(), returns false and the program goes on. The chapter programs'
// run_reporting_errors (tools/d2l/cli/cli_args.h) lists them at the end and exits with status 1.
// The call's file and line (filled in by the compiler) go to the run's source trace
// (tools/d2l/cli/source_trace.h), as print_saved's do.
bool write_figure(const std::string& path, const std::function<void()>& draw, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE());
void keep_going_after_figure_errors(bool on = true);
const std::vector<std::string>& figure_errors();
// For the companion pages (`make book`, tools/programs/book/): when the environment variable
// D2L_BOOK_TRACE is set, every figure written as PNG is also written as SVG beside it
// (x.png -> x.svg), which the pages show inline. Returns that SVG path, or "" when the
// variable is unset or `path` is not a PNG.
std::string book_svg_sibling(const std::string& path);

}  // namespace d2l
