// chapters/nadaraya_watson.cpp — 10.2 注意力汇聚：Nadaraya-Watson 核回归 / Attention Pooling:
// Nadaraya-Watson Kernel Regression (sec_nadaraya-watson; the book's nadaraya-waston.md).
//
// Regression on y = 2 sin x + x^0.8 + ε (ε ~ N(0, 0.5²)) from 50 sorted training points:
// average pooling, non-parametric attention pooling (Gaussian kernel), then the parametric
// pooling NWKernelRegression trained for 5 epochs of SGD (lr 0.5).
//
// Prints, in the book's order: n_test; the two bmm demos (subsec_batch_dot); one line per
// epoch "epoch i, loss L"; the path of each figure.
// Writes (out/nadaraya_watson/): average_pooling.png, nonparametric.png,
//   nonparametric_attention.png, parametric.png, parametric_attention.png, loss.png.
// Data: generated. Randomness: the training data and the initial w come from the seeded
// generator, so the losses and curves differ from the book's (PyTorch's generator) while
// keeping their shape. Run time: well under a second.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/optim.h"
#include "core/tensor.h"
#include "layers/nadaraya_watson.h"
#include "tools/cli/cli_args.h"
#include "tools/figures/figures.h"

using namespace d2l;

namespace {

Tensor f(const Tensor& x) { return 2.0f * sin(x) + pow(x, 0.8f); }

// The book's plot_kernel_reg: truth and prediction over x_test, the noisy training points
// as translucent circles.
void plot_kernel_reg(const Tensor& x_test, const Tensor& y_truth, const Tensor& y_hat, const Tensor& x_train,
                     const Tensor& y_train, const std::string& path) {
  PlotOptions opt;
  opt.xlabel = "x";
  opt.ylabel = "y";
  opt.legend = {"Truth", "Pred"};
  opt.xlim = {0.0f, 5.0f};
  opt.ylim = {-1.0f, 5.0f};
  std::vector<Series> series(3);
  series[0] = {x_test.to_vector(), y_truth.to_vector(), "-", "Truth", {}};
  series[1] = {x_test.to_vector(), y_hat.to_vector(), "m--", "Pred", {}};
  series[2] = {x_train.to_vector(), y_train.to_vector(), "o", "", 0.5f};
  plot(series, opt, path);
  print_saved(path);
}

void heatmap(const Tensor& attention_weights, const std::string& path) {
  show_heatmaps(unsqueeze(unsqueeze(attention_weights, 0), 0), "Sorted training inputs", "Sorted testing inputs", {},
                path);
  print_saved(path);
}

// The book's X_tile[(1 - eye(n)).bool()].reshape(n, -1): row i of tile (n, n) without its
// diagonal entry, so each training input is predicted from the other n - 1 points only.
Tensor off_diagonal(const Tensor& tile) {
  const int64_t n = tile.size(0);
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (i != j) v.push_back(tile.data()[i * n + j]);
  return tensor(v, {n, n - 1});
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("nadaraya_watson",
               "10.2 Attention Pooling: Nadaraya-Watson Kernel Regression (sec_nadaraya-watson).");
  // Upper bounds refuse an absurd value (--epochs 1000000000) before anything runs.
  args.add_int("epochs", 5, "training epochs of the parametric model (the book: 5)", 1, 100000);
  args.add_float("lr", 0.5, "SGD learning rate (the book: 0.5)", 0.0, 100.0);
  args.add_flag("quick", "one epoch (for CI)");
  add_chapter_options(args, "out/nadaraya_watson");
  args.parse_or_exit(argc, argv);
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);
    const int64_t n_train = 50;  // training examples
    const int64_t num_epochs = args.get_flag("quick") ? 1 : args.get_int("epochs");
    const float lr = args.get_float("lr");

    // ------------------------------------------------------------------------------------
    print_banner("生成数据集 / Generating the Dataset");
    std::vector<float> xs = (rand({n_train}) * 5.0f).to_vector();
    std::sort(xs.begin(), xs.end());  // sorted, so the heatmaps show a diagonal band
    const Tensor x_train = tensor(xs, {n_train});
    const Tensor y_train = f(x_train) + normal(0.0f, 0.5f, {n_train});  // training outputs
    const Tensor x_test = arange(0.0f, 5.0f, 0.1f);                      // test inputs
    const Tensor y_truth = f(x_test);                                    // the noiseless truth
    const int64_t n_test = x_test.numel();
    std::printf("%lld\n", static_cast<long long>(n_test));

