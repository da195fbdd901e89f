// tests/test_core_param_file.cpp — writing and reading files safely (core/io/files.h) and the
// parameter-file format (core/io/param_file.h): targets that are not regular files are refused
// before anything is written, concurrent writers never mix their files, inputs that are not
// regular files are refused before a byte is read, the model's settings and vocabularies
// must match, non-finite weights and the old format are refused, and SIGINT/SIGTERM leave
// no temporary behind.
#include <boost/test/unit_test.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/io/files.h"
#include "core/io/param_file.h"
#include "core/random.h"
#include "core/nn/basic.h"
#include "tests/test_util.h"
#include "tools/d2l/data/vocab.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/checkpoint.h"

using d2l_test::message_has;
using d2l_test::read_file;
using d2l_test::TempDir;
using d2l_test::write_file;
namespace fs = std::filesystem;

namespace {

// The names in a directory, sorted.
std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

std::vector<float> values_of(const d2l::Module& m) {
  std::vector<float> v;
  for (const d2l::Tensor& t : m.parameters()) v.insert(v.end(), t.data(), t.data() + t.numel());
  return v;
}

// A file's bytes with the FNV-1a checksum recomputed over everything before its last 8 bytes:
// a well-formed file with a content the writer would never produce.
std::string with_checksum(std::string bytes) {
  bytes.resize(bytes.size() - 8);
  const uint64_t h = d2l::fnv1a64(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(&h), sizeof h);
  return bytes;
}

d2l::Vocab vocab_of(const std::vector<std::string>& tokens) { return d2l::Vocab({tokens}); }

}  // namespace

BOOST_AUTO_TEST_SUITE(core_param_file)

