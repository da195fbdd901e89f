// tests/test_tools_checkpoint.cpp — --save, --load and --resume (tools/d2l/train/checkpoint.h) and the
// chapter programs' outputs: the random generator's and Adam's state round-trip, a resumed
// training is bit for bit the uninterrupted one, a figure that cannot be written costs
// neither the model nor the other outputs, unwritable outputs are refused before training,
// concurrent runs saving to one path each describe their own file, a model for another
// corpus is refused, SIGINT during a save leaves no temporary behind, and a model saved as
// .safetensors loads back to the same translations.
#include <boost/test/unit_test.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/io/param_file.h"
#include "core/io/safetensors.h"
#include "core/io/json.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "core/nn/basic.h"
#include "layers/seq2seq.h"
#include "tests/test_prelude.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"
#include "tools/programs/crossover/crossover.h"

using d2l_test::kBundledFra;
using d2l_test::write_file;

namespace {

std::vector<float> values_of(const d2l::Module& m) {
  std::vector<float> v;
  for (const d2l::Tensor& t : m.parameters()) v.insert(v.end(), t.data(), t.data() + t.numel());
  return v;
}

// A small attention seq2seq on the bundled corpus, with dropout so that the generator matters.
struct SmallSeq2Seq {
  d2l::NmtData data = d2l::load_data_nmt(64, 8, 300, kBundledFra);
  d2l::Seq2SeqEncoder encoder{data.src_vocab.size(), 8, 16, 1, 0.2f};
  d2l::Seq2SeqAttentionDecoder decoder{data.tgt_vocab.size(), 8, 16, 1, 0.2f};
  d2l::EncoderDecoder net{encoder, decoder};
  d2l::TrainSeq2SeqResult train(int64_t num_epochs, d2l::Checkpoint* checkpoint) {
    d2l::TrainSeq2SeqOptions options;
    options.print_result = false;
    options.checkpoint = checkpoint;
    return d2l::train_seq2seq(net, data, 0.01f, num_epochs, data.tgt_vocab, "cpu", options);
  }
};

const d2l::ModelSettings kModel{{"model", "small"}}, kRun{{"batch_size", "64"}};

// The "saved PATH (N bytes, checksum X)" line of a run's output, as (N, X); (0, "") if none.
std::pair<uint64_t, std::string> saved_line(const std::string& log, const std::string& path) {
  std::smatch m;
  const std::regex re("saved " + std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                      R"( \((\d+) bytes, checksum ([0-9a-f]{16})\))");
  if (!std::regex_search(log, m, re)) return {0, ""};
  return {std::stoull(m[1]), m[2]};
}

// The checksum a parameter file ends with, as 16 hex digits, after checking it is right.
std::string file_checksum(const std::string& path) {
  const std::string bytes = read_file(path);
  BOOST_REQUIRE(bytes.size() > 8);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  BOOST_CHECK_EQUAL(stored, d2l::fnv1a64(bytes.data(), bytes.size() - 8));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(stored));
  return hex;
}

