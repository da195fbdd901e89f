// tools/d2l/figures/surface_svg.cpp — the SVG backend of tools/d2l/figures/surface.h: every primitive
// becomes an element, in drawing order, so later ones paint over earlier ones as on the
// canvas. Text is <text> in DejaVu Sans (the book's matplotlib font), placed where the PNG
// puts it: the anchor from the measured box, the baseline from the font's ascent.
#include <stb/stb_image_write.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "core/io/utf8.h"
#include "tools/d2l/figures/surface.h"

namespace d2l {

namespace {

// Beyond this many cells a matrix is embedded as one PNG image drawn without smoothing, as
// matplotlib embeds imshow in its SVGs: a 1000 × 1000 attention map as a million <rect>s
// would be 60 MB that no viewer opens.
constexpr int64_t kMaxRectCells = 65536;

// Coordinates with at most 3 decimals and no trailing zeros: "12.5", "3", "0.125".
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s = buf;
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string base64(const std::string& bytes) {
  static const char* const k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += k[v >> 18];
    out += k[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? k[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k[v & 63] : '=';
  }
  return out;
}

void append_bytes(void* ctx, void* data, int size) {
  static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<size_t>(size));
}

std::string rect_attrs(const Box& b) {
  return "x=\"" + num(b.x0) + "\" y=\"" + num(b.y0) + "\" width=\"" + num(b.width()) + "\" height=\"" +
         num(b.height()) + "\"";
}

std::string opacity(const char* attr, float alpha) {
  return alpha < 1.0f ? std::string(" ") + attr + "=\"" + num(alpha) + "\"" : "";
}

class SvgSurface : public Surface {
 public:
  SvgSurface(int width, int height, int dpi) : Surface(width, height) {
    const double pt = 72.0 / dpi;  // the figure's size in points, as matplotlib's SVGs give it
    body_ = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" "
            "width=\"" + num(width * pt) + "pt\" height=\"" + num(height * pt) + "pt\" viewBox=\"0 0 " +
            std::to_string(width) + " " + std::to_string(height) +
            "\" font-family=\"DejaVu Sans, Bitstream Vera Sans, sans-serif\">\n"
            "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  }

  void fill_rect(const Box& b, Rgb color, float alpha) override {
    if (b.empty()) return;
    body_ += "<rect " + rect_attrs(b) + " fill=\"" + hex_str(color) + "\"" + opacity("fill-opacity", alpha) + "/>\n";
  }
  void frame_rect(const Box& b, float line_width, Rgb color) override {
    body_ += "<rect " + rect_attrs(b) + " fill=\"none\" stroke=\"" + hex_str(color) + "\" stroke-width=\"" +
             num(line_width) + "\"/>\n";
  }
  void rule(float x0, float y0, float x1, float y1, float line_width, Rgb color) override {
    body_ += "<path d=\"M" + num(x0) + " " + num(y0) + "L" + num(x1) + " " + num(y1) + "\" stroke=\"" +
             hex_str(color) + "\" stroke-width=\"" + num(line_width) + "\"/>\n";
  }
  void lines(const std::vector<Polyline>& runs, float width, const std::vector<float>& dashes, Rgb color, float alpha,
             const Box& clip) override {
    std::string d;
    for (const Polyline& run : runs) {
      for (size_t k = 0; k < run.size(); ++k) d += (k ? "L" : "M") + num(run[k].first) + " " + num(run[k].second);
      if (run.size() == 1) d += "L" + num(run[0].first) + " " + num(run[0].second);  // a dot, as on the canvas
    }
    if (d.empty()) return;
    std::string style = dashes.empty() ? " stroke-linecap=\"round\" stroke-linejoin=\"round\"" : " stroke-dasharray=\"";
    for (size_t k = 0; k < dashes.size(); ++k) style += (k ? " " : "") + num(dashes[k]);
    if (!dashes.empty()) style += "\"";
    body_ += "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + hex_str(color) + "\" stroke-width=\"" + num(width) +
             "\"" + style + opacity("stroke-opacity", alpha) + clip_ref(clip) + "/>\n";
  }
  void disc(float cx, float cy, float r, Rgb color, float alpha, const Box& clip, float r_inner) override {
    const std::string at = "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"";
    if (r_inner > 0)  // a ring: a circle stroked between the two radii
      body_ += at + num(0.5f * (r + r_inner)) + "\" fill=\"none\" stroke=\"" + hex_str(color) + "\" stroke-width=\"" +
               num(r - r_inner) + "\"" + opacity("stroke-opacity", alpha) + clip_ref(clip) + "/>\n";
    else
      body_ += at + num(r) + "\" fill=\"" + hex_str(color) + "\"" + opacity("fill-opacity", alpha) + clip_ref(clip) +
               "/>\n";
  }
  void rounded_rect(const Box& b, float radius, Rgb fill, float fill_alpha, Rgb edge, float edge_width) override {
    body_ += "<rect " + rect_attrs(b) + " rx=\"" + num(radius) + "\" fill=\"" + hex_str(fill) + "\"" +
             opacity("fill-opacity", fill_alpha) + " stroke=\"" + hex_str(edge) + "\" stroke-width=\"" +
             num(edge_width) + "\"/>\n";
  }
  Box text(const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va, Rgb color,
           bool vertical) override {
    const Box b = text_box(utf8, px, x, y, ha, va, vertical);
    const float ascent = measure_text(utf8, px).ascent;
    std::string at;
    if (!vertical) {
      const char* anchor = ha == HAlign::kLeft ? "start" : ha == HAlign::kCenter ? "middle" : "end";
      const float ax = ha == HAlign::kLeft ? b.x0 : ha == HAlign::kCenter ? b.cx() : b.x1;
      at = "x=\"" + num(ax) + "\" y=\"" + num(b.y0 + ascent) + "\" text-anchor=\"" + anchor + "\"";
    } else {  // turned 90° counter-clockwise about its anchor; the string runs upwards
      const char* anchor = va == VAlign::kTop ? "end" : va == VAlign::kCenter ? "middle" : "start";
      const float ax = b.x0 + ascent, ay = va == VAlign::kTop ? b.y0 : va == VAlign::kCenter ? b.cy() : b.y1;
      at = "x=\"" + num(ax) + "\" y=\"" + num(ay) + "\" text-anchor=\"" + anchor + "\" transform=\"rotate(-90 " +
           num(ax) + " " + num(ay) + ")\"";
    }
    const std::string fill = color == Rgb{0, 0, 0} ? "" : " fill=\"" + hex_str(color) + "\"";
    body_ += "<text " + at + " font-size=\"" + num(px) + "\"" + fill + ">" + xml_escape(utf8) + "</text>\n";
    return b;
  }
  void cells(const Box& area, int64_t rows, int64_t cols, const std::function<Rgb(int64_t, int64_t)>& color,
             const CellTip& tip) override {
    if (rows * cols > kMaxRectCells) return embed_image(area, rows, cols, color);
    const float ch = area.height() / rows, cw = area.width() / cols;
    body_ += "<g shape-rendering=\"crispEdges\">\n";  // no hairline seams between cells
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        body_ += "<rect " + rect_attrs({area.x0 + j * cw, area.y0 + i * ch, area.x0 + (j + 1) * cw, area.y0 + (i + 1) * ch}) +
                 " fill=\"" + hex_str(color(i, j)) + "\"" +
                 (tip ? "><title>" + xml_escape(tip(i, j)) + "</title></rect>\n" : "/>\n");
    body_ += "</g>\n";
  }
  void save(const std::string& path, const char* op) const override {
    write_figure_file(path, body_ + "</svg>\n", op);
  }

 private:
  // One <clipPath> per distinct box, written before its first use.
  std::string clip_ref(const Box& clip) {
    const std::string key = rect_attrs(clip);
    auto it = clips_.find(key);
    if (it == clips_.end()) {
      it = clips_.emplace(key, "clip" + std::to_string(clips_.size())).first;
      body_ += "<clipPath id=\"" + it->second + "\"><rect " + key + "/></clipPath>\n";
    }
    return " clip-path=\"url(#" + it->second + ")\"";
  }
  void embed_image(const Box& area, int64_t rows, int64_t cols, const std::function<Rgb(int64_t, int64_t)>& color) {
    // One pixel per cell. rows and cols fit an int: the heatmap layout refuses cells
    // under 0.05 pixel, and figures are at most 20000 pixels a side.
    Canvas img(static_cast<int>(cols), static_cast<int>(rows));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) img.set_pixel(static_cast<int>(j), static_cast<int>(i), color(i, j));
    std::string png;
    if (!stbi_write_png_to_func(append_bytes, &png, img.width(), img.height(), 3, img.rgb().data(), img.width() * 3))
      throw std::runtime_error("[svg] cannot encode a " + std::to_string(rows) + " x " + std::to_string(cols) +
                               " image as PNG");
    body_ += "<image " + rect_attrs(area) +
             " preserveAspectRatio=\"none\" image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" "
             "xlink:href=\"data:image/png;base64," + base64(png) + "\"/>\n";
  }

  std::string body_;
  std::map<std::string, std::string> clips_;
};

}  // namespace

std::unique_ptr<Surface> make_svg_surface(int width, int height, int dpi) {
  return std::make_unique<SvgSurface>(width, height, dpi);
}

}  // namespace d2l