// --- writing ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(save_refuses_targets_that_are_not_regular_files) {
  TempDir tmp("not_regular");
  d2l::manual_seed(1);
  d2l::Linear net(3, 2);
  const std::string regular = tmp.write("regular.params", "keep me");
  BOOST_REQUIRE(::mkfifo(tmp("fifo").c_str(), 0600) == 0);
  fs::create_symlink(regular, tmp("link"));  // renaming over the link would replace the link
  fs::create_symlink(tmp("nowhere"), tmp("dangling"));
  fs::create_directory(tmp("dir"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fifo", "a FIFO"}, {"link", "a symbolic link"}, {"dangling", "a symbolic link"}, {"dir", "a directory"}};
  for (const auto& [name, kind] : cases) {
    const std::string p = tmp(name);
    BOOST_TEST_CONTEXT(name) {
      BOOST_CHECK_EXCEPTION(net.save(p), std::runtime_error,
                            message_has({"[Module.save] cannot write '" + p + "': it is " + kind +
                                         ", not a regular file; refusing to replace it"}));
      // A figure is refused the same way (the PNG writer shares the code).
      BOOST_CHECK_EXCEPTION(d2l::plot({0.0f, 1.0f}, {{0.0f, 1.0f}}, {}, p), std::runtime_error,
                            message_has({"[plot] cannot write '" + p + "': it is " + kind}));
    }
  }
  BOOST_CHECK(fs::is_fifo(fs::symlink_status(tmp("fifo"))));
  BOOST_CHECK(fs::is_symlink(fs::symlink_status(tmp("link"))) && fs::is_symlink(fs::symlink_status(tmp("dangling"))));
  BOOST_CHECK(fs::is_directory(tmp("dir")) && fs::is_empty(tmp("dir")));
  BOOST_CHECK_EQUAL(read_file(regular), "keep me");
  // A device node: a copy of /dev/null made here where that is allowed (root), so that even
  // a regression could only replace the copy.
  if (::mknod(tmp("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    BOOST_CHECK_EXCEPTION(net.save(tmp("null")), std::runtime_error, message_has({"it is a character device"}));
    BOOST_CHECK(fs::is_character_file(fs::symlink_status(tmp("null"))));
  } else {
    BOOST_TEST_MESSAGE("mknod not permitted here: the device case rests on /dev/null below");
  }
  // Nothing was written: no temporary next to any of them.
  for (const std::string& n : names_in(tmp.path)) BOOST_CHECK_MESSAGE(n.find(".tmp") == std::string::npos, "left " << n);
  // /dev/null itself: the check only looks (lstat) and writes nothing. Module::save on it runs
  // only where /dev is not writable, so not even a regression could replace the device.
  BOOST_CHECK_EXCEPTION(d2l::check_writable_target("/dev/null", "--save"), std::runtime_error,
                        message_has({"[--save] cannot write '/dev/null': it is a character device"}));
  if (::access("/dev", W_OK) != 0)
    BOOST_CHECK_EXCEPTION(net.save("/dev/null"), std::runtime_error, message_has({"it is a character device"}));
  BOOST_CHECK(fs::is_character_file("/dev/null"));
  // A regular file and a new name are fine; the check leaves nothing behind.
  d2l::check_writable_target(regular, "--save");
  d2l::check_writable_target(tmp("new.params"), "--save");
  BOOST_CHECK(!fs::exists(tmp("new.params")));
  BOOST_CHECK_EXCEPTION(d2l::check_writable_target(tmp("no_dir/x.params"), "--save"), std::runtime_error,
                        message_has({"[--save] cannot write '" + tmp("no_dir/x.params") + "'", "No such file or directory"}));
}

BOOST_AUTO_TEST_CASE(saved_files_have_the_usual_mode) {
  // mkstemp makes 0600 files; the rename must not leave the model readable by its owner only.
  TempDir tmp("mode");
  d2l::Linear net(2, 2);
  const mode_t old = ::umask(022);
  net.save(tmp("m.params"));
  ::umask(old);
  struct stat st;
  BOOST_REQUIRE(::stat(tmp("m.params").c_str(), &st) == 0);
  BOOST_CHECK_EQUAL(st.st_mode & 0777, 0644u);
}

// Two writers of one path, each saving its own model again and again, and a reader loading
// the path meanwhile: every read sees one writer's whole file, never a mix, and at the end
// the file is one of the two, with no temporary left. (A fixed temporary name fails this:
// one writer truncates the other's half-written temporary, or renames it away.)
BOOST_AUTO_TEST_CASE(concurrent_saves_never_mix) {
  TempDir tmp("concurrent");
  d2l::manual_seed(2);
  d2l::Linear a(40, 30), b(40, 30);
  a.save(tmp("a.params"));
  b.save(tmp("b.params"));
  const std::string bytes_a = read_file(tmp("a.params")), bytes_b = read_file(tmp("b.params"));
  BOOST_REQUIRE(bytes_a != bytes_b && bytes_a.size() == bytes_b.size());
  const std::string shared = tmp("shared.params");
  std::atomic<int> failures{0}, mixed{0}, reads{0};
  std::atomic<bool> done{false};
  auto writer = [&](const d2l::Linear& net) {
    for (int i = 0; i < 150; ++i) try {
        net.save(shared);
      } catch (const std::exception&) {
        ++failures;
      }
  };
  std::thread reader([&] {
    while (!done) {
      if (!fs::exists(shared)) continue;
      const std::string got = read_file(shared);
      ++reads;
      if (got != bytes_a && got != bytes_b) ++mixed;
    }
  });
  std::thread wa(writer, std::cref(a)), wb(writer, std::cref(b));
  wa.join(), wb.join();
  done = true;
  reader.join();
  BOOST_TEST_MESSAGE(reads << " reads during 300 saves");
  BOOST_CHECK_EQUAL(failures.load(), 0);
  BOOST_CHECK_EQUAL(mixed.load(), 0);
  const std::string final_bytes = read_file(shared);
  BOOST_CHECK(final_bytes == bytes_a || final_bytes == bytes_b);
  BOOST_CHECK((names_in(tmp.path) == std::set<std::string>{"a.params", "b.params", "shared.params"}));
}

BOOST_AUTO_TEST_CASE(non_finite_weights_are_not_saved) {
  TempDir tmp("nan_save");
  d2l::Linear net(3, 2);
  net.weight.data()[4] = NAN;
  BOOST_CHECK_EXCEPTION(net.save(tmp("m.params")), std::runtime_error,
                        message_has({"[Module.save] cannot write '" + tmp("m.params") + "'",
                                     "parameter 'weight' holds NaN at flat index 4", "D2L_CHECK_NUMERICS=1"}));
  net.weight.data()[4] = 0.0f;
  net.bias.data()[1] = -INFINITY;
  BOOST_CHECK_EXCEPTION(net.save(tmp("m.params")), std::runtime_error,
                        message_has({"parameter 'bias' holds inf at flat index 1"}));
  BOOST_CHECK(fs::is_empty(tmp.path));
}

// --- reading ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(load_refuses_devices_fifos_and_directories_before_reading) {
  TempDir tmp("not_regular_load");
  d2l::manual_seed(3);
  d2l::Linear net(3, 2);
  const std::vector<float> before = values_of(net);
  // /dev/zero has no end: reading it whole would eat all memory.
  BOOST_CHECK_EXCEPTION(net.load("/dev/zero"), std::runtime_error,
                        message_has({"[Module.load] /dev/zero: it is a character device, not a regular file; refusing to read it"}));
  BOOST_CHECK_EXCEPTION(net.load(tmp.path.string()), std::runtime_error, message_has({"it is a directory"}));
  // A FIFO: opening it for reading waits for a writer. A watchdog thread plays that writer
  // after 20 s, so that a regression fails this test instead of hanging the suite.
  const std::string fifo = tmp("fifo");
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false, watchdog_fired = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (cv.wait_for(lock, std::chrono::seconds(20), [&] { return finished; })) return;
    watchdog_fired = true;
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  });
  BOOST_CHECK_EXCEPTION(net.load(fifo), std::runtime_error, message_has({"[Module.load] " + fifo + ": it is a FIFO"}));
  {
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
  }
  cv.notify_one();
  watchdog.join();
  BOOST_CHECK_MESSAGE(!watchdog_fired, "load blocked on the FIFO until the watchdog opened it");
  // Large regular files (sparse: no disk used) are judged by their first 12 bytes and their
  // size: neither is read whole.
  const std::string zeros = tmp("zeros");
  write_file(zeros, "");
  fs::resize_file(zeros, 256u << 20);
  BOOST_CHECK_EXCEPTION(net.load(zeros), std::runtime_error, message_has({"not a d2l parameter file (bad magic)"}));
  const std::string big = tmp("big");
  const uint32_t version = 2;
  write_file(big, std::string("D2LPARAM") + std::string(reinterpret_cast<const char*>(&version), 4));
  fs::resize_file(big, 256u << 20);
  BOOST_CHECK_EXCEPTION(net.load(big), std::runtime_error,
                        message_has({"268435456 bytes, more than a parameter file of this model can have"}));
  BOOST_CHECK(values_of(net) == before);
}

