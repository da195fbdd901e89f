// tools/programs/crossover/main.cpp — build/tools/crossover: runs a model stored as safetensors on the
// book's inputs and prints its outputs as JSON (the format in tools/programs/crossover/crossover.h), for
// tools/scripts/crossover_torch.py to set beside the book's PyTorch models.
//
//   build/tools/crossover --model model.safetensors            the book's inputs
//   build/tools/crossover --model m.safetensors --sentence "i'm cold ."
#include <iostream>
#include <string>
#include <vector>

#include "core/shape.h"  // check
#include "tools/d2l/cli/cli_args.h"
#include "tools/programs/crossover/crossover.h"

namespace {

int run(int argc, char** argv) {
  d2l::CliArgs args("crossover", "runs a safetensors model on the book's inputs and prints its outputs as JSON");
  args.add_string("model", "", "the model file (.safetensors with the chapters' __metadata__)", "FILE");
  args.add_string("sentence", "", "translate this sentence instead of the book's four (10.4, 10.7)");
  args.parse_or_exit(argc, argv);
  d2l::check(!args.get_string("model").empty(), "crossover", "--model FILE is required");
  std::vector<std::string> sentences;
  if (!args.get_string("sentence").empty()) sentences.push_back(args.get_string("sentence"));
  d2l::crossover_outputs(std::cout, args.get_string("model"), sentences);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return d2l::run_reporting_errors([&] { return run(argc, argv); });
}
