// core/io/standard_streams.h — a program's standard output is part of its result: a write to
// it that fails (a full disk, `> /dev/full`, a closed descriptor) must end the program with an
// error, as coreutils' programs do, not with exit status 0 and the output lost.
#pragma once

namespace d2l {

// Called once at the start of a program (CliArgs::parse_or_exit does it for the chapter
// programs and the tools that use CliArgs; the others call it from main). It
//   - gives a closed descriptor 0, 1 or 2 a placeholder (/dev/null opened the wrong way, so
//     a write there still fails): otherwise the next file the program opens would take the
//     number, and printf would write into a saved model;
//   - makes a write beyond the file-size limit fail instead of killing the program
//     (ignore_file_size_signal, core/io/files.h);
//   - registers an exit handler that flushes standard output and, if any write to
//     it failed, prints "<program>: error: write error on standard output: <reason>" to
//     standard error and ends the program with status 1 (the exit status is not known to an
//     exit handler; coreutils' close_stdout does the same).
void check_standard_output_at_exit(const char* program);

}  // namespace d2l
