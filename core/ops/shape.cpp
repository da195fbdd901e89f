// core/ops/shape.cpp — ops that move elements without arithmetic: reshape, permute,
// concat, slice, repeat, gather. Tensors are always contiguous (no strided views), so each
// op copies into a fresh row-major buffer; its backward adds every output gradient back to
// the input element it was copied from. The copies of whole rows (concat, slice, permute's
// long runs, embedding) go through the seam's row kernels (core/kernels/copy.h), which the
// fast tier shares among threads for large tensors; the rest are written out here.
#include <cmath>
#include <cstring>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/copy.h"
#include "core/ops.h"
#include "core/engine/small_vector.h"

namespace d2l {
namespace {

int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// Same elements, new shape (reshape, unsqueeze, squeeze): the output shares the input's
// storage (no copy). Backward: dx += g, number for number, which the engine does itself
// (gradient_is_identity), so the closure has nothing left to do.
Tensor reshaped(const Tensor& x, const Shape& shape, const char* name) {
  OpCall op(name, {x});
  NodePtr n = make_node();
  n->shape = shape;
  n->data = x.node()->data;
  op.save_for_backward();
  op.gradient_is_identity(0);
  return op.finish(Tensor(std::move(n)), [](Node&) {});
}

int64_t checked_index(float v, int64_t size, const char* op, const Shape& shape) {
  // Whole number first: 2.5 is not an index at all (and casting NaN or 1e30 to an integer is
  // undefined behaviour), then the range.
  check(std::isfinite(v) && v == std::floor(v), op, "index ", v, " is not a whole number (indices are ",
        "integers stored as float; indexed tensor shape ", shape, ")");
  check(v >= 0 && v < static_cast<double>(size), op, "index ", v, " out of range [0, ", size,
        ") (indexed tensor shape ", shape, ")");
  return static_cast<int64_t>(v);
}

}  // namespace

Tensor reshape(const Tensor& x, Shape shape) {
  OpScope scope("reshape");  // names the op if an input is undefined
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      check(infer < 0, "reshape", "only one dim may be -1, got ", shape);
      infer = static_cast<int64_t>(i);
    } else {
      check(shape[i] >= 0, "reshape", "invalid size in target shape ", shape);
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    check(known > 0 && x.numel() % known == 0, "reshape", "cannot infer -1: shape ", x.shape(), " into ", shape);
    shape[infer] = x.numel() / known;
  }
  check(numel_of(shape) == x.numel(), "reshape", "shape ", x.shape(), " (", x.numel(), " elements) cannot become ",
        shape);
  return reshaped(x, shape, "reshape");
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  OpScope scope("unsqueeze");  // names the op if an input is undefined
  const int64_t d = normalize_dim(dim, x.shape(), "unsqueeze", 1);
  Shape s = x.shape();
  s.insert(s.begin() + d, 1);
  return reshaped(x, s, "unsqueeze");
}

Tensor squeeze(const Tensor& x, int64_t dim) {
  OpScope scope("squeeze");  // names the op if an input is undefined
  const int64_t d = normalize_dim(dim, x.shape(), "squeeze");
  check(x.shape()[d] == 1, "squeeze", "dim ", dim, " has size ", x.shape()[d], " (not 1) in shape ", x.shape());
  Shape s = x.shape();
  s.erase(s.begin() + d);
  return reshaped(x, s, "squeeze");
}

