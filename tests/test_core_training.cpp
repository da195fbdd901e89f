// tests/test_core_training.cpp — suite core_training: Module (named parameters, train/eval,
// parameter files), the optimisers, gradient clipping, the initialisers and manual_seed
// (core/nn/module.h, core/nn/optim.h, core/nn/init.h, core/random.h).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/nn/init.h"
#include "core/nn/module.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::expect_near;
using d2l_test::read_file;
using d2l_test::write_file;
namespace tt = boost::test_tools;

namespace {

// nn.Linear's two parameters, under PyTorch's names.
struct Affine : Module {
  Tensor weight, bias;
  Affine(int64_t in, int64_t out) {
    weight = register_parameter("weight", zeros({out, in}));
    bias = register_parameter("bias", zeros({out}));
  }
  Tensor forward(const Tensor& x) const { return linear(x, weight, bias); }
};

// A parameter of its own plus two children: "scale", "hidden.*", "output.*".
struct TwoLayer : Module {
  Tensor scale;
  Affine hidden, output;
  explicit TwoLayer(int64_t num_hiddens = 4) : hidden(3, num_hiddens), output(num_hiddens, 2) {
    scale = register_parameter("scale", ones({1}));
    register_module("hidden", hidden);
    register_module("output", output);
  }
};

// Same parameter count and shapes as TwoLayer, other names.
struct Renamed : Module {
  Tensor scale;
  Affine encoder, decoder;
  Renamed() : encoder(3, 4), decoder(4, 2) {
    scale = register_parameter("scale", ones({1}));
    register_module("encoder", encoder);
    register_module("decoder", decoder);
  }
};

struct Broken : Module {
  Broken() { register_parameter("missing", Tensor()); }
};

void randomize(Module& m) {
  for (Tensor p : m.parameters()) normal_(p, 0.0f, 1.0f);
}

// Saves a TwoLayer with N(0, 1) weights to path; returns the file's bytes.
std::string save_random_two_layer(const std::string& path) {
  TwoLayer a;
  randomize(a);
  a.save(path);
  return read_file(path);
}

std::vector<std::vector<float>> snapshot(const Module& m) {
  std::vector<std::vector<float>> out;
  for (const Tensor& p : m.parameters()) out.push_back(p.to_vector());
  return out;
}

// load() must fail with "[Module.load] <path>: ..." mentioning `what`, and leave m untouched.
void expect_load_fails(Module& m, const std::string& path, const std::string& what) {
  const auto before = snapshot(m);
  try {
    m.load(path);
    BOOST_ERROR("load of " << path << " did not throw (expected: " << what << ")");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.rfind("[Module.load] " + path, 0) == 0u, msg);
    BOOST_TEST(msg.find(what) != std::string::npos, msg << " (expected: " << what << ")");
  }
  BOOST_TEST((snapshot(m) == before), "the model changed although load failed");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_training)

BOOST_AUTO_TEST_CASE(module_named_parameters) {
  TwoLayer m;
  std::vector<std::string> names;
  for (const auto& [name, t] : m.named_parameters()) {
    names.push_back(name);
    BOOST_TEST(t.requires_grad(), name);
  }
  const std::vector<std::string> want = {"scale", "hidden.weight", "hidden.bias", "output.weight", "output.bias"};
  BOOST_TEST(names == want, tt::per_element());
  BOOST_TEST(m.parameters().size() == 5u);
  BOOST_TEST(m.num_parameters() == 1 + 4 * 3 + 4 + 2 * 4 + 2);
  // The registry holds the same tensors as the members (handles share their node).
  BOOST_TEST(m.parameters()[1].node() == m.hidden.weight.node());
  BOOST_TEST(shape_str(m.named_parameters()[3].second.shape()) == "(2, 4)");
  BOOST_CHECK_EXCEPTION(Broken(), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("[Module.register_parameter] parameter 'missing'") == 0;
  });
}

