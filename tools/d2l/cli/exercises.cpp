// tools/d2l/cli/exercises.cpp — the --ex option (tools/d2l/cli/exercises.h).
#include "tools/d2l/cli/exercises.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace d2l {

void add_exercise_option(CliArgs& args, const std::vector<Exercise>& exercises) {
  std::string help = "run the section's exercise N instead of its code:";
  int64_t largest = 0;
  for (const Exercise& e : exercises) {
    help += " " + std::to_string(e.number) + " = " + e.what;
    help += (e.elsewhere.empty() ? "" : " (run: " + e.elsewhere + ")") + std::string(";");
    largest = std::max(largest, e.number);
  }
  help += " 0 = the section's code";
  args.add_int("ex", 0, help, 0, largest);
}

int64_t chosen_exercise(const CliArgs& args, const std::vector<Exercise>& exercises) {
  const int64_t ex = args.get_int("ex");
  if (ex == 0) return 0;
  std::string numbers;
  for (const Exercise& e : exercises) {
    if (e.number == ex && e.elsewhere.empty()) return ex;
    if (e.number == ex) {
      std::fprintf(stderr, "error: [--ex] exercise %lld of this section needs another section's model; run: %s\n",
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
