// tests/test_reliability.cpp — what a reader must be able to trust: the same seed
// gives the same bits at any thread count, D2L_CHECK_NUMERICS stops at the first non-finite
// value and says where, parameter files never half-load, chapter programs refuse absurd
// options, and every input the fuzzers (tests/fuzz/) found a crash with stays fixed.
#include <boost/test/unit_test.hpp>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/debug/debug.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "core/nn/basic.h"
#include "layers/multihead_attention.h"
#include "layers/nadaraya_watson.h"
#include "layers/natural_language_inference_attention.h"
#include "layers/seq2seq.h"
#include "layers/transformer.h"
#include "tests/test_util.h"
#include "tools/d2l/data/vocab.h"

using d2l_test::build_dir;
using d2l_test::CheckNumerics;
using d2l_test::message_has;
using d2l_test::random_ids;
using d2l_test::read_file;
using d2l_test::run_command;
using d2l_test::TempDir;
using d2l_test::write_file;

namespace fs = std::filesystem;
using d2l::Tensor;

namespace {

// One optimiser step on the loss that f() builds; returns the loss.
template <class F>
float train_step(d2l::Optimizer& trainer, F f) {
  trainer.zero_grad();
  Tensor l = f();
  l.backward();
  trainer.step();
  return l.item();
}

// RLIMIT_FSIZE lowered for one scope, with SIGXFSZ ignored so that a write past the limit
// fails with EFBIG instead of killing the process: a full disk that even root runs into.
// The limit holds for the suite's own output too: when that goes to a file longer than the
// limit (`make test` writes it to BUILD/test.log), a write inside the scope fails and sets
// the stream's badbit, after which the stream drops everything, the log of every later test
// included. So the streams are flushed before and their state cleared after.
struct FileSizeLimit {
  rlimit old{};
  void (*old_handler)(int);
  explicit FileSizeLimit(rlim_t bytes) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    getrlimit(RLIMIT_FSIZE, &old);
    old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lower = old;
    lower.rlim_cur = bytes;
    BOOST_REQUIRE(setrlimit(RLIMIT_FSIZE, &lower) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
    std::cout.clear();
    std::cerr.clear();
    std::clearerr(stdout);
    std::clearerr(stderr);
  }
};

// True when `dir` holds exactly one entry, named `name`.
bool only_file_is(const fs::path& dir, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  for (const std::string& n : names) BOOST_TEST_MESSAGE("in " << dir << ": " << n);
  return names.size() == 1 && names[0] == name;
}

// --- determinism helpers ----------------------------------------------------------------------
// A training run's result: every parameter and every loss, as raw floats.
struct Run {
  std::vector<float> params, losses;
};

std::vector<float> flat(const std::vector<Tensor>& ts) {
  std::vector<float> v;
  for (const Tensor& t : ts) v.insert(v.end(), t.data(), t.data() + t.numel());
  return v;
}

// Runs f with OpenMP limited to `threads` (a serial build ignores it and runs f as it is).
template <class F>
auto at_threads(int threads, F f) {
#ifdef _OPENMP
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  BOOST_REQUIRE_EQUAL(omp_get_max_threads(), threads);  // else the comparison proves nothing
  struct Restore {
    int n;
    ~Restore() { omp_set_num_threads(n); }
  } restore{before};
#else
  (void)threads;
#endif
  return f();
}

// "" when a and b hold the same bits, else where they first differ.
std::string first_difference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) {
      std::ostringstream os;
      os.precision(9);
      os << "index " << i << ": " << a[i] << " vs " << b[i];
      return os.str();
    }
  return "";
}