BOOST_AUTO_TEST_CASE(module_train_eval_and_zero_grad) {
  TwoLayer m;
  BOOST_TEST(m.training());
  m.eval();
  BOOST_TEST(!m.training());
  BOOST_TEST(!m.hidden.training());
  BOOST_TEST(!m.output.training());
  m.train();
  BOOST_TEST(m.hidden.training());
  m.output.eval();  // a child alone
  BOOST_TEST(m.training());
  BOOST_TEST(!m.output.training());
  randomize(m);
  sum(m.output.forward(tanh(m.hidden.forward(ones({5, 3}))))).backward();
  BOOST_TEST(m.hidden.weight.grad().defined());
  // Module::zero_grad is Tensor::zero_grad on every parameter: set_to_none = false fills 0,
  // the default drops the gradient.
  m.zero_grad(false);
  BOOST_TEST(!m.scale.grad().defined());  // not used by this forward: no gradient to fill
  for (const Tensor& p : m.parameters()) {
    if (p.node() == m.scale.node()) continue;
    BOOST_TEST(p.grad().defined());
    for (float g : p.grad().to_vector()) BOOST_TEST(g == 0.0f);
  }
  m.zero_grad();
  for (const Tensor& p : m.parameters()) BOOST_TEST(!p.grad().defined());
}

BOOST_AUTO_TEST_CASE(save_load_round_trip) {
  manual_seed(1);
  TwoLayer a, b;
  randomize(a);
  randomize(b);
  BOOST_TEST((snapshot(a) != snapshot(b)));
  const d2l_test::TempDir tmp("core_training");
  const std::string path = tmp("round_trip.params");
  a.save(path);
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    BOOST_TEST(e.path().string().rfind(path + ".tmp", 0) != 0u, "left behind: " << e.path());  // renamed
  b.load(path);
  BOOST_TEST((snapshot(a) == snapshot(b)));  // bit for bit
  // Saving over an existing file replaces it.
  randomize(a);
  a.save(path);
  b.load(path);
  BOOST_TEST((snapshot(a) == snapshot(b)));
}

BOOST_AUTO_TEST_CASE(load_truncated_file) {
  manual_seed(2);
  TwoLayer b;
  randomize(b);  // unlike the saved model: a partial load would show
  const d2l_test::TempDir tmp("core_training");
  const std::string path = tmp("full.params"), cut = tmp("truncated.params");
  const std::string bytes = save_random_two_layer(path);
  BOOST_REQUIRE(bytes.size() > 100u);
  // Cut in the magic, in the header, in a name, in the data and in the checksum.
  for (size_t keep : {size_t(0), size_t(5), size_t(12), size_t(30), bytes.size() / 2, bytes.size() - 8, bytes.size() - 1}) {
    write_file(cut, bytes.substr(0, keep));
    // magic (8), version (4), then at least the settings length, count, training flag and checksum (17)
    const std::string what = keep < 8 ? "not a d2l parameter file" : keep < 29 ? "truncated" : "checksum mismatch";
    BOOST_TEST_CONTEXT("kept " << keep << " of " << bytes.size() << " bytes") { expect_load_fails(b, cut, what); }
  }
  expect_load_fails(b, tmp("does_not_exist.params"), "cannot open");
}

BOOST_AUTO_TEST_CASE(load_corrupted_byte) {
  manual_seed(3);
  TwoLayer b;
  randomize(b);
  const d2l_test::TempDir tmp("core_training");
  const std::string path = tmp("good.params"), bad = tmp("corrupt.params");
  const std::string bytes = save_random_two_layer(path);
  // One flipped bit anywhere after the magic: in the count, a name, a shape, the data, the checksum.
  for (size_t at : {size_t(12), size_t(20), size_t(30), bytes.size() / 2, bytes.size() - 20, bytes.size() - 1}) {
    std::string c = bytes;
    c[at] = static_cast<char>(c[at] ^ 0x10);
    write_file(bad, c);
    BOOST_TEST_CONTEXT("flipped byte " << at) { expect_load_fails(b, bad, "checksum mismatch"); }
  }
  std::string c = bytes;
  c[0] = 'X';
  write_file(bad, c);
  expect_load_fails(b, bad, "bad magic");
  write_file(bad, bytes + "x");  // one byte appended: the last 8 bytes are no longer the checksum
  expect_load_fails(b, bad, "checksum mismatch");
}

BOOST_AUTO_TEST_CASE(load_wrong_model) {
  manual_seed(4);
  TwoLayer a;
  randomize(a);
  const d2l_test::TempDir tmp("core_training");
  const std::string path = tmp("two_layer.params");
  a.save(path);
  Renamed other;  // same count and shapes, different names
  randomize(other);
  expect_load_fails(other, path, "parameter 1 is 'hidden.weight', the model expects 'encoder.weight'");
  Affine smaller(3, 4);  // a different count
  randomize(smaller);
  expect_load_fails(smaller, path, "holds 5 parameters, the model has 2");
}