// Runs a program with an environment variable, stdout and stderr to files; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& env, const fs::path& out) {
  return spawn_logged(argv, out.string(), [&env] {
    // A suite started in the background by a shell without job control inherits an ignored
    // SIGINT, which the program rightly keeps ignoring; the test needs the default action.
    ::signal(SIGINT, SIG_DFL);
    ::putenv(const_cast<char*>(env.c_str()));
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_checkpoint)

// --- the pieces of a training state -----------------------------------------------------------

BOOST_AUTO_TEST_CASE(generator_state_round_trip) {
  d2l::manual_seed(11);
  d2l::random_normal();  // an odd number of normals: a spare is waiting
  const d2l::RngState s = d2l::get_rng_state();
  BOOST_CHECK(s.has_spare);
  std::vector<float> first;
  for (int i = 0; i < 5; ++i) first.push_back(d2l::random_normal() + d2l::random_uniform());
  d2l::manual_seed(99);
  d2l::set_rng_state(s);
  for (int i = 0; i < 5; ++i) BOOST_CHECK_EQUAL(d2l::random_normal() + d2l::random_uniform(), first[i]);
  BOOST_CHECK_EXCEPTION(d2l::set_rng_state(d2l::RngState{}), std::invalid_argument, message_has({"[set_rng_state] the all-zero state"}));
}

BOOST_AUTO_TEST_CASE(adam_state_round_trip_and_checks) {
  // Two identical parameters; one Adam steps 3 times, saves, a second continues: both take
  // the same 4th step bit for bit as an Adam that never stopped.
  auto make = [] {
    d2l::Tensor p = d2l::tensor({0.5f, -1.5f, 2.0f});
    p.requires_grad_();
    return p;
  };
  auto step = [](d2l::Adam& opt, d2l::Tensor& p, int k) {
    opt.zero_grad();
    d2l::sum(p * p * d2l::tensor({1.0f, 2.0f, 3.0f}) * static_cast<float>(k)).backward();
    opt.step();
  };
  d2l::Tensor a = make(), b = make();
  d2l::Adam straight({a}, 0.1f), first({b}, 0.1f);
  for (int k = 1; k <= 3; ++k) step(straight, a, k), step(first, b, k);
  const d2l::AdamState saved = first.state();
  BOOST_CHECK_EQUAL(saved.step, 3);
  d2l::Adam resumed({b}, 0.1f);
  resumed.load_state(saved);
  step(straight, a, 4), step(resumed, b, 4);
  BOOST_CHECK(a.to_vector() == b.to_vector());
  d2l::Adam other_lr({b}, 0.2f);
  BOOST_CHECK_EXCEPTION(other_lr.load_state(saved), std::invalid_argument,
                        message_has({"[Adam.load_state] the saved lr is 0.1, this optimiser's is 0.2"}));
  d2l::Tensor c = d2l::tensor({1.0f, 2.0f});
  d2l::Adam smaller({c}, 0.1f);
  BOOST_CHECK_EXCEPTION(smaller.load_state(saved), std::invalid_argument, message_has({"moments of parameter 0 have 3 and 3 values", "(2,)"}));
}

// --- resuming --------------------------------------------------------------------------------

// 4 epochs in one go, or 2 epochs, save, and a fresh model (other seed, other generator
// state) resumed for the last 2: the same losses and parameters, bit for bit.
BOOST_AUTO_TEST_CASE(resumed_seq2seq_training_is_bit_identical) {
  TempDir tmp("resume_seq2seq");
  d2l::manual_seed(21);
  SmallSeq2Seq straight;
  const d2l::TrainSeq2SeqResult all = straight.train(4, nullptr);
  d2l::manual_seed(21);
  SmallSeq2Seq first;
  d2l::Checkpoint save_half(kModel, kRun, tmp("half.params"));
  const d2l::TrainSeq2SeqResult half = first.train(2, &save_half);
  d2l::manual_seed(1234);  // another init and another generator: both must come from the file
  SmallSeq2Seq second;
  d2l::Checkpoint resume(kModel, kRun, tmp("end.params"), tmp("half.params"));
  const d2l::TrainSeq2SeqResult rest = second.train(4, &resume);
  const uint64_t next_draw = d2l::random_u64();
  BOOST_REQUIRE_EQUAL(all.epoch_loss.size(), 4u);
  BOOST_REQUIRE_EQUAL(half.epoch_loss.size(), 2u);
  BOOST_REQUIRE_EQUAL(rest.epoch_loss.size(), 2u);
  for (int e = 0; e < 2; ++e) BOOST_CHECK_EQUAL(half.epoch_loss[e], all.epoch_loss[e]);
  for (int e = 0; e < 2; ++e) BOOST_CHECK_EQUAL(rest.epoch_loss[e], all.epoch_loss[2 + e]);
  BOOST_CHECK(values_of(second.net) == values_of(straight.net));
  // The generator ends where the uninterrupted run's does.
  d2l::manual_seed(21);
  SmallSeq2Seq again;
  again.train(4, nullptr);
  BOOST_CHECK_EQUAL(next_draw, d2l::random_u64());

  // What --resume refuses, before changing the model.
  d2l::manual_seed(5);
  SmallSeq2Seq model;
  const std::vector<float> before = values_of(model.net);
  auto refused = [&](d2l::Checkpoint checkpoint, int64_t epochs, const std::vector<std::string>& parts) {
    BOOST_CHECK_EXCEPTION(model.train(epochs, &checkpoint), std::exception, message_has(parts));
  };
  refused(d2l::Checkpoint(kModel, kRun, "", tmp("half.params")), 2,
          {"[--resume] " + tmp("half.params") + ": holds 2 epochs already; give --epochs more than that"});
  refused(d2l::Checkpoint(kModel, {{"batch_size", "32"}}, "", tmp("half.params")), 4,
          {"the training run's settings differ from this run's: batch_size: the file has '64', this run '32'"});
  refused(d2l::Checkpoint({{"model", "big"}}, kRun, "", tmp("half.params")), 4,
          {"[Module.load]", "model: the file has 'small', this run 'big'"});
  model.net.save(tmp("plain.params"));  // parameters only
  refused(d2l::Checkpoint({}, kRun, "", tmp("plain.params")), 4, {"holds parameters but no training state", "--load it instead"});
  BOOST_CHECK(values_of(model.net) == before);
}

// --- the chapter programs --------------------------------------------------------------------

// bahdanau_attention: 20 epochs in one go, or 10 saved and resumed to 20. The loss lines, the
// parameter file (weights, Adam, generator, curve) and the loss figure are identical.
BOOST_AUTO_TEST_CASE(program_resume_matches_an_uninterrupted_run) {
  TempDir tmp("resume_program");
  const std::string exe = chapter_program("bahdanau_attention");
  auto run = [&](const std::string& args, const std::string& name) {
    const int rc = run_command(exe + " --out " + tmp(name) + " " + args, tmp(name + ".log"), tmp(name + ".err"));
    BOOST_CHECK_MESSAGE(rc == 0, name << " exited " << rc << ": " << read_file(tmp(name + ".err")));
    return read_file(tmp(name + ".log"));
  };
  const std::string all = run("--epochs 20 --save " + tmp("all.params"), "all");
  run("--epochs 10 --save " + tmp("half.params"), "half");
  const std::string rest = run("--epochs 20 --resume " + tmp("half.params") + " --save " + tmp("rest.params"), "rest");
  BOOST_CHECK(rest.find("resumed " + tmp("half.params") + " after 10 epochs") != std::string::npos);
  const std::regex epoch20(R"(epoch 20/20, loss ([0-9.]+))"), final_loss(R"(\nloss ([0-9.]+), )");
  std::smatch a, b;
  BOOST_REQUIRE(std::regex_search(all, a, epoch20) && std::regex_search(rest, b, epoch20));
  BOOST_CHECK_EQUAL(a[1], b[1]);
  BOOST_REQUIRE(std::regex_search(all, a, final_loss) && std::regex_search(rest, b, final_loss));
  BOOST_CHECK_EQUAL(a[1], b[1]);
  BOOST_CHECK(read_file(tmp("all.params")) == read_file(tmp("rest.params")));
  BOOST_CHECK(read_file(tmp("all") + "/train_seq2seq.png") == read_file(tmp("rest") + "/train_seq2seq.png"));
  // The translations after it are the same too.
  auto translations = [](const std::string& log) {
    static const std::regex line(".* => .*");
    std::string lines;
    for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end; ++it) lines += it->str() + "\n";
    return lines;
  };
  BOOST_CHECK(!translations(all).empty());
  BOOST_CHECK_EQUAL(translations(all), translations(rest));
}

