// chapters/nadaraya_watson.cpp — 10.2 注意力汇聚：Nadaraya-Watson 核回归 / Attention Pooling:
// Nadaraya-Watson Kernel Regression (sec_nadaraya-watson; the book's nadaraya-waston.md).
//
// The book's code: y = 2 sin x + x^0.8 + ε from 50 sorted points, average pooling, the
// non-parametric attention pooling, the bmm demos, then NWKernelRegression trained for 5
// epochs of SGD (lr 0.5). Prints n_test, the bmm results, "epoch i, loss L" and each figure's
// path; writes average_pooling.png, nonparametric.png, nonparametric_attention.png,
// loss.png, parametric.png, parametric_attention.png under --out. The seeded generator
// makes the data and w, so the numbers differ from the book's while keeping their shape.
// Options (--epochs, --lr, --quick, --save/--load): chapters/run/nadaraya_watson.cpp and
// tools/d2l/train/epochs.h; exercises (--ex N): chapters/exercises/nadaraya_watson.cpp.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "layers/nadaraya_watson.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/epochs.h"

using namespace d2l;

// The function learned (without its noise). The exercises and the browser's panel call it too.
Tensor f(const Tensor& x) { return 2.0f * sin(x) + pow(x, 0.8f); }

// The book's plot_kernel_reg: truth and prediction over x_test, the noisy training points as
// translucent circles; prints "saved PATH".
void plot_kernel_reg(const Tensor& x_test, const Tensor& y_truth, const Tensor& y_hat, const Tensor& x_train,
                     const Tensor& y_train, const std::string& path) {
  PlotOptions opt;
  opt.xlabel = "x";
  opt.ylabel = "y";
  opt.legend = {"Truth", "Pred"};
  opt.xlim = {0.0f, 5.0f};
  opt.ylim = {-1.0f, 5.0f};
  plot({{x_test.to_vector(), y_truth.to_vector(), "-", "Truth", {}},
        {x_test.to_vector(), y_hat.to_vector(), "m--", "Pred", {}},
        {x_train.to_vector(), y_train.to_vector(), "o", "", 0.5f}},
       opt, path);
  print_saved(path);
}

// The book's X_tile[(1 - torch.eye(n)).type(torch.bool)].reshape((n, -1)): row i of a tile
// (n, n) without its diagonal entry, so each training input is predicted from the others.
Tensor off_diagonal(const Tensor& tile) {
  const int64_t n = tile.size(0);
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (i != j) v.push_back(tile.data()[i * n + j]);
  return tensor(v, {n, n - 1});
}

namespace {

Tensor sort(const Tensor& x) {  // torch.sort's values, of a 1-D tensor
  std::vector<float> v = x.to_vector();
  std::sort(v.begin(), v.end());
  return tensor(v, x.shape());
}

}  // namespace

