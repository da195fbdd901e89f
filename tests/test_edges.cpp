// tests/test_edges.cpp — nothing lost at the edges: checkpoints in the format their path names
// (also the periodic ones, and after a kill), readers bounded in time by their input (a
// header of millions of keys, a model file that asks for a million layers), limits that
// hold in the processes a program starts, weights that cannot be cut loose silently (a
// plain tensor assigned as a weight, a stray layer seen only by the first of two backward
// passes), every file a run writes protected from --save, the book flow's arguments passed
// as words, inputs quoted safely in errors, and the vocabulary fingerprint as standard
// FNV-1a 64.
#include <boost/test/unit_test.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/io/json.h"
#include "core/io/safetensors.h"
#include "core/nn/basic.h"
#include "layers/nadaraya_watson.h"
#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/creation.h"
#include "tests/test_prelude.h"
#include "tools/d2l/figures/npy.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/programs/crossover/crossover.h"

using d2l_test::StderrCapture;
using d2l_test::write_file;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Starts `argv` with stdout and stderr to `log`, waits until the log holds `marker` (at most
// 60 s), then kills it with SIGKILL: a run stopped without warning, as by the OOM killer.
// Returns whether the marker appeared.
bool run_until_then_kill(const std::vector<std::string>& argv, const std::string& log, const std::string& marker) {
  const pid_t pid = spawn_logged(argv, log);
  bool seen = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (!seen && seconds_since(t0) < 60) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen = read_file(log).find(marker) != std::string::npos;
    int status = 0;
    if (!seen && ::waitpid(pid, &status, WNOHANG) == pid) return read_file(log).find(marker) != std::string::npos;
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return seen;
}

// PyTorch for the state_dict test: Debian's python3-torch under /usr/bin/python3.
boost::test_tools::assertion_result torch_available(boost::unit_test::test_unit_id) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0) return true;
  boost::test_tools::assertion_result r(false);
  r.message() << "PyTorch not found under /usr/bin/python3 (apt-get install python3-torch): the state_dict test "
                 "is skipped";
  return r;
}

