// core/fast/small_vector.h — SmallVector<T, N>: a vector of a trivially copyable T whose
// first N elements live inside the object, for per-op lists that are nearly always short.
//
// A graph node keeps the data version of each input it read (core/autograd.cpp); ops have
// one to three inputs, so a std::vector there cost one malloc and one free per op, a
// noticeable share of a small op's whole cost. Beyond N elements it moves to the heap.
#pragma once
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

namespace d2l {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds plain values");

 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& operator[](size_t i) { return data()[i]; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  void reserve(size_t n) {
    if (n > N) spill(n);
  }
  void push_back(const T& v) {
    if (size_ < N && heap_.empty()) {
      inline_[size_++] = v;
      return;
    }
    spill(size_ + 1);
    heap_.push_back(v);
    ++size_;
  }
  void clear() {
    size_ = 0;
    heap_.clear();
  }

 private:
  const T* data() const { return heap_.empty() ? inline_ : heap_.data(); }
  T* data() { return heap_.empty() ? inline_ : heap_.data(); }
  // Moves the inline elements to the heap (once), with room for n.
  void spill(size_t n) {
    if (heap_.empty()) heap_.assign(inline_, inline_ + size_);
    heap_.reserve(n);
  }

  T inline_[N];
  size_t size_ = 0;
  std::vector<T> heap_;  // all elements once more than N were ever asked for
};

}  // namespace d2l