// y[i_0, ..., i_{n-1}] = x[index with i_k in position dims[k]]. The trailing dims that
// stay in place (the book's transpose_qkv permutes (0, 2, 1, 3): the last one stays) form
// contiguous runs of `run` floats, so the walk visits whole runs: an odometer over the
// outer output dims gives each run's source offset.
namespace {
using DimList = SmallVector<int64_t, 6>;  // one number per dim, inline like a Shape's dims

template <class F>
void for_each_permuted_run(const Shape& out, const DimList& src_stride, size_t outer_dims, F f) {
  if (outer_dims == 0) return f(0, 0);  // nothing moves: one run, the whole tensor
  // The last outer dim in a plain loop (a fixed source step), the ones before it by the
  // odometer: transpose_qkv's runs are 8 floats, too short to pay for an odometer step each.
  const size_t last = outer_dims - 1;
  const int64_t n_last = out[last], step = src_stride[last];
  int64_t count = 1;
  for (size_t d = 0; d < last; ++d) count *= out[d];
  DimList idx(last, 0);
  int64_t src = 0;
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t k = 0; k < n_last; ++k) f(i * n_last + k, src + k * step);
    for (size_t d = last; d-- > 0;) {
      ++idx[d];
      src += src_stride[d];
      if (idx[d] < out[d]) break;
      src -= src_stride[d] * out[d];
      idx[d] = 0;
    }
  }
}
}  // namespace

Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  OpCall op("permute", {x});
  const size_t nd = x.shape().size();
  check(dims.size() == nd, "permute", "got ", dims.size(), " dims for a tensor of shape ", x.shape());
  DimList in_stride(nd), src_stride(nd);
  Shape out(nd);
  SmallVector<bool, 6> used(nd, false);
  for (size_t i = nd; i-- > 0;) in_stride[i] = prod(x.shape(), i + 1, nd);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t d = normalize_dim(dims[i], x.shape(), "permute");
    check(!used[d], "permute", "dim ", d, " repeated in the permutation for shape ", x.shape());
    used[d] = true;
    out[i] = x.shape()[d];
    src_stride[i] = in_stride[d];
  }
  size_t outer_dims = nd;  // dims before the in-place tail
  while (outer_dims > 0 && normalize_dim(dims[outer_dims - 1], x.shape(), "permute") == static_cast<int64_t>(outer_dims - 1))
    --outer_dims;
  const int64_t run = prod(out, outer_dims, nd);
  Tensor y = empty(out);
  const float* px = x.data();
  float* py = y.data();
  // Runs of 64 floats and more (10.4's (num_steps, batch, vocab) -> (batch, num_steps,
  // vocab)): each run's source offset listed once, and the copies and the backward's adds as
  // row kernels. Shorter runs (transpose_qkv's head dims) keep the walk below: a list of
  // offsets would be a quarter of their data.
  if (run >= 64 && y.numel() > 0) {
    std::vector<int64_t> offsets(static_cast<size_t>(y.numel() / run));
    for_each_permuted_run(out, src_stride, outer_dims, [&](int64_t i, int64_t src) { offsets[i] = src; });
    kernels::gather_rows(py, px, offsets.data(), static_cast<int64_t>(offsets.size()), run);
    op.save_for_backward();  // the backward reads only the gradient
    return op.finish(y, [run, offsets = std::move(offsets)](Node& node) {
      if (float* dx = node.input_grad(0))
        kernels::scatter_add_rows(dx, node.grad.get(), offsets.data(), static_cast<int64_t>(offsets.size()), run);
    });
  }
  if (y.numel() > 0)
    for_each_permuted_run(out, src_stride, outer_dims, [&](int64_t i, int64_t src) {
      for (int64_t j = 0; j < run; ++j) py[i * run + j] = px[src + j];  // a loop: runs are short
    });
  // Backward: the same walk, adding each output run back where it came from.
  return op.finish(y, [out, src_stride, outer_dims, run](Node& node) {
    float* dx = node.input_grad(0);
    if (!dx || node.numel() == 0) return;
    const float* g = node.grad.get();
    for_each_permuted_run(out, src_stride, outer_dims, [&](int64_t i, int64_t src) {
      for (int64_t j = 0; j < run; ++j) dx[src + j] += g[i * run + j];
    });
  });
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  OpScope scope("transpose");  // names the op if an input is undefined
  std::vector<int64_t> dims(x.shape().size());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(i);
  std::swap(dims[normalize_dim(dim0, x.shape(), "transpose")], dims[normalize_dim(dim1, x.shape(), "transpose")]);
  return permute(x, dims);
}

