// chapters/run/nadaraya_watson.cpp — the run around 10.2's code (tools/d2l/cli/section.h):
// the program's title and the options of its training loop, which EpochAnimator
// (tools/d2l/train/epochs.h) reads: --epochs, --lr, --quick, --save and --load.
// Exercise 1's and 3's --n-train is declared by the exercises (chapters/exercises/).
#include <stdexcept>

#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/cli/training_options.h"

namespace {

void options(d2l::CliArgs& args) {
  // Upper bounds refuse an absurd value (--epochs 1000000000) before anything runs.
  args.add_int("epochs", 5, "training epochs of the parametric model (the book: 5)", 1, 100000);
  args.add_float("lr", 0.5, "SGD learning rate (the book: 0.5)", 0.0, 100.0);
  args.add_flag("quick", "one epoch (for CI); the exercises (--ex) ignore it, they take well under a second");
  const d2l::CheckpointOptions saving(args, /*resumable=*/false,
                                      "write the trained parameter w to FILE (.params, or .safetensors for PyTorch)",
                                      "read w from FILE (.params or .safetensors) instead of training");
}

// The section's code trains on the book's 50 points: --n-train is the exercises' setting.
bool instead() {
  if (d2l::run_given("n-train"))
    throw std::invalid_argument("[--n-train] is the setting of exercises 1 and 3 (--ex 1, --ex 3); the section's "
                                "code trains on the book's 50 points");
  return false;
}

const d2l::RegisterSection room({"10.2 Attention Pooling: Nadaraya-Watson Kernel Regression (sec_nadaraya-watson).",
                                 {}, options, instead});

}  // namespace
