// tests/test_nothing_lost.cpp — nothing lost, nothing silent: --save cannot name a file the
// program reads or writes, empty paths are errors, a resumed run's exercise table says which
// epoch it starts at, no input hangs or fills the memory (a FIFO with no writer, /dev/zero),
// --save-every writes resumable checkpoints and a full disk is found before training, every
// signal that ends a program removes a save's temporary, a weight that falls out of training
// is named by the optimiser, a parameter file from an 8-head model is refused by a 4-head
// one, and a layer's forward-made tensors say so when read too early.
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
#include <regex>
#include <string>
#include <vector>

#include "core/io/files.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "layers/attention_scoring_functions.h"
#include "core/nn/basic.h"
#include "layers/multihead_attention.h"
#include "tests/test_prelude.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/programs/heatmap/heatmap_text.h"

using d2l_test::kBundledFra;
using d2l_test::StderrCapture;
using d2l_test::write_file;

namespace {

std::string heatmap_tool() { return (fs::path(build_dir()) / "tools" / "heatmap").string(); }

// Runs `cmd` under timeout(1) (a regression must fail the test, not hang the suite); returns
// the exit status and the seconds it took.
std::pair<int, double> run_timed(const std::string& cmd, const std::string& out, const std::string& err) {
  const auto start = std::chrono::steady_clock::now();
  const int rc = run_command("timeout 10 " + cmd, out, err);
  return {rc, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nothing_lost)

// --save naming a figure the program writes after the model, or the corpus it reads, is
// refused before training: as the same file (a hard link, another spelling), not only the
// same text.
BOOST_AUTO_TEST_CASE(save_cannot_name_the_programs_own_files) {
  TempDir tmp("save_clobber");
  const std::string exe = chapter_program("bahdanau_attention");
  fs::create_directories(tmp("out"));
  write_file(tmp("corpus.txt"), read_file(kBundledFra));
  BOOST_REQUIRE(::link(tmp("corpus.txt").c_str(), tmp("linked.txt").c_str()) == 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--save " + tmp("out/train_seq2seq.png"), "is the same file as the loss figure"},
      {"--save " + tmp("out/../out/attention.png"), "is the same file as the attention figure"},
      {"--data " + tmp("corpus.txt") + " --save " + tmp("linked.txt"), "is the same file as --data"},
  };
  for (const auto& [args, want] : cases) {
    BOOST_TEST_CONTEXT(args) {
      const int rc = run_command(exe + " --epochs 10 --out " + tmp("out") + " " + args, tmp("log"), tmp("err"));
      BOOST_CHECK_EQUAL(rc, 1);
      BOOST_CHECK_MESSAGE(read_file(tmp("err")).find("error: [--save] ") != std::string::npos &&
                              read_file(tmp("err")).find(want) != std::string::npos,
                          read_file(tmp("err")));
      BOOST_CHECK(read_file(tmp("log")).find("tokens/sec") == std::string::npos);  // refused before training
    }
  }
  BOOST_CHECK(read_file(tmp("corpus.txt")) == read_file(kBundledFra));  // the corpus is intact
  // The NLI program's figure too.
  const int rc = run_command(chapter_program("natural_language_inference_attention") +
                                 " --data tests/fixtures/data/snli_1.0 --epochs 1 --out " + tmp("nli") + " --save " +
                                 tmp("nli/alignment.png"),
                             tmp("log"), tmp("err"));
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(read_file(tmp("err")).find("is the same file as the alignment figure") != std::string::npos,
                      read_file(tmp("err")));
  // The same name in another folder is another file.
  BOOST_CHECK(d2l::same_file(tmp("out/x.params"), tmp("out/../out/x.params")));
  BOOST_CHECK(!d2l::same_file(tmp("out/x.params"), tmp("x.params")));
  BOOST_CHECK(d2l::same_file(tmp("corpus.txt"), tmp("linked.txt")));
}

// An empty --save, --load or --resume is a usage error, not "not given".
BOOST_AUTO_TEST_CASE(empty_paths_are_errors) {
  TempDir tmp("empty_paths");
  const std::string exe = chapter_program("bahdanau_attention");
  for (const std::string name : {"save", "load", "resume"}) {
    BOOST_TEST_CONTEXT(name) {
      const int rc = run_command(exe + " --epochs 10 --out " + tmp("out") + " --" + name + "=", tmp("log"), tmp("err"));
      BOOST_CHECK_EQUAL(rc, 2);
      BOOST_CHECK_MESSAGE(read_file(tmp("err")).find("error: [--" + name + "] is empty") != std::string::npos,
                          read_file(tmp("err")));
      BOOST_CHECK(read_file(tmp("log")).find("tokens/sec") == std::string::npos);
    }
  }
}

// After --resume the exercise table's first-epoch column holds the first epoch this run
// trained, and says which; an uninterrupted run's row shows epoch 1 unmarked.
BOOST_AUTO_TEST_CASE(resumed_exercise_row_names_its_first_epoch) {
  TempDir tmp("resume_row");
  const std::string exe = chapter_program("bahdanau_attention") + " --rnn lstm --out " + tmp("out");
  BOOST_REQUIRE_EQUAL(run_command(exe + " --epochs 2 --save " + tmp("h.params"), tmp("log1"), tmp("err1")), 0);
  BOOST_REQUIRE_EQUAL(run_command(exe + " --epochs 3 --resume " + tmp("h.params"), tmp("log2"), tmp("err2")), 0);
  const std::string log = read_file(tmp("log2"));
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(log, m, std::regex(R"(\nlstm, additive +epoch 3: ([0-9.]+) +([0-9.]+) )")), log);
  // Epoch 3 is the last one, so the cell's loss is the final loss.
  BOOST_CHECK_EQUAL(m[1], m[2]);
  // The book's row, trained in one go, starts at epoch 1.
  BOOST_CHECK(std::regex_search(log, std::regex(R"(\ngru, additive \(the book\) +[0-9.]+ )")));
}

// transformer --epochs 5: the curve gets a point every 10 epochs, so there is none; the run
// says so instead of leaving the reader to look for loss.png.
BOOST_AUTO_TEST_CASE(short_run_says_why_there_is_no_curve) {
  TempDir tmp("no_curve");
  const int rc = run_command(chapter_program("transformer") +
                                 " --epochs 5 --data tests/fixtures/data/fra-eng/fra.txt --out " + tmp("out"),
                             tmp("log"), tmp("err"));
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK_MESSAGE(read_file(tmp("log")).find("no loss curve: " + tmp("out") + "/loss.png gets a point every 10 "
                                                 "epochs and this run trained 5") != std::string::npos,
                      read_file(tmp("log")));
  BOOST_CHECK(!fs::exists(tmp("out/loss.png")));
}

// The heatmap tool: a NUL byte in a text row is refused with its line (the values after it
// were dropped), and a nearly constant range gets colour-bar labels that differ.
BOOST_AUTO_TEST_CASE(heatmap_nul_byte_and_near_constant_ticks) {
  BOOST_CHECK_EXCEPTION(d2l::parse_heatmap_text(std::string("1 2 3\n4 5\0 6\n", 13), "m.txt"), std::runtime_error,
                        message_has({"m.txt:2: ", "NUL byte"}));
  d2l::HeatmapGrid grid{1, 1, 1, 2, {1.0f, 1.0000001f}};
  const d2l::HeatmapLayout L = d2l::heatmap_layout(grid, d2l::HeatmapOptions{});
  const std::vector<std::string> labels = d2l::tick_labels(L.colorbar_ticks);
  BOOST_REQUIRE_GE(labels.size(), 2u);
  for (size_t i = 0; i + 1 < labels.size(); ++i) BOOST_CHECK_NE(labels[i], labels[i + 1]);
  // Ranges that were labelled well keep their labels.
  BOOST_CHECK(d2l::tick_labels({0, 0.25, 0.5}) == (std::vector<std::string>{"0.00", "0.25", "0.50"}));
}

// A FIFO with no writer is refused within about a second by --data, --embeddings and the
// heatmap tool; /dev/zero is refused naming it; a pipe such as <(cat f) still works.
BOOST_AUTO_TEST_CASE(fifo_without_writer_and_dev_zero_are_refused) {
  TempDir tmp("fifo_inputs");
  BOOST_REQUIRE(::mkfifo(tmp("fifo").c_str(), 0600) == 0);
  const std::string fifo = tmp("fifo");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {chapter_program("bahdanau_attention") + " --epochs 10 --out " + tmp("o") + " --data " + fifo,
       "[read_data_nmt] " + fifo},
      {chapter_program("natural_language_inference_attention") + " --data tests/fixtures/data/snli_1.0 --out " +
           tmp("o") + " --embeddings " + fifo,
       "[TokenEmbedding] " + fifo},
      {heatmap_tool() + " --out " + tmp("h.png") + " " + fifo, "[heatmap] " + fifo},
  };
  for (const auto& [cmd, want] : cases) {
    BOOST_TEST_CONTEXT(cmd) {
      const auto [rc, seconds] = run_timed(cmd, tmp("log"), tmp("err"));
      BOOST_CHECK_EQUAL(rc, 1);  // 124 would be timeout's
      BOOST_CHECK_LT(seconds, 8.0);
      BOOST_CHECK_MESSAGE(read_file(tmp("err")).find(want + ": it is a FIFO and nothing arrived within a second") !=
                              std::string::npos,
                          read_file(tmp("err")));
    }
  }
  // In-process: /dev/zero is refused at its first NUL byte, naming it.
  BOOST_CHECK_EXCEPTION(d2l::read_text_file("/dev/zero", "reader", "hint"), std::invalid_argument,
                        message_has({"[reader] /dev/zero: ", "NUL byte", "character device"}));
  // A pipe with data and then its end reads as the file.
  const auto [rc, seconds] =
      run_timed("bash -c '" + heatmap_tool() + " --out " + tmp("p.png") + " <(printf \"1 2\\n3 4\\n\")'", tmp("log"),
                tmp("err"));
  (void)seconds;
  BOOST_CHECK_MESSAGE(rc == 0, read_file(tmp("err")));
  BOOST_CHECK(fs::exists(tmp("p.png")));
  // A regular file beyond the reader's bound is refused before it is read.
  BOOST_CHECK_EXCEPTION(d2l::read_input_file(kBundledFra, "reader", 100), std::runtime_error,
                        message_has({"[reader] ", "fra-eng-small.txt", "more than the 100 bytes"}));
}

