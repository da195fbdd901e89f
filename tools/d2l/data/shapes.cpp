// tools/d2l/data/shapes.cpp — the rendered shapes of 10.7 exercise 6 (tools/d2l/data/shapes.h).
#include "tools/d2l/data/shapes.h"

#include <random>

#include "core/shape.h"  // check
#include "tools/d2l/figures/raster/canvas.h"

namespace d2l {

const std::vector<std::string>& shape_class_names() {
  static const std::vector<std::string> names{"disc", "square", "ring", "cross"};
  return names;
}

ShapeImages render_shapes(int64_t n, int64_t image_size, uint64_t seed) {
  check(n >= 0 && image_size >= 12, "render_shapes", "needs n >= 0 and image_size >= 12, got n ", n,
        ", image_size ", image_size);
  std::mt19937_64 gen(seed);
  auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(gen); };
  const int S = static_cast<int>(image_size);
  ShapeImages out{empty({n, image_size, image_size}), empty({n})};
  const Rgb white{255, 255, 255}, black{0, 0, 0};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t label = i % 4;
    Canvas canvas(S, S, black);
    const Box all{0, 0, static_cast<float>(S), static_cast<float>(S)};
    // size: a half-width r between S/8 and S/4; the centre keeps the shape inside the image
    const float r = uniform(S / 8.0f, S / 4.0f);
    const float cx = uniform(r + 1, S - r - 1), cy = uniform(r + 1, S - r - 1);
    if (label == 0) {
      canvas.disc(cx, cy, r, white, 1.0f, all);
    } else if (label == 1) {
      canvas.fill_rect({cx - r, cy - r, cx + r, cy + r}, white);
    } else if (label == 2) {
      canvas.disc(cx, cy, r, white, 1.0f, all, r - std::max(1.5f, r / 3));
    } else {
      Mask m(0, 0, S, S);
      stroke_segment(m, cx - r, cy, cx + r, cy, std::max(1.5f, r / 3), Cap::kButt);
      stroke_segment(m, cx, cy - r, cx, cy + r, std::max(1.5f, r / 3), Cap::kButt);
      canvas.composite(m, white);
    }
    float* img = out.images.data() + i * S * S;
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x) {
        const float v = canvas.pixel(x, y).r / 255.0f + uniform(-0.1f, 0.1f);  // a little noise
        img[y * S + x] = std::min(1.0f, std::max(0.0f, v));
      }
    out.labels.data()[i] = static_cast<float>(label);
  }
  return out;
}

}  // namespace d2l
