// tools/d2l/cli/chapter.cpp — a section's main (tools/d2l/cli/chapter.h).
#include "tools/d2l/cli/chapter.h"

#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/cli/run.h"

namespace d2l {

int run_chapter(CliArgs& args, int argc, char** argv, const std::function<void(const std::string& out)>& section,
                ChapterDefaults defaults) {
  if (defaults.passive_openmp_wait) prefer_passive_openmp_wait(argv);
  add_exercise_options(args);
  add_chapter_options(args, "out/" + args.program(), /*seed=*/0, defaults.threads);
  args.parse_or_exit(argc, argv);
  const Exercise* exercise = chosen_exercise(args);
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);
    begin_run(args, out);  // what the library reads of the options (tools/d2l/cli/run.h)
    if (exercise) exercise->body(args, out);
    else section(out);
    return 0;
  });
}

}  // namespace d2l