// --save-every 10: the run writes a checkpoint after epoch 10 that is exactly the file a
// 10-epoch run saves (so --resume continues it as that one), then the final model.
BOOST_AUTO_TEST_CASE(save_every_writes_resumable_checkpoints) {
  TempDir tmp("save_every");
  const std::string exe = chapter_program("bahdanau_attention") + " --out " + tmp("out");
  BOOST_REQUIRE_EQUAL(
      run_command(exe + " --epochs 20 --save-every 10 --save " + tmp("all.params"), tmp("log"), tmp("err")), 0);
  const std::string log = read_file(tmp("log"));
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(log, m, std::regex("saved " + tmp("all.params") +
                                                             R"( after 10 of 20 epochs \((\d+) bytes, checksum ([0-9a-f]{16})\))")),
                        log);
  BOOST_REQUIRE_EQUAL(run_command(exe + " --epochs 10 --save " + tmp("ten.params"), tmp("log10"), tmp("err10")), 0);
  const std::string ten = read_file(tmp("ten.params"));
  BOOST_CHECK_EQUAL(std::to_string(ten.size()), m[1].str());
  char hex[17];
  uint64_t stored;
  std::memcpy(&stored, ten.data() + ten.size() - 8, 8);
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(stored));
  BOOST_CHECK_EQUAL(std::string(hex), m[2].str());
  BOOST_CHECK(log.find("saved " + tmp("all.params") + " (") != std::string::npos);  // and the final model
  // --save-every without --save has nowhere to write.
  BOOST_CHECK_EQUAL(run_command(exe + " --epochs 20 --save-every 10", tmp("log"), tmp("err")), 1);
  BOOST_CHECK(read_file(tmp("err")).find("[--save-every] needs --save FILE") != std::string::npos);
  // The room check: a folder without room for the model is refused (here: for 2^62 bytes).
  BOOST_CHECK_EXCEPTION(d2l::check_room_for(tmp("m.params"), uint64_t{1} << 62, "--save"), std::runtime_error,
                        message_has({"[--save] cannot write '" + tmp("m.params") + "'", "KiB free"}));
  BOOST_CHECK_NO_THROW(d2l::check_room_for(tmp("m.params"), 1024, "--save"));
}

