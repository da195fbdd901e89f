// chapters/exercises/nadaraya_watson.cpp — the exercises of 10.2 注意力汇聚：Nadaraya-Watson
// 核回归 / Attention Pooling: Nadaraya-Watson Kernel Regression, run by
// build/chapters/nadaraya_watson --ex N (tools/d2l/cli/exercises.h). Each trains for
// --epochs, --quick or not (one epoch leaves w below 1, and exercise 2 would show the
// opposite of its point), in well under a second; they reuse the section's f and
// plot_kernel_reg (chapters/exercises/nadaraya_watson.h). --n-train is theirs.
//
//   --ex 1  more training points: the non-parametric pooling (w = 1) and the trained
//           NWKernelRegression with the book's 50 points and with --n-train points (500
//           unless given); prints each one's test error against the noiseless truth, writes
//           ex1_n_train.png (truth and the four predictions).
//   --ex 2  the learned w: prints it with the kernel's bandwidth 1/w, and for w = 1 and the
//           learned w each test query's largest weight and effective no. of keys
//           1 / Σ_i α_i² (averaged), which show the sharper weights; writes
//           ex2_attention_w.png (the two weight maps side by side, titled with w and 1/w).
//   --ex 3  a hyper-parameter for the non-parametric pooling: the Gaussian kernel's bandwidth
//           h (the book's h = 1), swept over 0.05, 0.10, ..., 2.00 on the book's 50 points
//           (--n-train); prints each h's leave-one-out error on the training data and test
//           error against the noiseless f, and the best h by leave-one-out; writes
//           ex3_bandwidth.png (both errors against h) and ex3_fit.png (its fit beside h = 1).
//   --ex 4  a pooling of our own design, NWAdaptiveKernelRegression (layers/nadaraya_watson.h:
//           the kernel's width depends on the query, w(x) = w·exp(v x)), trained beside the
//           book's model (SGD at lr 0.05 for 10 × --epochs: the book's lr 0.5 makes v
//           diverge); prints both models' losses, parameters and test errors, writes
//           ex4_adaptive.png (its prediction) and ex4_attention.png (both weight maps).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "chapters/exercises/nadaraya_watson.h"
#include "core/autograd.h"
#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "layers/nadaraya_watson.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

Dataset make_data(int64_t n_train) {
  std::vector<float> xs = (rand({n_train}) * 5.0f).to_vector();
  std::sort(xs.begin(), xs.end());  // sorted, so the heatmaps show a diagonal band
  const Tensor x_train = tensor(xs, {n_train});
  return {x_train, f(x_train) + normal(0.0f, 0.5f, {n_train})};
}

