// tools/d2l/train/epochs.cpp — a hand-written training loop's run (see the header).
#include "tools/d2l/train/epochs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "tools/d2l/cli/run.h"
#include "tools/d2l/train/loss_curve.h"

namespace d2l {

namespace {
EpochRecord& record() {
  static EpochRecord r;
  return r;
}
}  // namespace

const EpochRecord& epoch_record() { return record(); }

EpochAnimator::EpochAnimator(Module& net, SGD& trainer, int64_t num_epochs, std::string figure, const char* file,
                             int line)
    : net_(net), num_epochs_(num_epochs), figure_(std::move(figure)), file_(file), line_(line) {
  record() = EpochRecord{};
  for (const auto& [name, p] : net_.named_parameters())
    if (p.numel() == 1) {
      record().names.push_back(name);
      record().start.push_back(p.item());
    }
  if (!in_run()) return;
  const CliArgs& run = run_args();
  const int64_t book_epochs = num_epochs;
  if (run.has("quick") && run.get_flag("quick")) {
    num_epochs_ = 1;
    std::printf("--quick: 1 of the book's %lld epochs\n", static_cast<long long>(book_epochs));
  } else if (run_given("epochs") && run.get_int("epochs") != book_epochs) {
    num_epochs_ = run.get_int("epochs");
    std::printf("--epochs %lld: %lld of the book's %lld epochs\n", static_cast<long long>(num_epochs_),
                static_cast<long long>(num_epochs_), static_cast<long long>(book_epochs));
  }
  if (run_given("lr") && run.get_float("lr") != trainer.lr) {
    std::printf("--lr %g: lr %g instead of the book's %g\n", static_cast<double>(run.get_float("lr")),
                static_cast<double>(run.get_float("lr")), static_cast<double>(trainer.lr));
    trainer.lr = run.get_float("lr");
  }
  if (run.has("load")) load_ = run.get_string("load");
  checkpoint_ = std::make_unique<Checkpoint>(ModelSettings{{"model", run.program()}}, ModelSettings{},
                                             run.has("save") ? run.get_string("save") : "", "");
}

EpochAnimator::Iterator EpochAnimator::Range::begin() {
  if (owner->load_.empty()) return Iterator(owner, 0);
  // --load: the parameters from the file (the model's kind checked: the program's name), no epoch.
  owner->checkpoint_->load(owner->net_, owner->load_);
  std::printf("loaded %s (training skipped)\n", owner->load_.c_str());
  return end();
}

bool EpochAnimator::Iterator::operator!=(const Iterator& end) {
  if (epoch_ != end.epoch_) return true;
  owner_->finish();
  return false;
}

void EpochAnimator::add(int64_t epoch, float loss) {
  losses_.push_back(loss);
  EpochRecord::Step step;
  step.epoch = epoch;
  step.loss = loss;
  for (const auto& [name, p] : net_.named_parameters())
    if (p.numel() == 1) {
      step.grads.push_back(p.grad().defined() ? p.grad().item() : std::nanf(""));
      step.values.push_back(p.item());
    }
  record().steps.push_back(std::move(step));
}

void EpochAnimator::finish() {
  if (finished_) return;
  finished_ = true;
  if (checkpoint_) checkpoint_->save(net_);  // nothing without --save
  if (!load_.empty())  // what was loaded, when it is a few numbers: "w = 0.685652"
    for (const auto& [name, p] : net_.named_parameters())
      if (p.numel() == 1) std::printf("%s = %g\n", name.c_str(), static_cast<double>(p.item()));
  if (!losses_.empty())
    plot_losses(losses_, std::max<int64_t>(num_epochs_, 2), figure_path(figure_), file_, line_);
}

}  // namespace d2l
