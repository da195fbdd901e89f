// tools/programs/book/catalog.h — what the companion pages accompany: the book's sections, in
// the book's order, with their programs and addresses online, and each section's exercises
// as commands (the book's numbering). The exercises and their commands are the ones each
// section's program registers (tools/d2l/cli/exercises.h) and prints with --list-exercises,
// so the pages cannot list another set; the catalog adds what only the pages need: the
// book's question in one line, a note on the bundled data, and arguments a page's run adds.
// `make exercises` runs the commands (build/tools/book --list-runs prints them) and the pages
// show each run under its section.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace d2l::book {

struct SectionInfo {
  std::string program;  // chapters/<program>.cpp, build/chapters/<program>
  std::string number, zh, en;
  std::string url;      // the section in the book online (zh.d2l.ai)
};

struct ExerciseInfo {
  ExerciseInfo(std::string sec, int n, std::string q, std::string prog, std::string a, int same = 0,
               std::string nt = "")
      : section(std::move(sec)), number(n), question(std::move(q)), program(std::move(prog)), args(std::move(a)),
        same_run_as(same), note(std::move(nt)) {}
  std::string section;   // "10.7"
  int number = 0;        // the book's number within the section
  std::string question;  // the exercise in one line
  std::string program;   // the chapter program that answers it
  std::string args;      // its arguments ("--ex 2"); `make exercises` adds --out
  int same_run_as = 0;   // answered by the run of that exercise of the section (0: its own run)
  std::string note;      // a run on bundled data: what that data can and cannot show; a shared
                         // run: where in it the answer is
  std::string id() const { return section + "-" + std::to_string(number); }  // "10.7-4"
  std::string anchor() const { return "ex-" + std::to_string(number); }     // on its section's page
};

const std::vector<SectionInfo>& sections();
// Every section's exercises, in the sections' order, each as its program lists it: runs
// `<programs>/<section's program> --list-exercises` (programs: the folder of the built chapter
// programs, build/chapters/), then adds the catalog's question, note and arguments. An
// exercise that repeats an earlier one's command is answered by that run (same_run_as). Throws
// std::runtime_error naming the program when one cannot be run or prints a malformed line, and
// the exercise when the catalog describes one that no program lists.
std::vector<ExerciseInfo> exercises(const std::string& programs);
// Where build/tools/book finds the chapter programs: ../chapters/ beside its own folder.
std::string default_programs_dir();

}  // namespace d2l::book