    // ------------------------------------------------------------------------------------
    print_banner("平均汇聚 / Average Pooling");
    // f(x) = mean of the y_i for every x (eq_avg-pooling).
    const Tensor y_avg = repeat_interleave(reshape(mean(y_train), {1}), n_test, 0);
    plot_kernel_reg(x_test, y_truth, y_avg, x_train, y_train, out + "/average_pooling.png");

    // ------------------------------------------------------------------------------------
    print_banner("非参数注意力汇聚 / Nonparametric Attention Pooling");
    // X_repeat (n_test, n_train): row i is x_test[i] repeated, one copy per key.
    const Tensor X_repeat = reshape(repeat_interleave(x_test, n_train, 0), {-1, n_train});
    // attention_weights (n_test, n_train): softmax over the keys x_train of -(x - x_i)² / 2
    // (eq_nadaraya-watson-gaussian), broadcasting x_train over the rows.
    const Tensor attention_weights = softmax(pow(X_repeat - x_train, 2.0f) * -0.5f);
    // Each prediction is the weighted average of the values y_train.
    const Tensor y_np = reshape(matmul(attention_weights, unsqueeze(y_train, 1)), {-1});
    plot_kernel_reg(x_test, y_truth, y_np, x_train, y_train, out + "/nonparametric.png");
    heatmap(attention_weights, out + "/nonparametric_attention.png");

    // ------------------------------------------------------------------------------------
    print_banner("批量矩阵乘法 / Batch Matrix Multiplication");
    // (n, a, b) x (n, b, c) -> (n, a, c)
    std::printf("%s\n", torch_size(bmm(ones({2, 1, 4}), ones({2, 4, 6})).shape()).c_str());
    // Weighted averages by bmm: (2, 1, 10) x (2, 10, 1) -> (2, 1, 1).
    const Tensor weights = ones({2, 10}) * 0.1f;
    const Tensor values = reshape(arange(20), {2, 10});
    std::printf("%s\n", str(bmm(unsqueeze(weights, 1), unsqueeze(values, -1))).c_str());

    // ------------------------------------------------------------------------------------
    print_banner("带参数注意力汇聚：训练模型 / Parametric Attention Pooling: Training");
    // Keys and values for training (n_train, n_train - 1): every training input attends to
    // all the other training points (leave-one-out), else w could grow without bound and
    // each point would simply copy its own noisy y.
    const Tensor keys = off_diagonal(repeat(x_train, {n_train, 1}));
    const Tensor train_values = off_diagonal(repeat(y_train, {n_train, 1}));
    NWKernelRegression net;  // w ~ U[0, 1): depends on the seed
    SGD trainer(net.parameters(), lr);
    std::vector<float> epochs, losses;
    for (int64_t epoch = 0; epoch < num_epochs; ++epoch) {
      trainer.zero_grad();
      // Squared loss halved, summed over the examples: the book's MSELoss(reduction='none') / 2.
      const Tensor l = pow(net(x_train, keys, train_values) - y_train, 2.0f) * 0.5f;
      sum(l).backward();
      trainer.step();
      const float total = sum(l).item();
      std::printf("epoch %lld, loss %.6f\n", static_cast<long long>(epoch + 1), total);
      epochs.push_back(static_cast<float>(epoch + 1));
      losses.push_back(total);
    }
    // The book draws this curve with d2l.Animator; with its own per-epoch print above, the
    // curve alone is plotted here.
    PlotOptions loss_opt;
    loss_opt.xlabel = "epoch";
    loss_opt.ylabel = "loss";
    loss_opt.xlim = {1.0f, static_cast<float>(std::max<int64_t>(num_epochs, 2))};
    plot(epochs, {losses}, loss_opt, out + "/loss.png");
    print_saved(out + "/loss.png");

    // ------------------------------------------------------------------------------------
    print_banner("带参数注意力汇聚：预测 / Parametric Attention Pooling: Prediction");
    // Every test input attends to all training points: keys, values (n_test, n_train).
    NoGrad no_grad;
    const Tensor test_keys = repeat(x_train, {n_test, 1});
    const Tensor test_values = repeat(y_train, {n_test, 1});
    const Tensor y_hat = net(x_test, test_keys, test_values);
    plot_kernel_reg(x_test, y_truth, y_hat, x_train, y_train, out + "/parametric.png");
    heatmap(net.attention_weights, out + "/parametric_attention.png");
    return 0;
  });
}
