// core/check.h — error reporting for caller mistakes.
//
// check(cond, "op", parts...) throws std::invalid_argument("[op] parts...") when cond is
// false. Every message names the op and prints every shape involved, e.g.
//   [bmm] inner dims differ: a (2, 1, 8) vs b (2, 10, 4)
// so a learner sees which call went wrong and why. core/ and layers/ never exit().
#pragma once
#include <cstdint>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/shape.h"

namespace d2l {

// A Shape (core/shape.h), or a std::vector<int64_t> of dims, in a message prints as
// shape_str does: "(2, 10, 4)".

namespace detail {
inline void append(std::ostringstream&) {}
template <class T, class... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest);
template <class... Rest>
void append(std::ostringstream& os, const Shape& s, const Rest&... rest) {
  os << shape_str(s);
  append(os, rest...);
}
template <class... Rest>
void append(std::ostringstream& os, const std::vector<int64_t>& s, const Rest&... rest) {
  os << shape_str(s);
  append(os, rest...);
}
template <class T, class... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  append(os, rest...);
}
}  // namespace detail

// An allocation that failed, with what it was for and its size: "[matmul] cannot allocate
// a tensor of shape (100000, 100000): 40000000000 bytes (37.3 GiB)". A std::bad_alloc, so
// code that catches those still does; what() says which allocation, where a plain
// std::bad_alloc says only "std::bad_alloc".
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

template <class... Parts>
[[noreturn]] void fail(const char* op, const Parts&... parts) {
  std::ostringstream os;
  os << '[' << op << "] ";
  detail::append(os, parts...);
  throw std::invalid_argument(os.str());
}

template <class... Parts>
inline void check(bool cond, const char* op, const Parts&... parts) {
  if (!cond) fail(op, parts...);
}

}  // namespace d2l