// A safetensors file: the 8-byte size, the header, the data.
std::string safetensors_bytes(const std::string& header, const std::string& data = "") {
  std::string s(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return s + header + data;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(edges)

// --save-every with a .safetensors path writes safetensors every time (it wrote the project's
// own format under that name, which neither --load nor --resume could read): after a kill,
// --load reads the last periodic file and --resume names --load; with .params, --resume
// continues. Both trainers (train_seq2seq: 10.4, train_ch13: 15.5), both formats.
BOOST_AUTO_TEST_CASE(save_every_writes_the_format_its_path_names_and_survives_a_kill) {
  TempDir tmp("edges_save_every");
  struct Trainer {
    const char* name;
    std::vector<std::string> options;
  };
  const std::vector<Trainer> trainers = {
      {"bahdanau_attention", {"--epochs", "400", "--save-every", "2"}},
      {"natural_language_inference_attention", {"--data", "tests/fixtures/data/snli_1.0", "--epochs", "400",
                                                "--save-every", "2", "--embed-size", "8", "--num-hiddens", "8"}},
  };
  for (const Trainer& t : trainers)
    for (const char* ext : {".safetensors", ".params"}) {
      BOOST_TEST_CONTEXT(t.name << " " << ext) {
        const std::string file = tmp(std::string(t.name) + ext), exe = chapter_program(t.name);
        std::vector<std::string> argv{exe, "--out", tmp("out")};
        argv.insert(argv.end(), t.options.begin(), t.options.end());
        argv.insert(argv.end(), {"--save", file});
        BOOST_REQUIRE_MESSAGE(run_until_then_kill(argv, tmp("log"), "saved " + file + " after 4 of 400 epochs"),
                              read_file(tmp("log")));
        // The periodic save says its format, as the final one does.
        const std::string log = read_file(tmp("log"));
        if (std::string(ext) == ".safetensors")
          BOOST_CHECK_MESSAGE(log.find("saved " + file + " after 2 of 400 epochs (") != std::string::npos &&
                                  log.find("bytes, safetensors)") != std::string::npos,
                              log);
        const std::string common = exe + " --out " + tmp("out") + " " +
                                   (std::string(t.name) == "bahdanau_attention"
                                        ? std::string()
                                        : "--data tests/fixtures/data/snli_1.0 --embed-size 8 --num-hiddens 8 ");
        // --load reads what the killed run wrote.
        BOOST_CHECK_MESSAGE(run_command(common + "--epochs 1 --load " + file, tmp("load.log"), tmp("load.err")) == 0,
                            read_file(tmp("load.err")));
        BOOST_CHECK(read_file(tmp("load.log")).find("loaded " + file) != std::string::npos);
        // --resume continues a .params file, and names --load for a safetensors one. (The last
        // periodic save may be later than epoch 4: the kill comes a moment after the line.)
        int64_t last = 0;
        for (size_t at = log.find(" after "); at != std::string::npos; at = log.find(" after ", at + 1))
          last = std::max<int64_t>(last, std::atoll(log.c_str() + at + 7));
        const int rc = run_command(common + "--epochs " + std::to_string(last + 4) + " --resume " + file,
                                   tmp("resume.log"), tmp("resume.err"));
        if (std::string(ext) == ".params") {
          BOOST_CHECK_MESSAGE(rc == 0, read_file(tmp("resume.err")));
          BOOST_CHECK(read_file(tmp("resume.log")).find("resumed " + file + " after") != std::string::npos);
        } else {
          BOOST_CHECK_EQUAL(rc, 1);
          BOOST_CHECK_MESSAGE(read_file(tmp("resume.err")).find("--load it") != std::string::npos,
                              read_file(tmp("resume.err")));
        }
      }
    }
}

// The room check before training asks for what the file can take, not a fixed megabyte: a
// one-weight model on a disk with 100 KiB free was refused as "disk full".
BOOST_AUTO_TEST_CASE(room_check_asks_for_what_the_file_takes) {
  TempDir tmp("edges_room");
  d2l::NWKernelRegression nw;
  const uint64_t bound = d2l::param_file_bound(nw);
  BOOST_CHECK_LT(bound, 70u * 1024u);
  d2l::Linear big(300, 200);
  d2l::Adam adam(big.parameters(), 0.01f);
  d2l::sum(big(d2l::ones({1, 300}))).backward();
  adam.step();
  d2l::Checkpoint checkpoint({{"model", "linear"}}, {{"batch_size", "1"}}, tmp("big.params"));
  checkpoint.trained(big, adam, 1, nullptr);  // the weights, Adam's moments, the settings
  BOOST_CHECK_LE(fs::file_size(tmp("big.params")), d2l::param_file_bound(big));
  BOOST_CHECK_GT(fs::file_size(tmp("big.params")), 12u * 300u * 200u);
}

// A file in the project's own format under a .safetensors name (what the periodic save used to
// write) is named as such, not as "header size 5566821054880166468 bytes".
BOOST_AUTO_TEST_CASE(a_params_file_named_safetensors_says_what_it_is) {
  TempDir tmp("edges_misnamed");
  d2l::Linear net(3, 2);
  net.save(tmp("m.safetensors"));  // Module::save writes the project's format whatever the name
  BOOST_CHECK_EXCEPTION(d2l::read_safetensors(tmp("m.safetensors")), std::runtime_error,
                        message_has({tmp("m.safetensors"), "project's own format", "rename it to .params"}));
}

// The header reader is linear in its size: 100,000 tensors (400,000 keys, 6 MB) are read in
// well under 5 s (the duplicate check scanned every earlier key: 36 s), and the key limit
// refuses a 100 MB header of 2 million keys while reading it, naming the file and the limit.
BOOST_AUTO_TEST_CASE(header_reader_is_linear_and_bounded) {
  std::string header = "{";
  char buf[96];
  for (int i = 0; i < 100000; ++i) {
    std::snprintf(buf, sizeof buf, "%s\"t%07d\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}", i ? "," : "", i);
    header += buf;
  }
  header += "}";
  auto t0 = std::chrono::steady_clock::now();
  const d2l::SafetensorsFile f = d2l::parse_safetensors(safetensors_bytes(header), "many.safetensors");
  const double many = seconds_since(t0);
  BOOST_CHECK_EQUAL(f.tensors.size(), 100000u);
  BOOST_CHECK_EQUAL(f.tensors[54321].name, "t0054321");
  BOOST_CHECK_MESSAGE(many < 5.0, "100,000 tensors took " << many << " s");
  BOOST_TEST_MESSAGE("100,000 tensors (" << header.size() << " bytes of header) read in " << many << " s");

  // 2 million metadata keys of 49 bytes each, padded to 100 MB, the format's limit.
  std::string big = "{\"__metadata__\":{";
  for (int i = 0; i < 2000000; ++i) {
    std::snprintf(buf, sizeof buf, "%s\"key%08d\":\"a value of thirty-two characters\"", i ? "," : "", i);
    big += buf;
  }
  big += "}}";
  BOOST_REQUIRE_LE(big.size(), d2l::kSafetensorsMaxHeader);
  big.resize(d2l::kSafetensorsMaxHeader, ' ');
  BOOST_TEST_MESSAGE("header of " << big.size() << " bytes");
  t0 = std::chrono::steady_clock::now();
  BOOST_CHECK_EXCEPTION(d2l::parse_safetensors(safetensors_bytes(big), "huge.safetensors"), std::runtime_error,
                        message_has({"[safetensors] huge.safetensors", "more than 1000000 keys"}));
  const double huge = seconds_since(t0);
  BOOST_CHECK_MESSAGE(huge < 5.0, "the 100 MB header took " << huge << " s");
  BOOST_TEST_MESSAGE("100 MB header of 2,000,000 keys refused in " << huge << " s");

  // A duplicate among many is still found, and named.
  BOOST_CHECK_EXCEPTION(d2l::parse_json("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,"
                                        "\"j\":10,\"k\":11,\"l\":12,\"m\":13,\"n\":14,\"o\":15,\"p\":16,\"q\":17,\"c\":18}"),
                        std::runtime_error, message_has({"duplicate key \"c\""}));
}

// crossover builds its model from the file's metadata: every setting is checked against what
// the file's tensors can justify first, so num_layers=1000000 is refused at once instead of
// building a million layers.
BOOST_AUTO_TEST_CASE(crossover_checks_settings_before_building) {
  TempDir tmp("edges_crossover");
  d2l::SafetensorsFile f = d2l::read_safetensors("tests/fixtures/safetensors/bahdanau_attention.safetensors");
  for (const auto& [key, value, want] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"num_layers", "1000000", "\"num_layers\" is 1000000, above its limit"},
           {"num_hiddens", "100000000", "\"num_hiddens\" is 100000000, above its limit"},
           {"num_steps", "1000000000", "\"num_steps\" is 1000000000, above its limit 1000"}}) {
    BOOST_TEST_CONTEXT(key) {
      d2l::SafetensorsMetadata m = f.metadata;
      for (auto& kv : m)
        if (kv.first == key) kv.second = value;
      d2l::write_safetensors(tmp("m.safetensors"), f.tensors, m);
      std::ostringstream out;
      const auto t0 = std::chrono::steady_clock::now();
      BOOST_CHECK_EXCEPTION(d2l::crossover_outputs(out, tmp("m.safetensors")), std::runtime_error,
                            message_has({"[crossover] " + tmp("m.safetensors"), want, "refused before building"}));
      BOOST_CHECK_LT(seconds_since(t0), 2.0);
    }
  }
}

