// core/io/param_file.cpp — writing and reading parameter files (layout in core/io/param_file.h).
#include "core/io/param_file.h"

#include "core/io/json.h"  // quote_input

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/shape.h"  // check
#include "core/io/files.h"
#include "core/nn/module.h"

namespace d2l {
namespace {

constexpr char kMagic[8] = {'D', '2', 'L', 'P', 'A', 'R', 'A', 'M'};
constexpr uint32_t kVersion = 2;
// Caps that bound what a file may ask the reader to allocate.
constexpr uint32_t kMaxSettingsBytes = 1 << 16;
constexpr uint32_t kMaxNameBytes = 1 << 12;
constexpr uint32_t kMaxCurves = 16;
constexpr uint64_t kMaxCurvePoints = 1 << 22;  // all curves together
// magic, version, settings length, count, has_training, checksum
constexpr uint64_t kSmallestFile = 8 + 4 + 4 + 4 + 1 + 8;

template <class T>
void put(std::string& s, const T& v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_floats(std::string& s, const float* p, size_t n) { s.append(reinterpret_cast<const char*>(p), n * sizeof(float)); }
void put_text(std::string& s, const std::string& text) {
  put(s, static_cast<uint32_t>(text.size()));
  s += text;
}

bool valid_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') return false;
  return true;
}
bool valid_value(const std::string& v) {
  for (char c : v)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

// The first non-finite value of a float array, or -1.
int64_t first_non_finite(const float* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return static_cast<int64_t>(i);
  return -1;
}

// Parses an in-memory file, failing with "[Module.load] path: ..." instead of running past its end.
struct Reader {
  const std::string& buf;
  const std::string& path;
  size_t pos = 0;
  [[noreturn]] void fail(const std::string& what) const { throw std::runtime_error("[Module.load] " + path + ": " + what); }
  const char* bytes(uint64_t n, const char* what) {
    if (buf.size() - pos < n) fail(std::string("truncated while reading ") + what);
    pos += n;
    return buf.data() + pos - n;
  }
  template <class T>
  T get(const char* what) {
    T v;
    std::memcpy(&v, bytes(sizeof v, what), sizeof v);
    return v;
  }
  std::string text(uint32_t cap, const char* what) {
    const uint32_t n = get<uint32_t>(what);
    if (n > cap) fail(std::string(what) + " of " + std::to_string(n) + " bytes, more than the " + std::to_string(cap) + " allowed");
    return std::string(bytes(n, what), n);
  }
  // n floats, each finite: a NaN or inf weight is a poisoned model, not one to load.
  std::vector<float> floats(uint64_t n, const std::string& what) {
    std::vector<float> v(n);
    if (n) std::memcpy(v.data(), bytes(n * sizeof(float), what.c_str()), n * sizeof(float));
    if (const int64_t bad = first_non_finite(v.data(), n); bad >= 0)
      fail(what + " holds " + (std::isnan(v[bad]) ? "NaN" : "inf") + " at flat index " + std::to_string(bad) +
           " (refusing a model that is not finite; D2L_CHECK_NUMERICS=1 during training finds where it began)");
    return v;
  }
};

// The size of the largest file a model with these parameters can have.
uint64_t largest_file(const std::vector<std::pair<std::string, Tensor>>& params) {
  uint64_t n = 8 + 4 + 4 + kMaxSettingsBytes + 4 + 1 + 8;
  for (const auto& [name, t] : params) n += 4 + name.size() + 4 + 8 * t.shape().size() + 3 * 4 * t.numel();
  n += 8 + 4 + kMaxSettingsBytes + 5 * 4 + 8 + 4 * 8 + 1 + 4 + 4;
  n += kMaxCurves * (4 + kMaxNameBytes + 4) + 2 * 4 * kMaxCurvePoints;
  return n;
}

TrainingState read_training(Reader& r, const std::vector<std::pair<std::string, Tensor>>& params) {
  TrainingState s;
  s.epochs_done = r.get<int64_t>("epochs done");
  if (s.epochs_done < 0) r.fail("epochs done is negative (" + std::to_string(s.epochs_done) + ")");
  try {
    s.run = parse_settings(r.text(kMaxSettingsBytes, "run settings"));
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("[Module.load]", 0) == 0) throw;
    r.fail(std::string("run ") + e.what());
  }
  AdamState& a = s.optimizer;
  const std::vector<float> hyper = r.floats(5, "Adam's hyper-parameters");
  a.lr = hyper[0], a.beta1 = hyper[1], a.beta2 = hyper[2], a.eps = hyper[3], a.weight_decay = hyper[4];
  // Settings no Adam accepts: the state could never be continued. An Adam over no parameters
  // checks them by Adam's own rules (its constructor throws "[Adam] lr must be >= 0 ...").
  try {
    Adam({}, a.lr, a.beta1, a.beta2, a.eps, a.weight_decay);
  } catch (const std::invalid_argument& e) {
    r.fail(std::string("the training state's optimiser settings are invalid: ") + e.what());
  }
  a.step = r.get<int64_t>("Adam's step count");
  if (a.step < 0) r.fail("Adam's step count is negative (" + std::to_string(a.step) + ")");
  for (const auto& [name, t] : params) {
    a.m.push_back(r.floats(t.numel(), "Adam's first moment of '" + name + "'"));
    a.v.push_back(r.floats(t.numel(), "Adam's second moment of '" + name + "'"));
    for (float v : a.v.back())
      if (v < 0) r.fail("Adam's second moment of '" + name + "' is negative");
  }
  for (uint64_t& w : s.rng.s) w = r.get<uint64_t>("the generator state");
  if (!(s.rng.s[0] | s.rng.s[1] | s.rng.s[2] | s.rng.s[3])) r.fail("the generator state is all zero");
  const uint8_t spare = r.get<uint8_t>("the generator state");
  if (spare > 1) r.fail("the generator's has_spare flag is " + std::to_string(spare) + ", not 0 or 1");
  s.rng.has_spare = spare == 1;
  s.rng.spare = r.floats(1, "the generator's spare normal")[0];
  const uint32_t curves = r.get<uint32_t>("the curve count");
  if (curves > kMaxCurves) r.fail(std::to_string(curves) + " curves, more than the " + std::to_string(kMaxCurves) + " allowed");
  uint64_t points_left = kMaxCurvePoints;
  for (uint32_t c = 0; c < curves; ++c) {
    TrainingCurve curve;
    curve.name = r.text(kMaxNameBytes, "a curve name");
    if (!valid_value(curve.name)) r.fail("curve " + std::to_string(c) + " has a name that is not printable ASCII");
    const uint32_t n = r.get<uint32_t>("a curve length");
    if (n > points_left) r.fail("the curves hold more than " + std::to_string(kMaxCurvePoints) + " points");
    points_left -= n;
    // Curves keep NaN as the book's "no value this time", so they are not checked for it.
    curve.x.resize(n), curve.y.resize(n);
    if (n) {
      std::memcpy(curve.x.data(), r.bytes(4ull * n, "curve points"), 4ull * n);
      std::memcpy(curve.y.data(), r.bytes(4ull * n, "curve points"), 4ull * n);
    }
    s.curves.push_back(std::move(curve));
  }
  return s;
}

}  // namespace

uint64_t fnv1a64(const char* p, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ULL;
  return h;
}

std::string format_settings(const ModelSettings& settings) {
  std::string s;
  for (size_t i = 0; i < settings.size(); ++i) {
    const auto& [k, v] = settings[i];
    check(valid_key(k), "format_settings", "key '", k, "' must be letters, digits, '_', '.' or '-'");
    check(valid_value(v), "format_settings", "the value of '", k, "' must be printable ASCII");
    for (size_t j = 0; j < i; ++j) check(settings[j].first != k, "format_settings", "key '", k, "' appears twice");
    s += k + "=" + v + "\n";
  }
  check(s.size() <= kMaxSettingsBytes, "format_settings", "the settings take ", s.size(), " bytes, more than ",
        kMaxSettingsBytes);
  return s;
}

ModelSettings parse_settings(const std::string& text) {
  if (text.size() > kMaxSettingsBytes)
    throw std::runtime_error("settings of " + std::to_string(text.size()) + " bytes, more than the " +
                             std::to_string(kMaxSettingsBytes) + " allowed");
  ModelSettings out;
  size_t pos = 0, line = 0;
  while (pos < text.size()) {
    ++line;
    auto bad = [line](const std::string& why) {
      throw std::runtime_error("settings line " + std::to_string(line) + ": " + why);
    };
    const size_t end = text.find('\n', pos);
    if (end == std::string::npos) bad("does not end with a newline");
    const std::string l = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = l.find('=');
    if (eq == std::string::npos) bad("has no '='");
    std::string key = l.substr(0, eq), value = l.substr(eq + 1);
    if (!valid_key(key)) bad("the key is not letters, digits, '_', '.' or '-'");
    if (!valid_value(value)) bad("the value of '" + key + "' is not printable ASCII");
    for (const auto& [k, v] : out)
      if (k == key) bad("key '" + key + "' appears twice");
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

std::string settings_mismatch(const ModelSettings& file, const ModelSettings& run) {
  auto find = [](const ModelSettings& s, const std::string& k) -> const std::string* {
    for (const auto& [key, v] : s)
      if (key == k) return &v;
    return nullptr;
  };
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  // Keys and values come from the file (a safetensors __metadata__ holds any string): quoted,
  // their control characters escaped, long ones cut.
  auto q = [](const std::string& t) { return quote_input(t, 120, '\''); };
  auto qk = [](const std::string& t) { return quote_input(t, 120, '\0'); };
  for (const auto& [k, v] : file) {
    const std::string* mine = find(run, k);
    if (!mine) add(qk(k) + ": the file has " + q(v) + ", this run has no such setting");
    else if (*mine != v) add(qk(k) + ": the file has " + q(v) + ", this run " + q(*mine));
  }
  for (const auto& [k, v] : run)
    if (!find(file, k)) add(qk(k) + ": this run has " + q(v) + ", the file has no such setting");
  if (out.empty() && file != run) out = "the same settings in another order";
  return out;
}

SavedFile save_param_file(const std::string& path, const Module& net, const ModelSettings& settings,
                          const TrainingState* training) {
  const auto params = net.named_parameters();
  auto refuse = [&path](const std::string& why) {
    throw std::runtime_error("[Module.save] cannot write '" + path + "': " + why);
  };
  std::string s(kMagic, sizeof kMagic);
  put(s, kVersion);
  put_text(s, format_settings(settings));
  put(s, static_cast<uint32_t>(params.size()));
  for (const auto& [name, t] : params) {
    if (const int64_t bad = first_non_finite(t.data(), t.numel()); bad >= 0)
      refuse("parameter '" + name + "' holds " + (std::isnan(t.data()[bad]) ? "NaN" : "inf") + " at flat index " +
             std::to_string(bad) + ": such a model cannot be loaded again (D2L_CHECK_NUMERICS=1 finds where it began)");
    put_text(s, name);
    put(s, static_cast<uint32_t>(t.ndim()));
    for (int64_t d : t.shape()) put(s, d);
    put_floats(s, t.data(), t.numel());
  }
  put(s, static_cast<uint8_t>(training ? 1 : 0));
  if (training) {
    const AdamState& a = training->optimizer;
    if (a.m.size() != params.size() || a.v.size() != params.size())
      refuse("the optimiser state has moments for " + std::to_string(a.m.size()) + " parameters, the model has " +
             std::to_string(params.size()));
    put(s, training->epochs_done);
    put_text(s, format_settings(training->run));
    for (float h : {a.lr, a.beta1, a.beta2, a.eps, a.weight_decay}) put(s, h);
    put(s, a.step);
    for (size_t k = 0; k < params.size(); ++k) {
      const size_t n = static_cast<size_t>(params[k].second.numel());
      if (a.m[k].size() != n || a.v[k].size() != n)
        refuse("the optimiser's moments of '" + params[k].first + "' do not have the parameter's size");
      put_floats(s, a.m[k].data(), n);
      put_floats(s, a.v[k].data(), n);
    }
    for (uint64_t w : training->rng.s) put(s, w);
    put(s, static_cast<uint8_t>(training->rng.has_spare));
    put(s, training->rng.spare);
    put(s, static_cast<uint32_t>(training->curves.size()));
    for (const TrainingCurve& c : training->curves) {
      if (c.x.size() != c.y.size()) refuse("curve '" + c.name + "' has " + std::to_string(c.x.size()) + " x and " + std::to_string(c.y.size()) + " y values");
      put_text(s, c.name);
      put(s, static_cast<uint32_t>(c.x.size()));
      put_floats(s, c.x.data(), c.x.size());
      put_floats(s, c.y.data(), c.y.size());
    }
  }
  const uint64_t checksum = fnv1a64(s.data(), s.size());
  put(s, checksum);
  write_file_atomically(path, s, "Module.save");
  return SavedFile{s.size(), checksum};
}

ParamFileContents read_param_file(const std::string& path, const Module& net, const ModelSettings& settings) {
  const auto params = net.named_parameters();
  RegularFileReader file(path, "Module.load");  // refuses FIFOs, devices and directories
  auto fail = [&path](const std::string& what) -> void { throw std::runtime_error("[Module.load] " + path + ": " + what); };
  // The header first: a large file that is not ours is refused after reading 12 bytes.
  const std::string head = file.read(std::min<uint64_t>(file.size(), 12), "the header");
  if (head.size() < sizeof kMagic || std::memcmp(head.data(), kMagic, sizeof kMagic) != 0)
    fail("not a d2l parameter file (bad magic)");
  if (head.size() < 12) fail("truncated (shorter than the header)");
  uint32_t version;
  std::memcpy(&version, head.data() + 8, 4);
  if (version == 1)
    fail("written in the old format 1, which records no model settings and no vocabulary fingerprints; "
         "regenerate it with this program: train again and --save it");
  if (version != kVersion)
    fail("format version " + std::to_string(version) + ", this program reads version " + std::to_string(kVersion));
  if (file.size() < kSmallestFile) fail("truncated (shorter than the smallest parameter file)");
  if (const uint64_t most = largest_file(params); file.size() > most)
    fail(std::to_string(file.size()) + " bytes, more than a parameter file of this model can have (" +
         std::to_string(most) + "): not a file for this model");
  const std::string buf = head + file.read(file.size() - head.size(), "the file");
  uint64_t stored;
  std::memcpy(&stored, buf.data() + buf.size() - sizeof stored, sizeof stored);
  if (fnv1a64(buf.data(), buf.size() - sizeof stored) != stored) fail("checksum mismatch: the file is truncated or corrupt");
  const std::string body = buf.substr(0, buf.size() - sizeof stored);
  Reader r{body, path, 12};

  ParamFileContents out;
  try {
    out.settings = parse_settings(r.text(kMaxSettingsBytes, "settings"));
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("[Module.load]", 0) == 0) throw;
    fail(e.what());
  }
  if (const std::string diff = settings_mismatch(out.settings, settings); !diff.empty())
    fail("the model's settings differ from this run's: " + diff +
         " (a model for other data or options; train one for this run, or run with the file's options)");
  const uint32_t count = r.get<uint32_t>("parameter count");
  if (count != params.size())
    fail("holds " + std::to_string(count) + " parameters, the model has " + std::to_string(params.size()) +
         " (a different model?)");
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& [want, t] = params[i];
    const std::string name = r.text(kMaxNameBytes, "name");
    if (name != want) fail("parameter " + std::to_string(i) + " is '" + name + "', the model expects '" + want + "'");
    // The number of dims first: a corrupt count must not be read as that many sizes.
    const uint32_t nd = r.get<uint32_t>("ndim");
    if (nd != t.shape().size())
      fail("parameter '" + name + "' has ndim " + std::to_string(nd) + ", the model expects shape " + shape_str(t.shape()));
    Shape shape;
    for (uint32_t d = 0; d < nd; ++d) shape.push_back(r.get<int64_t>("shape"));
    if (shape != t.shape())
      fail("parameter '" + name + "' has shape " + shape_str(shape) + ", the model expects " + shape_str(t.shape()));
    out.values.push_back(r.floats(t.numel(), "parameter '" + name + "'"));
  }
  const uint8_t has_training = r.get<uint8_t>("the training flag");
  if (has_training > 1) fail("training flag " + std::to_string(has_training) + ", not 0 or 1");
  if (has_training) out.training = read_training(r, params);
  if (r.pos != body.size()) fail("trailing bytes after the last section");
  return out;
}

void copy_parameters(const ParamFileContents& contents, Module& net) {
  const auto params = net.named_parameters();
  check(contents.values.size() == params.size(), "Module.load", "the contents hold ", contents.values.size(),
        " parameters, the model has ", params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor t = params[i].second;
    check(static_cast<int64_t>(contents.values[i].size()) == t.numel(), "Module.load", "parameter '", params[i].first,
          "' has ", contents.values[i].size(), " values, the model has shape ", t.shape());
    std::copy(contents.values[i].begin(), contents.values[i].end(), t.data());
  }
}

}  // namespace d2l
