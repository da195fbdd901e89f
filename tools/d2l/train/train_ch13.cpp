// tools/d2l/train/train_ch13.cpp — the book's train_ch13 (see the header).
#include "tools/d2l/train/train_ch13.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "core/autograd.h"
#include "core/shape.h"  // check
#include "core/ops.h"
#include "tools/d2l/figures/animator.h"
#include "tools/d2l/train/ids_tensor.h"

namespace d2l {

double evaluate_accuracy(Module& net, const BatchForward& forward, SNLIDataLoader& data_iter) {
  net.eval();
  NoGrad no_grad;
  double correct = 0, count = 0;  // the book's Accumulator(2)
  for (int64_t i = 0; i < data_iter.num_batches(); ++i) {
    const SNLIBatch b = data_iter.batch(i);
    correct += accuracy(forward(b), ids_tensor(b.labels, {b.batch_size}));
    count += b.batch_size;
  }
  return correct / count;
}

std::string format_duration(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  const int64_t minutes = (s + 30) / 60;  // to the nearest minute
  return std::to_string(minutes / 60) + " h " + std::to_string(minutes % 60) + " min";
}

TrainCh13Result train_ch13(Module& net, const BatchForward& forward, SNLIDataLoader& train_iter,
                           SNLIDataLoader& test_iter, Optimizer& trainer, int64_t num_epochs,
                           const std::string& figure_path, Checkpoint* checkpoint, int64_t estimate_after) {
  check(num_epochs >= 1, "train_ch13", "num_epochs must be >= 1, got ", num_epochs);
  // The book's xlim=[1, num_epochs]; a single epoch needs [0, 1] to have a width at all.
  const std::pair<float, float> xlim{num_epochs > 1 ? 1.0f : 0.0f, static_cast<float>(num_epochs)};
  Animator animator("epoch", {"train loss", "train acc", "test acc"}, xlim, num_epochs, figure_path,
                    std::make_pair(0.0f, 1.0f));
  const int64_t num_batches = train_iter.num_batches();
  double timer_sum = 0;                          // seconds inside training batches only
  double metric[4] = {0, 0, 0, 0}, test_acc = 0;  // loss sum, correct, examples, labels
  const int64_t first_epoch = checkpoint ? checkpoint->resume(net, trainer, num_epochs, &animator) : 0;
  for (int64_t epoch = first_epoch; epoch < num_epochs; ++epoch) {
    std::fill(metric, metric + 4, 0.0);
    train_iter.start_epoch();
    for (int64_t i = 0; i < num_batches; ++i) {
      const SNLIBatch b = train_iter.batch(i);
      const auto t0 = std::chrono::steady_clock::now();
      // train_batch_ch13: loss = CrossEntropyLoss(reduction='none'), summed for backward.
      net.train();
      trainer.zero_grad();
      const Tensor pred = forward(b);
      const Tensor labels = ids_tensor(b.labels, {b.batch_size});
      Tensor l = sum(softmax_cross_entropy(pred, labels));
      l.backward();
      trainer.step();
      metric[0] += l.item(), metric[1] += accuracy(pred, labels);
      metric[2] += b.batch_size, metric[3] += b.batch_size;
      timer_sum += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (epoch == first_epoch && estimate_after > 0 && i + 1 == std::min(estimate_after, num_batches)) {
        const double speed = metric[2] / timer_sum;
        const double total =
            static_cast<double>(train_iter.dataset().size()) * static_cast<double>(num_epochs - first_epoch);
        std::printf("estimated training time: %s (%.1f examples/sec over the first %lld batches)\n",
                    format_duration(total / speed).c_str(), speed, static_cast<long long>(i + 1));
        std::fflush(stdout);
      }
      if ((i + 1) % std::max<int64_t>(1, num_batches / 5) == 0 || i == num_batches - 1) {
        char speed[64];
        std::snprintf(speed, sizeof speed, "%.1f examples/sec", metric[2] * (epoch + 1 - first_epoch) / timer_sum);
        animator.add(epoch + static_cast<float>(i + 1) / num_batches,
                     {static_cast<float>(metric[0] / metric[2]), static_cast<float>(metric[1] / metric[3]), std::nullopt},
                     speed);
      }
    }
    test_acc = evaluate_accuracy(net, forward, test_iter);
    animator.add(static_cast<float>(epoch + 1), {std::nullopt, std::nullopt, static_cast<float>(test_acc)});
    if (checkpoint) checkpoint->epoch_end(net, trainer, epoch + 1, num_epochs, &animator);  // --save-every
  }
  animator.end_progress();
  // The model first (--save), then the figure: a figure that cannot be written must not
  // cost the trained model.
  if (checkpoint) checkpoint->trained(net, trainer, num_epochs, &animator);
  write_figure(figure_path, [&] { animator.draw(); });
  TrainCh13Result r;
  r.loss = metric[0] / metric[2];
  r.train_acc = metric[1] / metric[3];
  r.test_acc = test_acc;
  r.examples_per_sec = metric[2] * (num_epochs - first_epoch) / timer_sum;
  r.test_acc_by_epoch = animator.series()[2].y;
  std::printf("loss %s, train acc %s, test acc %s\n", format_metric(r.loss).c_str(), format_metric(r.train_acc).c_str(),
              format_metric(r.test_acc).c_str());
  std::printf("%.1f examples/sec on cpu\n", r.examples_per_sec);
  std::fflush(stdout);
  return r;
}

}  // namespace d2l
