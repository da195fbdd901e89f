// tools/programs/example_figures/main.cpp — build/tools/example_figures (`make figures`): the example
// figures tools/d2l/figures/README.md shows, drawn with the figure API alone (no training, no
// random numbers), so a reader can compare them with the book's.
//
//   eye10.png                     eye(10), the book's first heatmap (10.1), Keys / Queries
//   heads_2x4.png                 a 2 × 4 grid titled Head 1 … Head 4, one colorbar (10.5)
//   positional_encoding.png       the positional encoding P (60 × 32) in Blues (10.6)
//   positional_encoding_cols.png  columns 6–9 of P over the positions, with a legend (10.6)
//   nadaraya_watson.png           truth, a flat prediction and scattered training points (10.2)
//
// Usage: example_figures [--out DIR] (default out/figures; `make figures` writes
// build/figures/). Prints "saved <path>" per figure; errors as the chapter programs.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

HeatmapOptions keys_queries() {
  HeatmapOptions opt;
  opt.xlabel = "Keys";
  opt.ylabel = "Queries";
  return opt;
}

// 10.1: eye(10), the attention weights that are 1 only where query and key match.
void eye10(const std::string& path) {
  HeatmapGrid g{1, 1, 10, 10, std::vector<float>(100, 0.0f)};
  for (int64_t i = 0; i < 10; ++i) g.values[i * 10 + i] = 1.0f;
  show_heatmaps(g, keys_queries(), path);
}

// 10.5: eight heads in a 2 × 4 grid with their titles; fixed values spread over [0, 1).
void heads(const std::string& path) {
  HeatmapGrid g{2, 4, 10, 10, {}};
  for (int k = 0; k < 800; ++k) g.values.push_back(static_cast<float>((k * 37) % 101) / 101.0f);
  HeatmapOptions opt = keys_queries();
  opt.titles = {"Head 1", "Head 2", "Head 3", "Head 4"};
  opt.figsize = {7, 3.5f};
  show_heatmaps(g, opt, path);
}

// 10.6: P[i, 2j] = sin(i / 10000^(2j/d)), P[i, 2j+1] = cos(...), 60 positions, d = 32; the
// heatmap of P and the curves of its columns 6 to 9.
void positional_encoding(const std::string& heatmap_path, const std::string& columns_path) {
  HeatmapGrid P{1, 1, 60, 32, {}};
  std::vector<std::vector<float>> cols(4);
  for (int i = 0; i < 60; ++i)
    for (int j = 0; j < 32; ++j) {
      const float w = std::pow(10000.0f, -static_cast<float>(j / 2 * 2) / 32);
      P.values.push_back(j % 2 ? std::cos(i * w) : std::sin(i * w));
      if (j >= 6 && j < 10) cols[j - 6].push_back(P.values.back());
    }
  HeatmapOptions opt;
  opt.xlabel = "Column (encoding dimension)";
  opt.ylabel = "Row (position)";
  opt.figsize = {3.5f, 4};
  opt.cmap = "Blues";
  show_heatmaps(P, opt, heatmap_path);
  print_saved(heatmap_path);
  PlotOptions cols_opt;
  cols_opt.xlabel = "Row (position)";
  cols_opt.figsize = {6, 2.5f};
  cols_opt.legend = {"Col 6", "Col 7", "Col 8", "Col 9"};
  plot({}, cols, cols_opt, columns_path);
}

// 10.2: f(x) = 2 sin x + x^0.8 over x_test, a flat prediction (average pooling's), and 50
// training points: a fixed, RNG-free jitter of the truth at golden-ratio-spaced x.
void nadaraya_watson(const std::string& path) {
  auto f = [](float x) { return 2 * std::sin(x) + std::pow(x, 0.8f); };
  Series truth, pred, train;
  truth.label = "Truth";
  pred.label = "Pred";
  pred.fmt = "m--";
  train.fmt = "o";
  for (int i = 0; i < 50; ++i) {
    truth.x.push_back(0.1f * i), truth.y.push_back(f(0.1f * i));
    pred.x.push_back(0.1f * i), pred.y.push_back(2.2f);
    const float x = 5.0f * std::fmod(0.618034f * (i + 1), 1.0f);
    train.x.push_back(x), train.y.push_back(f(x) + 0.5f * std::sin(37.0f * i));
  }
  PlotOptions opt;
  opt.xlabel = "x";
  opt.ylabel = "y";
  opt.xlim = {{0, 5}};
  opt.ylim = {{-1, 5}};
  plot({truth, pred, train}, opt, path);
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("example_figures", "The example figures of tools/d2l/figures/README.md, from fixed values.");
  args.add_string("out", "out/figures", "directory for the figures (created)", "DIR");
  args.parse_or_exit(argc, argv);
  return run_reporting_errors([&] {
    const std::string out = args.get_string("out");
    if (out.empty()) throw std::invalid_argument("[--out] must not be empty");
    eye10(out + "/eye10.png");
    print_saved(out + "/eye10.png");
    heads(out + "/heads_2x4.png");
    print_saved(out + "/heads_2x4.png");
    positional_encoding(out + "/positional_encoding.png", out + "/positional_encoding_cols.png");
    print_saved(out + "/positional_encoding_cols.png");
    nadaraya_watson(out + "/nadaraya_watson.png");
    print_saved(out + "/nadaraya_watson.png");
    return 0;
  });
}
