// tests/test_prelude.h — what the test files use unqualified (the namespace aliases, the
// helpers of tests/test_util.h, d2l::Shape and d2l::Tensor), and the chapter programs the
// tests start: their paths in the build, and a run whose output goes to a log.
#pragma once
#include <boost/test/unit_test.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/tensor.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
namespace utf = boost::unit_test;
namespace tt = boost::test_tools;
using d2l::Shape;
using d2l::Tensor;
using d2l_test::build_dir;
using d2l_test::message_has;
using d2l_test::read_file;
using d2l_test::run_command;
using d2l_test::TempDir;

namespace d2l_test {

// The built chapter program `name` ($D2L_BUILD/chapters/<name>).
inline std::string chapter_program(const char* name) {
  return (fs::path(build_dir()) / "chapters" / name).string();
}

// Starts argv[0] with `argv`, stdout and stderr both to `log`, and returns the child's pid
// without waiting. `in_child` runs in the child before the program starts (to restore a
// signal's default action, set a variable).
inline pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& log,
                          const std::function<void()>& in_child = {}) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (in_child) in_child();
  if (!std::freopen(log.c_str(), "w", stdout) || !std::freopen(log.c_str(), "a", stderr)) ::_exit(126);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

// Runs the chapter program `name` with `args` as the book's flow does (--threads 2 --out
// `out`): its source trace to <runs>/<name>.trace, stdout and stderr to <runs>/<name>.log and
// <runs>/<name>.err (the folder `runs` made if missing). The test stops when the program fails.
inline void run_traced(const std::string& name, const std::string& args, const std::string& runs,
                       const std::string& out) {
  fs::create_directories(runs);
  const std::string cmd = "D2L_BOOK_TRACE=" + runs + "/" + name + ".trace " + build_dir() + "/chapters/" + name +
                          " --threads 2 --out " + out + " " + args;
  const int rc = run_command(cmd, runs + "/" + name + ".log", runs + "/" + name + ".err");
  BOOST_REQUIRE_MESSAGE(rc == 0, name << " exited with " << rc << ": " << read_file(runs + "/" + name + ".err"));
}

// Writes the companion pages from the runs in `runs` to `book` with build/tools/book (and
// `extra` arguments), the runs marked as the quick test tier; its stdout and stderr go to
// book.out and book.err in `dir`. The test stops when it fails.
inline void write_book(const std::string& runs, const std::string& book, const std::string& extra, const TempDir& dir) {
  write_file(runs + "/settings.txt", "tier: test\narguments: --quick\n");
  const int rc = run_command(build_dir() + "/tools/book --runs " + runs + " --out " + book + extra, dir("book.out"),
                             dir("book.err"));
  BOOST_REQUIRE_MESSAGE(rc == 0, "book exited with " << rc << ": " << read_file(dir("book.err")));
}

}  // namespace d2l_test

using d2l_test::chapter_program;
using d2l_test::spawn_logged;