BOOST_AUTO_TEST_CASE(load_wrong_shape) {
  manual_seed(5);
  TwoLayer a(4), wider(5);
  randomize(a);
  randomize(wider);
  const d2l_test::TempDir tmp("core_training");
  const std::string path = tmp("shape.params");
  a.save(path);
  expect_load_fails(wider, path, "parameter 'hidden.weight' has shape (4, 3), the model expects (5, 3)");
}

BOOST_AUTO_TEST_CASE(save_to_unwritable_path) {
  TwoLayer a;
  BOOST_CHECK_EXCEPTION(a.save("/nonexistent_d2l_dir/x.params"), std::runtime_error, [](const std::runtime_error& e) {
    return std::string(e.what()).find("[Module.save] cannot write '/nonexistent_d2l_dir/x.params': cannot create a "
                                      "temporary file next to it: No such file or directory") == 0;
  });
}

BOOST_AUTO_TEST_CASE(sgd_step_by_hand) {
  // loss = Σ p ⊙ [0.5, −1]: grad = [0.5, −1]; p −= 0.1 grad -> [0.95, 2.1].
  Tensor p = tensor({1.0f, 2.0f});
  p.requires_grad_();
  Tensor untouched = tensor({7.0f});  // never gets a gradient: SGD leaves it alone
  untouched.requires_grad_();
  SGD opt({p, untouched}, 0.1f);
  const Tensor c = tensor({0.5f, -1.0f});
  sum(p * c).backward();
  opt.step();
  expect_near(p, {0.95f, 2.1f}, 1e-7f);
  BOOST_TEST(untouched.item() == 7.0f);
  // Without zero_grad the next gradient adds to the old one (PyTorch's semantics).
  sum(p * c).backward();
  expect_near(p.grad(), {1.0f, -2.0f}, 0.0f);
  // zero_grad(set_to_none=false) keeps the buffer and fills it with 0 (PyTorch 1.x's default)...
  const float* buffer = p.grad_data();
  opt.zero_grad(false);
  BOOST_TEST(p.grad_data() == buffer);
  expect_near(p.grad(), {0.0f, 0.0f}, 0.0f);
  // ...and the default drops it (PyTorch 2's set_to_none=True): same numbers from the next backward.
  sum(p * c).backward();
  opt.zero_grad();
  BOOST_TEST(!p.grad().defined());
  BOOST_TEST(!untouched.grad().defined());
  sum(p * c).backward();
  expect_near(p.grad(), {0.5f, -1.0f}, 0.0f);
  opt.step();
  expect_near(p, {0.9f, 2.2f}, 1e-6f);
}

BOOST_AUTO_TEST_CASE(adam_matches_pytorch) {
  // Reference: Debian's python3-torch 1.13.1 in float32, run once by hand:
  //   p = torch.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True); w = torch.tensor([1., 2., .5, 3.])
  //   opt = torch.optim.Adam([p], lr, betas, eps=1e-8, weight_decay)
  //   5 x { opt.zero_grad(); (w * p * p).sum().backward(); opt.step(); print(p) }
  // Hand check of step 1: m̂ = g and v̂ = g², so every parameter with g != 0 moves by
  // lr·g/|g| = lr against its gradient (0.5 -> 0.4 ...), and p = 0 (g = 0) stays put.
  struct Case {
    float lr, beta1, beta2, weight_decay;
    std::vector<std::vector<float>> after;
  };
  const std::vector<Case> cases = {
      {0.1f, 0.9f, 0.999f, 0.0f,
       {{0.400000006f, -0.900000036f, 1.89999998f, 0.0f},
        {0.301187426f, -0.800412238f, 1.80016649f, 0.0f},
        {0.204871252f, -0.701586306f, 1.70062339f, 0.0f},
        {0.112915404f, -0.603939116f, 1.60150492f, 0.0f},
        {0.0278144553f, -0.507963717f, 1.50295579f, 0.0f}}},
      {0.05f, 0.8f, 0.99f, 0.5f,
       {{0.449999988f, -0.949999988f, 1.95000005f, 0.0f},
        {0.400347978f, -0.900152385f, 1.90007114f, 0.0f},
        {0.351328075f, -0.850568175f, 1.85026252f, 0.0f},
        {0.303266048f, -0.801364422f, 1.80062377f, 0.0f},
        {0.256529599f, -0.752663195f, 1.75120473f, 0.0f}}},
  };
  const Tensor w = tensor({1.0f, 2.0f, 0.5f, 3.0f});
  for (const Case& c : cases) {
    Tensor p = tensor({0.5f, -1.0f, 2.0f, 0.0f});
    p.requires_grad_();
    Adam opt({p}, c.lr, c.beta1, c.beta2, 1e-8f, c.weight_decay);
    for (size_t step = 0; step < c.after.size(); ++step) {
      opt.zero_grad();
      sum(w * p * p).backward();
      opt.step();
      // PyTorch updates m with lerp and we with b1 m + (1 − b1) g: a few float ulps apart,
      // so 1e-6 (about 10 ulps at these magnitudes) instead of bit equality.
      BOOST_TEST_CONTEXT("lr " << c.lr << " step " << step + 1) { expect_near(p, c.after[step], 1e-6f); }
    }
  }
}

