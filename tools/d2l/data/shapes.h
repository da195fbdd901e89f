// tools/d2l/data/shapes.h — a small image set the project draws itself (10.7 exercise 6): white
// shapes on black, one of four classes, at a random place and size, drawn with the
// project's raster code (tools/d2l/figures/raster/canvas.h, anti-aliased) from a fixed seed, so
// every run and every machine gets the same pixels.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace d2l {

// The classes, in label order: a filled disc, a filled square, a ring, a cross.
const std::vector<std::string>& shape_class_names();

struct ShapeImages {
  Tensor images;  // (n, image_size, image_size), gray levels in [0, 1]
  Tensor labels;  // (n,), the class index as a float
};
// n images, classes in turn (image i has class i mod 4), each shape's centre, size and
// a little pixel noise drawn from a generator seeded by `seed` alone.
ShapeImages render_shapes(int64_t n, int64_t image_size, uint64_t seed);

}  // namespace d2l
