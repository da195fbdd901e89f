// tools/d2l/cli/exercises.cpp — the exercises' registry and --ex (tools/d2l/cli/exercises.h).
#include "tools/d2l/cli/exercises.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace d2l {

namespace {

struct Registry {
  std::vector<Exercise> exercises;
  std::function<void(CliArgs&)> options;
};

Registry& registry() {  // built on first use: registrations run during static initialisation
  static Registry r;
  return r;
}

}  // namespace

ExerciseList::ExerciseList(std::vector<Exercise> exercises, std::function<void(CliArgs&)> options) {
  registry().exercises = std::move(exercises);
  registry().options = std::move(options);
}

const std::vector<Exercise>& registered_exercises() { return registry().exercises; }

void add_exercise_options(CliArgs& args) {
  const std::vector<Exercise>& exercises = registered_exercises();
  if (exercises.empty()) return;
  if (registry().options) registry().options(args);
  std::string help = "run the section's exercise N instead of its code:";
  int64_t largest = 0;
  for (const Exercise& e : exercises) {
    help += " " + std::to_string(e.number) + " = " + e.what;
    help += (e.elsewhere.empty() ? "" : " (run: " + e.elsewhere + ")") + std::string(";");
    largest = std::max(largest, e.number);
  }
  help += " 0 = the section's code";
  args.add_int("ex", 0, help, 0, largest);
  args.add_flag("list-exercises", "print one line per exercise: number, question, command; then exit");
}

const Exercise* chosen_exercise(const CliArgs& args) {
  const std::vector<Exercise>& exercises = registered_exercises();
  if (exercises.empty()) return nullptr;
  if (args.get_flag("list-exercises")) {
    for (const Exercise& e : exercises)
      std::printf("%lld\t%s\t%s\n", static_cast<long long>(e.number), e.what.c_str(),
                  e.elsewhere.empty() ? ("build/chapters/" + args.program() + " --ex " + std::to_string(e.number)).c_str()
                         : e.elsewhere.c_str());
    std::exit(0);
  }
  const int64_t ex = args.get_int("ex");
  if (ex == 0) return nullptr;
  std::string numbers;
  for (const Exercise& e : exercises) {
    if (e.number == ex && e.body) return &e;
    if (e.number == ex && e.elsewhere.empty()) return nullptr;
    if (e.number == ex) {
      std::fprintf(stderr, "error: [--ex] exercise %lld of this section is answered by another command; run: %s\n",
                   static_cast<long long>(ex), e.elsewhere.c_str());
      std::exit(2);
    }
    numbers += (numbers.empty() ? "" : ", ") + std::to_string(e.number);
  }
  std::fprintf(stderr, "error: [--ex] exercise %lld of this section is a question without a computation; --ex takes %s\n\n%s",
               static_cast<long long>(ex), numbers.c_str(), args.usage().c_str());
  std::exit(2);
}

}  // namespace d2l
