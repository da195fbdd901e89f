// core/tensor.cpp — Tensor's accessors and creation functions (printing: core/engine/print.cpp).
#include "core/tensor.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <iterator>
#include <limits>
#include <new>
#include <ostream>
#include <sstream>

#include "core/engine/allocator.h"
#include "core/autograd.h"
#include "core/engine/bookkeeping.h"
#include "core/creation.h"
#include "core/ops.h"  // normalize_dim, numel_of
#include "core/random.h"

namespace d2l {

// --- Node --------------------------------------------------------------------------------

namespace {

// Beyond this many floats (2^46: 256 TiB) a tensor cannot be allocated on any machine, and
// the byte count would come close to overflowing; refusing it here names the shape.
constexpr int64_t kMaxNumel = int64_t{1} << 46;

std::string bytes_str(int64_t numel) {
  std::ostringstream os;
  const double bytes = static_cast<double>(numel) * sizeof(float);
  os << static_cast<long long>(numel) * static_cast<long long>(sizeof(float)) << " bytes";
  if (bytes >= 1 << 20) os << " (" << std::setprecision(3) << bytes / (1 << 30) << " GiB)";
  return os.str();
}

// Memory for `numel` floats of a tensor of `shape` (its data, or with `what` = "gradient"
// its gradient). A failure names the op that asked (the innermost running one), the shape
// and the bytes: a bare std::bad_alloc from deep inside a training step says none of them.
template <class Block>
Block allocate_for(int64_t numel, const Shape& shape, const char* what) {
  const char* op = current_op() ? current_op() : "Tensor";
  check(numel <= kMaxNumel, op, "a tensor of shape ", shape, " has ", numel, " elements, more than any machine can hold");
  try {
    return Block(static_cast<size_t>(numel));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(std::string("[") + op + "] cannot allocate the " + what + " of a tensor of shape " +
                      shape_str(shape) + ": " + bytes_str(numel) + " (out of memory; a smaller batch size needs less)");
  }
}

}  // namespace

float* Node::grad_data() {
  if (!grad) {
    const int64_t n = numel();
    grad = allocate_for<Storage>(n, shape, "gradient");
    if (n) std::memset(grad.get(), 0, sizeof(float) * n);
  }
  return grad.get();
}

// Dropping the last handle to a graph nobody ran backward() on would destroy its nodes
// recursively (each ~Node releasing its inputs), one stack frame per node: a 100k-op chain
// overflows the stack. Unlink the nodes this one owns alone into a list and free them in a loop.
Node::~Node() {
  // Usually every input has another owner (a later node, a handle): releasing it destroys
  // nothing, and no list is needed.
  bool owns_an_input = false;
  for (const NodePtr& in : inputs) owns_an_input = owns_an_input || (in && in.use_count() == 1);
  if (!owns_an_input) return;
  std::vector<NodePtr> pending(std::make_move_iterator(inputs.begin()), std::make_move_iterator(inputs.end()));
  inputs.clear();
  while (!pending.empty()) {
    NodePtr n = std::move(pending.back());
    pending.pop_back();
    if (n && n.use_count() == 1) {
      for (NodePtr& in : n->inputs) pending.push_back(std::move(in));
      n->inputs.clear();
    }
  }
}

std::string shape_str(const Shape& shape) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) os << ',';
  os << ')';
  return os.str();
}

void Shape::room_for(size_t n) const {
  if (n <= kMaxDims) return;
  fail(current_op() ? current_op() : "Shape", "a tensor has at most ", kMaxDims, " dims; ", *this,
       " cannot take ", n - n_, " more");
}

int64_t Shape::at(size_t i) const {
  if (i >= n_) throw std::out_of_range("[Shape] dim " + std::to_string(i) + " of " + shape_str(*this));
  return dims_[i];
}

// --- shape and data ----------------------------------------------------------------------

// An undefined handle reaching an op names the op (OpCall keeps the innermost running one).
static Node& need(const NodePtr& n) {
  if (n == nullptr) {
    if (const char* op = current_op())
      fail(op, "an input tensor is undefined (a default-constructed Tensor handle that was never assigned)");
    fail("Tensor", "this tensor is undefined (a default-constructed Tensor handle that was never assigned). A "
                   "layer's tensors that a forward creates, such as attention_weights, exist only after the layer's "
                   "first forward: call it first");
  }
  return *n;
}