// Trains at 1 thread, at 2, and at 2 again from the same seed: all three bit for bit equal.
// A serial build runs all three on one thread, which still checks that one seed gives one
// result; the thread-count comparison itself is the OpenMP build's.
void check_deterministic(const std::string& name, const std::function<Run()>& train) {
  const Run one = at_threads(1, train), two = at_threads(2, train), again = at_threads(2, train);
  BOOST_REQUIRE(!one.params.empty() && !one.losses.empty());
  for (float l : one.losses) BOOST_CHECK_MESSAGE(std::isfinite(l), name << ": loss " << l);
  const std::string p12 = first_difference(one.params, two.params), l12 = first_difference(one.losses, two.losses);
  BOOST_CHECK_MESSAGE(p12.empty(), name << ": parameters at 1 and 2 threads differ at " << p12);
  BOOST_CHECK_MESSAGE(l12.empty(), name << ": losses at 1 and 2 threads differ at " << l12);
  const std::string p22 = first_difference(two.params, again.params);
  BOOST_CHECK_MESSAGE(p22.empty(), name << ": two runs from one seed differ at " << p22);
  BOOST_CHECK(first_difference(two.losses, again.losses).empty());
}

Tensor random_lens(int64_t batch, int64_t lo, int64_t hi) {  // integers in [lo, hi]
  Tensor t = d2l::empty({batch});
  for (int64_t i = 0; i < batch; ++i) t.data()[i] = static_cast<float>(lo + d2l::random_int(hi - lo + 1));
  return t;
}

// Three Adam steps of an encoder-decoder on random ids with the book's MaskedSoftmaxCELoss.
Run train_encoder_decoder(d2l::EncoderDecoder& net, int64_t vocab, int64_t batch, int64_t steps) {
  d2l::Adam trainer(net.parameters(), 0.005f);
  const d2l::MaskedSoftmaxCELoss loss;
  Run r;
  for (int step = 0; step < 3; ++step) {
    const Tensor X = random_ids(vocab, {batch, steps}), dec_X = random_ids(vocab, {batch, steps});
    const Tensor Y = random_ids(vocab, {batch, steps}), X_len = random_lens(batch, 1, steps);
    const Tensor Y_len = random_lens(batch, 1, steps);
    r.losses.push_back(train_step(trainer, [&] { return d2l::sum(loss(net(X, dec_X, X_len).first, Y, Y_len)); }));
  }
  r.params = flat(net.parameters());
  return r;
}