BOOST_AUTO_TEST_CASE(old_and_future_formats) {
  TempDir tmp("formats");
  d2l::Linear net(3, 2);
  // Format 1: "D2LPARAM" | u32 1 | u32 count | parameters | checksum, no settings.
  std::string v1("D2LPARAM");
  const uint32_t one = 1, count = 2;
  v1.append(reinterpret_cast<const char*>(&one), 4).append(reinterpret_cast<const char*>(&count), 4);
  v1 += std::string(100, '\0');
  write_file(tmp("v1.params"), with_checksum(v1));
  BOOST_CHECK_EXCEPTION(net.load(tmp("v1.params")), std::runtime_error,
                        message_has({"[Module.load] " + tmp("v1.params") + ": written in the old format 1",
                                     "no model settings and no vocabulary fingerprints", "train again and --save it"}));
  net.save(tmp("v2.params"));
  std::string v3 = read_file(tmp("v2.params"));
  v3[8] = 3;
  write_file(tmp("v3.params"), with_checksum(v3));
  BOOST_CHECK_EXCEPTION(net.load(tmp("v3.params")), std::runtime_error,
                        message_has({"format version 3, this program reads version 2"}));
}

BOOST_AUTO_TEST_CASE(load_refuses_non_finite_values) {
  TempDir tmp("nan_load");
  d2l::manual_seed(4);
  d2l::Linear saved(3, 2), net(3, 2);
  saved.save(tmp("m.params"));
  const std::string bytes = read_file(tmp("m.params"));
  // The weight's data follows its name, the ndim and the two sizes.
  const size_t data = bytes.find("weight") + 6 + 4 + 2 * 8;
  const std::vector<float> before = values_of(net);
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    std::string c = bytes;
    std::memcpy(&c[data + 4 * 2], &bad, 4);  // flat index 2
    write_file(tmp("bad.params"), with_checksum(c));
    BOOST_CHECK_EXCEPTION(net.load(tmp("bad.params")), std::runtime_error,
                          message_has({"parameter 'weight' holds " + std::string(std::isnan(bad) ? "NaN" : "inf") +
                                       " at flat index 2", "refusing a model that is not finite"}));
  }
  BOOST_CHECK(values_of(net) == before);
}

