// tools/d2l/cli/exercises.h — the --ex option of the chapter programs: `--ex N` runs the
// computational exercise N of the section (the book's numbering) instead of the section's
// code, and prints and draws its answer into --out as the section's code does.
//
//   const std::vector<Exercise> exercises = {{2, "softmax over a random 10x10 matrix"}};
//   add_exercise_option(args, exercises);
//   args.parse_or_exit(argc, argv);
//   const int64_t ex = chosen_exercise(args, exercises);  // 0: the section's code
//
// An exercise that changes the model a section trains (a learned positional encoding in
// the Transformer) is a named option of that program instead (--pe learned), since it
// reruns the section's whole training.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/d2l/cli/cli_args.h"

namespace d2l {

struct Exercise {
  Exercise(int64_t n, std::string w, std::string e = "") : number(n), what(std::move(w)), elsewhere(std::move(e)) {}
  int64_t number;         // the book's number within the section
  std::string what;       // one line for --help
  std::string elsewhere;  // "": answered here; else the command of the program that answers it
                          // (an exercise that needs another section's trained model)
};

// Declares --ex N (default 0, the section's code); --help lists each exercise.
void add_exercise_option(CliArgs& args, const std::vector<Exercise>& exercises);

// The exercise asked for, 0 when none. A number that is not one of `exercises` (the
// book's question-only exercises have no --ex) prints "error: [--ex] ..." naming the ones
// there are, then the usage, and exits 2 as any bad option does. An exercise answered by
// another program prints that program's command and exits 2 too.
int64_t chosen_exercise(const CliArgs& args, const std::vector<Exercise>& exercises);

}  // namespace d2l