// Linear(3, 2)'s parameter shapes under other names: the file of another model.
struct Renamed : d2l::Module {
  Renamed() {
    register_parameter("weight", d2l::zeros({2, 3}));
    register_parameter("b", d2l::zeros({2}));
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(reliability)

// ============================================================================ determinism
// Sizes are chosen above the fast tier's parallel thresholds (core/kernels/fast/parallel.h:
// kParallelMin = 256k elements for element-wise loops, dropout, softmax and layer_norm;
// kGemmParallelMin = 2^22 multiply-adds for a GEMM), so the 2-thread runs really split the
// work. (The reference tier runs on one thread.)

BOOST_AUTO_TEST_CASE(kernels_same_bits_at_1_and_2_threads, *boost::unit_test::precondition(d2l_test::openmp_build)) {
  struct Case {
    const char* name;
    std::function<Tensor(const std::vector<Tensor>&)> f;
    std::vector<d2l::Shape> shapes;
  };
  const std::vector<Case> cases = {
      {"add, mul, exp (broadcast)", [](const std::vector<Tensor>& x) { return d2l::exp(x[0] * x[1] + x[1]); },
       {{1024, 320}, {320}}},
      {"softmax", [](const std::vector<Tensor>& x) { return d2l::softmax(x[0]); }, {{2000, 160}}},
      {"masked_softmax", [](const std::vector<Tensor>& x) {
         return d2l::masked_softmax(x[0], d2l::tensor({3, 100, 50, 1}));
       }, {{4, 400, 200}}},
      {"layer_norm", [](const std::vector<Tensor>& x) { return d2l::layer_norm(x[0], {128}, x[1], x[2]); },
       {{2100, 128}, {128}, {128}}},
      {"matmul", [](const std::vector<Tensor>& x) { return d2l::matmul(x[0], x[1]); }, {{300, 200}, {200, 100}}},
      {"bmm", [](const std::vector<Tensor>& x) { return d2l::bmm(x[0], x[1], false, true); },
       {{8, 100, 64}, {8, 120, 64}}},
      {"linear", [](const std::vector<Tensor>& x) { return d2l::linear(x[0], x[1], x[2]); },
       {{640, 96}, {80, 96}, {80}}},
      {"sum, mean", [](const std::vector<Tensor>& x) {
         return d2l::sum(x[0], 0) + d2l::mean(x[0], 1, true) + d2l::sum(x[0]);
       },
       {{600, 600}}},
      {"dropout", [](const std::vector<Tensor>& x) { return d2l::dropout(x[0], 0.5f, true); }, {{600, 600}}},
  };
  for (const Case& c : cases) {
    auto once = [&] {
      d2l::manual_seed(11);
      std::vector<Tensor> xs;
      for (const d2l::Shape& s : c.shapes) xs.push_back(d2l::normal(0.0f, 1.0f, s).requires_grad_());
      const Tensor y = c.f(xs);
      const Tensor R = d2l::normal(0.0f, 1.0f, y.shape());
      d2l::sum(y * R).backward();
      std::vector<Tensor> grads;
      for (const Tensor& x : xs) grads.push_back(x.grad());
      return Run{flat(grads), y.to_vector()};
    };
    const Run one = at_threads(1, once), two = at_threads(2, once);
    BOOST_CHECK_MESSAGE(first_difference(one.losses, two.losses).empty(),
                        c.name << ": forward differs at " << first_difference(one.losses, two.losses));
    BOOST_CHECK_MESSAGE(first_difference(one.params, two.params).empty(),
                        c.name << ": gradients differ at " << first_difference(one.params, two.params));
  }
}

BOOST_AUTO_TEST_CASE(nadaraya_watson_training_is_deterministic) {
  check_deterministic("NWKernelRegression", [] {
    d2l::manual_seed(1);
    const int64_t n = 520;  // keys (n, n - 1): 269,880 elements, above kParallelMin
    const Tensor x = d2l::rand({n}) * 5.0f, y = d2l::sin(x) * 2.0f + d2l::normal(0.0f, 0.5f, {n});
    const Tensor keys = d2l::repeat(x, {n, 1}), values = d2l::repeat(y, {n, 1});
    d2l::NWKernelRegression net;
    d2l::SGD trainer(net.parameters(), 0.5f);
    Run r;
    for (int epoch = 0; epoch < 3; ++epoch) {
      r.losses.push_back(train_step(trainer, [&] { return d2l::sum(d2l::pow(net(x, keys, values) - y, 2.0f) * 0.5f); }));
    }
    r.params = flat(net.parameters());
    return r;
  });
}

BOOST_AUTO_TEST_CASE(multihead_attention_training_is_deterministic) {
  check_deterministic("MultiHeadAttention", [] {
    d2l::manual_seed(2);
    d2l::MultiHeadAttention attention(64, 64, 64, 64, 4, 0.1f);  // dropout on: the generator is used
    attention.train();
    d2l::Adam trainer(attention.parameters(), 0.01f);
    Run r;
    for (int step = 0; step < 3; ++step) {
      const Tensor X = d2l::normal(0.0f, 1.0f, {8, 64, 64}), R = d2l::normal(0.0f, 1.0f, {8, 64, 64});
      r.losses.push_back(train_step(trainer, [&] { return d2l::sum(attention(X, X, X, random_lens(8, 1, 64)) * R); }));
    }
    r.params = flat(attention.parameters());
    return r;
  });
}

BOOST_AUTO_TEST_CASE(transformer_training_is_deterministic) {
  check_deterministic("TransformerEncoder + TransformerDecoder", [] {
    d2l::manual_seed(3);
    const int64_t vocab = 40, h = 64;
    d2l::TransformerEncoder encoder(vocab, h, h, h, h, {h}, h, 128, 4, 2, 0.1f);
    d2l::TransformerDecoder decoder(vocab, h, h, h, h, {h}, h, 128, 4, 2, 0.1f);
    d2l::EncoderDecoder net(encoder, decoder);
    return train_encoder_decoder(net, vocab, 16, 32);  // 512 positions x 64: parallel GEMMs
  });
}

BOOST_AUTO_TEST_CASE(bahdanau_training_is_deterministic) {
  check_deterministic("Seq2SeqEncoder + Seq2SeqAttentionDecoder", [] {
    d2l::manual_seed(4);
    const int64_t vocab = 40;
    d2l::Seq2SeqEncoder encoder(vocab, 32, 64, 2, 0.1f);
    d2l::Seq2SeqAttentionDecoder decoder(vocab, 32, 64, 2, 0.1f);
    d2l::EncoderDecoder net(encoder, decoder);
    return train_encoder_decoder(net, vocab, 64, 8);  // GRU gates 64 x 64: above kGateParallelMin
  });
}

BOOST_AUTO_TEST_CASE(nli_training_is_deterministic) {
  check_deterministic("DecomposableAttention", [] {
    d2l::manual_seed(5);
    std::vector<std::string> words;
    for (int i = 0; i < 30; ++i) words.push_back("w" + std::to_string(i));
    const d2l::Vocab vocab({words}, 0, {"<pad>"});
    d2l::DecomposableAttention net(vocab.size(), 32, 64, 32, 64, 128);
    d2l::Adam trainer(net.parameters(), 0.001f);
    Run r;
    for (int step = 0; step < 3; ++step) {
      const Tensor P = random_ids(vocab.size(), {32, 12}), H = random_ids(vocab.size(), {32, 12});
      const Tensor labels = random_ids(3, {32});
      r.losses.push_back(train_step(trainer, [&] { return d2l::sum(d2l::softmax_cross_entropy(net(P, H), labels)); }));
    }
    r.params = flat(net.parameters());
    return r;
  });
}

// ============================================================================ numerics check

BOOST_AUTO_TEST_CASE(numerics_nan_fed_into_an_op) {
  CheckNumerics on;
  const Tensor x = d2l::tensor({1.0f, NAN, 3.0f});
  // The first op that sees it stops, and says the NaN came in through its input 0.
  BOOST_CHECK_EXCEPTION(x * 2.0f + 1.0f, std::runtime_error,
                        message_has({"[check_numerics] output of 'mul_scalar'", "flat index 1",
                                                  "mul_scalar (3,) -> (3,)", "input 0 (3,) already holds nan",
                                                  "came from outside the checked ops"}));
}

BOOST_AUTO_TEST_CASE(numerics_nan_created_inside_stops_at_that_op) {
  CheckNumerics on;
  // log(-1) is the first non-finite value; exp and sum after it never run.
  const Tensor x = d2l::tensor({{1.0f, 2.0f}, {-1.0f, 4.0f}});
  BOOST_CHECK_EXCEPTION(d2l::sum(d2l::exp(d2l::log(x) * 0.5f)), std::runtime_error,
                        message_has({"output of 'log'", "flat index 2", "log (2, 2) -> (2, 2)",
                                                  "created by this op"}));
  {
    d2l::SectionScope outer("10.2 my section");
    d2l::SectionScope inner("my layer");
    BOOST_CHECK_EXCEPTION(d2l::sqrt(x), std::runtime_error,
                          message_has({"'sqrt'", "in section 10.2 my section > my layer"}));
  }
  BOOST_CHECK_EQUAL(d2l::current_section(), "");
  // Off: no check, the NaN simply flows on.
  d2l::set_check_numerics(false);
  BOOST_CHECK(std::isnan(d2l::log(x).to_vector()[2]));
}

BOOST_AUTO_TEST_CASE(numerics_nan_fed_into_a_layer_names_its_section) {
  CheckNumerics on;
  d2l::manual_seed(6);
  d2l::MultiHeadAttention attention(8, 2, 0.0f);
  attention.eval();
  Tensor queries = d2l::normal(0.0f, 1.0f, {2, 3, 8});
  queries.data()[5] = NAN;
  const Tensor keys = d2l::normal(0.0f, 1.0f, {2, 4, 8});
  BOOST_CHECK_EXCEPTION(attention(queries, keys, keys), std::runtime_error,
                        message_has({"output of 'linear'", "linear (2, 3, 8) (8, 8) none -> (2, 3, 8)",
                                                  "in section 10.5 MultiHeadAttention > Linear", "input 0"}));
  BOOST_CHECK_EQUAL(d2l::current_section(), "");  // the scopes unwound with the exception
  // Nested layers: the path from the outermost one.
  d2l::EncoderBlock block(8, 8, 8, 8, {8}, 8, 16, 2, 0.0f);
  block.eval();
  Tensor X = d2l::normal(0.0f, 1.0f, {2, 3, 8});
  X.data()[0] = INFINITY;
  BOOST_CHECK_EXCEPTION(block(X, Tensor()), std::runtime_error,
                        message_has({"in section 10.7 EncoderBlock > 10.5 MultiHeadAttention > Linear"}));
}

BOOST_AUTO_TEST_CASE(numerics_nan_in_seq2seq_and_nli_layers_names_their_sections) {
  CheckNumerics on;
  d2l::manual_seed(7);
  // 15.5: a NaN weight in Attend's MLP f stops at its first Linear, three layers deep.
  const d2l::Vocab vocab({{"a", "b", "c"}}, 0, {"<pad>"});
  d2l::DecomposableAttention nli(vocab.size(), 8, 8, 8, 16, 16);
  nli.eval();
  nli.attend.f.linear1->weight.data()[0] = NAN;
  const Tensor P = d2l::tensor({{1.0f, 2.0f, 0.0f}}), H = d2l::tensor({{3.0f, 1.0f, 0.0f}});
  BOOST_CHECK_EXCEPTION(nli(P, H), std::runtime_error,
                        message_has({"output of 'linear'",
                                                  "in section 15.5 DecomposableAttention > 15.5 Attend > 15.5 mlp > Linear",
                                                  "input 1"}));
  // 10.4: a NaN GRU weight in the attention decoder stops inside its GRU.
  d2l::Seq2SeqEncoder encoder(10, 4, 6, 1);
  d2l::Seq2SeqAttentionDecoder decoder(10, 4, 6, 1);
  d2l::EncoderDecoder net(encoder, decoder);
  net.eval();
  decoder.rnn.weight_hh[0].data()[0] = NAN;
  const Tensor X = d2l::tensor({{1.0f, 2.0f, 3.0f}});
  BOOST_CHECK_EXCEPTION(net(X, X, d2l::tensor({3.0f})), std::runtime_error,
                        message_has({"in section 9.6 EncoderDecoder > 10.4 Seq2SeqAttentionDecoder > 9.1 GRU"}));
  BOOST_CHECK_EQUAL(d2l::current_section(), "");
}

BOOST_AUTO_TEST_CASE(numerics_gradient_names_the_section_of_its_forward) {
  CheckNumerics on;
  Tensor x = d2l::tensor({0.0f, 4.0f});
  x.requires_grad_();
  Tensor y;
  {
    d2l::SectionScope section("10.6 PositionalEncoding");
    y = d2l::sum(d2l::sqrt(x));  // forward is finite (0, 2); d sqrt(x)/dx = 1/(2 sqrt x) = inf at 0
  }
  BOOST_CHECK_EXCEPTION(y.backward(), std::runtime_error,
                        message_has({"[check_numerics] gradient of 'sqrt'", "flat index 0 of input 0 (2,)",
                                                  "in section 10.6 PositionalEncoding"}));
}

BOOST_AUTO_TEST_CASE(numerics_check_passes_on_the_chapters) {
  // No false alarm: the quick chapter programs run clean with the check on.
  TempDir tmp("numerics");
  for (const char* c : {"nadaraya_watson --quick", "attention_scoring_functions", "multihead_attention",
                        "self_attention_and_positional_encoding"}) {
    const std::string cmd = "D2L_CHECK_NUMERICS=1 " + build_dir() + "/chapters/" + c + " --out " + (tmp.path / "out").string();
    BOOST_CHECK_MESSAGE(run_command(cmd, tmp.path / "o", tmp.path / "e") == 0, cmd << ":\n" << read_file(tmp.path / "e"));
  }
}

// ============================================================================ checkpoints

BOOST_AUTO_TEST_CASE(checkpoint_round_trip_is_bit_exact) {
  TempDir tmp("roundtrip");
  const std::string path = (tmp.path / "lin.params").string();
  d2l::manual_seed(7);
  d2l::Linear a(3, 2), b(3, 2);
  a.save(path);
  b.load(path);
  BOOST_CHECK(first_difference(flat(a.parameters()), flat(b.parameters())).empty());
  BOOST_CHECK(only_file_is(tmp.path, "lin.params"));  // the temporary was renamed
}

BOOST_AUTO_TEST_CASE(checkpoint_interrupted_save_keeps_the_old_file) {
  TempDir tmp("interrupted");
  const std::string path = (tmp.path / "lin.params").string();
  d2l::manual_seed(8);
  d2l::Linear net(3, 2);
  net.save(path);
  const std::string old_bytes = read_file(path);
  const std::vector<float> old_params = flat(net.parameters());
  net.weight.data()[0] += 1.0f;  // the model moves on
  // The temporary file cannot be written to the end (a file-size limit of 40 bytes stands in
  // for a full disk, even for root): save fails loudly...
  {
    FileSizeLimit limit(40);
    BOOST_CHECK_EXCEPTION(net.save(path), std::runtime_error,
                          message_has({"[Module.save] cannot write '" + path + "'", ".tmp.", "failed"}));
  }
  // ...the previous file is untouched and still loads, and no temporary is left.
  BOOST_CHECK(read_file(path) == old_bytes);
  BOOST_CHECK(only_file_is(tmp.path, "lin.params"));
  d2l::Linear back(3, 2);
  back.load(path);
  BOOST_CHECK(first_difference(flat(back.parameters()), old_params).empty());
  // A crash halfway through writing leaves a partial temporary file: the target is intact
  // and the next save replaces the target (the stale temporary is a crash's leftover).
  write_file(path + ".tmp.crashd", old_bytes.substr(0, old_bytes.size() / 2));
  back.load(path);
  net.save(path);
  back.load(path);
  BOOST_CHECK(first_difference(flat(back.parameters()), flat(net.parameters())).empty());
}

BOOST_AUTO_TEST_CASE(checkpoint_bad_files_fail_clearly_and_change_nothing) {
  TempDir tmp("bad_files");
  const fs::path good = tmp.path / "lin.params", bad = tmp.path / "bad.params";
  d2l::manual_seed(9);
  d2l::Linear saved(3, 2);
  saved.save(good.string());
  const std::string bytes = read_file(good);
  d2l::Linear net(3, 2);
  const std::vector<float> before = flat(net.parameters());
  auto refused = [&](const std::string& file_bytes, const std::string& why) {
    write_file(bad, file_bytes);
    bool threw = false;
    try {
      net.load(bad.string());
    } catch (const std::runtime_error& e) {
      threw = true;
      const std::string what = e.what();
      BOOST_CHECK_MESSAGE(what.rfind("[Module.load] " + bad.string() + ": ", 0) == 0, what);
      BOOST_CHECK_MESSAGE(what.find(why) != std::string::npos, "expected '" << why << "' in: " << what);
    }
    BOOST_CHECK_MESSAGE(threw, "a bad file loaded: expected '" << why << "'");
    BOOST_CHECK(first_difference(flat(net.parameters()), before).empty());
  };
  // Truncated at every length: the magic (8 bytes), the version (4), then at least the
  // settings length, parameter count, training flag and checksum (17).
  for (size_t n = 0; n < bytes.size(); ++n)
    refused(bytes.substr(0, n), n < 8 ? "bad magic" : n < 29 ? "truncated" : "checksum mismatch");
  // Corrupted: every byte flipped in turn (the magic, the version, then everything the
  // checksum covers).
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string c = bytes;
    c[i] = static_cast<char>(c[i] ^ 0x20);
    refused(c, i < 8 ? "bad magic" : i < 12 ? "format version" : "checksum mismatch");
  }
  refused(bytes + "x", "checksum mismatch");
  // Whole but for another model: a different number of parameters, other names, other shapes.
  d2l::Linear no_bias(3, 2, false), wider(4, 2);
  d2l::LayerNorm norm(3);
  Renamed renamed;
  no_bias.save(bad.string());
  refused(read_file(bad), "holds 1 parameters, the model has 2 (a different model?)");
  renamed.save(bad.string());
  refused(read_file(bad), "parameter 1 is 'b', the model expects 'bias'");
  norm.save(bad.string());
  refused(read_file(bad), "parameter 'weight' has ndim 1, the model expects shape (2, 3)");
  wider.save(bad.string());
  refused(read_file(bad), "parameter 'weight' has shape (2, 4), the model expects (2, 3)");
  BOOST_CHECK_EXCEPTION(net.load((tmp.path / "missing.params").string()), std::runtime_error,
                        message_has({"[Module.load]", "missing.params", "cannot open"}));
  BOOST_CHECK(first_difference(flat(net.parameters()), before).empty());
}

// ============================================================================ programs

// Absurd sizes are refused by the option parser, before the program allocates anything:
// exit 2, "error: [--option] must be <= ..." (or >=) and the usage on stderr.
BOOST_AUTO_TEST_CASE(absurd_options_are_refused_before_any_work) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> programs = {
      {"attention_cues", {"--threads 100000", "--seed -1"}},
      {"nadaraya_watson", {"--epochs -1", "--epochs 1000000000", "--lr 1e9", "--threads 100000"}},
      {"attention_scoring_functions", {"--threads 100000"}},
      {"multihead_attention", {"--threads 100000"}},
      {"self_attention_and_positional_encoding", {"--threads 100000"}},
      {"bahdanau_attention", {"--epochs -1", "--epochs 1000000000"}},
      {"transformer", {"--epochs -1", "--epochs 1000000000"}},
      {"natural_language_inference_attention",
       {"--epochs -1", "--epochs 1000000000", "--batch-size 0", "--batch-size 1000000000"}},
  };
  TempDir tmp("absurd");
  for (const auto& [name, absurd] : programs) {
    const fs::path exe = fs::path(build_dir()) / "chapters" / name;
    if (!fs::exists(exe)) {
      BOOST_ERROR(exe << " not built (run `make` first, or set D2L_BUILD)");
      continue;
    }
    for (const char* opt : absurd) {
      // `timeout` turns a program that accepted the value and started training into a failure.
      const std::string cmd = "timeout 20 " + exe.string() + " --out " + (tmp.path / "out").string() + " " + opt;
      const int rc = run_command(cmd, tmp.path / "o", tmp.path / "e");
      const std::string err = read_file(tmp.path / "e");
      BOOST_CHECK_MESSAGE(rc == 2 && err.rfind("error: [--", 0) == 0 && err.find("usage: ") != std::string::npos,
                          cmd << " exited " << rc << ", stderr:\n" << err);
    }
  }
}

