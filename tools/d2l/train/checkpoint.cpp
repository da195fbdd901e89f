// tools/d2l/train/checkpoint.cpp — --save, --load and --resume for the trainers (see the header).
#include "tools/d2l/train/checkpoint.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "core/io/files.h"
#include "tools/d2l/figures/animator.h"

namespace d2l {
namespace {
[[noreturn]] void resume_fails(const std::string& path, const std::string& why) {
  throw std::runtime_error("[--resume] " + path + ": " + why);
}
}  // namespace

// The recipe in Python is in the header, beside the declaration.
std::string vocab_fingerprint(const Vocab& vocab) {
  uint64_t h = fnv1a64(nullptr, 0);
  for (const std::string& token : vocab.idx_to_token()) {
    // Each token with its length before it: ("ab", "c") and ("a", "bc") hash differently.
    const uint64_t n = token.size();
    h = fnv1a64(reinterpret_cast<const char*>(&n), sizeof n, h);
    h = fnv1a64(token.data(), token.size(), h);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%" PRId64 " tokens, fnv1a64 %016" PRIx64, vocab.size(), h);
  return buf;
}

std::string setting_number(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

Checkpoint::Checkpoint(ModelSettings settings, ModelSettings run, std::string save_path, std::string resume_path)
    : settings_(std::move(settings)), run_(std::move(run)), save_path_(std::move(save_path)),
      resume_path_(std::move(resume_path)) {}

void Checkpoint::load(Module& net, const std::string& path) {
  // The extension picks the format (core/io/safetensors.h). A safetensors file may be a plain
  // PyTorch state_dict, with no settings: its names and shapes (the vocabulary sizes among
  // them) must match the model this run built from its data, and the run says so.
  const bool safetensors = is_safetensors_path(path);
  ParamFileContents contents = safetensors ? read_safetensors_params(path, net, settings_, /*without_settings=*/true)
                                           : read_param_file(path, net, settings_);
  if (safetensors && contents.settings.empty()) {
    std::string mine;
    for (const auto& [k, v] : settings_) mine += (mine.empty() ? "" : ", ") + k + "=" + v;
    std::printf("%s records no settings (a plain state_dict): its tensors' names and shapes match this model, "
                "taken as trained with this run's %s\n", path.c_str(), mine.c_str());
  }
  copy_parameters(contents, net);
  state_ = std::move(contents.training);
}

uint64_t param_file_bound(const Module& net) {
  // Per tensor: its name, shape and the framing around them; then the settings and the
  // curves (a few numbers per epoch). A fixed megabyte of slack here refused a small model
  // on a small disk that had room for it many times over.
  uint64_t bytes = 12 * static_cast<uint64_t>(net.num_parameters()) + (uint64_t{64} << 10);
  for (const auto& [name, t] : net.named_parameters()) bytes += name.size() + 16 + 8 * t.shape().size();
  return bytes;
}

int64_t Checkpoint::resume(Module& net, Optimizer& optimizer, int64_t num_epochs, Animator* animator) {
  // A full disk found now, not after the last epoch.
  if (!save_path_.empty()) check_room_for(save_path_, param_file_bound(net), "--save");
  if (resume_path_.empty()) return 0;
  auto fail = [this](const std::string& why) { resume_fails(resume_path_, why); };
  if (is_safetensors_path(resume_path_))
    fail("a safetensors file holds parameters only, no optimiser or generator state: --load it, or --resume a .params file");
  // Everything is checked before anything changes.
  ParamFileContents contents = read_param_file(resume_path_, net, settings_);
  if (!contents.training)
    fail("holds parameters but no training state (optimiser, generator): it cannot be continued; --load it instead");
  TrainingState& s = *contents.training;
  if (const std::string diff = settings_mismatch(s.run, run_); !diff.empty())
    fail("the training run's settings differ from this run's: " + diff);
  if (s.epochs_done >= num_epochs)
    fail("holds " + std::to_string(s.epochs_done) + " epochs already; give --epochs more than that to continue");
  auto* adam = dynamic_cast<Adam*>(&optimizer);
  if (!adam) resume_fails(resume_path_, "only Adam's state is saved, and this run's optimiser is not an Adam");
  if (animator && !s.curves.empty() && !animator->series().empty() && animator->series().size() != s.curves.size())
    fail("holds " + std::to_string(s.curves.size()) + " curves, this run draws " + std::to_string(animator->series().size()));
  try {
    adam->load_state(s.optimizer);  // checks the hyper-parameters before it changes anything
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  copy_parameters(contents, net);
  set_rng_state(s.rng);
  if (animator && !s.curves.empty()) {
    std::vector<std::pair<std::vector<float>, std::vector<float>>> xy;
    for (const TrainingCurve& c : s.curves) xy.emplace_back(c.x, c.y);
    animator->restore(xy);
  }
  std::printf("resumed %s after %lld epochs\n", resume_path_.c_str(), static_cast<long long>(s.epochs_done));
  std::fflush(stdout);
  const int64_t done = s.epochs_done;
  state_ = std::move(s);
  return done;
}

void Checkpoint::keep_state(const Optimizer& optimizer, int64_t epochs_done, const Animator* animator) {
  const auto* adam = dynamic_cast<const Adam*>(&optimizer);
  if (!adam) {
    state_.reset();  // nothing to continue from: the file holds the parameters only
    return;
  }
  TrainingState s;
  s.epochs_done = epochs_done;
  s.run = run_;
  s.optimizer = adam->state();
  s.rng = get_rng_state();  // after the last epoch: the next one's shuffle and dropout
  if (animator)
    for (const Series& series : animator->series()) s.curves.push_back(TrainingCurve{series.label, series.x, series.y});
  state_ = std::move(s);
}

void Checkpoint::trained(const Module& net, const Optimizer& optimizer, int64_t epochs_done, const Animator* animator) {
  reached_trainer_ = true;
  keep_state(optimizer, epochs_done, animator);
  save(net);
}

void Checkpoint::epoch_end(const Module& net, const Optimizer& optimizer, int64_t epochs_done, int64_t num_epochs,
                           const Animator* animator) {
  if (save_path_.empty() || save_every_ <= 0 || epochs_done >= num_epochs || epochs_done % save_every_ != 0) return;
  keep_state(optimizer, epochs_done, animator);
  // The format the path names, as the final save: a .safetensors path gets a safetensors file
  // (--load reads it after a kill; it holds no training state, so --resume names --load).
  const std::string after = " after " + std::to_string(epochs_done) + " of " + std::to_string(num_epochs) + " epochs";
  write(net, after.c_str());
}

void Checkpoint::save(const Module& net) const { write(net, ""); }

void Checkpoint::write(const Module& net, const char* when) const {
  if (save_path_.empty()) return;
  if (is_safetensors_path(save_path_)) {  // the parameters and settings only (core/io/safetensors.h)
    const SavedFile f = save_safetensors_params(save_path_, net, settings_, metadata_);
    std::printf("saved %s%s (%llu bytes, safetensors)\n", save_path_.c_str(), when,
                static_cast<unsigned long long>(f.bytes));
    std::fflush(stdout);
    return;
  }
  const SavedFile f = save_param_file(save_path_, net, settings_, state_ ? &*state_ : nullptr);
  // The size and checksum describe this run's file: with another program saving to the same
  // path at the same time, the file there is the one whose "saved" line matches it.
  std::printf("saved %s%s (%llu bytes, checksum %016llx)\n", save_path_.c_str(), when,
              static_cast<unsigned long long>(f.bytes), static_cast<unsigned long long>(f.checksum));
  std::fflush(stdout);
}

}  // namespace d2l
