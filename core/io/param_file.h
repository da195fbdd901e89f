// core/io/param_file.h — parameter files: a model's weights with the settings it was built with,
// and optionally the state of its training, so that a run can continue exactly.
//
// A file records, besides every parameter's name, shape and values:
//   - the model's settings, as ordered key=value text, e.g. num_hiddens=32, dropout=0.1 and
//     a fingerprint of each vocabulary (src_vocab=184 tokens, fnv1a64 3f2a...). Loading checks
//     them against the loading program's own, so a model trained on another corpus whose
//     vocabulary happens to have the same size is refused instead of translating everything
//     to '<unk>'. Module::save/load use an empty list.
//   - optionally a training section (TrainingState): Adam's hyper-parameters, step count and
//     moments, the random generator (the next shuffle and dropout mask), the epochs done, the
//     curves drawn so far and the run's own settings (batch size, ...).
//
// Layout, little-endian as the machine writes it, version 2:
//   "D2LPARAM" | u32 version | u32 n | n bytes of settings text
//   u32 count | count × ( u32 name length | name | u32 ndim | ndim × i64 size | numel × f32 )
//   u8 has_training, and when 1:
//     i64 epochs_done | u32 n | n bytes of the run's settings text
//     5 × f32 (lr, beta1, beta2, eps, weight_decay) | i64 step | per parameter numel × f32 m,
//     then numel × f32 v | 4 × u64 generator state | u8 has_spare | f32 spare
//     u32 curves | per curve ( u32 name length | name | u32 points | points × f32 x | × f32 y )
//   u64 FNV-1a hash of every byte above
// Version 1 (no settings, no training section) is refused with how to regenerate the file.
//
// Reading checks, in this order and before changing anything: that the path is a regular
// file (not /dev/zero or a FIFO), the magic and version, the size against the largest file
// this model can have, the checksum, the settings, every name and shape, that every value
// is finite, and that Adam's settings in a training section are ones Adam accepts. Writing refuses non-finite weights and goes through write_file_atomically.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/optim.h"
#include "core/random.h"

namespace d2l {

class Module;

// Keys: letters, digits, '_', '.', '-'; values: printable ASCII. Order matters for equality.
using ModelSettings = std::vector<std::pair<std::string, std::string>>;

struct TrainingCurve {  // one curve of the training figure, as far as it was drawn
  std::string name;
  std::vector<float> x, y;
};

struct TrainingState {
  int64_t epochs_done = 0;
  ModelSettings run;  // the training run's settings, checked only when resuming
  AdamState optimizer;
  RngState rng;
  std::vector<TrainingCurve> curves;
};

// The size and the stored checksum of a file written, for the "saved" line.
struct SavedFile {
  uint64_t bytes = 0, checksum = 0;
};

// Everything a file holds, checked against a model but not yet copied into it.
struct ParamFileContents {
  ModelSettings settings;
  std::vector<std::vector<float>> values;  // per parameter, in named_parameters() order
  std::optional<TrainingState> training;
};

// Writes the file (std::runtime_error "[Module.save] ..."). `training`, when given, must
// hold moments for every parameter of `net`.
SavedFile save_param_file(const std::string& path, const Module& net, const ModelSettings& settings,
                          const TrainingState* training = nullptr);

// Reads and checks the file against `net` and the loading run's `settings`; changes nothing.
// Errors are std::runtime_error "[Module.load] <path>: ..."; a settings mismatch names every
// setting that differs with both values.
ParamFileContents read_param_file(const std::string& path, const Module& net, const ModelSettings& settings);
// Copies the values read into the parameters.
void copy_parameters(const ParamFileContents& contents, Module& net);

// The settings block: one "key=value\n" line per setting. format_settings throws
// std::invalid_argument on a bad key or value; parse_settings throws std::runtime_error
// "settings line N: ..." on malformed text, and parse_settings(format_settings(s)) == s.
std::string format_settings(const ModelSettings& settings);
ModelSettings parse_settings(const std::string& text);

// "" when equal, else every difference, e.g.
//   num_hiddens: the file has 32, this run 64; src_vocab: the file has '184 tokens, ...', ...
std::string settings_mismatch(const ModelSettings& file, const ModelSettings& run);

// FNV-1a 64 over bytes, the standard one (offset basis 0xcbf29ce484222325, prime
// 0x100000001b3): the file's checksum and the vocabulary fingerprints. `hash` continues a
// hash over more bytes.
uint64_t fnv1a64(const char* data, size_t n, uint64_t hash = 0xcbf29ce484222325ULL);

}  // namespace d2l
