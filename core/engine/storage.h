// core/engine/storage.h — the blocks behind a Node's Storage (core/tensor.h), and Buffer, the
// move-only block the fast kernels use for scratch. A first reading skips it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

namespace d2l {

// 64-byte-aligned blocks of floats from the build's tier (core/engine/allocator.h).
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);

// Move-only owner of one block: the floats of a StorageBlock, and kernels' scratch space.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t n) : ptr_(n ? allocate_floats(n) : nullptr), n_(n) {}
  Buffer(Buffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) { o.ptr_ = nullptr, o.n_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) reset(), std::swap(ptr_, o.ptr_), std::swap(n_, o.n_);
    return *this;
  }
  ~Buffer() { reset(); }
  void reset() { if (ptr_) release_floats(ptr_, n_); ptr_ = nullptr, n_ = 0; }
  float* get() const { return ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  float* ptr_ = nullptr;
  size_t n_ = 0;
};

// What every copy of one Storage shares: the floats and the count of writes to them.
struct StorageBlock {
  explicit StorageBlock(size_t n) : buf(n) {}
  Buffer buf;
  uint64_t version = 0;
};

}  // namespace d2l
