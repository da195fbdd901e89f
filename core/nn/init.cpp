// core/nn/init.cpp — uniform_, normal_, xavier_uniform_, linear_default_init_ (torch.nn.init).
#include "core/nn/init.h"

#include <cmath>

#include "core/random.h"

namespace d2l {

void uniform_(Tensor& t, float a, float b) {
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = a + (b - a) * random_uniform();
}

void normal_(Tensor& t, float mean, float std) {
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = mean + std * random_normal();
}

// Glorot & Bengio (2010): keeps activation variance roughly constant across layers.
// For a (out, in) weight, fan_in = in, fan_out = out (as torch.nn.init computes them).
void xavier_uniform_(Tensor& t) {
  check(t.ndim() >= 2, "xavier_uniform_", "needs a weight with at least 2 dims, got ", t.shape());
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.ndim(); ++d) receptive *= t.shape()[d];
  const float fan_in = static_cast<float>(t.shape()[1] * receptive), fan_out = static_cast<float>(t.shape()[0] * receptive);
  const float a = std::sqrt(6.0f / (fan_in + fan_out));
  uniform_(t, -a, a);
}

// nn.Linear.reset_parameters: kaiming_uniform_(a=√5) works out to U(-1/√in, 1/√in) for
// the weight, and the bias uses the same bound.
void linear_default_init_(Tensor& weight, Tensor& bias) {
  check(weight.ndim() == 2, "linear_default_init_", "weight must be 2-D, got ", weight.shape());
  const float bound = weight.shape()[1] > 0 ? 1.0f / std::sqrt(static_cast<float>(weight.shape()[1])) : 0.0f;
  uniform_(weight, -bound, bound);
  if (bias.defined()) uniform_(bias, -bound, bound);
}

}  // namespace d2l