// ============================================================================ fuzz findings
// Inputs the fuzz targets (or their seeds) turned up, each kept as a case.

// A form feed alone on a line is a blank line (tools/programs/heatmap/heatmap_text.cpp), so this input
// holds no matrix: the tool must end in an error, never a crash.
BOOST_AUTO_TEST_CASE(heatmap_form_feed_line_is_an_error) {
  const fs::path exe = fs::path(build_dir()) / "tools" / "heatmap";
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe << " not built");
  TempDir tmp("heatmap_ff");
  write_file(tmp.path / "in.txt", "\n\n\f");
  const int rc = run_command(exe.string() + " --out " + (tmp.path / "h.png").string() + " " + (tmp.path / "in.txt").string(),
                     tmp.path / "o", tmp.path / "e");
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK(read_file(tmp.path / "e").rfind("error: ", 0) == 0);
}

// Deeply nested '[' would overflow the stack of the recursive list parser
// (tools/programs/heatmap/heatmap_text.cpp, Nested::list), so the depth is capped at 4: an error.
BOOST_AUTO_TEST_CASE(heatmap_deep_nesting_is_an_error) {
  const fs::path exe = fs::path(build_dir()) / "tools" / "heatmap";
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe << " not built");
  TempDir tmp("heatmap_deep");
  write_file(tmp.path / "in.txt", std::string(100000, '['));
  const int rc = run_command(exe.string() + " --out " + (tmp.path / "h.png").string() + " " + (tmp.path / "in.txt").string(),
                     tmp.path / "o", tmp.path / "e");
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK(read_file(tmp.path / "e").rfind("error: ", 0) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
