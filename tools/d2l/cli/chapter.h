// tools/d2l/cli/chapter.h — a program's run: the options every chapter shares, its exercises,
// the error handling, then its code. The eight sections reach it through run_section
// (tools/d2l/cli/section.h); the 10.7 exercise programs (attention_cost, transformer_lm,
// vision_transformer) call it with their own options:
//
//   int main(int argc, char** argv) {
//     CliArgs args("vision_transformer", "10.7 Transformer, exercise 6: ...");
//     args.add_int("epochs", 10, "training epochs", 1, 100000);  // the program's own
//     return run_chapter(args, argc, argv, [&](const std::string& out) {
//       ... the program's code, args.get_int("epochs"), figures under out ...
//     });
//   }
//
// run_chapter declares --ex N and --list-exercises when the program has an exercise file
// (tools/d2l/cli/exercises.h), then --seed, --threads, --max-tensor-mb and --out (default
// out/<program>; add_chapter_options, tools/d2l/cli/cli_args.h), parses the command line
// (bad usage: "error: ...", the usage, exit 2), applies the options and runs the exercise
// --ex names or else the section, turning an exception into "error: ..." and exit 1
// (run_reporting_errors).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "tools/d2l/cli/cli_args.h"

namespace d2l {

struct ChapterDefaults {
  int64_t threads = 0;  // --threads' default: 1 for the small seq2seq models (cli_args.h says why)
  // For a program that keeps two or more threads busy (15.5's big GEMMs): idle OpenMP threads
  // sleep instead of spinning (prefer_passive_openmp_wait, cli_args.h), unless the
  // environment chose a policy.
  bool passive_openmp_wait = false;
};

int run_chapter(CliArgs& args, int argc, char** argv, const std::function<void(const std::string& out)>& section,
                ChapterDefaults defaults = {});

}  // namespace d2l