BOOST_AUTO_TEST_CASE(clip_grad_norm_scales_globally) {
  // Gradients [3, 4] and [12] have global norm sqrt(9 + 16 + 144) = 13.
  auto make = [](Tensor& a, Tensor& b) {
    a = tensor({1.0f, 1.0f});
    b = tensor({1.0f});
    a.requires_grad_();
    b.requires_grad_();
    (sum(a * tensor({3.0f, 4.0f})) + sum(b * 12.0f)).backward();
  };
  Tensor a, b, none = tensor({1.0f});
  none.requires_grad_();  // no gradient: ignored
  make(a, b);
  BOOST_TEST(clip_grad_norm({a, b, none}, 6.5f) == 13.0f);
  expect_near(a.grad(), {1.5f, 2.0f}, 1e-6f);  // scaled by 6.5 / 13 = 0.5
  expect_near(b.grad(), {6.0f}, 1e-6f);
  make(a, b);
  BOOST_TEST(clip_grad_norm({a, b}, 100.0f) == 13.0f);
  expect_near(a.grad(), {3.0f, 4.0f}, 0.0f);  // under the limit: untouched
  expect_near(b.grad(), {12.0f}, 0.0f);
}

BOOST_AUTO_TEST_CASE(xavier_uniform_bounds_and_variance) {
  manual_seed(6);
  Tensor t = empty({200, 300});
  xavier_uniform_(t);
  const double a = std::sqrt(6.0 / (300 + 200)), n = static_cast<double>(t.numel());
  double s = 0, s2 = 0, top = 0;
  for (float v : t.to_vector()) {
    s += v;
    s2 += static_cast<double>(v) * v;
    top = std::max(top, std::fabs(static_cast<double>(v)));
  }
  BOOST_TEST(top <= a);
  BOOST_TEST(top > 0.999 * a);  // 60000 draws: P(all inside 0.999a) = 0.999^60000 ≈ 1e-26
  // U(−a, a): mean 0 with sd a/sqrt(3n) = 2.6e-4 (5 sigma: 1.3e-3); variance a²/3 =
  // 2/(fan_in + fan_out) = 0.004, its estimate has sd a² sqrt(4/(45 n)) = 1.5e-5 (5 sigma: 7.3e-5).
  BOOST_TEST(std::fabs(s / n) < 1.3e-3);
  BOOST_TEST(std::fabs(s2 / n - 0.004) < 7.3e-5);
  // Trailing dims count as a receptive field: (4, 6, 5) has fan_in 30, fan_out 20.
  Tensor k = empty({4, 6, 5});
  xavier_uniform_(k);
  for (float v : k.to_vector()) BOOST_TEST(std::fabs(v) <= std::sqrt(6.0f / 50.0f));
}

