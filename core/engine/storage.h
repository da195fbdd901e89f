// core/engine/storage.h — the memory behind a Node (core/tensor.h); a first reading skips it.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>

namespace d2l {

// 64-byte-aligned blocks of floats from the build's tier (core/engine/allocator.h).
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);

// Move-only owner of one block (a node's gradient, and the block behind its data).
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

// A tensor's data, shared with its reshaped copies (as PyTorch's views share it), and its
// version: the writes the Tensor API handed out (Tensor::data(), at()). Backward compares
// it with the version each op saw: a tensor changed in between is an error, not a wrong
// gradient.
class Storage {
 public:
  Storage() = default;
  explicit Storage(size_t n);  // block and count from the engine's object pool (tensor.cpp)
  float* get() const { return block_ ? block_->buf.get() : nullptr; }
  explicit operator bool() const { return block_ && block_->buf; }
  uint64_t version() const { return block_ ? block_->version : 0; }
  void bump_version() { if (block_) ++block_->version; }

 private:
  struct Block {
    explicit Block(size_t n) : buf(n) {}
    Buffer buf;
    uint64_t version = 0;
  };
  std::shared_ptr<Block> block_;
};

}  // namespace d2l