// The other two training programs, on the test fixtures (6 pairs each, so a run takes
// seconds): transformer (10.7, train_seq2seq) 20 epochs or 10 + 10, and the NLI program
// (15.5, train_ch13) 3 epochs or 1 + 2. Each resumed run ends with the uninterrupted run's
// parameter file (weights, Adam's moments and step count, the generator, the curves), byte
// for byte, and prints its final losses and its predictions.
BOOST_AUTO_TEST_CASE(program_resume_matches_for_transformer_and_nli) {
  struct Case {
    const char* name;
    std::string data;
    int64_t half, all;
    std::regex last_loss, predictions;
  };
  const std::vector<Case> cases = {
      {"transformer", "--data tests/fixtures/data/fra-eng/fra.txt", 10, 20, std::regex(R"(\nloss ([0-9.]+), )"),
       std::regex(".* => .*")},
      {"natural_language_inference_attention",
       "--data tests/fixtures/data/snli_1.0 --embeddings tests/fixtures/data/glove.6B.100d/vec.txt --batch-size 4", 1, 3,
       std::regex(R"(\nloss [0-9.]+, train acc [0-9.]+, test acc [0-9.]+)"),
       std::regex("test acc by epoch:.*|'(entailment|contradiction|neutral)'")},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      TempDir tmp(std::string("resume_") + c.name);
      const std::string exe = chapter_program(c.name);
      auto run = [&](const std::string& args, const std::string& name) {
        const int rc = run_command(exe + " --threads 1 " + c.data + " --out " + tmp(name) + " " + args, tmp(name + ".log"),
                                   tmp(name + ".err"));
        BOOST_CHECK_MESSAGE(rc == 0, name << " exited " << rc << ": " << read_file(tmp(name + ".err")));
        return read_file(tmp(name + ".log"));
      };
      const std::string all_epochs = std::to_string(c.all);
      const std::string all = run("--epochs " + all_epochs + " --save " + tmp("all.params"), "all");
      run("--epochs " + std::to_string(c.half) + " --save " + tmp("half.params"), "half");
      const std::string rest =
          run("--epochs " + all_epochs + " --resume " + tmp("half.params") + " --save " + tmp("rest.params"), "rest");
      BOOST_CHECK(rest.find("resumed " + tmp("half.params") + " after " + std::to_string(c.half) + " epochs") !=
                  std::string::npos);
      BOOST_CHECK(read_file(tmp("all.params")) == read_file(tmp("rest.params")));
      std::smatch a, b;
      BOOST_REQUIRE(std::regex_search(all, a, c.last_loss) && std::regex_search(rest, b, c.last_loss));
      BOOST_CHECK_EQUAL(a[0], b[0]);
      auto lines = [&](const std::string& log) {
        std::string out;
        for (std::sregex_iterator it(log.begin(), log.end(), c.predictions), end; it != end; ++it) out += it->str() + "\n";
        return out;
      };
      BOOST_CHECK(!lines(all).empty());
      BOOST_CHECK_EQUAL(lines(all), lines(rest));
    }
  }
}