const Shape& Tensor::shape() const { return need(node_).shape; }
int64_t Tensor::numel() const { return need(node_).numel(); }
int64_t Tensor::size(int64_t dim) const { return shape()[normalize_dim(dim, shape(), "Tensor.size")]; }
float* Tensor::data() {
  Node& n = need(node_);
  n.data.bump_version();  // a writable pointer counts as a write (see tensor.h)
  return n.data.get();
}
const float* Tensor::data() const { return need(node_).data.get(); }
uint64_t Tensor::version() const { return need(node_).data.version(); }

float Tensor::item() const {
  check(numel() == 1, "item", "needs a tensor with one element, got shape ", shape());
  return data()[0];
}

static int64_t flat_index(const Shape& shape, std::initializer_list<int64_t> index) {
  check(index.size() == shape.size(), "at", "index has ", index.size(), " entries for shape ", shape);
  int64_t flat = 0, d = 0;
  for (int64_t i : index) {
    check(i >= 0 && i < shape[d], "at", "index ", i, " out of range for dim ", d, " of shape ", shape);
    flat = flat * shape[d] + i;
    ++d;
  }
  return flat;
}

float& Tensor::at(std::initializer_list<int64_t> index) { return data()[flat_index(shape(), index)]; }
float Tensor::at(std::initializer_list<int64_t> index) const { return data()[flat_index(shape(), index)]; }

std::vector<float> Tensor::to_vector() const { return std::vector<float>(data(), data() + numel()); }

// --- autodiff handles ----------------------------------------------------------------------

bool Tensor::requires_grad() const { return need(node_).requires_grad; }

Tensor& Tensor::requires_grad_(bool on) {
  check(need(node_).inputs.empty() && !node_->backward_fn && !node_->book->freed, "requires_grad_",
        "only leaf tensors can be made to require grad; this one was made by '", node_->op, "'");
  node_->requires_grad = on;
  return *this;
}

Tensor Tensor::grad() const {
  Node& n = need(node_);
  if (!n.grad) return Tensor();
  Tensor g = empty(n.shape);
  std::memcpy(g.data(), n.grad.get(), sizeof(float) * n.numel());
  return g;
}

float* Tensor::grad_data() { return need(node_).grad.get(); }
const float* Tensor::grad_data() const { return need(node_).grad.get(); }
void Tensor::zero_grad(bool set_to_none) {
  Node& n = need(node_);
  if (set_to_none)
    n.grad = Storage();
  else if (n.grad && n.numel())
    std::memset(n.grad.get(), 0, sizeof(float) * n.numel());
}
const char* Tensor::op_name() const { return need(node_).op; }

void Tensor::backward() {
  check(numel() == 1, "backward", "without an explicit gradient the tensor must have one element, got shape ",
        shape(), " (pass a gradient of that shape, or reduce to a scalar first)");
  backward(ones(shape()));
}

void Tensor::backward(const Tensor& grad_output) {
  Node& n = need(node_);
  check(n.requires_grad || !n.book->made_without_grad, "backward", "no graph was recorded for this tensor of shape ",
        n.shape, " made by '", n.op, "': grad mode was off (a NoGrad was alive) when it, or a tensor it was ",
        "computed from, was computed from tensors that require grad. Compute the loss outside the NoGrad scope");
  check(n.requires_grad, "backward", "tensor of shape ", n.shape, " made by '", n.op,
        "' does not require grad: no input of its graph has requires_grad set");
  check(grad_output.shape() == n.shape, "backward", "gradient shape ", grad_output.shape(),
        " differs from tensor shape ", n.shape);
  float* g = n.grad_data();
  const float* go = grad_output.data();
  for (int64_t i = 0; i < n.numel(); ++i) g[i] += go[i];
  run_backward(node_);
}

Tensor Tensor::detach() const {
  Tensor y = empty(shape());
  std::memcpy(y.data(), data(), sizeof(float) * numel());
  return y;
}

// --- creation ----------------------------------------------------------------------------

