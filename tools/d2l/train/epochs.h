// tools/d2l/train/epochs.h — a training loop the book writes by hand (10.2's
// `for epoch in range(5)` beside its d2l.Animator(xlabel='epoch', ylabel='loss', xlim=[1, 5])),
// run as the program's options ask (tools/d2l/cli/run.h):
//
//   SGD trainer(net.parameters(), 0.5f);
//   EpochAnimator animator(net, trainer, 5, "loss.png");
//   for (int64_t epoch : animator.epochs()) {
//     ... one epoch, its loss printed ...
//     animator.add(epoch + 1, loss);
//   }
//
// --epochs N and --quick run N (1) of the book's epochs, --lr X steps the trainer at X, each
// with one line saying so ("--epochs 10: 10 of the book's 5 epochs"). --load FILE reads the
// parameters instead of training: the loop runs no epoch, the run prints "loaded FILE
// (training skipped)" and each one-number parameter ("w = 0.685652"). After the last epoch
// (or the load) --save FILE writes the parameters (FILE.safetensors: as the book's
// state_dict()), then the curve is drawn to figure_path(name) over [1, max(epochs, 2)].
// Outside a run (tests, the browser): the book's epochs and lr, nothing read or written but
// the curve, under the current directory.
//
// Each loop also keeps a record of its steps, read after it with epoch_record(): for a
// caller that shows the training rather than only its curve (the browser's 10.2 panel runs
// the section's code and shows what each step did to w).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/module.h"
#include "core/nn/optim.h"
#include "tools/d2l/train/checkpoint.h"

namespace d2l {

// The last EpochAnimator's loop: its net's one-number parameters (10.2's w) when the loop
// began, then per add(): the loss, each such parameter's gradient (the one the loop's
// trainer.step() used, which leaves it in place) and its value (after that step).
struct EpochRecord {
  std::vector<std::string> names;  // the one-number parameters, in named_parameters() order
  std::vector<float> start;        // their values when the animator was made
  struct Step {
    int64_t epoch = 0;
    float loss = 0;
    std::vector<float> grads, values;  // per name; a gradient never computed is NaN
  };
  std::vector<Step> steps;
};
// Empty until an EpochAnimator is made; each new one starts it afresh.
const EpochRecord& epoch_record();

class EpochAnimator {
 public:
  EpochAnimator(Module& net, SGD& trainer, int64_t num_epochs, std::string figure, const char* file = __builtin_FILE(),
                int line = __builtin_LINE());

  // The loop's epochs 0, 1, ..., N - 1 (none after --load); reaching the end saves and draws.
  class Iterator {
   public:
    int64_t operator*() const { return epoch_; }
    Iterator& operator++() { ++epoch_; return *this; }
    bool operator!=(const Iterator& end);  // at the end: finish() once
   private:
    friend class EpochAnimator;
    Iterator(EpochAnimator* owner, int64_t epoch) : owner_(owner), epoch_(epoch) {}
    EpochAnimator* owner_;
    int64_t epoch_;
  };
  struct Range {
    EpochAnimator* owner;
    Iterator begin();
    Iterator end() { return Iterator(owner, owner->num_epochs_); }
  };
  Range epochs() { return {this}; }

  void add(int64_t epoch, float loss);  // the book's animator.add(epoch + 1, float(l.sum()))
  int64_t num_epochs() const { return num_epochs_; }

 private:
  void finish();  // --save, then the curve
  Module& net_;
  int64_t num_epochs_;
  std::string figure_, load_;
  std::unique_ptr<Checkpoint> checkpoint_;  // in a run: --save and --load, the model named by the program
  const char* file_;
  int line_;
  bool finished_ = false;
  std::vector<float> losses_;
};

}  // namespace d2l
