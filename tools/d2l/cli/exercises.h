// tools/d2l/cli/exercises.h — a section's exercises, kept in their own file beside the
// section: chapters/exercises/<section>.cpp, linked into the same program. The file lists
// them once, at start-up, and the section's main never names them:
//
//   // chapters/exercises/attention_cues.cpp
//   void exercise_2(const CliArgs& args, const std::string& out) { ... }
//   const ExerciseList exercises({
//       {1, "the cues of machine translation", "build/chapters/bahdanau_attention --cues"},
//       {2, "softmax over a random 10x10 matrix", exercise_2}});
//
// run_chapter (tools/d2l/cli/chapter.h) then gives the program:
//   --ex N              runs exercise N (the book's number) instead of the section's code,
//                       printing and drawing into --out as the section does; an exercise
//                       answered by another program prints that program's command, exit 2;
//   --list-exercises    one line per exercise, "N<TAB>question<TAB>command", and exit 0;
//   --help              the list in --ex's help.
// An exercise that changes the model a section trains is an option of that program (the
// Transformer's --pe learned, 10.4's --rnn lstm): its entry names the command.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tools/d2l/cli/cli_args.h"

namespace d2l {

// What an exercise runs: the parsed options and the output directory (already created).
using ExerciseBody = std::function<void(const CliArgs& args, const std::string& out)>;

struct Exercise {
  // Answered by this program's --ex N.
  Exercise(int64_t n, std::string w, ExerciseBody b) : number(n), what(std::move(w)), body(std::move(b)) {}
  // Answered by the section's code itself, which reads args.get_int("ex") (an exercise that
  // needs the section's trained model and data, as 15.5's word order does).
  Exercise(int64_t n, std::string w) : number(n), what(std::move(w)) {}
  // Answered by a command: another program, or this one with an option.
  Exercise(int64_t n, std::string w, std::string command) : number(n), what(std::move(w)), elsewhere(std::move(command)) {}
  int64_t number;         // the book's number within the section
  std::string what;       // the question in one line, for --help and --list-exercises
  ExerciseBody body;      // empty when the section or another command answers it
  std::string elsewhere;  // that command ("": this program's --ex N)
};

// Registers a program's exercises (one list per program) and the options only they read,
// declared on the program's CliArgs before parsing.
struct ExerciseList {
  explicit ExerciseList(std::vector<Exercise> exercises, std::function<void(CliArgs&)> options = {});
};

// The registered list (empty for a program without an exercise file).
const std::vector<Exercise>& registered_exercises();

// Declares --ex N (range 0 to the largest number; 0, the default, is the section's code)
// and --list-exercises, and the exercises' own options.
void add_exercise_options(CliArgs& args);

// After parsing: with --list-exercises prints the list and exits 0; returns the exercise
// --ex asks for, nullptr for the section's code (which answers the exercises without a body
// or command). A number without an entry (the book's
// question-only exercises) is bad usage: "error: [--ex] ..." naming the ones there are, the
// usage, exit 2. An exercise answered elsewhere prints its command and exits 2.
const Exercise* chosen_exercise(const CliArgs& args);

}  // namespace d2l
