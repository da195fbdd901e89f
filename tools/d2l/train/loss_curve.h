// tools/d2l/train/loss_curve.h — a training loop's losses, one per epoch, drawn as the book's
// d2l.Animator(xlabel='epoch', ylabel='loss', xlim=[1, num_epochs]) draws them, for a
// section whose loop prints each epoch itself (10.2).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace d2l {

// Plots losses[e - 1] at epoch e over x in [1, xmax] and prints "saved PATH" (the caller's
// file and line go to the run's source trace, as print_saved's do).
void plot_losses(const std::vector<float>& losses, int64_t xmax, const std::string& path,
                 const char* file = __builtin_FILE(), int line = __builtin_LINE());

}  // namespace d2l
