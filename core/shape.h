// core/shape.h — Shape: a tensor's size along each dim, outermost first (PyTorch's
// torch.Size), e.g. (2, 10, 4); and check(), the error for a caller's mistake, which names
// the op and prints every shape involved.
//
// It reads like a std::vector<int64_t> (s = {2, 3}; s.size(); s[0]; s.push_back(4); ==) and
// converts to and from one, but keeps its dims inside itself: every op builds shapes, and
// with a std::vector each was a malloc and a free, a large share of a small op's cost. The
// book's tensors have at most 4 dims; beyond kMaxDims is an error that names the op.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace d2l {

class Shape {
 public:
  static constexpr size_t kMaxDims = 8;
  Shape() = default;
  explicit Shape(size_t n, int64_t value = 0) { resize(n, value); }
  Shape(std::initializer_list<int64_t> dims) : Shape(dims.begin(), dims.end()) {}
  Shape(const std::vector<int64_t>& dims) : Shape(dims.begin(), dims.end()) {}
  template <class It, class = decltype(*std::declval<It>())>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }

  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t at(size_t i) const;  // bounds-checked: std::out_of_range
  int64_t& back() { return dims_[n_ - 1]; }
  int64_t back() const { return dims_[n_ - 1]; }
  int64_t* begin() { return dims_; }
  int64_t* end() { return dims_ + n_; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + n_; }

  void resize(size_t n, int64_t value = 0) {
    room_for(n);
    for (size_t i = n_; i < n; ++i) dims_[i] = value;
    n_ = n;
  }
  void push_back(int64_t d) { resize(n_ + 1, d); }
  void pop_back() { --n_; }
  // Inserts [first, last) before pos; the range may be part of this shape.
  template <class It>
  int64_t* insert(const int64_t* pos, It first, It last) {
    const Shape range(first, last);
    int64_t* at = dims_ + (pos - dims_);
    room_for(n_ + range.n_);
    std::copy_backward(at, end(), end() + range.n_);
    std::copy(range.begin(), range.end(), at);
    n_ += range.n_;
    return at;
  }
  int64_t* insert(const int64_t* pos, int64_t d) { return insert(pos, &d, &d + 1); }
  int64_t* erase(const int64_t* first, const int64_t* last) {
    int64_t* at = dims_ + (first - dims_);
    std::copy(last, static_cast<const int64_t*>(end()), at);
    n_ -= last - first;
    return at;
  }
  int64_t* erase(const int64_t* pos) { return erase(pos, pos + 1); }

  friend bool operator==(const Shape& a, const Shape& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  void room_for(size_t n) const;  // an error, naming the op, beyond kMaxDims (tensor.cpp)
  int64_t dims_[kMaxDims] = {};
  size_t n_ = 0;
};

// "(2, 10, 4)": the book's PyTorch prints torch.Size([2, 10, 4]); we print the tuple
// ("(4,)" for one dim, "()" for a scalar).
std::string shape_str(const Shape& shape);  // defined in core/tensor.cpp

// check(cond, "op", parts...) throws std::invalid_argument("[op] parts...") when cond is
// false, e.g. "[bmm] inner dims differ: a (2, 1, 8) vs b (2, 10, 4)", so a learner sees
// which call went wrong and why. core/ and layers/ never exit().
namespace detail {
template <class T>
void append(std::ostringstream& os, const T& part) { os << part; }
// A Shape, or a std::vector<int64_t> of dims, prints as shape_str does: "(2, 10, 4)".
inline void append(std::ostringstream& os, const Shape& s) { os << shape_str(s); }
inline void append(std::ostringstream& os, const std::vector<int64_t>& s) { os << shape_str(s); }
}  // namespace detail

template <class... Parts>
[[noreturn]] void fail(const char* op, const Parts&... parts) {
  std::ostringstream os;
  os << '[' << op << "] ";
  (detail::append(os, parts), ...);
  throw std::invalid_argument(os.str());
}

template <class... Parts>
inline void check(bool cond, const char* op, const Parts&... parts) {
  if (!cond) fail(op, parts...);
}

}  // namespace d2l