void nadaraya_watson() {
  // ------------------------------------------------------------------------------------
  print_banner("生成数据集 / Generating the Dataset");
  const int64_t n_train = 50;                              // 训练样本数
  const Tensor x_train = sort(rand({n_train}) * 5.0f);     // 排序后的训练样本
  const Tensor y_train = f(x_train) + normal(0.0f, 0.5f, {n_train});  // 训练样本的输出
  const Tensor x_test = arange(0.0f, 5.0f, 0.1f);          // 测试样本
  const Tensor y_truth = f(x_test);                        // 测试样本的真实输出
  const int64_t n_test = x_test.numel();                   // 测试样本数
  std::printf("%lld\n", static_cast<long long>(n_test));

  // ------------------------------------------------------------------------------------
  print_banner("平均汇聚 / Average Pooling");
  Tensor y_hat = repeat_interleave(reshape(mean(y_train), {1}), n_test, 0);
  plot_kernel_reg(x_test, y_truth, y_hat, x_train, y_train, figure_path("average_pooling.png"));

  // ------------------------------------------------------------------------------------
  print_banner("非参数注意力汇聚 / Nonparametric Attention Pooling");
  // X_repeat (n_test, n_train): each row the same test input (query).
  const Tensor X_repeat = reshape(repeat_interleave(x_test, n_train, 0), {-1, n_train});
  // x_train holds the keys; attention_weights (n_test, n_train): each row a softmax over the
  // keys of -(x - x_i)² / 2 (eq_nadaraya-watson-gaussian).
  const Tensor attention_weights = softmax(pow(X_repeat - x_train, 2.0f) * -0.5f);
  // Each y_hat is a weighted average of the values y_train.
  y_hat = reshape(matmul(attention_weights, unsqueeze(y_train, 1)), {-1});
  plot_kernel_reg(x_test, y_truth, y_hat, x_train, y_train, figure_path("nonparametric.png"));
  std::string path = figure_path("nonparametric_attention.png");
  show_heatmaps(unsqueeze(unsqueeze(attention_weights, 0), 0), "Sorted training inputs", "Sorted testing inputs", {},
                path);
  print_saved(path);

  // ------------------------------------------------------------------------------------
  print_banner("批量矩阵乘法 / Batch Matrix Multiplication");
  const Tensor X = ones({2, 1, 4}), Y = ones({2, 4, 6});
  std::printf("%s\n", torch_size(bmm(X, Y).shape()).c_str());
  const Tensor weights = ones({2, 10}) * 0.1f;
  Tensor values = reshape(arange(20), {2, 10});
  std::printf("%s\n", str(bmm(unsqueeze(weights, 1), unsqueeze(values, -1))).c_str());

  // ------------------------------------------------------------------------------------
  print_banner("带参数注意力汇聚：训练模型 / Parametric Attention Pooling: Training");
  NWKernelRegression net;  // the book's class (layers/nadaraya_watson.h); w ~ U[0, 1)
  // X_tile (n_train, n_train): every row the training inputs; Y_tile the same of the outputs.
  const Tensor X_tile = repeat(x_train, {n_train, 1});
  const Tensor Y_tile = repeat(y_train, {n_train, 1});
  // keys, values (n_train, n_train - 1): each training input attends to all the others
  // (leave one out: else w could grow without bound and each point copy its own noisy y).
  Tensor keys = off_diagonal(X_tile);
  values = off_diagonal(Y_tile);
  // The book's loss = nn.MSELoss(reduction='none'), halved as its MXNet tab's L2Loss.
  auto loss = [](const Tensor& pred, const Tensor& y) { return pow(pred - y, 2.0f) * 0.5f; };
  SGD trainer(net.parameters(), 0.5f);
  EpochAnimator animator(net, trainer, 5, "loss.png");  // xlabel 'epoch', ylabel 'loss', xlim [1, 5]
  for (int64_t epoch : animator.epochs()) {
    trainer.zero_grad();
    const Tensor l = loss(net(x_train, keys, values), y_train);
    sum(l).backward();
    trainer.step();
    std::printf("epoch %lld, loss %.6f\n", static_cast<long long>(epoch + 1), sum(l).item());
    animator.add(epoch + 1, sum(l).item());
  }

  // ------------------------------------------------------------------------------------
  print_banner("带参数注意力汇聚：预测 / Parametric Attention Pooling: Prediction");
  // keys, values (n_test, n_train): every test input attends to all the training points.
  keys = repeat(x_train, {n_test, 1});
  values = repeat(y_train, {n_test, 1});
  NoGrad no_grad;
  y_hat = net(x_test, keys, values);
  plot_kernel_reg(x_test, y_truth, y_hat, x_train, y_train, figure_path("parametric.png"));
  path = figure_path("parametric_attention.png");
  show_heatmaps(unsqueeze(unsqueeze(net.attention_weights, 0), 0), "Sorted training inputs", "Sorted testing inputs",
                {}, path);
  print_saved(path);
}

int main(int argc, char** argv) { return run_section("nadaraya_watson", argc, argv, nadaraya_watson); }