// View every input as (outer, n_k * inner): the output row o is the inputs' rows o laid
// side by side, so forward and backward are block copies.
Tensor concat(const std::vector<Tensor>& xs, int64_t dim) {
  OpCall op("concat", xs);
  check(!xs.empty(), "concat", "needs at least one tensor");
  const Shape& s0 = xs[0].shape();
  const int64_t d = normalize_dim(dim, s0, "concat");
  Shape out = s0;
  out[d] = 0;
  std::vector<int64_t> width;  // n_k * inner for each input
  for (const Tensor& x : xs) {
    bool ok = x.shape().size() == s0.size();
    for (size_t i = 0; ok && i < s0.size(); ++i) ok = static_cast<int64_t>(i) == d || x.shape()[i] == s0[i];
    check(ok, "concat", "shapes differ outside dim ", d, ": ", s0, " vs ", x.shape());
    out[d] += x.shape()[d];
    width.push_back(prod(x.shape(), d, s0.size()));
  }
  const int64_t outer = prod(s0, 0, d), row = prod(out, d, out.size());
  Tensor y = empty(out);
  // Input k fills columns [col, col + width[k]) of every output row.
  int64_t col = 0;
  for (size_t k = 0; k < xs.size(); col += width[k], ++k)
    kernels::copy_rows(y.data() + col, row, xs[k].data(), width[k], outer, width[k], false);
  op.save_for_backward();  // the backward reads only the gradient
  return op.finish(y, [outer, row, width = std::move(width)](Node& node) {
    const float* g = node.grad.get();
    int64_t col = 0;
    for (size_t k = 0; k < width.size(); col += width[k], ++k)
      if (float* dx = node.input_grad(k)) kernels::copy_rows(dx, width[k], g + col, row, outer, width[k], true);
  });
}

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  OpScope scope("stack");  // names the op if an input is undefined
  check(!xs.empty(), "stack", "needs at least one tensor");
  const int64_t d = normalize_dim(dim, xs[0].shape(), "stack", 1);
  for (const Tensor& x : xs) check(x.shape() == xs[0].shape(), "stack", "shapes differ: ", xs[0].shape(), " vs ", x.shape());
  std::vector<Tensor> parts;
  for (const Tensor& x : xs) parts.push_back(unsqueeze(x, d));
  return concat(parts, d);
}

// x[..., start:end, ...] with Python's rules: negative bounds count from the end, and
// bounds past the ends are clamped.
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end) {
  OpCall op("slice", {x});
  const int64_t d = normalize_dim(dim, x.shape(), "slice");
  const int64_t n = x.shape()[d];
  auto clamp = [n](int64_t v) { v = v < 0 ? v + n : v; return v < 0 ? 0 : (v > n ? n : v); };
  start = clamp(start);
  end = std::max(start, clamp(end));
  Shape out = x.shape();
  out[d] = end - start;
  const int64_t outer = prod(x.shape(), 0, d), inner = prod(x.shape(), d + 1, x.shape().size());
  const int64_t in_row = n * inner, out_row = out[d] * inner, off = start * inner;
  Tensor y = empty(out);
  if (out_row > 0)  // an empty slice has no buffer to copy into
    kernels::copy_rows(y.data(), out_row, x.data() + off, in_row, outer, out_row, false);
  return op.finish(y, [outer, in_row, out_row, off](Node& node) {
    if (float* dx = node.input_grad(0); dx && out_row > 0)
      kernels::copy_rows(dx + off, in_row, node.grad.get(), out_row, outer, out_row, true);
  });
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  OpScope scope("select");  // names the op if an input is undefined
  const int64_t d = normalize_dim(dim, x.shape(), "select");
  const int64_t n = x.shape()[d];
  check(index >= -n && index < n, "select", "index ", index, " out of range for dim ", d, " of shape ", x.shape());
  if (index < 0) index += n;
  Shape s = x.shape();
  s.erase(s.begin() + d);
  return reshaped(slice(x, d, index, index + 1), s, "select");  // recorded as "select", as PyTorch's SelectBackward0
}

// torch.Tensor.repeat: tile x repeats[i] times along dim i (x gets leading 1-dims if
// repeats is longer). y[i] = x[i mod size] per dim.
Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats) {
  OpCall op("repeat", {x});
  check(repeats.size() >= x.shape().size(), "repeat", repeats.size(), " repeats for a tensor of shape ", x.shape());
  const size_t nd = repeats.size();
  Shape in(nd - x.shape().size(), 1);
  in.insert(in.end(), x.shape().begin(), x.shape().end());
  Shape out(nd);
  for (size_t i = 0; i < nd; ++i) {
    check(repeats[i] >= 0, "repeat", "negative repeat count in repeats for shape ", x.shape());
    out[i] = in[i] * repeats[i];
  }
  Tensor y = empty(out);
  std::vector<int64_t> src(static_cast<size_t>(y.numel()));
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t rest = i, offset = 0, stride = 1;
    for (size_t d = nd; d-- > 0;) {
      offset += (rest % out[d] % in[d]) * stride;
      rest /= out[d];
      stride *= in[d];
    }
    src[i] = offset;
  }
  float* py = y.data();
  const float* px = x.data();
  for (int64_t i = 0; i < y.numel(); ++i) py[i] = px[src[i]];
  return op.finish(y, [src = std::move(src)](Node& node) {
    const float* g = node.grad.get();
    if (float* dx = node.input_grad(0))
      for (int64_t i = 0; i < node.numel(); ++i) dx[src[i]] += g[i];
  });
}