// A training section whose Adam settings no Adam accepts (the fuzz target's invariant: a file
// that reads has a state an Adam over the model can load). It used to read, and only a
// later resume refused it, comparing it with the run's own settings.
BOOST_AUTO_TEST_CASE(load_refuses_optimiser_settings_adam_refuses) {
  TempDir tmp("adam_settings");
  d2l::manual_seed(6);
  d2l::Linear net(3, 2);
  const d2l::Adam adam(net.parameters(), 0.01f);
  d2l::TrainingState good;
  good.epochs_done = 1;
  good.optimizer = adam.state();
  good.rng = d2l::get_rng_state();
  const std::string path = tmp("m.params");
  d2l::save_param_file(path, net, {}, &good);
  BOOST_REQUIRE(d2l::read_param_file(path, net, {}).training.has_value());
  struct Case {
    std::function<void(d2l::AdamState&)> spoil;
    std::string says;
  };
  const std::vector<Case> cases = {
      {[](d2l::AdamState& a) { a.lr = -1.0f; }, "lr must be >= 0 and finite, got -1"},
      {[](d2l::AdamState& a) { a.beta1 = 1.0f; }, "beta1 must be in [0, 1), got 1"},
      {[](d2l::AdamState& a) { a.beta2 = -0.5f; }, "beta2 must be in [0, 1), got -0.5"},
      {[](d2l::AdamState& a) { a.eps = 0.0f; }, "eps must be > 0 and finite, got 0"},
      {[](d2l::AdamState& a) { a.weight_decay = -1.0f; }, "weight_decay must be >= 0 and finite, got -1"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.says) {
      d2l::TrainingState bad = good;
      c.spoil(bad.optimizer);
      d2l::save_param_file(path, net, {}, &bad);
      BOOST_CHECK_EXCEPTION(d2l::read_param_file(path, net, {}), std::runtime_error,
                            message_has({"[Module.load] " + path + ": the training state's optimiser settings are invalid: [Adam] " +
                                         c.says}));
    }
  }
}

