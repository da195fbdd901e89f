// tools/programs/book/main.cpp — build/tools/book: the companion pages, out/book/index.html and one page
// per section, from the chapter programs' runs (tools/programs/book/pages.h). `make book` runs the
// programs with D2L_BOOK_TRACE set (their output to build/book-run/<name>.log, the source
// lines of their banners and figures to <name>.trace), then this.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/io/files.h"
#include "tools/programs/book/catalog.h"
#include "tools/programs/book/pages.h"
#include "tools/d2l/cli/cli_args.h"

int main(int argc, char** argv) {
  d2l::CliArgs args("book",
                    "Writes the companion pages (index.html and one page per section: the book's section, output, figures, "
                    "exercises, source) "
                    "from the chapter programs' runs; `make book` runs the programs first.");
  args.add_string("runs", "build/book-run", "the runs: <name>.log, <name>.trace, settings.txt", "DIR");
  args.add_string("out", "out/book", "where the pages go (created)", "DIR");
  args.add_string("root", ".", "the repository (chapters/, layers/)", "DIR");
  args.add_string("engine", "", "the engine compiled for the browser (make browser): the sections' live panels", "FILE");
  args.add_string("programs", d2l::book::default_programs_dir(),
                  "the chapter programs (each lists its exercises: --list-exercises)", "DIR");
  args.add_flag("list-runs", "print the exercise runs `make exercises` makes (id, program, arguments; tab-separated)");
  args.parse_or_exit(argc, argv);
  return d2l::run_reporting_errors([&] {
    if (args.get_flag("list-runs")) {
      std::fputs(d2l::book::list_runs(args.get_string("programs")).c_str(), stdout);
      return 0;
    }
    d2l::book::BookOptions opt;
    opt.runs = args.get_string("runs");
    opt.out = args.get_string("out");
    opt.root = args.get_string("root");
    opt.engine = args.get_string("engine");
    if (!opt.engine.empty()) {  // checked before any page is written: a plain, non-empty file
      const d2l::RegularFileReader engine(opt.engine, "book --engine");  // refuses a directory, /dev/zero, a FIFO
      if (engine.size() == 0) throw std::runtime_error("[book --engine] " + opt.engine + ": the file is empty");
    }
    opt.programs = args.get_string("programs");
    const int pages = d2l::book::write_book(opt);
    std::printf("wrote %s/index.html and %d section pages\n", opt.out.c_str(), pages);
    return 0;
  });
}
