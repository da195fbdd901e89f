// tools/d2l/train/ids_tensor.h — token and label ids, which the data loaders keep as plain
// int64 vectors, as the float tensor the layers read (every tensor here holds floats).
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace d2l {

// Row-major ids as a tensor of `shape`, e.g. a batch's X (batch_size, num_steps). Throws
// "[ids_tensor] ..." when the count does not fill the shape.
Tensor ids_tensor(const std::vector<int64_t>& ids, const Shape& shape);

}  // namespace d2l