// SIGHUP, SIGQUIT, SIGPIPE, SIGALRM and SIGUSR1 while a save's temporary exists (the heatmap
// tool stopped just before its rename) end the program by that signal and leave nothing.
BOOST_AUTO_TEST_CASE(every_ending_signal_removes_the_temporary) {
  for (const int sig : {SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1}) {
    BOOST_TEST_CONTEXT("signal " << sig) {
      TempDir tmp("signal_temporary");
      write_file(tmp("m.txt"), "1 2\n3 4\n");
      const std::string out = tmp("h.png"), exe = heatmap_tool(), input = tmp("m.txt");
      const pid_t pid = ::fork();
      if (pid == 0) {
        for (int s : {SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1}) ::signal(s, SIG_DFL);
        ::setenv("D2L_TEST_STOP_BEFORE_RENAME", "h.png.tmp", 1);
        if (!std::freopen(tmp("log").c_str(), "w", stdout) || !std::freopen(tmp("log").c_str(), "a", stderr)) ::_exit(126);
        ::execl(exe.c_str(), exe.c_str(), "--out", out.c_str(), input.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
      }
      BOOST_REQUIRE(pid > 0);
      int status = 0;
      BOOST_REQUIRE(::waitpid(pid, &status, WUNTRACED) == pid);
      BOOST_REQUIRE_MESSAGE(WIFSTOPPED(status), "the tool did not stop before the rename: " << read_file(tmp("log")));
      d2l_test::end_stopped_child(pid, sig, tmp.path);
    }
  }
}

// A layer that was never registered, and a weight replaced after construction: the optimiser
// names the tensor that received a gradient but that it does not update, by shape and op.
BOOST_AUTO_TEST_CASE(optimiser_names_weights_that_fell_out_of_training) {
  struct Net : d2l::Module {
    d2l::Linear registered{3, 2}, forgotten{3, 4};
    Net() { register_module("registered", registered); }  // "forgotten" never registered
  };
  Net net;
  StderrCapture err;
  d2l::SGD sgd(net.parameters(), 0.1f);
  const d2l::Tensor x = d2l::ones({5, 3});
  d2l::sum(net.registered(x)).backward();
  sgd.step();
  BOOST_CHECK_EQUAL(sgd.stray_warning(), "");  // every leaf reached is a parameter
  (d2l::sum(net.registered(x)) + d2l::sum(net.forgotten(x))).backward();
  sgd.step();
  BOOST_CHECK_MESSAGE(sgd.stray_warning().find("[SGD.step] 2 tensors received a gradient in the backward passes since the last step but are "
                                               "not among the parameters of any optimiser") != std::string::npos,
                      sgd.stray_warning());
  BOOST_CHECK(sgd.stray_warning().find("(4, 3) read by linear") != std::string::npos);
  BOOST_CHECK(sgd.stray_warning().find("(4,) read by linear") != std::string::npos);
  // A model split between two optimisers (one per part) leaves nothing unclaimed.
  {
    d2l::SGD first(net.registered.parameters(), 0.1f), second(net.forgotten.parameters(), 0.2f);
    (d2l::sum(net.registered(x)) + d2l::sum(net.forgotten(x))).backward();
    first.step();
    second.step();
    BOOST_CHECK_EQUAL(first.stray_warning(), "");
    BOOST_CHECK_EQUAL(second.stray_warning(), "");
  }
  // A weight replaced after construction (to share it): the forward reads the new tensor.
  d2l::Linear a(3, 2), b(3, 2);
  d2l::Adam adam(b.parameters(), 0.01f);
  b.weight = a.weight;
  d2l::sum(b(x)).backward();
  adam.step();
  BOOST_CHECK_MESSAGE(adam.stray_warning().find("[Adam.step] 1 tensor received") != std::string::npos &&
                          adam.stray_warning().find("(2, 3) read by linear") != std::string::npos,
                      adam.stray_warning());
  const std::string printed = err.text();
  BOOST_CHECK(printed.find("warning: [SGD.step] 2 tensors") != std::string::npos);
  BOOST_CHECK(printed.find("warning: [Adam.step] 1 tensor") != std::string::npos);
}

// Module::save records every MultiHeadAttention's num_heads: the shapes of an 8-head and a
// 4-head model agree, the file says which it is, and loading names both.
BOOST_AUTO_TEST_CASE(parameter_file_records_num_heads) {
  TempDir tmp("num_heads");
  d2l::MultiHeadAttention eight(16, 8, 0.0f), four(16, 4, 0.0f), four_again(16, 4, 0.0f);
  eight.save(tmp("eight.params"));
  BOOST_CHECK_EXCEPTION(four.load(tmp("eight.params")), std::runtime_error,
                        message_has({"[Module.load]", "eight.params", "num_heads: the file has '8', this run '4'"}));
  four.save(tmp("four.params"));
  BOOST_CHECK_NO_THROW(four_again.load(tmp("four.params")));
  BOOST_CHECK(four_again.W_q.weight.to_vector() == four.W_q.weight.to_vector());
}

// Reading attention_weights before the layer's first forward says that the forward makes it.
BOOST_AUTO_TEST_CASE(forward_made_tensors_say_so_when_read_early) {
  d2l::DotProductAttention attention(0.0f);
  BOOST_CHECK_EXCEPTION(attention.attention_weights.shape(), std::exception,
                        message_has({"undefined", "attention_weights", "first forward"}));
}

BOOST_AUTO_TEST_SUITE_END()
