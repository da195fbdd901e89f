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
// --save FILE writes the trained w (FILE.safetensors: as the book's state_dict(), {"w": (1,)},
// for PyTorch's load_state_dict); --load FILE reads it instead of training (the
// load-or-train step, tools/d2l/cli/training_options.h).
//
// The exercises (--ex N) are in chapters/exercises/nadaraya_watson.cpp.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "chapters/exercises/nadaraya_watson.h"
#include "core/autograd.h"
#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "layers/nadaraya_watson.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/loss_curve.h"

using namespace d2l;

Tensor f(const Tensor& x) { return 2.0f * sin(x) + pow(x, 0.8f); }

Dataset make_data(int64_t n_train) {
  std::vector<float> xs = (rand({n_train}) * 5.0f).to_vector();
  std::sort(xs.begin(), xs.end());  // sorted, so the heatmaps show a diagonal band
  const Tensor x_train = tensor(xs, {n_train});
  return {x_train, f(x_train) + normal(0.0f, 0.5f, {n_train})};
}

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

Tensor off_diagonal(const Tensor& tile) {
  const int64_t n = tile.size(0);
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (i != j) v.push_back(tile.data()[i * n + j]);
  return tensor(v, {n, n - 1});
}

namespace {

void show_attention(const Tensor& attention_weights, const std::string& path) {
  show_heatmaps(unsqueeze(unsqueeze(attention_weights, 0), 0), "Sorted training inputs", "Sorted testing inputs", {},
                path);
  print_saved(path);
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("nadaraya_watson",
               "10.2 Attention Pooling: Nadaraya-Watson Kernel Regression (sec_nadaraya-watson).");
  // Upper bounds refuse an absurd value (--epochs 1000000000) before anything runs.
  args.add_int("epochs", 5, "training epochs of the parametric model (the book: 5)", 1, 100000);
  args.add_float("lr", 0.5, "SGD learning rate (the book: 0.5)", 0.0, 100.0);
  args.add_flag("quick", "one epoch (for CI); the exercises (--ex) ignore it, they take well under a second");
  const CheckpointOptions saving(args, /*resumable=*/false,
                                 "write the trained parameter w to FILE (.params, or .safetensors for PyTorch)",
                                 "read w from FILE (.params or .safetensors) instead of training");
  // At most 2000: training builds (n, n - 1) key and value tables, a few of them at once.
  args.add_int("n-train", 50, "training points (the book: 50); --ex 1 compares 50 with this many, 500 unless given",
               2, 2000);
  return run_chapter(args, argc, argv, [&](const std::string& out) {
    // ------------------------------------------------------------------------------------
    print_banner("生成数据集 / Generating the Dataset");
    const int64_t n_train = args.get_int("n-train");  // training examples
    const Dataset data = make_data(n_train);
    const Tensor x_train = data.x_train, y_train = data.y_train;  // inputs sorted; outputs noisy
    const Tensor x_test = arange(0.0f, 5.0f, 0.1f);      // test inputs
    const Tensor y_truth = f(x_test);                    // the noiseless truth
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
    show_attention(attention_weights, out + "/nonparametric_attention.png");

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
    // Each training input attends to all the other training points (leave-one-out keys and
    // values): else w could grow without bound and each point would copy its own noisy y.
    const Tensor keys = off_diagonal(repeat(x_train, {n_train, 1}));    // (n_train, n_train - 1)
    const Tensor values_train = off_diagonal(repeat(y_train, {n_train, 1}));
    NWKernelRegression net;  // w ~ U[0, 1): depends on the seed
    // --save and --load: the model has no settings beyond its kind (w is a scalar).
    Checkpoint checkpoint = saving.checkpoint({{"model", "nadaraya_watson"}}, {});
    const int64_t num_epochs = args.get_flag("quick") ? 1 : args.get_int("epochs");
    std::vector<float> losses;
    saving.train_or_load(net, checkpoint, [&] {
      SGD trainer(net.parameters(), args.get_float("lr"));
      for (int64_t epoch = 0; epoch < num_epochs; ++epoch) {
        trainer.zero_grad();
        // The book's l = nn.MSELoss(reduction='none')(ŷ, y) / 2, its MXNet tab's L2Loss;
        // l.sum() is both what backward starts from and the loss printed.
        const Tensor l = pow(net(x_train, keys, values_train) - y_train, 2.0f) * 0.5f;
        sum(l).backward();
        trainer.step();
        losses.push_back(sum(l).item());
        std::printf("epoch %lld, loss %.6f\n", static_cast<long long>(epoch + 1), losses.back());
      }
    });
    if (!saving.load_path().empty()) std::printf("w = %g\n", net.w.item());
    // The book draws this curve with d2l.Animator; with the per-epoch print above, the curve
    // alone is plotted here.
    if (!losses.empty()) plot_losses(losses, std::max<int64_t>(num_epochs, 2), out + "/loss.png");

    // ------------------------------------------------------------------------------------
    print_banner("带参数注意力汇聚：预测 / Parametric Attention Pooling: Prediction");
    // Every test input attends to all training points: keys, values (n_test, n_train).
    NoGrad no_grad;
    const Tensor y_hat = net(x_test, repeat(x_train, {n_test, 1}), repeat(y_train, {n_test, 1}));
    plot_kernel_reg(x_test, y_truth, y_hat, x_train, y_train, out + "/parametric.png");
    show_attention(net.attention_weights, out + "/parametric_attention.png");
  });
}