// --- settings and vocabularies ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(settings_text_round_trip_and_errors) {
  const d2l::ModelSettings s{{"model", "bahdanau_attention"}, {"dropout", "0.1"}, {"src_vocab", "5 tokens, fnv1a 00ff"}};
  const std::string text = d2l::format_settings(s);
  BOOST_CHECK_EQUAL(text, "model=bahdanau_attention\ndropout=0.1\nsrc_vocab=5 tokens, fnv1a 00ff\n");
  BOOST_CHECK((d2l::parse_settings(text) == s));
  BOOST_CHECK(d2l::parse_settings("").empty());
  BOOST_CHECK((d2l::parse_settings("a==b\n") == d2l::ModelSettings{{"a", "=b"}}));  // the first '=' splits
  using E = std::runtime_error;
  BOOST_CHECK_EXCEPTION(d2l::parse_settings("a=1"), E, message_has({"settings line 1: does not end with a newline"}));
  BOOST_CHECK_EXCEPTION(d2l::parse_settings("a=1\nb\n"), E, message_has({"settings line 2: has no '='"}));
  BOOST_CHECK_EXCEPTION(d2l::parse_settings("=1\n"), E, message_has({"line 1: the key is not letters"}));
  BOOST_CHECK_EXCEPTION(d2l::parse_settings("a b=1\n"), E, message_has({"line 1: the key is not letters"}));
  BOOST_CHECK_EXCEPTION(d2l::parse_settings("a=1\na=2\n"), E, message_has({"line 2: key 'a' appears twice"}));
  BOOST_CHECK_EXCEPTION(d2l::parse_settings("a=\t\n"), E, message_has({"the value of 'a' is not printable ASCII"}));
  using I = std::invalid_argument;
  BOOST_CHECK_EXCEPTION(d2l::format_settings({{"a b", "1"}}), I, message_has({"[format_settings] key 'a b'"}));
  BOOST_CHECK_EXCEPTION(d2l::format_settings({{"a", "1\n"}}), I, message_has({"the value of 'a' must be printable ASCII"}));
  BOOST_CHECK_EXCEPTION(d2l::format_settings({{"a", "1"}, {"a", "2"}}), I, message_has({"key 'a' appears twice"}));
}

BOOST_AUTO_TEST_CASE(vocabulary_fingerprints) {
  const d2l::Vocab v = vocab_of({"je", "suis", "chez", "moi"});
  BOOST_CHECK_EQUAL(d2l::vocab_fingerprint(v), d2l::vocab_fingerprint(vocab_of({"je", "suis", "chez", "moi"})));
  BOOST_CHECK_EQUAL(d2l::vocab_fingerprint(v).rfind("5 tokens, fnv1a64 ", 0), 0u);
  // Same size, other tokens; the same tokens in another order; tokens split differently.
  BOOST_CHECK_NE(d2l::vocab_fingerprint(v), d2l::vocab_fingerprint(vocab_of({"je", "suis", "chez", "toi"})));
  BOOST_CHECK_NE(d2l::vocab_fingerprint(v), d2l::vocab_fingerprint(vocab_of({"suis", "je", "chez", "moi"})));
  BOOST_CHECK_NE(d2l::vocab_fingerprint(vocab_of({"ab", "c"})), d2l::vocab_fingerprint(vocab_of({"a", "bc"})));
}

// A model for another corpus whose vocabulary has the same size has the same shapes: only the
// recorded fingerprint tells them apart. Loading names the setting and both values.
BOOST_AUTO_TEST_CASE(settings_mismatch_is_refused_naming_both) {
  TempDir tmp("settings");
  d2l::manual_seed(5);
  d2l::Linear saved(3, 2), net(3, 2);
  const std::string mine = d2l::vocab_fingerprint(vocab_of({"je", "suis", "chez", "moi"}));
  const std::string other = d2l::vocab_fingerprint(vocab_of({"je", "suis", "chez", "toi"}));
  const d2l::ModelSettings settings{{"model", "linear"}, {"num_hiddens", "3"}, {"src_vocab", mine}};
  const std::string path = tmp("m.params");
  d2l::save_param_file(path, saved, settings);
  const std::vector<float> before = values_of(net);
  auto refused = [&](const d2l::ModelSettings& run, const std::vector<std::string>& parts) {
    std::vector<std::string> all{"[Module.load] " + path + ": the model's settings differ from this run's: "};
    all.insert(all.end(), parts.begin(), parts.end());
    BOOST_CHECK_EXCEPTION(d2l::read_param_file(path, net, run), std::runtime_error, message_has(all));
  };
  refused({{"model", "linear"}, {"num_hiddens", "3"}, {"src_vocab", other}},
          {"src_vocab: the file has '" + mine + "', this run '" + other + "'"});
  refused({{"model", "linear"}, {"num_hiddens", "4"}, {"src_vocab", mine}}, {"num_hiddens: the file has '3', this run '4'"});
  refused({{"model", "linear"}, {"src_vocab", mine}}, {"num_hiddens: the file has '3', this run has no such setting"});
  refused({{"model", "linear"}, {"num_hiddens", "3"}, {"src_vocab", mine}, {"tgt_vocab", mine}},
          {"tgt_vocab: this run has '" + mine + "', the file has no such setting"});
  refused({{"num_hiddens", "3"}, {"model", "linear"}, {"src_vocab", mine}}, {"the same settings in another order"});
  // Module::load records no settings, so it refuses a file that has them.
  BOOST_CHECK_EXCEPTION(net.load(path), std::runtime_error, message_has({"model: the file has 'linear', this run has no such setting"}));
  BOOST_CHECK(values_of(net) == before);
  // The matching settings load, bit for bit.
  d2l::copy_parameters(d2l::read_param_file(path, net, settings), net);
  BOOST_CHECK(values_of(net) == values_of(saved));
}