namespace {

// The axes of a fit beside the data: x in [0, 5], y in [-1, 5], 5 x 3.5 inches.
PlotOptions fit_axes() {
  PlotOptions opt;
  opt.figsize = {5.0f, 3.5f};
  opt.xlim = {0.0f, 5.0f};
  opt.ylim = {-1.0f, 5.0f};
  opt.xlabel = "x";
  opt.ylabel = "y";
  return opt;
}

// The book's training loop for a parametric pooling (NWKernelRegression or our own): the
// squared loss halved, summed over the examples, SGD on the whole set once per epoch. Every
// training input attends to all the other training points (leave-one-out keys and values),
// else w could grow without bound and each point would simply copy its own noisy y.
// Prints "epoch i, loss L" every `print_every` epochs (and the last); returns each epoch's loss.
template <class Net>
std::vector<float> train_pooling(Net& net, const Dataset& d, int64_t num_epochs, float lr, int64_t print_every = 1) {
  const int64_t n = d.x_train.numel();
  const Tensor keys = off_diagonal(repeat(d.x_train, {n, 1}));
  const Tensor values = off_diagonal(repeat(d.y_train, {n, 1}));
  SGD trainer(net.parameters(), lr);
  std::vector<float> losses;
  for (int64_t epoch = 0; epoch < num_epochs; ++epoch) {
    trainer.zero_grad();
    // The book's PyTorch tab: l = nn.MSELoss(reduction='none')(ŷ, y) / 2, halved so that it
    // is its MXNet tab's L2Loss (the book's comment: L2 Loss = 1/2 * MSE Loss); l.sum() is
    // both what backward starts from and the loss printed.
    const Tensor l = pow(net(d.x_train, keys, values) - d.y_train, 2.0f) * 0.5f;
    sum(l).backward();
    trainer.step();
    losses.push_back(sum(l).item());
    if ((epoch + 1) % print_every == 0 || epoch + 1 == num_epochs)
      std::printf("epoch %lld, loss %.6f\n", static_cast<long long>(epoch + 1), losses.back());
  }
  return losses;
}

// A trained pooling's prediction on x_test: every test input attends to all training points.
template <class Net>
Tensor predict(Net& net, const Dataset& d, const Tensor& x_test) {
  NoGrad no_grad;
  const int64_t n_test = x_test.numel();
  return net(x_test, repeat(d.x_train, {n_test, 1}), repeat(d.y_train, {n_test, 1}));
}

// Non-parametric pooling with a fixed Gaussian kernel of width w (the book's w = 1):
// attention weights (n_test, n_train) = softmax over the keys of -((x - x_i) w)² / 2.
Tensor nonparametric_weights(const Tensor& x_test, const Tensor& x_train, float w) {
  const Tensor X_repeat = reshape(repeat_interleave(x_test, x_train.numel(), 0), {-1, x_train.numel()});
  return softmax(pow((X_repeat - x_train) * w, 2.0f) * -0.5f);
}

Tensor pool(const Tensor& attention_weights, const Tensor& y_train) {
  return reshape(matmul(attention_weights, unsqueeze(y_train, 1)), {-1});
}

// Mean squared error against the noiseless truth: how far a prediction is from f itself
// (the noise ε has variance 0.25, which no estimator should copy).
float test_error(const Tensor& y_hat, const Tensor& y_truth) { return mean(pow(y_hat - y_truth, 2.0f)).item(); }

// How sharp a weight matrix is: each row's largest weight, and its effective no. of keys
// 1 / Σ_i α_i² (n for uniform weights, 1 for all weight on one key), averaged over the rows.
std::pair<float, float> sharpness(const Tensor& attention_weights) {
  NoGrad no_grad;
  const float largest = mean(max(attention_weights, 1)).item();
  const float effective = mean(1.0f / sum(attention_weights * attention_weights, 1)).item();
  return {largest, effective};
}

std::string fixed(float x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

// Exercise 1: more training points. Does the non-parametric model get better? Its kernel
// width is fixed at 1, so more points lower the variance of each average (more noisy y_i
// near every x) but not its bias (the average still reaches ±2 around x, where f bends).
void exercise_1(const CliArgs& args, const std::string& out) {
  const int64_t n_more = args.given("n-train") ? args.get_int("n-train") : 500;
  const int64_t num_epochs = args.get_int("epochs");
  const float lr = args.get_float("lr");
  print_banner("练习 1 / Exercise 1: more training points");
  const Tensor x_test = arange(0.0f, 5.0f, 0.1f), y_truth = f(x_test);
  std::vector<Series> series = {{x_test.to_vector(), y_truth.to_vector(), "-", "Truth", {}}};
  std::vector<std::string> rows;
  for (const int64_t n : {int64_t{50}, n_more}) {
    const Dataset d = make_data(n);
    const Tensor y_np = pool(nonparametric_weights(x_test, d.x_train, 1.0f), d.y_train);
    std::printf("n_train = %lld, NWKernelRegression:\n", static_cast<long long>(n));
    NWKernelRegression net;
    train_pooling(net, d, num_epochs, lr);
    const Tensor y_hat = predict(net, d, x_test);
    rows.push_back(std::to_string(n) + "\t" + fixed(test_error(y_np, y_truth), 4) + "\t" +
                   fixed(test_error(y_hat, y_truth), 4) + "\t" + fixed(net.w.item(), 4));
    const std::string tag = " n=" + std::to_string(n);
    series.push_back({x_test.to_vector(), y_np.to_vector(), "--", "non-parametric" + tag, {}});
    series.push_back({x_test.to_vector(), y_hat.to_vector(), ":", "parametric" + tag, {}});
  }
  // Test error: mean squared distance to the noiseless f over the 50 test inputs.
  std::printf("n_train\tnon-parametric test MSE\tparametric test MSE\tlearned w\n");
  for (const std::string& r : rows) std::printf("%s\n", r.c_str());
  PlotOptions opt = fit_axes();
  for (const Series& s : series) opt.legend.push_back(s.label);
  const std::string path = out + "/ex1_n_train.png";
  plot(series, opt, path);
  print_saved(path);
}

// Exercise 2: what the learned w is worth and why its weights are sharper. The kernel
// exp(-((x - x_i) w)² / 2) is a Gaussian over x - x_i with standard deviation 1/w, the
// bandwidth: w > 1 narrows it, so fewer training points share each query's weight.
void exercise_2(const CliArgs& args, const std::string& out) {
  const int64_t num_epochs = args.get_int("epochs");
  const float lr = args.get_float("lr");
  print_banner("练习 2 / Exercise 2: the learned w and sharper weights");
  const Dataset d = make_data(50);
  const Tensor x_test = arange(0.0f, 5.0f, 0.1f), y_truth = f(x_test);
  NWKernelRegression net;
  const float w0 = net.w.item();
  train_pooling(net, d, num_epochs, lr);
  const float w = net.w.item();
  std::printf("initial w = %.4f, learned w = %.4f: the kernel's bandwidth 1/w = %.4f (w = 1: 1)\n", w0, w, 1.0f / w);
  std::printf("w\tbandwidth 1/w\tmean largest weight\tmean effective no. of keys\ttest MSE\n");
  std::vector<Tensor> maps;
  std::vector<std::string> titles;
  for (const float wi : {1.0f, w}) {
    const Tensor weights = nonparametric_weights(x_test, d.x_train, wi);
    const auto [largest, effective] = sharpness(weights);
    std::printf("%.4f\t%.4f\t%.4f\t%.2f\t%.4f\n", wi, 1.0f / wi, largest, effective,
                test_error(pool(weights, d.y_train), y_truth));
    maps.push_back(weights);
    titles.push_back("w=" + fixed(wi, 2) + ", 1/w=" + fixed(1.0f / wi, 2));
  }
  const std::string path = out + "/ex2_attention_w.png";
  show_heatmaps(reshape(stack(maps, 0), {1, 2, x_test.numel(), 50}), "Sorted training inputs",
                "Sorted testing inputs", titles, {6.0f, 3.2f}, "Reds", path);
  print_saved(path);
}

// Exercise 3: the non-parametric pooling gets one hyper-parameter, the Gaussian kernel's
// bandwidth h (the weights softmax(-((x - x_i) / h)² / 2), the book's w = 1 being h = 1).
// It is chosen without looking at the truth: by the leave-one-out error on the training
// data, each y_i predicted from the other n - 1 points (the keys the book's training uses).
// Too small an h copies the nearest noisy y_i, too large an h flattens f: the error has its
// minimum in between. The test error against the noiseless f is printed beside it, to show
// that the choice made from the training data alone is a good one.
void exercise_3(const CliArgs& args, const std::string& out) {
  const int64_t n_train = args.get_int("n-train");
  print_banner("练习 3 / Exercise 3: the kernel's bandwidth as a hyper-parameter");
  const Dataset d = make_data(n_train);
  const Tensor x_test = arange(0.0f, 5.0f, 0.1f), y_truth = f(x_test);
  const int64_t n = d.x_train.numel();
  const Tensor keys = off_diagonal(repeat(d.x_train, {n, 1}));      // (n, n - 1): the others' x
  const Tensor values = off_diagonal(repeat(d.y_train, {n, 1}));    // (n, n - 1): the others' y
  std::vector<float> bandwidths, loo, test;
  std::printf("bandwidth h\tw = 1/h\tleave-one-out MSE\ttest MSE\n");
  for (int k = 1; k <= 40; ++k) {
    const float h = 0.05f * static_cast<float>(k);
    // Leave-one-out: query x_i against its n - 1 keys, (n, n - 1) weights.
    const Tensor X = reshape(repeat_interleave(d.x_train, n - 1, 0), {n, n - 1});
    const Tensor weights = softmax(pow((X - keys) * (1.0f / h), 2.0f) * -0.5f);
    const Tensor y_loo = sum(weights * values, 1);
    bandwidths.push_back(h);
    loo.push_back(mean(pow(y_loo - d.y_train, 2.0f)).item());
    test.push_back(test_error(pool(nonparametric_weights(x_test, d.x_train, 1.0f / h), d.y_train), y_truth));
    std::printf("%.2f\t%.4f\t%.4f\t%.4f\n", h, 1.0f / h, loo.back(), test.back());
  }
  const size_t best = static_cast<size_t>(std::min_element(loo.begin(), loo.end()) - loo.begin());
  const size_t best_test = static_cast<size_t>(std::min_element(test.begin(), test.end()) - test.begin());
  const float h = bandwidths[best];
  std::printf("best bandwidth by leave-one-out: h = %.2f (w = %.4f), leave-one-out MSE %.4f, test MSE %.4f\n", h,
              1.0f / h, loo[best], test[best]);
  std::printf("best bandwidth by test MSE (needs the truth): h = %.2f, test MSE %.4f; the book's h = 1: test MSE "
              "%.4f\n",
              bandwidths[best_test], test[best_test], test[19]);
  PlotOptions opt;
  opt.xlabel = "bandwidth h";
  opt.ylabel = "MSE";
  opt.legend = {"leave-one-out (training data)", "test (against f)"};
  opt.figsize = {5.0f, 3.0f};
  std::string path = out + "/ex3_bandwidth.png";
  plot(bandwidths, {loo, test}, opt, path);
  print_saved(path);
  // The chosen bandwidth's fit beside the book's h = 1.
  PlotOptions fit = fit_axes();
  const std::vector<Series> series = {
      {x_test.to_vector(), y_truth.to_vector(), "-", "Truth", {}},
      {x_test.to_vector(), pool(nonparametric_weights(x_test, d.x_train, 1.0f), d.y_train).to_vector(), "m--",
       "h = 1 (the book)", {}},
      {x_test.to_vector(), pool(nonparametric_weights(x_test, d.x_train, 1.0f / h), d.y_train).to_vector(), "g-.",
       "h = " + fixed(h, 2) + " (leave-one-out)", {}},
      {d.x_train.to_vector(), d.y_train.to_vector(), "o", "", 0.5f}};
  for (size_t i = 0; i < 3; ++i) fit.legend.push_back(series[i].label);
  path = out + "/ex3_fit.png";
  plot(series, fit, path);
  print_saved(path);
}

// Exercise 4: a parametric pooling of our own, the query-dependent width w(x) = w·exp(v x),
// trained beside the book's model on the same data. It trains with SGD at lr 0.05 for ten
// times the epochs: at the book's lr 0.5 the steps in v are too large for exp(v x) with x up
// to 5 (10 epochs, seeds 0-3: the loss turns NaN for seed 2, and the other three end with
// near one-hot weights, each test query's largest weight 0.92-0.98 on average).
void exercise_4(const CliArgs& args, const std::string& out) {
  const int64_t book_epochs = args.get_int("epochs"), epochs = 10 * book_epochs;
  const float book_lr = args.get_float("lr");
  print_banner("练习 4 / Exercise 4: a new parametric attention pooling");
  const Dataset d = make_data(50);
  const Tensor x_test = arange(0.0f, 5.0f, 0.1f), y_truth = f(x_test);
  const int64_t n_test = x_test.numel();
  NWKernelRegression book;
  NWAdaptiveKernelRegression adaptive;
  adaptive.w.data()[0] = book.w.item();  // the same start, so only the design differs
  std::printf("NWKernelRegression (lr %g):\n", book_lr);
  const float book_loss = train_pooling(book, d, book_epochs, book_lr).back();
  std::printf("NWAdaptiveKernelRegression (lr 0.05):\n");
  const float adaptive_loss = train_pooling(adaptive, d, epochs, 0.05f, std::max<int64_t>(1, epochs / 5)).back();
  const Tensor y_book = predict(book, d, x_test), y_adaptive = predict(adaptive, d, x_test);
  const Tensor widths = adaptive.width(tensor({0.0f, 2.5f, 5.0f}));
  std::printf("learned: w = %.4f, v = %.4f; width w(x) at x = 0, 2.5, 5: %.4f, %.4f, %.4f\n", adaptive.w.item(),
              adaptive.v.item(), widths.data()[0], widths.data()[1], widths.data()[2]);
  std::printf("model\ttraining loss\ttest MSE\tmean largest weight\n");
  std::printf("NWKernelRegression\t%.6f\t%.4f\t%.4f\n", book_loss, test_error(y_book, y_truth),
              sharpness(book.attention_weights).first);
  std::printf("NWAdaptiveKernelRegression\t%.6f\t%.4f\t%.4f\n", adaptive_loss, test_error(y_adaptive, y_truth),
              sharpness(adaptive.attention_weights).first);
  plot_kernel_reg(x_test, y_truth, y_adaptive, d.x_train, d.y_train, out + "/ex4_adaptive.png");
  const std::string path = out + "/ex4_attention.png";
  show_heatmaps(reshape(stack({book.attention_weights, adaptive.attention_weights}, 0), {1, 2, n_test, 50}),
                "Sorted training inputs", "Sorted testing inputs",
                {"NWKernelRegression", "NWAdaptiveKernelRegression"}, {6.0f, 3.2f}, "Reds", path);
  print_saved(path);
}

const ExerciseList exercises({
    {1, "more training points: the models with 50 and --n-train points, test errors and predictions", exercise_1},
    {2, "the learned w and its bandwidth 1/w: weight maps for w = 1 and the learned w, how sharp each is",
     exercise_2},
    {3, "the kernel's bandwidth as a hyper-parameter: a leave-one-out sweep, the best one's fit beside the book's",
     exercise_3},
    {4, "a new parametric pooling (a query-dependent kernel width) trained, its weights drawn", exercise_4}},
    [](CliArgs& args) {
      // At most 2000: training builds (n, n - 1) key and value tables, a few of them at once.
      args.add_int("n-train", 50,
                   "training points (the book: 50); --ex 1 compares 50 with this many, 500 unless given", 2, 2000);
    });

}  // namespace
