// core/engine/storage.cpp — Storage (core/tensor.h): a shared handle to a StorageBlock. The
// block and the handle's reference count come in one allocation from the engine's object
// pool (allocate_object, core/engine/allocator.h): every op makes one, and its backward
// usually a second for the gradient.
#include "core/engine/storage.h"

#include "core/engine/allocator.h"
#include "core/tensor.h"

namespace d2l {

Storage::Storage(size_t n) : block_(std::allocate_shared<StorageBlock>(ObjectAllocator<StorageBlock>(), n)) {}

float* Storage::get() const { return block_ ? block_->buf.get() : nullptr; }
uint64_t Storage::version() const { return block_ ? block_->version : 0; }
void Storage::bump_version() {
  if (block_) ++block_->version;
}

}  // namespace d2l
