// tools/d2l/figures/surface.h — what the figures draw on (internal to tools/d2l/figures/): a handful
// of primitives with two backends, the PNG canvas (tools/d2l/figures/raster/canvas.h) and an SVG
// document, chosen by the file's extension. show_heatmaps, plot and the Animator lay a figure
// out once and draw it through this interface, so the PNG and the SVG show the same figure.
//
// The SVG is what the book's d2l.use_svg_display shows in the notebook: text stays text
// (<text> in DejaVu Sans), matrix cells are <rect>s, lines are <path>s. Its coordinates are
// the PNG's pixels (viewBox), its size is the figure's in points (figsize × 72).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tools/d2l/figures/raster/canvas.h"

namespace d2l {

using Polyline = std::vector<std::pair<float, float>>;

class Surface {
 public:
  Surface(int width, int height) : width_(width), height_(height) {}
  virtual ~Surface() = default;
  int width() const { return width_; }
  int height() const { return height_; }

  // A filled rectangle, blended by alpha.
  virtual void fill_rect(const Box& b, Rgb color, float alpha = 1.0f) = 0;
  // An outline `line_width` wide centred on b's edges (spines, the colorbar's frame).
  virtual void frame_rect(const Box& b, float line_width, Rgb color) = 0;
  // A horizontal or vertical line with flat ends (ticks, grid lines).
  virtual void rule(float x0, float y0, float x1, float y1, float line_width, Rgb color) = 0;
  // Polylines stroked as one (alpha is applied once where they overlap), clipped to `clip`:
  // a curve broken at NaN points is several runs. `dashes` alternates on and off lengths
  // (empty: solid, round joins and caps; dashed: flat ends).
  virtual void lines(const std::vector<Polyline>& runs, float width, const std::vector<float>& dashes, Rgb color,
                     float alpha, const Box& clip) = 0;
  // A disc, or with r_inner > 0 a ring (a marker's edge), clipped to `clip`.
  virtual void disc(float cx, float cy, float r, Rgb color, float alpha, const Box& clip, float r_inner = 0) = 0;
  // A filled rounded rectangle with an outline (the legend's frame).
  virtual void rounded_rect(const Box& b, float radius, Rgb fill, float fill_alpha, Rgb edge, float edge_width) = 0;
  // Text anchored as draw_text (raster/canvas.h) anchors it; returns the box it occupies.
  virtual Box text(const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va, Rgb color = {0, 0, 0},
                   bool vertical = false) = 0;
  // A rows × cols matrix of colour cells filling `area` (imshow's cells, the colorbar's
  // strip): in the PNG a pixel takes the cell under its centre, as imshow's nearest-neighbour.
  // `tip`, when given, is each cell's tooltip: the SVG gives every cell a <title> (a browser
  // shows it on hover); the PNG has no use for it.
  using CellTip = std::function<std::string(int64_t, int64_t)>;
  virtual void cells(const Box& area, int64_t rows, int64_t cols, const std::function<Rgb(int64_t, int64_t)>& color,
                     const CellTip& tip = {}) = 0;
  // Writes the file through a temporary and a rename (write_figure_file, raster/canvas.h).
  virtual void save(const std::string& path, const char* op) const = 0;

 private:
  int width_, height_;
};

enum class FigureFormat { kPng, kSvg };
// By extension, case-insensitive: ".svg" is SVG, ".png" or none is PNG; any other extension
// is std::invalid_argument "[op] cannot write 'path': ...", so a figure never lands in a
// file whose name says another format.
FigureFormat figure_format(const std::string& path, const char* op);
// A white surface of width × height pixels for `path`'s format; dpi gives the SVG its size.
std::unique_ptr<Surface> make_surface(const std::string& path, int width, int height, int dpi, const char* op);

// The SVG backend alone (tools/d2l/figures/surface_svg.cpp); make_surface picks it for ".svg".
std::unique_ptr<Surface> make_svg_surface(int width, int height, int dpi);

}  // namespace d2l
