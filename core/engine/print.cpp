// core/engine/print.cpp — str(Tensor) and operator<<: PyTorch's printing rules
// (torch/_tensor_str.py) with its default print options, so a tensor here prints as the
// book's PyTorch code prints the same numbers:
//   precision 4   digits after the point (str's `decimals`)
//   threshold 1000, edgeitems 3
//                 a tensor of more than 1000 elements is summarised: along every dim longer
//                 than 6 only the first 3 and the last 3 entries are shown, with "..." between
//   linewidth 80  a row too long for 80 columns continues on the next line
// One format serves every element shown: integers print as "2."; otherwise fixed point, or
// scientific ("1.0000e-05") when the shown non-zero magnitudes span more than a factor 1000,
// exceed 1e8 or go below 1e-4; all right-aligned to the widest.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "core/engine/bookkeeping.h"
#include "core/tensor.h"

namespace d2l {
namespace {

constexpr int64_t kThreshold = 1000, kEdgeItems = 3, kLineWidth = 80;

// torch's _Formatter: the mode and width, chosen from the elements that will be shown.
class Formatter {
 public:
  Formatter(const std::vector<float>& shown, int precision) : precision_(precision) {
    double lo = INFINITY, hi = 0;
    bool any = false;
    for (float v : shown) {
      if (!std::isfinite(v) || v == 0.0f) continue;
      any = true;
      lo = std::min(lo, std::fabs(static_cast<double>(v)));
      hi = std::max(hi, std::fabs(static_cast<double>(v)));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (!any) return;  // only zeros and non-finite values: integer mode, width 1
    sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (float v : shown)
      if (std::isfinite(v) && v != 0.0f) width_ = std::max(width_, plain(v).size());
  }

  // One element, right-aligned to the common width.
  std::string format(float v) const {
    std::string s = plain(v);
    return s.size() < width_ ? std::string(width_ - s.size(), ' ') + s : s;
  }
  size_t width() const { return width_; }

 private:
  // Python's "{:.4e}", "{:.0f}" + "." or "{:.4f}" of the value; nan, inf and -inf as words.
  std::string plain(float v) const {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    if (sci_mode_) std::snprintf(buf, sizeof buf, "%.*e", precision_, static_cast<double>(v));
    else if (int_mode_) std::snprintf(buf, sizeof buf, "%.0f.", static_cast<double>(v));
    else std::snprintf(buf, sizeof buf, "%.*f", precision_, static_cast<double>(v));
    return buf;
  }

  int precision_;
  bool int_mode_ = true, sci_mode_ = false;
  size_t width_ = 1;
};

// The indices shown along a dim of size n: all of them, or the first and last edge items
// (-1 marks the "..." between them).
std::vector<int64_t> shown_indices(int64_t n, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    idx.push_back(-1);
    for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

struct Printer {
  const float* data;
  const Shape& shape;
  bool summarize;
  const Formatter* formatter = nullptr;

  int64_t stride(size_t dim) const {
    int64_t s = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d) s *= shape[d];
    return s;
  }

  // The elements a summarised print shows, in order (torch's get_summarized_data).
  void collect(size_t dim, int64_t offset, std::vector<float>& out) const {
    for (int64_t i : shown_indices(shape[dim], summarize)) {
      if (i < 0) continue;
      if (dim + 1 == shape.size()) out.push_back(data[offset + i]);
      else collect(dim + 1, offset + i * stride(dim), out);
    }
  }

  // torch's _tensor_str_with_formatter; `indent` is the column of the opening bracket.
  std::string str(size_t dim, int64_t offset, int64_t indent) const {
    const std::vector<int64_t> idx = shown_indices(shape[dim], summarize);
    if (dim + 1 == shape.size()) {
      // One row: as many elements per line as fit in the line width.
      const int64_t element_length = static_cast<int64_t>(formatter->width()) + 2;
      const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / element_length);
      std::string s = "[";
      for (size_t k = 0; k < idx.size(); ++k) {
        if (k > 0) s += k % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
        s += idx[k] < 0 ? std::string(" ...") : formatter->format(data[offset + idx[k]]);
      }
      return s + "]";
    }
    // Outer dims: one blank line per level below the next, aligned under the bracket.
    const std::string sep = "," + std::string(shape.size() - dim - 1, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k > 0) s += sep;
      s += idx[k] < 0 ? std::string("...") : str(dim + 1, offset + idx[k] * stride(dim), indent + 1);
    }
    return s + "]";
  }
};

// The grad_fn PyTorch prints for the output of our op `op`, for the ops with one PyTorch
// counterpart (x[0] is SelectBackward0, torch.bmm BmmBackward0, nn.LayerNorm
// NativeLayerNormBackward0, ...: the names python3-torch 1.13 prints). An op without one
// (masked_softmax, linear, sum, reshape, ... whose PyTorch name depends on arguments or
// version) keeps its own name.
const char* torch_grad_fn(const char* op) {
  static const char* const table[][2] = {
      {"add", "AddBackward0"},        {"add_scalar", "AddBackward0"},
      {"sub", "SubBackward0"},        {"rsub_scalar", "RsubBackward1"},
      {"mul", "MulBackward0"},        {"mul_scalar", "MulBackward0"},
      {"div", "DivBackward0"},        {"neg", "NegBackward0"},
      {"exp", "ExpBackward0"},        {"log", "LogBackward0"},
      {"pow", "PowBackward0"},        {"sqrt", "SqrtBackward0"},
      {"tanh", "TanhBackward0"},      {"sigmoid", "SigmoidBackward0"},
      {"relu", "ReluBackward0"},      {"sin", "SinBackward0"},
      {"cos", "CosBackward0"},        {"softmax", "SoftmaxBackward0"},
      {"log_softmax", "LogSoftmaxBackward0"},
      {"permute", "PermuteBackward0"}, {"transpose", "TransposeBackward0"},
      {"unsqueeze", "UnsqueezeBackward0"}, {"squeeze", "SqueezeBackward1"},
      {"select", "SelectBackward0"},  {"slice", "SliceBackward0"},
      {"concat", "CatBackward0"},     {"stack", "StackBackward0"},
      {"repeat", "RepeatBackward0"},  {"repeat_interleave", "IndexSelectBackward0"},
      {"index_select", "IndexSelectBackward0"},
      {"bmm", "BmmBackward0"},        {"layer_norm", "NativeLayerNormBackward0"},
      {"embedding", "EmbeddingBackward0"},
      {"abs", "AbsBackward0"},
  };
  for (const auto& row : table)
    if (std::strcmp(row[0], op) == 0) return row[1];
  return op;
}

// torch's _add_suffixes: ", suffix" on the last line if it fits in the line width, else on a
// new line indented under the content (its length arithmetic kept as torch has it).
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes, int64_t indent) {
  const size_t nl = s.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(s.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > kLineWidth) {
      s += ",\n" + std::string(indent, ' ') + suffix;
      last_line_len = indent + len;
    } else {
      s += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

}  // namespace

std::string str(const Tensor& x, int decimals) {
  if (!x.defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  std::string body;
  if (x.numel() == 0) {
    body = "[]";
    if (x.ndim() != 1) suffixes.push_back("size=" + shape_str(x.shape()));  // as NumPy: shown unless (0,)
  } else {
    Printer p{x.data(), x.shape(), x.numel() > kThreshold};
    std::vector<float> shown;
    if (x.ndim() == 0) shown.push_back(x.data()[0]);
    else p.collect(0, 0, shown);
    const Formatter f(shown, decimals);
    p.formatter = &f;
    body = x.ndim() == 0 ? f.format(x.data()[0]) : p.str(0, 0, indent);
  }
  // grad_fn for a tensor some recorded op made (its graph may since have been freed); a leaf
  // that requires grad, an op's result made from no gradient-needing input included, says so.
  const Node& n = *x.node();
  if (n.requires_grad && (n.backward_fn || n.book->freed)) suffixes.push_back("grad_fn=<" + std::string(torch_grad_fn(n.op)) + ">");
  else if (n.requires_grad) suffixes.push_back("requires_grad=True");
  return add_suffixes(prefix + body, suffixes, indent);
}

std::ostream& operator<<(std::ostream& os, const Tensor& x) { return os << str(x); }

}  // namespace d2l