// attention_cost measures in child processes: they get --max-tensor-mb too (they ran without
// it), and the refusal names the option instead of the batch size.
BOOST_AUTO_TEST_CASE(attention_cost_children_keep_the_tensor_limit) {
  TempDir tmp("edges_attention_cost");
  const std::string exe = chapter_program("attention_cost") + " --out " + tmp("out") +
                          " --sizes 512 --num-hiddens 64 --num-heads 4 --repeats 1 --layer attention";
  // (4 heads, 512 x 512 scores: 4 MiB, above a 1 MiB limit.)
  BOOST_CHECK_EQUAL(run_command(exe + " --max-tensor-mb 1", tmp("log"), tmp("err")), 1);
  const std::string err = read_file(tmp("err"));
  BOOST_CHECK_MESSAGE(err.find("--max-tensor-mb 1") != std::string::npos, err);
  BOOST_CHECK_MESSAGE(err.find("batch size") == std::string::npos, err);
  // Without the limit the same measurement runs.
  BOOST_CHECK_EQUAL(run_command(exe, tmp("log"), tmp("err")), 0);
  // --pytorch naming a FIFO nobody writes to is refused, not waited on.
  BOOST_REQUIRE(::mkfifo(tmp("fifo.csv").c_str(), 0600) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  BOOST_CHECK_EQUAL(run_command("timeout 20 " + exe + " --pytorch " + tmp("fifo.csv"), tmp("log"), tmp("err")), 1);
  BOOST_CHECK_LT(seconds_since(t0), 10.0);
  BOOST_CHECK_MESSAGE(read_file(tmp("err")).find(tmp("fifo.csv")) != std::string::npos, read_file(tmp("err")));
}

// A plain tensor assigned over a registered weight (no requires_grad): the forward reads it,
// frozen, while the optimiser and save() keep the registered one. The next step names the
// registered parameter that no backward pass reached.
BOOST_AUTO_TEST_CASE(a_weight_replaced_by_a_plain_tensor_is_reported_at_the_next_step) {
  d2l::Linear layer(3, 2);
  d2l::Adam adam(layer.parameters(), 0.01f);
  StderrCapture err;
  layer.weight = d2l::normal(0, 1, {2, 3});  // no requires_grad_()
  d2l::sum(layer(d2l::ones({5, 3}))).backward();
  adam.step();
  const std::string printed = err.text();
  BOOST_CHECK_MESSAGE(adam.stray_warning().find("[Adam.step] 1 parameter received no gradient") != std::string::npos &&
                          adam.stray_warning().find("'weight' (2, 3)") != std::string::npos &&
                          adam.stray_warning().find("layer.weight = t") != std::string::npos,
                      adam.stray_warning());
  BOOST_CHECK(printed.find("warning: [Adam.step] 1 parameter") != std::string::npos);
  // A model whose every parameter is reached says nothing.
  d2l::Linear fine(3, 2);
  d2l::SGD sgd(fine.parameters(), 0.1f);
  d2l::sum(fine(d2l::ones({5, 3}))).backward();
  sgd.step();
  BOOST_CHECK_EQUAL(sgd.stray_warning(), "");
}

// Gradient accumulation: two backward passes, one step. A layer reached only by the first pass
// is named (only the last pass's leaves were checked).
BOOST_AUTO_TEST_CASE(stray_gradient_check_accumulates_until_the_step) {
  struct Net : d2l::Module {
    d2l::Linear registered{3, 2}, forgotten{3, 4};
    Net() { register_module("registered", registered); }
  };
  Net net;
  StderrCapture err;
  d2l::SGD sgd(net.parameters(), 0.1f);
  const d2l::Tensor x = d2l::ones({5, 3});
  (d2l::sum(net.registered(x)) + d2l::sum(net.forgotten(x))).backward();  // first micro-batch
  d2l::sum(net.registered(x)).backward();                                // second
  sgd.step();
  BOOST_CHECK_MESSAGE(sgd.stray_warning().find("2 tensors received a gradient in the backward passes since the last "
                                               "step") != std::string::npos &&
                          sgd.stray_warning().find("(4, 3) read by linear") != std::string::npos,
                      sgd.stray_warning());
  // After a step the list starts again: a second optimiser sees only what follows it.
  d2l::Linear other(3, 2);
  d2l::SGD second(other.parameters(), 0.1f);
  d2l::sum(other(x)).backward();
  second.step();
  BOOST_CHECK_EQUAL(second.stray_warning(), "");
}

// --save cannot name a file the run writes without naming it: the SVG beside each PNG, the
// book flow's log and trace, or the file standard output goes to.
BOOST_AUTO_TEST_CASE(save_cannot_name_any_file_the_run_writes) {
  TempDir tmp("edges_save_over");
  const std::string exe = chapter_program("bahdanau_attention") + " --epochs 10 --out " + tmp("out");
  fs::create_directories(tmp("out"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {exe + " --save " + tmp("out/train_seq2seq.svg"), "is the same file as the loss figure's SVG"},
      {"D2L_BOOK_TRACE=" + tmp("bahdanau_attention.trace") + " " + exe + " --save " + tmp("bahdanau_attention.log"),
       "is the same file as the book flow's log"},
      {"D2L_BOOK_TRACE=" + tmp("bahdanau_attention.trace") + " " + exe + " --save " + tmp("bahdanau_attention.trace"),
       "is the same file as the book flow's trace"},
      {exe + " --save " + tmp("log"), "is the same file as this run's standard output"},
  };
  for (const auto& [cmd, want] : cases) {
    BOOST_TEST_CONTEXT(cmd) {
      BOOST_CHECK_EQUAL(run_command(cmd, tmp("log"), tmp("err")), 1);
      BOOST_CHECK_MESSAGE(read_file(tmp("err")).find(want) != std::string::npos, read_file(tmp("err")));
      BOOST_CHECK(read_file(tmp("log")).find("tokens/sec") == std::string::npos);  // refused before training
    }
  }
}

// The book flow (make run / make book) passes ARGS as words: quotes honoured, nothing run as a
// command, a failing chapter fails make and leaves no log, and ARGS=--quick (make help's
// example) reaches every chapter, also one with nothing to shorten.
BOOST_AUTO_TEST_CASE(book_flow_passes_args_as_words) {
  TempDir tmp("edges_book_flow");
  const std::string make = "make -s BUILD=" + build_dir() + " BOOK_RUN=" + tmp("br") + " -o " + build_dir() +
                           "/chapters/attention_cues ";
  auto args_file = [&](const std::string& args) {
    return run_command(make + tmp("br/args") + " ARGS=" + args, tmp("log"), tmp("err"));
  };
  BOOST_REQUIRE_EQUAL(args_file("\"--quick --translate \\\"i'm cold .\\\"\""), 0);
  BOOST_CHECK(read_file(tmp("br/args")) == std::string("--quick") + '\0' + "--translate" + '\0' + "i'm cold ." + '\0');
  // What once ran as a command is one word now (a chapter refuses it as an unknown option).
  BOOST_CHECK_EQUAL(args_file("\"--quick' ; touch " + tmp("X") + " ; echo '\""), 0);
  BOOST_CHECK(!fs::exists(tmp("X")));
  BOOST_CHECK(read_file(tmp("br/args")) == "--quick ; touch " + tmp("X") + " ; echo " + '\0');
  // A quote left open is an error.
  BOOST_CHECK_NE(args_file("\"--quick 'oops\""), 0);
  BOOST_CHECK_MESSAGE(read_file(tmp("err")).find("unmatched single quote") != std::string::npos, read_file(tmp("err")));
  // A chapter that fails fails make, and leaves no log; --quick runs one that has nothing to shorten.
  const std::string log = tmp("br/attention_cues.log");
  BOOST_CHECK_NE(run_command(make + log + " ARGS=--no-such-option", tmp("log"), tmp("err")), 0);
  BOOST_CHECK(!fs::exists(log));
  BOOST_CHECK_MESSAGE(run_command(make + log + " ARGS=--quick", tmp("log"), tmp("err")) == 0, read_file(tmp("err")));
  BOOST_CHECK(fs::exists(log));
  BOOST_CHECK(read_file(tmp("br/settings.txt")).find("arguments: --quick\n") != std::string::npos);
}

// Errors quote what they echo: control characters escaped, long values cut with their length.
BOOST_AUTO_TEST_CASE(errors_quote_input_safely) {
  BOOST_CHECK_EQUAL(d2l::quote_input("a\x1b[2J\nb\"\\"), "\"a\\u001b[2J\\nb\\\"\\\\\"");
  BOOST_CHECK_EQUAL(d2l::quote_input("caf\xc3\xa9 \xff \xc2\x9b"), "\"caf\xc3\xa9 \\xff \\u009b\"");
  BOOST_CHECK_EQUAL(d2l::quote_input(std::string(100, 'x'), 4), "\"xxxx...\" (100 bytes)");
  BOOST_CHECK_EQUAL(d2l::quote_input("5x", 80, '\''), "'5x'");
  TempDir tmp("edges_quote");
  const std::string exe = chapter_program("bahdanau_attention");
  // A 100 kB value (near the kernel's limit on one argument) and a terminal escape.
  BOOST_CHECK_EQUAL(run_command(exe + " --epochs " + std::string(100000, '7') + "x", tmp("log"), tmp("err")), 2);
  const std::string err = read_file(tmp("err"));
  const std::string first_line = err.substr(0, err.find('\n'));
  BOOST_CHECK_LT(first_line.size(), 300u);
  BOOST_CHECK_MESSAGE(first_line.find("(100001 bytes)") != std::string::npos, first_line.substr(0, 300));
  BOOST_CHECK_EQUAL(run_command(exe + " \"$(printf -- '--\\033[2Jbad')\"", tmp("log"), tmp("err")), 2);
  BOOST_CHECK_MESSAGE(read_file(tmp("err")).find("unknown option --\\u001b[2Jbad") != std::string::npos,
                      read_file(tmp("err")));
  BOOST_CHECK(read_file(tmp("err")).find('\x1b') == std::string::npos);
}

// The vocabulary fingerprint is standard FNV-1a 64 (offset basis 0xcbf29ce484222325), over
// each token's byte count (8 bytes, little-endian) and bytes: the published test vector and
// the three-line recipe give the same numbers.
BOOST_AUTO_TEST_CASE(vocabulary_fingerprint_is_standard_fnv1a64) {
  BOOST_CHECK_EQUAL(d2l::fnv1a64("", 0), 0xcbf29ce484222325ULL);
  BOOST_CHECK_EQUAL(d2l::fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);  // the FNV test vector for "a"
  BOOST_CHECK_EQUAL(d2l::fnv1a64("foobar", 6), 0x85944171f73967e8ULL);
  // Tokens "<unk>", "a": by hand, the bytes 05 00.. '<unk>' 01 00.. 'a' through FNV-1a 64.
  std::string bytes;
  for (const std::string t : {"<unk>", "a"}) {
    const uint64_t n = t.size();
    for (int i = 0; i < 8; ++i) bytes += static_cast<char>((n >> (8 * i)) & 0xFF);
    bytes += t;
  }
  const d2l::Vocab vocab(std::vector<std::vector<std::string>>{{"a"}});
  char want[64];
  std::snprintf(want, sizeof want, "2 tokens, fnv1a64 %016llx",
                static_cast<unsigned long long>(d2l::fnv1a64(bytes.data(), bytes.size())));
  BOOST_REQUIRE_EQUAL(vocab.idx_to_token().size(), 2u);
  BOOST_CHECK_EQUAL(d2l::vocab_fingerprint(vocab), want);
  // The recipe in Python, run on the same tokens, when python3 is there.
  const auto [rc, out] = d2l_test::run_capture(
      "python3 -c \"data = b''.join(len(t.encode()).to_bytes(8, 'little') + t.encode() for t in ['<unk>', 'a'])\n"
      "h = 0xcbf29ce484222325\nfor b in data: h = (h ^ b) * 0x100000001b3 % 2**64\nprint(f'2 tokens, fnv1a64 {h:016x}')\"");
  if (rc == 0) BOOST_CHECK_EQUAL(out, std::string(want) + "\n");
}

// --dump-attention FILE.npy writes every decoding step's weights over all key positions: each
// row a distribution (sums to 1), zero past the source and its <eos> (the mask).
BOOST_AUTO_TEST_CASE(dump_attention_writes_the_full_weights) {
  TempDir tmp("edges_dump");
  const std::string exe = chapter_program("bahdanau_attention") + " --epochs 2 --out " + tmp("out");
  BOOST_REQUIRE_MESSAGE(run_command(exe + " --translate \"i'm home .\" --dump-attention " + tmp("a.npy"), tmp("log"),
                                    tmp("err")) == 0,
                        read_file(tmp("err")));
  const d2l::NpyArray a = d2l::read_npy_file(tmp("a.npy"));
  BOOST_REQUIRE_EQUAL(a.shape.size(), 2u);
  BOOST_CHECK_EQUAL(a.shape[1], 10);  // num_steps
  BOOST_CHECK_GE(a.shape[0], 1);
  for (int64_t r = 0; r < a.shape[0]; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < 10; ++c) sum += a.values[r * 10 + c];
    BOOST_CHECK_CLOSE(sum, 1.0, 1e-3);
    for (int64_t c = 4; c < 10; ++c) BOOST_CHECK_EQUAL(a.values[r * 10 + c], 0.0f);  // i'm home . <eos>: 4 keys
  }
  BOOST_CHECK(read_file(tmp("log")).find("wrote " + tmp("a.npy") + ": attention weights (") != std::string::npos);
  // --save cannot name it.
  BOOST_CHECK_EQUAL(run_command(exe + " --dump-attention " + tmp("a.npy") + " --save " + tmp("a.npy"), tmp("log"),
                                tmp("err")),
                    1);
  BOOST_CHECK(read_file(tmp("err")).find("the --dump-attention array") != std::string::npos);
  // The writer's bytes: what np.save writes for a float32 (2, 3) array.
  d2l::write_npy(tmp("b.npy"), {2, 3}, {1, 2, 3, 4, 5, 6});
  const std::string b = read_file(tmp("b.npy"));
  BOOST_CHECK_EQUAL(b.size(), 128u + 24u);
  BOOST_CHECK_EQUAL(b.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  BOOST_CHECK(b.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") == 10u);
  BOOST_CHECK(d2l::read_npy_file(tmp("b.npy")).values == std::vector<float>({1, 2, 3, 4, 5, 6}));
}

// The book's model trained by PyTorch with the book's code and saved as a plain state_dict
// (tools/scripts/state_dict_torch.py) loads with --load FILE --data CORPUS, with the settings
// and fingerprints the script computed or with no metadata at all, and translates the book's
// four sentences as PyTorch did.
BOOST_AUTO_TEST_CASE(a_pytorch_state_dict_loads_with_the_corpus, *boost::unit_test::precondition(torch_available)) {
  TempDir tmp("edges_state_dict");
  const std::string corpus = "tests/fixtures/data/fra-eng/fra.txt";
  BOOST_REQUIRE_MESSAGE(run_command("/usr/bin/python3 tools/scripts/state_dict_torch.py --metadata --epochs 40 --data " +
                                        corpus + " --out " + tmp("meta.safetensors"),
                                    tmp("torch.log"), tmp("torch.err")) == 0,
                        read_file(tmp("torch.err")));
  std::vector<std::string> translations;  // "go . => va !" as PyTorch printed them
  std::istringstream torch_log(read_file(tmp("torch.log")));
  for (std::string line; std::getline(torch_log, line);)
    if (line.find(" => ") != std::string::npos) translations.push_back(line);
  BOOST_REQUIRE_EQUAL(translations.size(), 4u);
  // The same weights without any metadata: a plain state_dict.
  const d2l::SafetensorsFile f = d2l::read_safetensors(tmp("meta.safetensors"));
  BOOST_REQUIRE(!f.metadata.empty());
  d2l::write_safetensors(tmp("plain.safetensors"), f.tensors, {});
  for (const char* name : {"meta.safetensors", "plain.safetensors"}) {
    BOOST_TEST_CONTEXT(name) {
      const int rc = run_command(chapter_program("bahdanau_attention") + " --out " + tmp("out") + " --data " + corpus +
                                     " --load " + tmp(name),
                                 tmp("log"), tmp("err"));
      BOOST_REQUIRE_MESSAGE(rc == 0, read_file(tmp("err")));
      const std::string log = read_file(tmp("log"));
      for (const std::string& t : translations)
        BOOST_CHECK_MESSAGE(log.find(t + ",  bleu") != std::string::npos, t << " not in\n" << log);
      BOOST_CHECK_EQUAL(log.find("records no settings (a plain state_dict)") != std::string::npos,
                        std::string(name) == "plain.safetensors");
    }
  }
  // The fingerprints the script computed with the recipe are this program's: a corpus with
  // one more pair gives another order of tokens (counts change; min_freq 2 drops the new
  // words), and the file with metadata is refused, naming the vocabulary.
  write_file(tmp("more.txt"), read_file(corpus) + "Hi there.\tSalut toi.\n");
  BOOST_CHECK_EQUAL(run_command(chapter_program("bahdanau_attention") + " --out " + tmp("out") + " --data " +
                                    tmp("more.txt") + " --load " + tmp("meta.safetensors"),
                                tmp("log"), tmp("err")),
                    1);
  BOOST_CHECK_MESSAGE(read_file(tmp("err")).find("tgt_vocab: the file has '9 tokens, fnv1a64 ") != std::string::npos,
                      read_file(tmp("err")));
}

BOOST_AUTO_TEST_SUITE_END()
