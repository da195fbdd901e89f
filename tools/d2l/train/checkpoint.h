// tools/d2l/train/checkpoint.h — what the chapter programs' --save writes and --load / --resume
// read: the trained parameters with the model's settings and vocabulary fingerprints, and the
// state of the training (core/io/param_file.h). The trainers (train_seq2seq, train_ch13) call
// it at both ends of their loop:
//
//   Checkpoint checkpoint(settings, run, "model.params", "");      // --save, no --resume
//   const int64_t first = checkpoint.resume(net, optimizer, num_epochs, &animator);
//   for (int64_t epoch = first; epoch < num_epochs; ++epoch) {
//     ...
//     checkpoint.epoch_end(net, optimizer, epoch + 1, num_epochs, &animator);  // --save-every
//   }
//   checkpoint.trained(net, optimizer, num_epochs, &animator);     // --save happens here
//   animator.draw();                                               // figures after the model
//
// Resuming restores the parameters, Adam's moments and step count, the random generator
// (the next epoch's shuffle and dropout masks) and the curves drawn so far, so training
// N epochs, saving and resuming to N + M prints the same losses and ends with the same
// parameters, bit for bit, as training N + M epochs in one go.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/nn/module.h"
#include "core/nn/optim.h"
#include "core/io/param_file.h"
#include "core/io/safetensors.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

class Animator;

// "184 tokens, fnv1a64 0123456789abcdef": the count, then standard FNV-1a 64 over every
// token in index order, each as its byte count (8 bytes, little-endian) and its UTF-8 bytes.
// Two vocabularies agree on it exactly when they map every token to the same index. In
// Python, for the book's d2l.Vocab (three lines):
//   data = b''.join(len(t.encode()).to_bytes(8, 'little') + t.encode() for t in vocab.idx_to_token)
//   h = 0xcbf29ce484222325
//   for b in data: h = (h ^ b) * 0x100000001b3 % 2**64
// and the setting is f'{len(vocab.idx_to_token)} tokens, fnv1a64 {h:016x}'.
std::string vocab_fingerprint(const Vocab& vocab);
// A number as a settings value, in C's %g: 32, 0.1, 0.005.
std::string setting_number(double value);

class Checkpoint {
 public:
  // settings: the model's, checked by --load and --resume; run: the training run's own
  // (batch size, ...), checked by --resume only. An empty save_path saves nothing, an empty
  // resume_path starts from scratch.
  Checkpoint(ModelSettings settings, ModelSettings run, std::string save_path = "", std::string resume_path = "");

  const std::string& save_path() const { return save_path_; }
  const std::string& resume_path() const { return resume_path_; }

  // --load: the parameters only, settings checked. A training state in the file is kept,
  // so a later save() writes it back unchanged. A safetensors file without settings (a
  // plain PyTorch state_dict) is read by its names and shapes, and a line says so.
  void load(Module& net, const std::string& path);

  // --save-every N: also write --save after every N-th epoch (0: only after the last), each
  // write atomic and in the format --save's path names: a .params file --resume continues,
  // a .safetensors file --load reads (it holds no training state; --resume says so).
  void set_save_every(int64_t epochs) { save_every_ = epochs; }

  // The trainer's start. With a save path, first checks that its folder has room for one
  // file of this model (std::runtime_error "[--save] cannot write ..."). With a resume path: reads the file, checks the model's and the
  // run's settings, that it holds fewer than num_epochs epochs and Adam's hyper-parameters,
  // then sets the parameters, the optimiser, the generator and the animator's curves, prints
  // "resumed PATH after K epochs" and returns K. Without: returns 0 and changes nothing.
  int64_t resume(Module& net, Optimizer& optimizer, int64_t num_epochs, Animator* animator);

  // The trainer's end: keeps the state after epochs_done epochs (Adam's moments when the
  // optimiser is an Adam, the generator, the animator's curves) and, with a save path,
  // writes the file and prints "saved PATH (N bytes, checksum X)".
  void trained(const Module& net, const Optimizer& optimizer, int64_t epochs_done, const Animator* animator);

  // The end of each epoch: with --save-every N, after every N-th epoch before the last,
  // keeps the state as trained() does and writes --save ("saved PATH after K of N epochs").
  void epoch_end(const Module& net, const Optimizer& optimizer, int64_t epochs_done, int64_t num_epochs,
                 const Animator* animator);

  // Writes --save (if given) with the parameters and the state kept by load() or trained().
  void save(const Module& net) const;

  // safetensors (a path ending in ".safetensors", core/io/safetensors.h): --save and --load
  // read and write that format instead, the parameters under the book's state_dict() names
  // and the settings in __metadata__, with `metadata` beside them (the vocabularies' tokens,
  // so that a PyTorch program can rebuild them). Such a file holds no training state:
  // --resume refuses it, and a later .params --save keeps none from it.
  void set_safetensors_metadata(SafetensorsMetadata metadata) { metadata_ = std::move(metadata); }

  // Whether a trainer has called trained(): a program checks it to catch a training function
  // that forgot to pass the checkpoint (its --save and --resume would do nothing).
  bool reached_trainer() const { return reached_trainer_; }

 private:
  void keep_state(const Optimizer& optimizer, int64_t epochs_done, const Animator* animator);
  // Writes --save in its path's format and prints "saved PATH<when> (...)".
  void write(const Module& net, const char* when) const;
  ModelSettings settings_, run_;
  std::string save_path_, resume_path_;
  std::optional<TrainingState> state_;
  SafetensorsMetadata metadata_;
  bool reached_trainer_ = false;
  int64_t save_every_ = 0;
};

// What one parameter file of `net` with Adam's state takes at most, in bytes: the weights and
// both moments (12 bytes per value), each tensor's name and shape, and 64 KiB for the
// settings and curves.
uint64_t param_file_bound(const Module& net);

}  // namespace d2l
