// tools/programs/nli_set/main.cpp — build/tools/nli_set: writes the small NLI set that the chapter
// programs of 15.4 and 15.5 read when SNLI is not there (chapters/data/snli-small/:
// train.tsv, test.tsv and the word vectors vectors.txt).
//
//   make nli-set                         regenerates chapters/data/snli-small/ (the defaults)
//   build/tools/nli_set --out DIR        the same files into DIR
// The rules and the lexicon are in tools/programs/nli_set/nli_set.cpp; the defaults reproduce the committed
// files byte for byte (a test checks it). Each file is written through write_file_atomically
// (core/io/files.h): a unique temporary, renamed over the target, removed on Ctrl-C, so an
// interrupted run never leaves a half-written split or a temporary behind.
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/io/files.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/programs/nli_set/nli_set.h"

namespace fs = std::filesystem;

namespace {

int run(int argc, char** argv) {
  d2l::CliArgs args("nli_set", "writes the small NLI set (train.tsv, test.tsv, vectors.txt) bundled for 15.4 and 15.5");
  const d2l::NliSetOptions defaults;
  args.add_string("out", "chapters/data/snli-small", "directory to write train.tsv, test.tsv and vectors.txt to", "DIR");
  args.add_int("train-per-label", defaults.train_per_label, "pairs per label in train.tsv", 1, 100000);
  args.add_int("test-per-label", defaults.test_per_label, "pairs per label in test.tsv", 1, 100000);
  args.add_int("seed", static_cast<int64_t>(defaults.seed), "the generator's seed", 0);
  args.parse_or_exit(argc, argv);
  d2l::NliSetOptions options;
  options.train_per_label = args.get_int("train-per-label");
  options.test_per_label = args.get_int("test-per-label");
  options.seed = static_cast<uint64_t>(args.get_int("seed"));
  const d2l::NliSetFiles files = d2l::generate_nli_set(options);
  const fs::path dir = args.get_string("out");
  fs::create_directories(dir);
  d2l::write_file_atomically((dir / "train.tsv").string(), files.train_tsv, "nli_set");
  d2l::write_file_atomically((dir / "test.tsv").string(), files.test_tsv, "nli_set");
  d2l::write_file_atomically((dir / "vectors.txt").string(), files.vectors_txt, "nli_set");
  std::printf("wrote %s (%lld pairs), %s (%lld pairs), %s\n", (dir / "train.tsv").c_str(),
              static_cast<long long>(3 * options.train_per_label), (dir / "test.tsv").c_str(),
              static_cast<long long>(3 * options.test_per_label), (dir / "vectors.txt").c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return d2l::run_reporting_errors([&] { return run(argc, argv); });
}
