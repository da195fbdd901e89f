// core/shape.h — Shape: a tensor's size along each dim, outermost first (PyTorch's
// torch.Size), e.g. (2, 10, 4).
//
// It reads and behaves like a std::vector<int64_t> (Shape s = {2, 3}; s.size(); s[0];
// s.push_back(4); s.back(); ==) and converts to and from one. It is its own type because
// every op builds shapes (its output's, its checks', a broadcast's three): with a
// std::vector each was a malloc and a free, a large share of a small op's cost. A Shape keeps
// up to six dims inside itself; a tensor of more dims still works, its Shape then takes
// its dims to the heap like a std::vector.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/small_vector.h"

namespace d2l {

class Shape : public SmallVector<int64_t, 6> {
 public:
  using SmallVector::SmallVector;
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : SmallVector(dims) {}
  Shape(const std::vector<int64_t>& dims) : SmallVector(dims.begin(), dims.end()) {}
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }
  // Also against a std::vector<int64_t> (converted), as two std::vectors compare.
  friend bool operator==(const Shape& a, const Shape& b) {
    return static_cast<const SmallVector&>(a) == static_cast<const SmallVector&>(b);
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
};

// "(2, 10, 4)": the book's PyTorch prints torch.Size([2, 10, 4]); we print the tuple
// ("(4,)" for one dim, "()" for a scalar).
std::string shape_str(const Shape& shape);  // defined in core/tensor.cpp

}  // namespace d2l