// A figure that cannot be written (a directory in its place) no longer stops the run before
// --save: the model is saved first, the translations still print, and every figure that
// failed is listed at the end with exit status 1.
BOOST_AUTO_TEST_CASE(program_figure_failure_keeps_the_model) {
  TempDir tmp("figure_fails");
  const std::string exe = chapter_program("bahdanau_attention");
  fs::create_directories(tmp("out/train_seq2seq.png"));
  fs::create_directories(tmp("out/attention.png"));
  const int rc = run_command(exe + " --epochs 10 --save " + tmp("m.params") + " --out " + tmp("out"), tmp("log"), tmp("err"));
  const std::string log = read_file(tmp("log")), err = read_file(tmp("err"));
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(saved_line(log, tmp("m.params")).first > 0, log);
  BOOST_CHECK(log.find("i'm home . => ") != std::string::npos);
  BOOST_CHECK(log.find("saved " + tmp("out/train_seq2seq.png")) == std::string::npos);
  BOOST_CHECK_MESSAGE(err.find("error: [plot] cannot write '" + tmp("out/train_seq2seq.png") + "': it is a directory") !=
                          std::string::npos, err);
  BOOST_CHECK_MESSAGE(err.find("error: [show_heatmaps] cannot write '" + tmp("out/attention.png") + "': it is a directory") !=
                          std::string::npos, err);
  // The model is whole and loads.
  BOOST_CHECK_EQUAL(run_command(exe + " --load " + tmp("m.params") + " --out " + tmp("out2"), tmp("log2"), tmp("err2")), 0);
  BOOST_CHECK(read_file(tmp("log2")).find("loaded " + tmp("m.params") + " (training skipped)") != std::string::npos);
}

