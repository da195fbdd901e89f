// tools/d2l/train/ids_tensor.cpp — ids as a float tensor (see the header).
#include "tools/d2l/train/ids_tensor.h"

#include "core/ops.h"  // numel_of
#include "core/shape.h"  // check

namespace d2l {

Tensor ids_tensor(const std::vector<int64_t>& ids, const Shape& shape) {
  check(static_cast<int64_t>(ids.size()) == numel_of(shape), "ids_tensor", ids.size(), " ids do not fill shape ",
        shape);
  Tensor t = empty(shape);
  float* p = t.data();
  for (size_t i = 0; i < ids.size(); ++i) p[i] = static_cast<float>(ids[i]);
  return t;
}

}  // namespace d2l
