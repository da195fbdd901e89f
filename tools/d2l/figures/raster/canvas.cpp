// tools/d2l/figures/raster/canvas.cpp — rasterising for tools/d2l/figures/figures.h: coverage masks, strokes, blending and
// the PNG writer. Text lives in tools/d2l/figures/raster/canvas_text.cpp.
#include "tools/d2l/figures/raster/canvas.h"

#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/shape.h"  // check
#include "core/io/files.h"

namespace d2l {

namespace {
float clamp01(float v) { return std::min(1.0f, std::max(0.0f, v)); }
}  // namespace

Rgb rgb_hex(const std::string& hex) {
  check(hex.size() == 7 && hex[0] == '#' &&
            hex.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos,
        "rgb_hex", "expected a colour like #1f77b4, got '", hex, "'");
  const unsigned long v = std::stoul(hex.substr(1), nullptr, 16);
  return {static_cast<uint8_t>(v >> 16), static_cast<uint8_t>((v >> 8) & 0xff), static_cast<uint8_t>(v & 0xff)};
}

std::string hex_str(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

// Pixel x is inside when its centre x + 0.5 lies in [clip.x0, clip.x1).
Mask::Mask(const Box& clip) {
  x0 = static_cast<int>(std::ceil(clip.x0 - 0.5f));
  y0 = static_cast<int>(std::ceil(clip.y0 - 0.5f));
  width = std::max(0, static_cast<int>(std::ceil(clip.x1 - 0.5f)) - x0);
  height = std::max(0, static_cast<int>(std::ceil(clip.y1 - 0.5f)) - y0);
  a.assign(static_cast<size_t>(width) * height, 0.0f);
}

// Coverage of a pixel by a stroke of width w whose centre line is `dist` from the pixel
// centre: a one-pixel-wide box filter across the edge. Strokes thinner than a pixel can
// cover at most w of it, so a 0.5-pixel line is drawn half as dark instead of too bold.
static float stroke_coverage(float w, float dist) {
  return std::min(std::min(1.0f, w), clamp01(0.5f * w + 0.5f - dist));
}

void stroke_segment(Mask& m, float xa, float ya, float xb, float yb, float width, Cap cap) {
  const float pad = 0.5f * width + 1.0f;
  const int px0 = std::max(m.x0, static_cast<int>(std::floor(std::min(xa, xb) - pad)));
  const int px1 = std::min(m.x0 + m.width, static_cast<int>(std::ceil(std::max(xa, xb) + pad)));
  const int py0 = std::max(m.y0, static_cast<int>(std::floor(std::min(ya, yb) - pad)));
  const int py1 = std::min(m.y0 + m.height, static_cast<int>(std::ceil(std::max(ya, yb) + pad)));
  const float dx = xb - xa, dy = yb - ya, len = std::sqrt(dx * dx + dy * dy);
  for (int y = py0; y < py1; ++y) {
    for (int x = px0; x < px1; ++x) {
      const float qx = x + 0.5f - xa, qy = y + 0.5f - ya;
      float cov;
      if (len < 1e-6f) {  // a dot
        cov = cap == Cap::kRound ? stroke_coverage(width, std::sqrt(qx * qx + qy * qy)) : 0.0f;
      } else {
        const float u = (qx * dx + qy * dy) / len;        // along the segment
        const float v = std::fabs(qx * dy - qy * dx) / len;  // across it
        if (cap == Cap::kButt) {
          cov = stroke_coverage(width, v) * clamp01(std::min(u, len - u) + 0.5f);
        } else {
          const float t = std::min(len, std::max(0.0f, u));  // nearest point on the segment
          const float ex = qx - t * dx / len, ey = qy - t * dy / len;
          cov = stroke_coverage(width, std::sqrt(ex * ex + ey * ey));
        }
      }
      float& a = m.at(x, y);
      a = std::max(a, cov);
    }
  }
}

void stroke_polyline(Mask& m, const std::vector<std::pair<float, float>>& points, float width,
                     const std::vector<float>& dashes) {
  if (dashes.empty()) {
    for (size_t i = 0; i + 1 < points.size(); ++i)
      stroke_segment(m, points[i].first, points[i].second, points[i + 1].first, points[i + 1].second, width,
                     Cap::kRound);
    if (points.size() == 1) stroke_segment(m, points[0].first, points[0].second, points[0].first, points[0].second,
                                           width, Cap::kRound);
    return;
  }
  float period = 0;
  for (float d : dashes) period += std::max(0.0f, d);
  check(period > 0, "stroke_polyline", "dash pattern has no positive length");
  size_t k = 0;              // which entry of the pattern we are in: even = on, odd = off
  float left = dashes[0];    // length left in that entry
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const float xa = points[i].first, ya = points[i].second;
    const float dx = points[i + 1].first - xa, dy = points[i + 1].second - ya;
    const float len = std::sqrt(dx * dx + dy * dy);
    float pos = 0;
    while (pos < len) {
      const float step = std::min(left, len - pos);
      if (k % 2 == 0 && step > 0)
        stroke_segment(m, xa + dx * pos / len, ya + dy * pos / len, xa + dx * (pos + step) / len,
                       ya + dy * (pos + step) / len, width, Cap::kButt);
      pos += step;
      left -= step;
      if (left <= 0) {
        k = (k + 1) % dashes.size();
        left = dashes[k];
      }
    }
  }
}

void add_rect(Mask& m, const Box& b) {
  const int px0 = std::max(m.x0, static_cast<int>(std::floor(b.x0)));
  const int px1 = std::min(m.x0 + m.width, static_cast<int>(std::ceil(b.x1)));
  const int py0 = std::max(m.y0, static_cast<int>(std::floor(b.y0)));
  const int py1 = std::min(m.y0 + m.height, static_cast<int>(std::ceil(b.y1)));
  for (int y = py0; y < py1; ++y) {
    const float cy = std::min(y + 1.0f, b.y1) - std::max(static_cast<float>(y), b.y0);
    for (int x = px0; x < px1; ++x) {
      const float cx = std::min(x + 1.0f, b.x1) - std::max(static_cast<float>(x), b.x0);
      float& a = m.at(x, y);
      a = std::min(1.0f, a + clamp01(cx) * clamp01(cy));
    }
  }
}

Canvas::Canvas(int width, int height, Rgb background) : width_(width), height_(height) {
  check(width > 0 && height > 0, "Canvas", "size must be positive, got ", width, " x ", height);
  rgb_.resize(static_cast<size_t>(width) * height * 3);
  for (size_t i = 0; i < rgb_.size(); i += 3) {
    rgb_[i] = background.r;
    rgb_[i + 1] = background.g;
    rgb_[i + 2] = background.b;
  }
}

Rgb Canvas::pixel(int x, int y) const {
  check(x >= 0 && y >= 0 && x < width_ && y < height_, "Canvas::pixel", "(", x, ", ", y, ") outside ", width_,
        " x ", height_);
  const uint8_t* p = &rgb_[(static_cast<size_t>(y) * width_ + x) * 3];
  return {p[0], p[1], p[2]};
}

void Canvas::set_pixel(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  uint8_t* p = &rgb_[(static_cast<size_t>(y) * width_ + x) * 3];
  p[0] = c.r;
  p[1] = c.g;
  p[2] = c.b;
}

void Canvas::composite(const Mask& m, Rgb c, float alpha) {
  const float src[3] = {static_cast<float>(c.r), static_cast<float>(c.g), static_cast<float>(c.b)};
  for (int y = std::max(0, m.y0); y < std::min(height_, m.y0 + m.height); ++y) {
    for (int x = std::max(0, m.x0); x < std::min(width_, m.x0 + m.width); ++x) {
      const float k = m.at(x, y) * alpha;
      if (k <= 0) continue;
      uint8_t* p = &rgb_[(static_cast<size_t>(y) * width_ + x) * 3];
      for (int ch = 0; ch < 3; ++ch) p[ch] = static_cast<uint8_t>(std::lround(src[ch] * k + p[ch] * (1.0f - k)));
    }
  }
}

void Canvas::fill_rect(const Box& b, Rgb c, float alpha) {
  if (b.empty()) return;
  const int x0 = static_cast<int>(std::floor(b.x0)), y0 = static_cast<int>(std::floor(b.y0));
  Mask m(x0, y0, static_cast<int>(std::ceil(b.x1)) - x0, static_cast<int>(std::ceil(b.y1)) - y0);
  add_rect(m, b);
  composite(m, c, alpha);
}

void Canvas::frame_rect(const Box& b, float lw, Rgb c) {
  const float h = 0.5f * lw;
  const Box outer{b.x0 - h, b.y0 - h, b.x1 + h, b.y1 + h};
  const int x0 = static_cast<int>(std::floor(outer.x0)), y0 = static_cast<int>(std::floor(outer.y0));
  Mask m(x0, y0, static_cast<int>(std::ceil(outer.x1)) - x0, static_cast<int>(std::ceil(outer.y1)) - y0);
  add_rect(m, {outer.x0, outer.y0, outer.x1, b.y0 + h});  // top, then bottom, left, right
  add_rect(m, {outer.x0, b.y1 - h, outer.x1, outer.y1});
  add_rect(m, {outer.x0, b.y0 + h, b.x0 + h, b.y1 - h});
  add_rect(m, {b.x1 - h, b.y0 + h, outer.x1, b.y1 - h});
  composite(m, c);
}

void Canvas::disc(float cx, float cy, float r, Rgb c, float alpha, const Box& clip, float r_inner) {
  Box b{std::max(clip.x0, cx - r - 1), std::max(clip.y0, cy - r - 1), std::min(clip.x1, cx + r + 1),
        std::min(clip.y1, cy + r + 1)};
  if (b.empty()) return;
  Mask m(b);
  for (int y = m.y0; y < m.y0 + m.height; ++y)
    for (int x = m.x0; x < m.x0 + m.width; ++x) {
      const float d = std::hypot(x + 0.5f - cx, y + 0.5f - cy);
      float cov = clamp01(r + 0.5f - d);
      if (r_inner > 0) cov *= clamp01(d - r_inner + 0.5f);
      m.at(x, y) = cov;
    }
  composite(m, c, alpha);
}

// Signed distance to a rounded box (negative inside), then coverage from the distance.
void Canvas::rounded_rect(const Box& b, float radius, Rgb fill, float fill_alpha, Rgb edge, float edge_width) {
  const Box outer{b.x0 - edge_width - 1, b.y0 - edge_width - 1, b.x1 + edge_width + 1, b.y1 + edge_width + 1};
  Mask inside(outer), rim(outer);
  const float hx = 0.5f * b.width() - radius, hy = 0.5f * b.height() - radius;
  for (int y = inside.y0; y < inside.y0 + inside.height; ++y)
    for (int x = inside.x0; x < inside.x0 + inside.width; ++x) {
      const float qx = std::fabs(x + 0.5f - b.cx()) - hx, qy = std::fabs(y + 0.5f - b.cy()) - hy;
      const float sd = std::hypot(std::max(qx, 0.0f), std::max(qy, 0.0f)) + std::min(std::max(qx, qy), 0.0f) - radius;
      inside.at(x, y) = clamp01(0.5f - sd);
      rim.at(x, y) = stroke_coverage(edge_width, std::fabs(sd));
    }
  composite(inside, fill, fill_alpha);
  composite(rim, edge);
}

namespace {
void png_append(void* ctx, void* data, int size) {
  static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<size_t>(size));
}
}  // namespace

void write_figure_file(const std::string& path, const std::string& bytes, const char* op) {
  namespace fs = std::filesystem;
  if (path.empty()) throw std::runtime_error("[" + std::string(op) + "] cannot write '': empty file name");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error("[" + std::string(op) + "] cannot write '" + path + "': cannot create directory '" +
                               parent.string() + "' (" + ec.message() + ")");
  }
  write_file_atomically(path, bytes, op);  // unique temporary, fsync, rename; never over a link or device
}

void Canvas::save_png(const std::string& path, const char* op) const {
  if (path.empty()) throw std::runtime_error("[" + std::string(op) + "] cannot write '': empty file name");
  std::string png;
  if (!stbi_write_png_to_func(png_append, &png, width_, height_, 3, rgb_.data(), width_ * 3))
    throw std::runtime_error("[" + std::string(op) + "] cannot write '" + path + "': the PNG encoder failed");
  write_figure_file(path, png, op);
}

}  // namespace d2l