// torch.repeat_interleave(x, repeats, dim): each slice along dim appears `repeats` times
// in a row. y[o, j*r + t, i] = x[o, j, i].
Tensor repeat_interleave(const Tensor& x, int64_t repeats, int64_t dim) {
  OpCall op("repeat_interleave", {x});
  check(repeats >= 0, "repeat_interleave", "repeats must be >= 0, got ", repeats);
  const int64_t d = normalize_dim(dim, x.shape(), "repeat_interleave");
  const int64_t outer = prod(x.shape(), 0, d), n = x.shape()[d], inner = prod(x.shape(), d + 1, x.shape().size());
  Shape out = x.shape();
  out[d] = n * repeats;
  Tensor y = empty(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t t = 0; t < repeats; ++t)
        std::memcpy(y.data() + ((o * n + j) * repeats + t) * inner, x.data() + (o * n + j) * inner, sizeof(float) * inner);
  return op.finish(y, [outer, n, inner, repeats](Node& node) {
    const float* g = node.grad.get();
    if (float* dx = node.input_grad(0))
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t t = 0; t < repeats; ++t)
            for (int64_t i = 0; i < inner; ++i)
              dx[(o * n + j) * inner + i] += g[((o * n + j) * repeats + t) * inner + i];
  });
}

// y = x gathered at positions `index` (1-D, integer values) along dim.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  OpCall op("index_select", {x, index});
  const int64_t d = normalize_dim(dim, x.shape(), "index_select");
  check(index.ndim() == 1, "index_select", "index must be 1-D, got shape ", index.shape());
  const int64_t outer = prod(x.shape(), 0, d), n = x.shape()[d], inner = prod(x.shape(), d + 1, x.shape().size());
  const int64_t m = index.numel();
  std::vector<int64_t> idx(static_cast<size_t>(m));
  for (int64_t k = 0; k < m; ++k) idx[k] = checked_index(index.data()[k], n, "index_select", x.shape());
  Shape out = x.shape();
  out[d] = m;
  Tensor y = empty(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < m; ++k)
      std::memcpy(y.data() + (o * m + k) * inner, x.data() + (o * n + idx[k]) * inner, sizeof(float) * inner);
  // Backward: scatter-add (an index may repeat, so gradients add up), serially in order.
  return op.finish(y, [outer, n, m, inner, idx = std::move(idx)](Node& node) {
    const float* g = node.grad.get();
    if (float* dx = node.input_grad(0))
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < m; ++k)
          for (int64_t i = 0; i < inner; ++i)
            dx[(o * n + idx[k]) * inner + i] += g[(o * m + k) * inner + i];
  });
}

// nn.Embedding's lookup: weight (vocab_size, d), indices (...) -> (..., d).
Tensor embedding(const Tensor& weight, const Tensor& indices) {
  OpCall op("embedding", {weight, indices});
  check(weight.ndim() == 2, "embedding", "weight must be (vocab_size, embed_size), got ", weight.shape());
  const int64_t V = weight.shape()[0], D = weight.shape()[1], m = indices.numel();
  std::vector<int64_t> row(static_cast<size_t>(m));  // where each token's row starts in weight
  for (int64_t k = 0; k < m; ++k) row[k] = checked_index(indices.data()[k], V, "embedding", weight.shape()) * D;
  Shape out = indices.shape();
  out.push_back(D);
  Tensor y = empty(out);
  kernels::gather_rows(y.data(), weight.data(), row.data(), m, D);
  // Backward: dW[token] += g for every occurrence of the token (a scatter-add, in order).
  op.save_for_backward();  // the backward reads only the gradient
  return op.finish(y, [D, m, row = std::move(row)](Node& node) {
    if (float* dw = node.input_grad(0)) kernels::scatter_add_rows(dw, node.grad.get(), row.data(), m, D);
  });
}

}  // namespace d2l