// --- interrupted writes ----------------------------------------------------------------------

// The registry directly: a child process with two temporaries in flight gets SIGTERM (or
// SIGINT); the handler removes both, and the child still dies of that signal.
BOOST_AUTO_TEST_CASE(signals_remove_registered_temporaries) {
  for (int sig : {SIGTERM, SIGINT}) {
    // A suite started in the background by a shell without job control inherits an ignored
    // SIGINT, and the registry keeps an ignored signal ignored (by design): nothing to test.
    struct sigaction now {};
    ::sigaction(sig, nullptr, &now);
    if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN) {
      BOOST_TEST_MESSAGE("signal " << sig << " is ignored in this environment; its case is not run");
      continue;
    }
    TempDir tmp("signal");
    const pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {  // the child: no Boost.Test here, only _exit codes
      try {
        d2l::TemporaryFile model(tmp("m.params"), "test"), figure(tmp("f.png"), "test");
        model.write(std::string(1000, 'x'));
        if (!fs::exists(model.path()) || !fs::exists(figure.path())) ::_exit(3);
        ::raise(sig);
      } catch (...) {
        ::_exit(4);
      }
      ::_exit(5);  // the signal did not end the process
    }
    int status = 0;
    BOOST_REQUIRE(::waitpid(pid, &status, 0) == pid);
    BOOST_TEST_CONTEXT("signal " << sig) {
      BOOST_CHECK_MESSAGE(WIFSIGNALED(status) && WTERMSIG(status) == sig,
                          "status " << status << (WIFEXITED(status) ? ", exit " + std::to_string(WEXITSTATUS(status)) : ""));
      BOOST_CHECK_MESSAGE(fs::is_empty(tmp.path), "left " << *names_in(tmp.path).begin());
    }
  }
}

// A temporary that is discarded (an error before the rename) is removed and unregistered;
// a committed one is renamed and no longer registered.
BOOST_AUTO_TEST_CASE(temporary_file_life_cycle) {
  TempDir tmp("life");
  std::string path;
  {
    d2l::TemporaryFile t(tmp("a.txt"), "test");
    path = t.path();
    BOOST_CHECK_EQUAL(path.rfind(tmp("a.txt.tmp."), 0), 0u);
    BOOST_CHECK(fs::exists(path));
  }
  BOOST_CHECK(!fs::exists(path));
  d2l::TemporaryFile t(tmp("b.txt"), "test");
  t.write("hello");
  t.commit();
  BOOST_CHECK_EQUAL(read_file(tmp("b.txt")), "hello");
  BOOST_CHECK((names_in(tmp.path) == std::set<std::string>{"b.txt"}));
  // More temporaries than the registry holds at once: refused with a message, not lost.
  std::vector<std::unique_ptr<d2l::TemporaryFile>> many;
  BOOST_CHECK_EXCEPTION(
      for (int i = 0; i < 40; ++i) many.push_back(std::make_unique<d2l::TemporaryFile>(tmp("c" + std::to_string(i)), "test")),
      std::runtime_error, message_has({"temporary files are open already"}));
  many.clear();
  BOOST_CHECK((names_in(tmp.path) == std::set<std::string>{"b.txt"}));
}

BOOST_AUTO_TEST_SUITE_END()
