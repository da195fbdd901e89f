// layers/attention_pooling.cpp — check_attention_args, for every attention layer.
#include "layers/attention_pooling.h"

#include "core/shape.h"  // check

namespace d2l {

void check_attention_args(const char* layer, const Tensor& queries, const Tensor& keys, const Tensor& values,
                          const Tensor& valid_lens, int64_t query_size, int64_t key_size, int64_t value_size) {
  check(queries.defined() && keys.defined() && values.defined(), layer, "queries, keys and values must be defined");
  const Shape none;
  const Shape& vl = valid_lens.defined() ? valid_lens.shape() : none;
  check(queries.ndim() == 3 && keys.ndim() == 3 && values.ndim() == 3, layer,
        "queries, keys and values must be 3-D (batch_size, no. of queries or kv pairs, features), got queries ",
        queries.shape(), ", keys ", keys.shape(), ", values ", values.shape());
  const int64_t B = queries.size(0), Q = queries.size(1);
  check(keys.size(0) == B && values.size(0) == B, layer, "batch sizes differ: queries ", queries.shape(), ", keys ",
        keys.shape(), ", values ", values.shape());
  check(keys.size(1) == values.size(1), layer, "keys and values must pair up (same no. of kv pairs): keys ",
        keys.shape(), ", values ", values.shape());
  check(!valid_lens.defined() || (valid_lens.ndim() == 1 && vl[0] == B) ||
            (valid_lens.ndim() == 2 && vl[0] == B && vl[1] == Q),
        layer, "valid_lens must be (batch_size,) or (batch_size, no. of queries): valid_lens ", vl, ", queries ",
        queries.shape());
  const auto fits = [](const Tensor& X, int64_t size) { return size < 0 || X.size(2) == size; };
  check(fits(queries, query_size) && fits(keys, key_size) && fits(values, value_size), layer, "expected query_size = ",
        query_size, ", key_size = ", key_size, ", value_size = ", value_size, " (-1: any); got queries ",
        queries.shape(), ", keys ", keys.shape(), ", values ", values.shape());
}

}  // namespace d2l