// Outputs that cannot be written are refused before the training starts.
BOOST_AUTO_TEST_CASE(program_refuses_unwritable_outputs_before_training) {
  TempDir tmp("refuse_early");
  const std::string exe = chapter_program("bahdanau_attention");
  BOOST_REQUIRE(::mkfifo(tmp("fifo").c_str(), 0600) == 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--save " + tmp("fifo"), "error: [--save] cannot write '" + tmp("fifo") + "': it is a FIFO"},
      {"--save " + tmp("no_dir/m.params"), "error: [--save] cannot write '" + tmp("no_dir/m.params") + "'"},
      {"--save /dev/null", "error: [--save] cannot write '/dev/null': it is a character device"},
      // /proc takes no new files, not even from root.
      {"--save " + tmp("m.params") + " --out /proc", "error: [--out] the figures cannot be written to '/proc'"},
  };
  for (const auto& [args, want] : cases) {
    BOOST_TEST_CONTEXT(args) {
      const int rc = run_command(exe + " --epochs 10 --out " + tmp("out") + " " + args, tmp("log"), tmp("err"));
      BOOST_CHECK_EQUAL(rc, 1);
      BOOST_CHECK_MESSAGE(read_file(tmp("err")).find(want) != std::string::npos, read_file(tmp("err")));
      BOOST_CHECK(read_file(tmp("log")).find("Training") == std::string::npos);  // refused before it
    }
  }
  BOOST_CHECK(fs::is_fifo(fs::symlink_status(tmp("fifo"))));
  BOOST_CHECK(fs::is_character_file("/dev/null"));
}

// Two runs saving to one path at once, three times: both succeed, and the file there is
// exactly the one that one of the two runs' "saved" lines describes (size and checksum).
BOOST_AUTO_TEST_CASE(program_concurrent_saves_describe_their_file) {
  TempDir tmp("concurrent_runs");
  const std::string exe = chapter_program("bahdanau_attention"), shared = tmp("shared.params");
  for (int pair = 0; pair < 3; ++pair) {
    auto cmd = [&](int seed) {
      const std::string s = std::to_string(seed);
      return exe + " --epochs 1 --seed " + s + " --save " + shared + " --out " + tmp("out" + s) + " >" + tmp(s + ".log") +
             " 2>&1";
    };
    const std::string both = "sh -c '" + cmd(2 * pair) + " & a=$!; " + cmd(2 * pair + 1) + "; b=$?; wait $a; exit $(($? | b))'";
    BOOST_REQUIRE_EQUAL(run_command(both, tmp("sh.log"), tmp("sh.err")), 0);
    const auto a = saved_line(read_file(tmp(std::to_string(2 * pair) + ".log")), shared);
    const auto b = saved_line(read_file(tmp(std::to_string(2 * pair + 1) + ".log")), shared);
    BOOST_REQUIRE(a.first > 0 && b.first > 0);
    BOOST_CHECK_NE(a.second, b.second);  // two seeds, two models
    const std::string there = file_checksum(shared);
    BOOST_CHECK_MESSAGE((there == a.second && fs::file_size(shared) == a.first) ||
                            (there == b.second && fs::file_size(shared) == b.first),
                        "the file " << there << " is neither run's: " << a.second << ", " << b.second);
  }
  for (const auto& e : fs::directory_iterator(tmp.path))
    BOOST_CHECK_MESSAGE(e.path().string().find(".tmp") == std::string::npos, "left " << e.path());
}

// The issue's case: a model trained on one corpus loaded in a run on another whose
// vocabularies have the same sizes. One English word renamed everywhere keeps every count.
BOOST_AUTO_TEST_CASE(program_refuses_a_model_for_another_corpus) {
  TempDir tmp("other_corpus");
  const std::string exe = chapter_program("bahdanau_attention");
  std::string text = read_file(kBundledFra);
  text = std::regex_replace(text, std::regex(R"(\bhome\b)"), "hoem");
  write_file(tmp("other.txt"), text);
  BOOST_REQUIRE_EQUAL(run_command(exe + " --epochs 1 --save " + tmp("m.params") + " --out " + tmp("o"), tmp("log"), tmp("err")), 0);
  const int rc = run_command(exe + " --load " + tmp("m.params") + " --data " + tmp("other.txt") + " --out " + tmp("o"),
                             tmp("log"), tmp("err"));
  const std::string err = read_file(tmp("err"));
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(std::regex_search(err, std::regex(R"(src_vocab: the file has '(\d+) tokens, fnv1a64 [0-9a-f]{16}', )"
                                                        R"(this run '\1 tokens, fnv1a64 [0-9a-f]{16}')")),
                      err);
  BOOST_CHECK(err.find("tgt_vocab") == std::string::npos);  // only the English side changed
  BOOST_CHECK(read_file(tmp("log")).find("=>") == std::string::npos);  // nothing translated
}

