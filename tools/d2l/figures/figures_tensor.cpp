// tools/d2l/figures/figures_tensor.cpp — show_heatmaps for a Tensor, the book's call
//   d2l.show_heatmaps(attention_weights, xlabel='Keys', ylabel='Queries')
// with matrices 4-D: (rows, cols, height, width). Only shape() and data() are used, so
// the drawing code in tools/d2l/figures/heatmaps.cpp works on plain floats (and the heatmap tool and
// tests need no Tensor).
#include "core/tensor.h"
#include "tools/d2l/figures/figures.h"

namespace d2l {

HeatmapGrid heatmap_grid(const Tensor& matrices) {
  check(matrices.defined(), "show_heatmaps", "matrices is an undefined Tensor");
  const Shape& s = matrices.shape();
  check(s.size() == 4, "show_heatmaps", "matrices must be 4-D (rows, cols, height, width) as in the book, got ", s,
        "; e.g. reshape a (height, width) matrix to (1, 1, height, width)");
  HeatmapGrid g{s[0], s[1], s[2], s[3], {}};
  const float* p = matrices.data();
  g.values.assign(p, p + s[0] * s[1] * s[2] * s[3]);
  return g;
}

void show_heatmaps(const Tensor& matrices, const HeatmapOptions& opt, const std::string& path) {
  show_heatmaps(heatmap_grid(matrices), opt, path);
}

void show_heatmaps(const Tensor& matrices, const std::string& xlabel, const std::string& ylabel,
                   const std::vector<std::string>& titles, const std::string& path) {
  HeatmapOptions opt;
  opt.xlabel = xlabel;
  opt.ylabel = ylabel;
  opt.titles = titles;
  show_heatmaps(heatmap_grid(matrices), opt, path);
}

void show_heatmaps(const Tensor& matrices, const std::string& xlabel, const std::string& ylabel,
                   const std::vector<std::string>& titles, std::pair<float, float> figsize, const std::string& cmap,
                   const std::string& path) {
  HeatmapOptions opt;
  opt.xlabel = xlabel;
  opt.ylabel = ylabel;
  opt.titles = titles;
  opt.figsize = figsize;
  opt.cmap = cmap;
  show_heatmaps(heatmap_grid(matrices), opt, path);
}

}  // namespace d2l
