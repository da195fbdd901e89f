// tools/d2l/train/loss_curve.cpp — the loss curve of a training loop (see the header).
#include "tools/d2l/train/loss_curve.h"

#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/figures/figures.h"

namespace d2l {

void plot_losses(const std::vector<float>& losses, int64_t xmax, const std::string& path, const char* file, int line) {
  std::vector<float> epochs;
  for (size_t e = 1; e <= losses.size(); ++e) epochs.push_back(static_cast<float>(e));
  PlotOptions opt;
  opt.xlabel = "epoch";
  opt.ylabel = "loss";
  opt.xlim = {1.0f, static_cast<float>(xmax)};
  plot(epochs, {losses}, opt, path);
  print_saved(path, file, line);
}

}  // namespace d2l
