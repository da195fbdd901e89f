// tests/test_core_module_api.cpp — suite core_module_api: what a reader writing their own
// model meets in the library API. register_parameter's handle, tied parameters counted once,
// duplicate names, the list containers (core/nn/container.h), the optimisers' settings, and the
// version counter that refuses a gradient computed from data changed after the forward.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/nn/container.h"
#include "core/nn/module.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "core/nn/basic.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::expect_near;
using d2l_test::message_has;
namespace tt = boost::test_tools;

namespace {

// Keeps the handle register_parameter returns, then registers many more parameters: with a
// Tensor& into the registry's vector, the vector's growth freed what `first` referred to.
struct Many : Module {
  Tensor first;
  explicit Many(int n) {
    // A reference kept across later registrations, as a reader would write it.
    const Tensor& handle = register_parameter("p0", full({2}, 7.0f));
    for (int i = 1; i < n; ++i) register_parameter("p" + std::to_string(i), zeros({1}));
    first = handle;  // AddressSanitizer: heap-use-after-free while it was a Tensor&
  }
  using Module::register_module;
  using Module::register_parameter;
};

// A weight given to two children: one node, registered twice.
struct Holder : Module {
  Tensor w;
  explicit Holder(Tensor t) { w = register_parameter("w", std::move(t)); }
};
struct Tied : Module {
  Tensor shared = full({2}, 1.0f);
  Holder encoder{shared}, decoder{shared};
  Tied() {
    register_module("encoder", encoder);
    register_module("decoder", decoder);
  }
};

struct Empty : Module {
  using Module::register_module;
  using Module::register_parameter;
};

// A model with a child named "dense", for the version counter's message.
struct Net : Module {
  Linear dense{3, 2};
  Net() { register_module("dense", dense); }
  Tensor operator()(const Tensor& x) const { return dense(x); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(core_module_api)

BOOST_AUTO_TEST_CASE(register_parameter_returns_a_handle_that_cannot_dangle) {
  // It returned Tensor&, into a vector the next registration may reallocate.
  BOOST_TEST((std::is_same<decltype(std::declval<Many&>().register_parameter("x", Tensor())), Tensor>::value));
  Many m(64);
  // The handle shares the registered node: the same tensor, not a copy of its data.
  BOOST_TEST(m.first.node() == m.named_parameters()[0].second.node());
  BOOST_TEST(m.first.to_vector() == (std::vector<float>{7.0f, 7.0f}), tt::per_element());
  BOOST_TEST(m.first.requires_grad());
}

BOOST_AUTO_TEST_CASE(a_tied_parameter_is_listed_and_stepped_once) {
  Tied net;
  const auto named = net.named_parameters();
  BOOST_REQUIRE_EQUAL(named.size(), 1u);  // PyTorch's named_parameters(): first name only
  BOOST_TEST(named[0].first == "encoder.w");
  BOOST_TEST(net.parameters().size() == 1u);
  BOOST_TEST(net.num_parameters() == 2);
  // One Adam step moves it by lr (the first step is lr * g / (|g| + eps)), not by 2 lr.
  const float lr = 0.1f;
  Adam adam(net.parameters(), lr);
  sum(net.encoder.w * tensor({3.0f, -2.0f}) + net.decoder.w).backward();  // g = (4, -1)
  adam.step();
  expect_near(net.shared, {1.0f - lr, 1.0f + lr}, 1e-6f);
  // The same child registered under two names lists its parameter once as well.
  Empty e;
  Holder h(zeros({1}));
  e.register_module("a", h);
  e.register_module("b", h);
  BOOST_TEST(e.parameters().size() == 1u);
  // A list built by hand with a tensor twice is refused by the optimiser.
  BOOST_CHECK_EXCEPTION(Adam({net.shared, net.shared}), std::invalid_argument,
                        message_has({"[Adam]", "parameter 1 is the same tensor as parameter 0", "(2,)"}));
  BOOST_CHECK_EXCEPTION(SGD({net.shared, zeros({1}), net.shared}, 0.1f), std::invalid_argument,
                        message_has({"[SGD]", "parameter 2 is the same tensor as parameter 0"}));
}

BOOST_AUTO_TEST_CASE(duplicate_names_are_refused) {
  Empty m;
  m.register_parameter("w", zeros({1}));
  Holder child(zeros({1}));
  m.register_module("child", child);
  BOOST_CHECK_EXCEPTION(m.register_parameter("w", zeros({1})), std::invalid_argument,
                        message_has({"[Module.register_parameter]", "'w' is already a parameter", "Empty"}));
  BOOST_CHECK_EXCEPTION(m.register_module("child", child), std::invalid_argument,
                        message_has({"[Module.register_module]", "'child' is already a child module", "Empty"}));
  BOOST_CHECK_EXCEPTION(m.register_module("w", child), std::invalid_argument,
                        message_has({"[Module.register_module]", "'w' is already a parameter"}));
  BOOST_CHECK_EXCEPTION(m.register_parameter("", zeros({1})), std::invalid_argument,
                        message_has({"[Module.register_parameter]", "empty"}));
  BOOST_CHECK_EXCEPTION(m.register_module("self", m), std::invalid_argument,
                        message_has({"[Module.register_module]", "its own child"}));
  BOOST_TEST(m.named_parameters().size() == 2u);  // the refused ones were not added
}

BOOST_AUTO_TEST_CASE(sequential_names_and_runs_its_modules_in_order) {
  manual_seed(0);
  // The MLP of 15.5: nn.Sequential(Dropout, Linear, ReLU, Dropout, Linear, ReLU).
  Sequential net;
  net.add<Dropout>(0.2f);
  Linear& l1 = net.add<Linear>(4, 3);
  net.add(relu);
  net.add<Dropout>(0.2f);
  Linear& l2 = net.add<Linear>(3, 2);
  net.add(relu);
  BOOST_TEST(net.size() == 6u);
  std::vector<std::string> names;
  for (const auto& [name, t] : net.named_parameters()) names.push_back(name);
  BOOST_TEST(names == (std::vector<std::string>{"1.weight", "1.bias", "4.weight", "4.bias"}), tt::per_element());
  net.eval();  // reaches the Dropouts inside
  BOOST_TEST(!net[0].training());
  const Tensor X = normal(0, 1, {5, 4});
  expect_near(net(X), relu(l2(relu(l1(X)))).to_vector(), 0.0f);
  // Training mode: the Dropouts are on again; the result has zeros where they dropped.
  net.train();
  BOOST_TEST(net[3].training());
  // An empty Sequential is the identity; a wrong index or type is an error naming it.
  Sequential none;
  BOOST_TEST(none(X).node() == X.node());
  BOOST_CHECK_EXCEPTION(net[6], std::invalid_argument, message_has({"[ModuleList]", "index 6", "6 modules"}));
  BOOST_CHECK_EXCEPTION(net.get<Linear>(0), std::invalid_argument,
                        message_has({"[ModuleList]", "module 0 is not of the requested type"}));
  BOOST_TEST(&net.get<Linear>(4) == &l2);
}

BOOST_AUTO_TEST_CASE(module_list_owns_and_registers_by_index) {
  ModuleList blocks;
  blocks.eval();
  for (int i = 0; i < 3; ++i) blocks.append<Linear>(2, 2, i != 1);
  BOOST_TEST(blocks.size() == 3u);
  BOOST_TEST(!blocks[2].training());  // appended after eval(): starts in eval mode
  std::vector<std::string> names;
  for (const auto& [name, t] : blocks.named_parameters()) names.push_back(name);
  BOOST_TEST(names == (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "2.weight", "2.bias"}),
             tt::per_element());
  // A list inside a model: its modules' parameters under the list's name.
  struct Model : Module {
    ModuleList blks;
    Model() {
      blks.append<Linear>(2, 2);
      register_module("blks", blks);
    }
  } model;
  BOOST_TEST(model.named_parameters()[0].first == "blks.0.weight");
}

BOOST_AUTO_TEST_CASE(optimiser_settings_are_checked) {
  const Tensor p = zeros({2});
  struct Case {
    std::function<void()> make;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {[&] { SGD({p}, -0.1f); }, {"[SGD]", "lr must be >= 0 and finite, got -0.1"}},
      {[&] { SGD({p}, NAN); }, {"[SGD]", "lr must be >= 0"}},
      {[&] { Adam({p}, -1e-3f); }, {"[Adam]", "lr must be >= 0 and finite, got -0.001"}},
      {[&] { Adam({p}, 1e-3f, 1.0f); }, {"[Adam]", "beta1 must be in [0, 1), got 1"}},
      {[&] { Adam({p}, 1e-3f, 0.9f, -0.5f); }, {"[Adam]", "beta2 must be in [0, 1), got -0.5"}},
      {[&] { Adam({p}, 1e-3f, 0.9f, 0.999f, 0.0f); }, {"[Adam]", "eps must be > 0 and finite, got 0"}},
      {[&] { Adam({p}, 1e-3f, 0.9f, 0.999f, 1e-8f, -0.01f); }, {"[Adam]", "weight_decay must be >= 0"}},
  };
  for (const Case& c : cases) BOOST_CHECK_EXCEPTION(c.make(), std::invalid_argument, message_has(c.says));
  BOOST_CHECK_NO_THROW(Adam({p}, 0.0f, 0.0f, 0.0f));  // the edges that are allowed
  // The settings are public; step() checks them again.
  Adam adam({p});
  adam.lr = -1.0f;
  BOOST_CHECK_EXCEPTION(adam.step(), std::invalid_argument, message_has({"[Adam]", "lr must be >= 0"}));
}

// PyTorch's "one of the variables needed for gradient computation has been modified by an
// inplace operation". Before the version counter each of these gave a wrong gradient quietly.
BOOST_AUTO_TEST_CASE(writing_a_tensor_between_forward_and_backward_is_refused) {
  const Tensor X = tensor({{1.0f, 2.0f, 3.0f}});
  // The classic mistake: optimizer.step() before loss.backward(), with last step's gradients.
  {
    Net net;
    SGD sgd(net.parameters(), 0.1f);
    sum(net(X)).backward();
    sgd.step();
    Tensor loss = sum(net(X));
    sgd.step();  // writes dense.weight, which 'linear' read
    BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument,
                          message_has({"[backward]", "input 1 of 'linear', parameter 'dense.weight' of shape (2, 3)",
                                       "was written after 'linear' read it", "optimizer.step() after loss.backward()"}));
  }
  // A direct write to a leaf through data() or at().
  {
    Tensor w = tensor({1.0f, 2.0f, 3.0f}, {3, 1});
    w.requires_grad_();
    Tensor loss = sum(matmul(X, w));
    w.at({0, 0}) = 5.0f;
    BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument,
                          message_has({"input 1 of 'matmul', a leaf tensor of shape (3, 1)", "data version"}));
  }
  // An op's output written before anything read it: softmax's backward reads its output.
  {
    Tensor z = tensor({1.0f, 2.0f});
    z.requires_grad_();
    Tensor y = softmax(z);
    y.data()[0] = 0.0f;
    Tensor loss = sum(y * tensor({1.0f, 0.0f}));  // mul reads the written data: fine for mul
    BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument,
                          message_has({"the output of 'softmax' (shape (2,))", "written after 'softmax' computed it"}));
  }
  // An op of many inputs (more than a node keeps inline): the last one written is named.
  {
    std::vector<Tensor> parts;
    for (int k = 0; k < 6; ++k) parts.push_back(full({2}, static_cast<float>(k)));
    for (Tensor& p : parts) p.requires_grad_();
    Tensor loss = sum(concat(parts, 0));
    parts[5].data()[1] = 7.0f;
    BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument,
                          message_has({"input 5 of 'concat', a leaf tensor of shape (2,)", "data version"}));
  }
  // ... and written after a later op read it: that op names it.
  {
    Tensor z = tensor({1.0f, 2.0f});
    z.requires_grad_();
    Tensor y = softmax(z);
    Tensor loss = sum(y * tensor({1.0f, 0.0f}));
    y.data()[0] = 0.0f;
    BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument,
                          message_has({"input 0 of 'mul', the output of 'softmax' of shape (2,)"}));
  }
  // A write through a view: reshape shares the data, and its version.
  {
    Tensor w = ones({3, 1});
    w.requires_grad_();
    Tensor loss = sum(matmul(X, w));
    Tensor view = reshape(w.detach(), {3});  // a copy: writing it is harmless
    view.data()[0] = 9.0f;
    Tensor alias = reshape(w, {3});           // shares w's data
    BOOST_TEST(alias.version() == w.version());
    alias.data()[0] = 9.0f;
    BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument, message_has({"input 1 of 'matmul'"}));
  }
}

BOOST_AUTO_TEST_CASE(reads_and_writes_outside_the_window_are_fine) {
  Tensor w = tensor({1.0f, 2.0f, 3.0f}, {3, 1});
  w.requires_grad_();
  const uint64_t v0 = w.version();
  w.data()[0] = 1.0f;  // before the forward: the graph sees this data
  BOOST_TEST(w.version() == v0 + 1);
  Tensor loss = sum(matmul(tensor({{1.0f, 2.0f, 3.0f}}), w));
  const Tensor& reader = w;  // reads through a const handle leave the version alone
  BOOST_TEST(reader.data()[1] == 2.0f);
  BOOST_TEST(w.to_vector()[2] == 3.0f);
  BOOST_TEST(w.version() == v0 + 1);
  loss.backward();
  BOOST_TEST(w.grad().to_vector() == (std::vector<float>{1.0f, 2.0f, 3.0f}), tt::per_element());
  w.data()[0] = 0.0f;  // after backward: the graph is freed, nothing to check
  w.zero_grad();
  sum(matmul(tensor({{1.0f, 2.0f, 3.0f}}), w)).backward();
  BOOST_TEST(w.grad().to_vector() == (std::vector<float>{1.0f, 2.0f, 3.0f}), tt::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