BOOST_AUTO_TEST_CASE(linear_default_init_bounds) {
  manual_seed(7);
  Tensor weight = empty({64, 25}), bias = empty({64});
  linear_default_init_(weight, bias);
  const float bound = 1.0f / std::sqrt(25.0f);  // 0.2
  float wmax = 0, bmax = 0;
  double s2 = 0;
  for (float v : weight.to_vector()) {
    wmax = std::max(wmax, std::fabs(v));
    s2 += static_cast<double>(v) * v;
  }
  for (float v : bias.to_vector()) bmax = std::max(bmax, std::fabs(v));
  BOOST_TEST(wmax <= bound);
  BOOST_TEST(bmax <= bound);
  BOOST_TEST(wmax > 0.19f);  // P(1600 draws all inside 0.95 bound) = 0.95^1600 ≈ 1e-36
  BOOST_TEST(bmax > 0.15f);  // P(64 draws all inside 0.75 bound) = 0.75^64 ≈ 1e-8
  // Variance bound²/3 = 0.01333; its estimate from 1600 draws has sd 3e-4 (5 sigma: 1.5e-3).
  BOOST_TEST(std::fabs(s2 / 1600 - 0.04 / 3) < 1.5e-3);
  Tensor no_bias;
  linear_default_init_(weight, no_bias);  // no bias: the weight alone
  BOOST_TEST(!no_bias.defined());
}

BOOST_AUTO_TEST_CASE(uniform_and_normal_initialisers) {
  manual_seed(8);
  Tensor u = empty({10000}), g = empty({10000});
  uniform_(u, -3.0f, -1.0f);
  normal_(g, 5.0f, 0.5f);
  double su = 0, sg = 0, sg2 = 0;
  for (float v : u.to_vector()) {
    BOOST_REQUIRE(v >= -3.0f);
    BOOST_REQUIRE(v < -1.0f);
    su += v;
  }
  for (float v : g.to_vector()) {
    sg += v;
    sg2 += static_cast<double>(v) * v;
  }
  // Means: sd 2/sqrt(12 n) = 5.8e-3 and 0.5/sqrt(n) = 5e-3; 5 sigma bounds. The std's sd is
  // 0.5/sqrt(2n) = 3.5e-3.
  BOOST_TEST(std::fabs(su / 1e4 + 2.0) < 0.03);
  BOOST_TEST(std::fabs(sg / 1e4 - 5.0) < 0.025);
  BOOST_TEST(std::fabs(std::sqrt(sg2 / 1e4 - (sg / 1e4) * (sg / 1e4)) - 0.5) < 0.018);
}

BOOST_AUTO_TEST_CASE(manual_seed_gives_identical_tensors) {
  auto draw = [] {
    std::vector<float> all;
    const Tensor n = normal(0, 1, {3, 5});
    Tensor w = empty({4, 6}), b = empty({4}), x = empty({5, 5});
    linear_default_init_(w, b);
    xavier_uniform_(x);
    const Tensor d = dropout(ones({50}), 0.5f, true);
    for (const Tensor& t : {n, w, b, x, d, rand({7})}) {
      const auto v = t.to_vector();
      all.insert(all.end(), v.begin(), v.end());
    }
    all.push_back(static_cast<float>(random_int(1 << 20)));
    return all;
  };
  manual_seed(2024);
  const auto first = draw();
  manual_seed(2024);
  const auto second = draw();
  BOOST_TEST(first == second, tt::per_element());  // bit for bit
  manual_seed(2025);
  BOOST_TEST((draw() != first));
}

BOOST_AUTO_TEST_CASE(sgd_recovers_linear_regression) {
  // The book's synthetic data (sec_linear_scratch): y = X w + b with w = [2, -3.4], b = 4.2,
  // here without noise, so minibatch SGD must recover w and b to float accuracy.
  manual_seed(9);
  const int64_t n = 1000, batch_size = 10;
  const Tensor X = normal(0, 1, {n, 2});
  const Tensor y = matmul(X, tensor({2.0f, -3.4f}, {2, 1})) + 4.2f;
  Affine net(2, 1);
  normal_(net.weight, 0.0f, 0.01f);
  SGD opt(net.parameters(), 0.03f);
  float loss = 0;
  for (int epoch = 0; epoch < 5; ++epoch)
    for (int64_t i = 0; i < n; i += batch_size) {
      const Tensor xb = slice(X, 0, i, i + batch_size), yb = slice(y, 0, i, i + batch_size);
      const Tensor diff = net.forward(xb) - yb;
      Tensor l = mean(diff * diff) * 0.5f;
      opt.zero_grad();
      l.backward();
      opt.step();
      loss = l.item();
    }
  BOOST_TEST(loss < 1e-8f);
  expect_near(net.weight, {2.0f, -3.4f}, 1e-4f);
  expect_near(net.bias, {4.2f}, 1e-4f);
}

BOOST_AUTO_TEST_SUITE_END()