// SIGINT while a temporary is in flight (the program stops itself just before the rename,
// through the test-only D2L_TEST_STOP_BEFORE_RENAME): the process dies of SIGINT and
// leaves no temporary; the model saved before a figure's interruption stays.
BOOST_AUTO_TEST_CASE(program_interrupted_during_a_save_leaves_no_temporary) {
  const std::string exe = chapter_program("bahdanau_attention");
  for (const std::string stop : {"m.params.tmp", "train_seq2seq.png.tmp"}) {
    BOOST_TEST_CONTEXT("stopped at " << stop) {
      TempDir tmp("interrupted_program");
      const pid_t pid = spawn({exe, "--epochs", "10", "--save", tmp("m.params"), "--out", tmp("out")},
                              "D2L_TEST_STOP_BEFORE_RENAME=" + stop, tmp("log"));
      BOOST_REQUIRE(pid > 0);
      int status = 0;
      BOOST_REQUIRE(::waitpid(pid, &status, WUNTRACED) == pid);
      BOOST_REQUIRE_MESSAGE(WIFSTOPPED(status), "the program did not stop before the rename: " << read_file(tmp("log")));
      int temporaries = 0;
      for (const auto& e : fs::recursive_directory_iterator(tmp.path))
        temporaries += e.path().filename().string().find(stop + ".") == 0;
      BOOST_CHECK_EQUAL(temporaries, 1);
      d2l_test::end_stopped_child(pid, SIGINT, tmp.path);
      // Stopped at the figure: the model was saved before it.
      BOOST_CHECK_EQUAL(fs::exists(tmp("m.params")), stop != "m.params.tmp");
    }
  }
}

// The chapter programs: --save FILE.safetensors then --load FILE.safetensors give the same
// translations (10.4, on the 6-pair fixture corpus) and the same w (10.2); the file's outputs
// through crossover_outputs are the program's translations.
BOOST_AUTO_TEST_CASE(programs_save_and_load_safetensors) {
  TempDir tmp("safetensors_programs");
  auto run = [&](const char* name, const std::string& args, const std::string& tag) {
    const std::string exe = (std::filesystem::path(d2l_test::build_dir()) / "chapters" / name).string();
    const int rc = d2l_test::run_command(exe + " --threads 1 --out " + tmp(tag) + " " + args, tmp(tag + ".log"), tmp(tag + ".err"));
    BOOST_CHECK_MESSAGE(rc == 0, tag << " exited " << rc << ": " << read_file(tmp(tag + ".err")));
    return read_file(tmp(tag + ".log"));
  };
  auto lines = [](const std::string& log, const std::string& pattern) {
    const std::regex re(pattern);
    std::string out;
    for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it) out += it->str() + "\n";
    return out;
  };
  const std::string data = "--data tests/fixtures/data/fra-eng/fra.txt --epochs 5 ";
  const std::string trained = run("bahdanau_attention", data + "--save " + tmp("b.safetensors"), "train");
  const std::string loaded = run("bahdanau_attention", data + "--load " + tmp("b.safetensors"), "load");
  BOOST_CHECK(loaded.find("loaded " + tmp("b.safetensors") + " (training skipped)") != std::string::npos);
  const std::string translations = lines(trained, ".* => [^,]*");
  BOOST_TEST(std::count(translations.begin(), translations.end(), '\n') == 4);
  BOOST_TEST(translations == lines(loaded, ".* => [^,]*"));
  std::ostringstream json;
  d2l::crossover_outputs(json, tmp("b.safetensors"));
  const d2l::JsonValue v = d2l::parse_json(json.str());
  std::string from_file;
  for (const d2l::JsonValue& r : v.members[0].second.items)
    from_file += r.members[0].second.text + " => " + r.members[1].second.text + "\n";
  BOOST_TEST(from_file == translations);
  // 10.2: w alone.
  const std::string nw = run("nadaraya_watson", "--quick --save " + tmp("nw.safetensors"), "nw");
  BOOST_TEST(nw.find("saved " + tmp("nw.safetensors")) != std::string::npos);
  const d2l::SafetensorsFile f = d2l::read_safetensors(tmp("nw.safetensors"));
  BOOST_REQUIRE_EQUAL(f.tensors.size(), 1u);
  char w[32];
  std::snprintf(w, sizeof w, "w = %g", f.tensors[0].values[0]);
  BOOST_TEST(run("nadaraya_watson", "--load " + tmp("nw.safetensors"), "nw_load").find(w) != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
