// tools/d2l/train/train_ch13.h — the book's classifier training loop, train_ch13 with
// train_batch_ch13 (defined in 13.1 图像增广 / Image Augmentation, sec_image_augmentation), and
// the helper evaluate_accuracy_gpu (6.6 LeNet). Both count correct predictions with the
// book's accuracy (3.6), d2l::accuracy in core/ops.h. 15.5
// (sec_natural-language-inference-attention) trains the decomposable attention model with
// it, on SNLI batches.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/nn/module.h"
#include "core/nn/optim.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/train/checkpoint.h"

namespace d2l {

// The network's forward on one batch: the logits (batch_size, num_classes). The book's
// train_batch_ch13 calls net(*X) when X is a list, here (premises, hypotheses).
using BatchForward = std::function<Tensor(const SNLIBatch&)>;

// The book's evaluate_accuracy_gpu: eval mode, no graph, the fraction of the split's
// examples classified correctly.
double evaluate_accuracy(Module& net, const BatchForward& forward, SNLIDataLoader& data_iter);

struct TrainCh13Result {
  double loss = 0, train_acc = 0, test_acc = 0;  // the last epoch's, as the book prints them
  double examples_per_sec = 0;                   // examples of the epochs trained / seconds in their batches
  std::vector<float> test_acc_by_epoch;          // the Animator's third curve (with a resumed run's earlier epochs)
};

// The book's train_ch13(net, train_iter, test_iter, loss, trainer, num_epochs): each batch
// in training mode, loss = CrossEntropyLoss(reduction='none') summed for backward, one
// trainer step; after each epoch the test accuracy. The Animator (xlim [1, num_epochs],
// ylim [0, 1]) shows train loss, train acc and test acc, about five points per epoch, and
// writes its curves to figure_path. Prints the book's closing lines
//   loss 0.xxx, train acc 0.xxx, test acc 0.xxx
//   NNNN.N examples/sec on cpu
// The timer runs inside the training batches only, as the book's. num_epochs >= 1.
// With a checkpoint (tools/d2l/train/checkpoint.h): a resume path continues from the file's
// epoch up to num_epochs (parameters, Adam, the generator that shuffles and drops out, and
// the curves restored); after the last epoch it saves the model, before the figure is
// written (through write_figure, tools/d2l/figures/figures.h).
// Beyond the book: with estimate_after = k > 0, after the first k batches (or the whole first
// epoch, if shorter) it prints the time the training batches of the remaining epochs will
// take at the speed measured so far:
//   estimated training time: 2 h 5 min (1171.4 examples/sec over the first 10 batches)
TrainCh13Result train_ch13(Module& net, const BatchForward& forward, SNLIDataLoader& train_iter,
                           SNLIDataLoader& test_iter, Optimizer& trainer, int64_t num_epochs,
                           const std::string& figure_path, Checkpoint* checkpoint = nullptr, int64_t estimate_after = 0);

// A duration for people: "42 s", "36 min 37 s", "2 h 5 min" (rounded to the unit shown last).
std::string format_duration(double seconds);

}  // namespace d2l
