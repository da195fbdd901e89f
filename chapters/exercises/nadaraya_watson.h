// chapters/exercises/nadaraya_watson.h — what 10.2's exercises reuse: the section's function,
// plot and leave-one-out tables (defined in chapters/nadaraya_watson.cpp, as the book defines
// them there), and the section's data at any size (chapters/exercises/nadaraya_watson.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor.h"

// The section's target, y = 2 sin x + x^0.8 (without the noise).
d2l::Tensor f(const d2l::Tensor& x);

// The section's data at n points: sorted inputs x_i ~ U[0, 5) and noisy outputs
// y_i = f(x_i) + ε, drawn as the section draws its 50.
struct Dataset {
  d2l::Tensor x_train, y_train;
};
Dataset make_data(int64_t n_train);

// The book's plot_kernel_reg: truth and prediction over x_test, the noisy training points
// as translucent circles; prints "saved PATH".
void plot_kernel_reg(const d2l::Tensor& x_test, const d2l::Tensor& y_truth, const d2l::Tensor& y_hat,
                     const d2l::Tensor& x_train, const d2l::Tensor& y_train, const std::string& path);

// The book's X_tile[(1 - eye(n)).bool()].reshape(n, -1): row i of tile (n, n) without its
// diagonal entry, so each training input is predicted from the other n - 1 points only.
d2l::Tensor off_diagonal(const d2l::Tensor& tile);
