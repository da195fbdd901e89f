// tools/d2l/figures/surface.cpp — the format chosen by extension, and the PNG backend: each
// primitive is a call on the raster canvas (tools/d2l/figures/raster/canvas.h).
#include "tools/d2l/figures/surface.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/shape.h"  // check

namespace d2l {

namespace {

class PngSurface : public Surface {
 public:
  PngSurface(int width, int height) : Surface(width, height), c_(width, height) {}

  void fill_rect(const Box& b, Rgb color, float alpha) override { c_.fill_rect(b, color, alpha); }
  void frame_rect(const Box& b, float line_width, Rgb color) override { c_.frame_rect(b, line_width, color); }
  void rule(float x0, float y0, float x1, float y1, float line_width, Rgb color) override {
    // Exactly the rectangle the line covers, so 1-pixel ticks land on whole pixels.
    const float h = 0.5f * line_width;
    if (x0 == x1) c_.fill_rect({x0 - h, std::min(y0, y1), x0 + h, std::max(y0, y1)}, color);
    else c_.fill_rect({std::min(x0, x1), y0 - h, std::max(x0, x1), y0 + h}, color);
  }
  void lines(const std::vector<Polyline>& runs, float width, const std::vector<float>& dashes, Rgb color, float alpha,
             const Box& clip) override {
    Mask m(clip);
    for (const Polyline& run : runs) stroke_polyline(m, run, width, dashes);
    c_.composite(m, color, alpha);
  }
  void disc(float cx, float cy, float r, Rgb color, float alpha, const Box& clip, float r_inner) override {
    c_.disc(cx, cy, r, color, alpha, clip, r_inner);
  }
  void rounded_rect(const Box& b, float radius, Rgb fill, float fill_alpha, Rgb edge, float edge_width) override {
    c_.rounded_rect(b, radius, fill, fill_alpha, edge, edge_width);
  }
  Box text(const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va, Rgb color,
           bool vertical) override {
    return draw_text(c_, utf8, px, x, y, ha, va, color, vertical);
  }
  void cells(const Box& area, int64_t rows, int64_t cols, const std::function<Rgb(int64_t, int64_t)>& color,
             const CellTip&) override {
    const Mask px(area);
    const float ch = area.height() / rows, cw = area.width() / cols;
    for (int y = px.y0; y < px.y0 + px.height; ++y) {
      const int64_t i = std::clamp<int64_t>(static_cast<int64_t>((y + 0.5f - area.y0) / ch), 0, rows - 1);
      for (int x = px.x0; x < px.x0 + px.width; ++x)
        c_.set_pixel(x, y, color(i, std::clamp<int64_t>(static_cast<int64_t>((x + 0.5f - area.x0) / cw), 0, cols - 1)));
    }
  }
  void save(const std::string& path, const char* op) const override { c_.save_png(path, op); }

 private:
  Canvas c_;
};

}  // namespace

FigureFormat figure_format(const std::string& path, const char* op) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext == ".svg") return FigureFormat::kSvg;
  check(ext.empty() || ext == ".png", op, "cannot write '", path, "': unknown figure format '", ext,
        "' (name the file .png or .svg)");
  return FigureFormat::kPng;
}

std::unique_ptr<Surface> make_surface(const std::string& path, int width, int height, int dpi, const char* op) {
  if (figure_format(path, op) == FigureFormat::kSvg) return make_svg_surface(width, height, dpi);
  return std::make_unique<PngSurface>(width, height);
}

}  // namespace d2l
