// core/engine/small_vector.h — SmallVector<T, N>: a std::vector whose first N elements live inside
// the object itself, for the engine's per-op lists that are nearly always short.
//
// Every op builds a few short lists: its output's shape (core/shape.h), the inputs a graph
// node keeps (one to three), the data versions it saved. As std::vectors each cost a malloc
// and a free, which for a small op was about 40% of its whole cost. A SmallVector only goes
// to the heap once it holds more than N elements, and otherwise reads like a std::vector
// (the same member names, pointers as iterators).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace d2l {

template <class T, size_t N>
class SmallVector {
  static_assert(N > 0, "a SmallVector keeps at least one element inline");

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  static constexpr size_t inline_capacity = N;

  SmallVector() noexcept {}  // user-provided, so a const SmallVector may be default-constructed
  explicit SmallVector(size_t n) { resize(n); }
  SmallVector(size_t n, const T& value) { resize(n, value); }
  SmallVector(std::initializer_list<T> values) { append(values.begin(), values.end()); }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  SmallVector(It first, It last) {
    append(first, last);
  }
  SmallVector(const SmallVector& o) { append(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~SmallVector() { release(); }

  // --- reading ---------------------------------------------------------------------------
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  bool is_inline() const { return data_ == inline_data(); }  // no heap block (yet)
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& at(size_t i) { return data_[checked(i)]; }
  const T& at(size_t i) const { return data_[checked(i)]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* cbegin() const { return data_; }
  const T* cend() const { return data_ + size_; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  // --- writing ---------------------------------------------------------------------------
  void reserve(size_t n) {
    if (n > cap_) grow_to(n);
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) {
      T value(std::forward<Args>(args)...);  // args may refer to an element about to move
      grow_to(cap_ * 2);
      new (data_ + size_) T(std::move(value));
    } else {
      new (data_ + size_) T(std::forward<Args>(args)...);
    }
    return data_[size_++];
  }
  void pop_back() { data_[--size_].~T(); }
  void clear() {
    std::destroy(begin(), end());
    size_ = 0;
  }
  void resize(size_t n) { resize_with(n, [](T* p) { new (p) T(); }); }
  void resize(size_t n, const T& value) {
    const T copy(value);
    resize_with(n, [&](T* p) { new (p) T(copy); });
  }
  template <class It>
  void assign(It first, It last) {
    clear();
    append(first, last);
  }
  void assign(size_t n, const T& value) {
    const T copy(value);
    clear();
    resize(n, copy);
  }
  iterator insert(const_iterator pos, const T& v) { return insert(pos, &v, &v + 1); }
  iterator insert(const_iterator pos, size_t n, const T& value) {
    const size_t at = pos - begin();
    const T copy(value);
    for (size_t i = 0; i < n; ++i) push_back(copy);
    std::rotate(begin() + at, end() - n, end());
    return begin() + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> values) {
    return insert(pos, values.begin(), values.end());
  }
  // Appends [first, last), then rotates it into place (so first may point into this list).
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  iterator insert(const_iterator pos, It first, It last) {
    const size_t at = pos - begin(), old = size_;
    SmallVector copy(first, last);
    reserve(size_ + copy.size());
    for (T& v : copy) new (data_ + size_++) T(std::move(v));
    std::rotate(begin() + at, begin() + old, end());
    return begin() + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    T* f = begin() + (first - begin());
    T* l = begin() + (last - begin());
    T* new_end = std::move(l, end(), f);
    std::destroy(new_end, end());
    size_ = static_cast<uint32_t>(new_end - begin());
    return f;
  }

 private:
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  const T* inline_data() const { return reinterpret_cast<const T*>(inline_); }
  size_t checked(size_t i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at: index out of range");
    return i;
  }
  template <class It>
  void append(It first, It last) {
    if constexpr (std::is_base_of_v<std::forward_iterator_tag, typename std::iterator_traits<It>::iterator_category>)
      reserve(size_ + static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) emplace_back(*first);
  }
  template <class Make>
  void resize_with(size_t n, Make make) {
    if (n < size_) {
      std::destroy(begin() + n, end());
      size_ = static_cast<uint32_t>(n);
      return;
    }
    reserve(n);
    while (size_ < n) make(data_ + size_++);
  }
  // Moves the elements to a heap block of capacity n (> size()).
  void grow_to(size_t n) {
    n = std::max<size_t>(n, size_t(cap_) * 2);
    if (n > UINT32_MAX) throw std::length_error("SmallVector: more than 2^32 elements");
    T* block = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(begin(), end(), block);
    std::destroy(begin(), end());
    free_block();
    data_ = block;
    cap_ = static_cast<uint32_t>(n);
  }
  void free_block() {
    if (!is_inline()) ::operator delete(data_, std::align_val_t(alignof(T)));
  }
  void release() {
    clear();
    free_block();
    data_ = inline_data();
    cap_ = N;
  }
  // Takes o's elements (its heap block, or its inline elements one by one); o is left empty.
  void take(SmallVector& o) noexcept {
    if (o.is_inline()) {
      std::uninitialized_move(o.begin(), o.end(), inline_data());
      size_ = o.size_;
      o.clear();
      return;
    }
    data_ = o.data_;
    size_ = o.size_;
    cap_ = o.cap_;
    o.data_ = o.inline_data();
    o.size_ = 0;
    o.cap_ = N;
  }

  T* data_ = inline_data();
  uint32_t size_ = 0;  // 32 bits: these lists are short, and a Shape then fits 64 bytes
  uint32_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

template <class T, size_t N, size_t M>
bool operator==(const SmallVector<T, N>& a, const SmallVector<T, M>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}
template <class T, size_t N, size_t M>
bool operator!=(const SmallVector<T, N>& a, const SmallVector<T, M>& b) {
  return !(a == b);
}
template <class T, size_t N, size_t M>
bool operator<(const SmallVector<T, N>& a, const SmallVector<T, M>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace d2l
