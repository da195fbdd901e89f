// tools/d2l/cli/run.cpp — the program's run as the library sees it (tools/d2l/cli/run.h).
#include "tools/d2l/cli/run.h"

#include <stdexcept>
#include <utility>

namespace d2l {

namespace {
const CliArgs* current_args = nullptr;
std::string current_out = ".";
std::function<void()> current_book;
}  // namespace

const std::function<void()>& run_book() {
  if (!current_book) throw std::logic_error("run_book: no section's code is being run");
  return current_book;
}

void set_run_book(std::function<void()> book) { current_book = std::move(book); }

bool in_run() { return current_args != nullptr; }

const CliArgs& run_args() {
  if (!current_args) throw std::logic_error("run_args: no program run is in progress");
  return *current_args;
}

const std::string& run_out() { return current_out; }

std::string figure_path(const std::string& name) { return current_out + "/" + name; }

bool run_given(const std::string& option) {
  return current_args && current_args->has(option) && current_args->given(option);
}

void begin_run(const CliArgs& args, const std::string& out) {
  current_args = &args;
  current_out = out;
}

void end_run() {
  current_args = nullptr;
  current_out = ".";
}

}  // namespace d2l