int64_t numel_of(const Shape& shape) {
  for (int64_t s : shape) check(s >= 0, "Tensor", "negative size in shape ", shape);
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s == 0) return 0;  // empty, whatever the other sizes
    // The product must fit int64_t: a wrapped count would allocate a wrong-sized buffer.
    if (n > std::numeric_limits<int64_t>::max() / s) {
      for (int64_t t : shape)
        if (t == 0) return 0;
      fail(current_op() ? current_op() : "Tensor", "shape ", shape, " has more elements than an int64_t can count");
    }
    n *= s;
  }
  return n;
}

int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t d = dim < 0 ? dim + ndim : dim;
  check(d >= 0 && d < ndim, op, "dim ", dim, " out of range for a tensor with ", ndim, " dims");
  return d;
}

int64_t normalize_dim(int64_t dim, const Shape& shape, const char* op, int64_t extra) {
  const int64_t n = static_cast<int64_t>(shape.size()) + extra, d = dim < 0 ? dim + n : dim;
  check(d >= 0 && d < n, op, "dim ", dim, " out of range [", -n, ", ", n - 1, "] for shape ", shape);
  return d;
}

Tensor empty(const Shape& shape) {
  NodePtr n = make_node();
  n->shape = shape;
  n->data = allocate_for<Storage>(numel_of(shape), shape, "data");
  return Tensor(std::move(n));
}

Tensor full(const Shape& shape, float value) {
  Tensor t = empty(shape);
  float* p = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value;
  return t;
}

Tensor zeros(const Shape& shape) { return full(shape, 0.0f); }
Tensor ones(const Shape& shape) { return full(shape, 1.0f); }
Tensor zeros_like(const Tensor& x) { return zeros(x.shape()); }
Tensor ones_like(const Tensor& x) { return ones(x.shape()); }

Tensor arange(int64_t end) { return arange(0.0f, static_cast<float>(end), 1.0f); }

Tensor arange(float start, float end, float step) {
  check(step != 0.0f, "arange", "step must be non-zero");
  const double count = std::ceil((static_cast<double>(end) - start) / step);
  const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  Tensor t = empty({n});
  // start + i*step in double, as PyTorch computes it, so arange(0, 5, 0.1) has no drift.
  float* p = t.data();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(start + static_cast<double>(i) * step);
  return t;
}

Tensor eye(int64_t n) {
  Tensor t = zeros({n, n});
  float* p = t.data();
  for (int64_t i = 0; i < n; ++i) p[i * n + i] = 1.0f;
  return t;
}

Tensor normal(float mean, float std, const Shape& shape) {
  Tensor t = empty(shape);
  float* p = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = mean + std * random_normal();
  return t;
}

Tensor rand(const Shape& shape) {
  Tensor t = empty(shape);
  float* p = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = random_uniform();
  return t;
}

Tensor randint(int64_t low, int64_t high, const Shape& shape) {
  constexpr int64_t kExact = int64_t{1} << 24;  // every integer up to 2^24 is a float32
  check(low < high, "randint", "needs low < high, got low ", low, ", high ", high);
  check(low >= -kExact && high <= kExact, "randint", "[", low, ", ", high,
        ") reaches past 2^24 = 16777216, where float32 no longer holds every integer");
  Tensor t = empty(shape);
  float* p = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(low + random_int(high - low));
  return t;
}

Tensor tensor(const std::vector<float>& values, const Shape& shape) {
  check(static_cast<int64_t>(values.size()) == numel_of(shape), "tensor", values.size(),
        " values do not fill shape ", shape);
  Tensor t = empty(shape);
  if (!values.empty()) std::memcpy(t.data(), values.data(), sizeof(float) * values.size());
  return t;
}

Tensor tensor(std::initializer_list<float> values) {
  return tensor(std::vector<float>(values), {static_cast<int64_t>(values.size())});
}

Tensor tensor(std::initializer_list<std::initializer_list<float>> rows) {
  std::vector<float> v;
  const int64_t cols = rows.size() ? static_cast<int64_t>(rows.begin()->size()) : 0;
  for (const auto& r : rows) {
    check(static_cast<int64_t>(r.size()) == cols, "tensor", "ragged rows: ", r.size(), " vs ", cols);
    v.insert(v.end(), r.begin(), r.end());
  }
  return tensor(v, {static_cast<int64_t>(rows.size()), cols});
}

}  // namespace d2l
