// tools/programs/heatmap/npy.h — reading NumPy's .npy files, so weights saved with np.save from the
// book's PyTorch notebook can be drawn by build/tools/heatmap (tools/programs/heatmap/main.cpp).
//
// The format (numpy.lib.format): the magic bytes "\x93NUMPY", a major and a minor version
// byte, the header's length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0),
// then the header, a Python dict literal padded with spaces and ending in '\n':
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// and the values in the order and byte order it describes. Only the standard library is used.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace d2l {

struct NpyArray {
  std::vector<int64_t> shape;  // () for a scalar
  std::vector<float> values;   // product(shape) values in C order (last index fastest)
  std::string descr;           // the file's dtype: '<f4', '>f4', '<f8' or '>f8'
  int major_version = 1;       // 1, 2 or 3
};

// Reads one array from `in` (named `name` in errors). Accepted: versions 1.0, 2.0 and 3.0;
// float32 or float64 in either byte order (float64 is rounded to float; a finite value
// beyond float's range is an error, NaN and ±inf are kept); C order. Anything else throws
// std::runtime_error "NAME: what is wrong": bad magic (with a hint for .npz archives),
// unsupported version, a header that is not a dict of exactly 'descr', 'fortran_order' and
// 'shape', an unknown dtype, fortran_order True, a shape whose byte count overflows, data
// shorter or longer than the shape says. Memory grows with the bytes actually read, never
// with what a header claims.
NpyArray read_npy(std::istream& in, const std::string& name);
NpyArray read_npy_file(const std::string& path);  // "cannot open 'path': reason" if unreadable

// True when `bytes` begins with the .npy magic, e.g. to tell an .npy piped to stdin from text.
bool is_npy(const std::string& bytes);

// "(2, 3)", "(3,)" or "()", as NumPy prints a shape.
std::string npy_shape_str(const std::vector<int64_t>& shape);

}  // namespace d2l
