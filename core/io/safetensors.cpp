// core/io/safetensors.cpp — reading and writing safetensors files (format in core/io/safetensors.h).
#include "core/io/safetensors.h"

#include <cctype>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/io/files.h"
#include "core/io/json.h"
#include "core/io/utf8.h"
#include "core/nn/module.h"

namespace d2l {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw std::runtime_error("[safetensors] " + path + ": " + what);
}

uint64_t le_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// IEEE half to float: every half, subnormals, infinities and NaN included, is a float.
float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float mag;
  if (exp == 0) mag = std::ldexp(static_cast<float>(mant), -24);           // zero or subnormal
  else if (exp == 31) mag = mant ? NAN : INFINITY;                          // inf, NaN
  else mag = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  uint32_t bits;
  std::memcpy(&bits, &mag, 4);
  bits |= sign;
  std::memcpy(&mag, &bits, 4);
  return mag;
}

struct Dtype {
  const char* name;
  uint64_t size;
};
constexpr Dtype kReadable[] = {{"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}};
// Dtypes of the specification this reader does not convert: named in the error.
constexpr const char* kOther[] = {"BOOL", "U8", "I8", "I16", "U16", "I32", "U32", "I64", "U64",
                                  "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64"};

// The values of one tensor, converted from its little-endian bytes.
std::vector<float> convert(const std::string& dtype, const unsigned char* p, uint64_t n) {
  std::vector<float> v(n);
  if (dtype == "F32") {
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t b = static_cast<uint32_t>(p[4 * i]) | static_cast<uint32_t>(p[4 * i + 1]) << 8 |
                         static_cast<uint32_t>(p[4 * i + 2]) << 16 | static_cast<uint32_t>(p[4 * i + 3]) << 24;
      std::memcpy(&v[i], &b, 4);
    }
  } else if (dtype == "F16") {
    for (uint64_t i = 0; i < n; ++i) v[i] = half_to_float(static_cast<uint16_t>(p[2 * i] | p[2 * i + 1] << 8));
  } else if (dtype == "BF16") {  // the top half of a float
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t b = static_cast<uint32_t>(p[2 * i] | p[2 * i + 1] << 8) << 16;
      std::memcpy(&v[i], &b, 4);
    }
  } else {  // F64, rounded to the nearest float (inf beyond the float range)
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t b = le_u64(p + 8 * i);
      double d;
      std::memcpy(&d, &b, 8);
      v[i] = static_cast<float>(d);
    }
  }
  return v;
}

void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::string shape_text(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool is_setting_key(const std::string& key) {
  const std::string suffix = ".tokens";
  const bool tokens = key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  return key != "format" && !tokens;
}

}  // namespace

SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& path) {
  if (bytes.size() < 8) refuse(path, "shorter than the 8-byte header size (" + std::to_string(bytes.size()) + " bytes)");
  const uint64_t n = le_u64(reinterpret_cast<const unsigned char*>(bytes.data()));
  if (bytes.compare(0, 8, "D2LPARAM") == 0)
    refuse(path, "this is a parameter file in the project's own format (it starts with D2LPARAM), not a "
                 "safetensors file, whatever its name says: rename it to .params to --load or --resume it");
  if (n > kSafetensorsMaxHeader)
    refuse(path, "header size " + std::to_string(n) + " bytes, above the format's limit of " +
                     std::to_string(kSafetensorsMaxHeader) + " (not a safetensors file?)");
  if (n > bytes.size() - 8)
    refuse(path, "header size " + std::to_string(n) + " bytes runs past the end of the file (" +
                     std::to_string(bytes.size()) + " bytes)");
  if (n < 2) refuse(path, "header of " + std::to_string(n) + " bytes cannot hold a JSON object");
  JsonValue header;
  try {
    header = parse_json(bytes.substr(8, n), kSafetensorsMaxKeys);
  } catch (const std::runtime_error& e) {
    refuse(path, std::string("the JSON header is malformed: ") + e.what());
  }
  if (header.kind != JsonValue::Kind::object) refuse(path, std::string("the header is ") + header.kind_name() + ", not an object");
  const uint64_t data_size = bytes.size() - 8 - n;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + 8 + n;

  SafetensorsFile out;
  struct Span {
    uint64_t begin, end;
    size_t tensor;
  };
  std::vector<Span> spans;
  for (const auto& [name, entry] : header.members) {
    if (name == "__metadata__") {
      if (entry.kind != JsonValue::Kind::object) refuse(path, std::string("__metadata__ is ") + entry.kind_name() + ", not an object");
      for (const auto& [key, value] : entry.members) {
        if (value.kind != JsonValue::Kind::string)
          refuse(path, "__metadata__ entry " + quote_input(key) + " is " + value.kind_name() + ", not a string");
        out.metadata.emplace_back(key, value.text);
      }
      continue;
    }
    auto bad = [&path, &name = name](const std::string& what) { refuse(path, "tensor " + quote_input(name) + ": " + what); };
    if (entry.kind != JsonValue::Kind::object) bad(std::string("its entry is ") + entry.kind_name() + ", not an object");
    const JsonValue *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (const auto& [key, value] : entry.members) {
      if (key == "dtype") dtype = &value;
      else if (key == "shape") shape = &value;
      else if (key == "data_offsets") offsets = &value;
      else bad("unknown field " + quote_input(key));
    }
    if (!dtype || !shape || !offsets) bad("needs dtype, shape and data_offsets");
    if (dtype->kind != JsonValue::Kind::string) bad("dtype is not a string");
    uint64_t size = 0;
    for (const Dtype& d : kReadable)
      if (dtype->text == d.name) size = d.size;
    if (!size) {
      const bool known = std::find_if(std::begin(kOther), std::end(kOther),
                                      [&](const char* o) { return dtype->text == o; }) != std::end(kOther);
      bad("dtype " + quote_input(dtype->text) + " " + (known ? "is not a floating type this reader converts" : "is unknown") +
          " (it reads F32, F16, BF16 and F64)");
    }
    if (shape->kind != JsonValue::Kind::array) bad("shape is not an array");
    if (shape->items.size() > 8) bad("shape has " + std::to_string(shape->items.size()) + " dimensions, more than 8");
    SafetensorsTensor t;
    t.name = name;
    t.dtype = dtype->text;
    uint64_t numel = 1;
    for (const JsonValue& d : shape->items) {
      uint64_t v;
      if (!d.as_u64(v) || v > (uint64_t(1) << 40)) bad("shape entries must be non-negative integers");
      // The byte count must fit the data, so every product along the way does too.
      numel = v == 0 || numel == 0 ? 0 : (numel > data_size / v ? data_size + 1 : numel * v);
      t.shape.push_back(static_cast<int64_t>(v));
    }
    uint64_t begin, end;
    if (offsets->kind != JsonValue::Kind::array || offsets->items.size() != 2 || !offsets->items[0].as_u64(begin) ||
        !offsets->items[1].as_u64(end))
      bad("data_offsets must be two non-negative integers [begin, end]");
    if (begin > end) bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] run backwards");
    if (end > data_size)
      bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] run past the data (" +
          std::to_string(data_size) + " bytes)");
    if (numel > data_size / size || numel * size != end - begin)
      bad("shape " + shape_text(t.shape) + " of " + t.dtype + " needs " +
          (numel > data_size / size ? std::string("more bytes than the file has") : std::to_string(numel * size) + " bytes") +
          ", data_offsets give " + std::to_string(end - begin));
    spans.push_back({begin, end, out.tensors.size()});
    out.tensors.push_back(std::move(t));
  }
  // The tensors must tile the data exactly: no overlap (one byte read as two tensors) and no
  // hole (bytes no tensor explains), as the specification requires.
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  for (const Span& s : spans) {
    const std::string& name = out.tensors[s.tensor].name;
    if (s.begin < at) refuse(path, "tensor " + quote_input(name) + " overlaps the tensor before it (data_offsets from " + std::to_string(s.begin) + ", the previous ends at " + std::to_string(at) + ")");
    if (s.begin > at) refuse(path, "bytes " + std::to_string(at) + " to " + std::to_string(s.begin) + " of the data belong to no tensor");
    at = s.end;
  }
  if (at != data_size) refuse(path, "bytes " + std::to_string(at) + " to " + std::to_string(data_size) + " of the data belong to no tensor");
  for (const Span& s : spans) {
    SafetensorsTensor& t = out.tensors[s.tensor];
    uint64_t size = 0;
    for (const Dtype& d : kReadable)
      if (t.dtype == d.name) size = d.size;
    t.values = convert(t.dtype, data + s.begin, (s.end - s.begin) / size);
  }
  return out;
}

SafetensorsFile read_safetensors(const std::string& path, uint64_t max_bytes) {
  RegularFileReader file(path, "safetensors");  // refuses FIFOs, devices and directories
  if (file.size() > max_bytes)
    refuse(path, std::to_string(file.size()) + " bytes, more than the " + std::to_string(max_bytes) + " expected");
  // The header size first: a hostile size is refused before the rest is read.
  const std::string head = file.read(std::min<uint64_t>(file.size(), 8), "the header size");
  if (head.size() == 8) {
    const uint64_t n = le_u64(reinterpret_cast<const unsigned char*>(head.data()));
    if (n > kSafetensorsMaxHeader || n > file.size() - 8) return parse_safetensors(head, path);  // fails, says why
  }
  return parse_safetensors(head + file.read(file.size() - head.size(), "the file"), path);
}

std::string format_safetensors(const std::vector<SafetensorsTensor>& tensors, const SafetensorsMetadata& metadata) {
  auto utf8 = [](const std::string& s, const char* what) {
    if (first_invalid_utf8(s) >= 0) throw std::invalid_argument(std::string("[safetensors] ") + what + " is not valid UTF-8");
  };
  std::string json = "{";
  std::unordered_set<std::string> keys, names;  // duplicates found in linear time, as the reader does
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      utf8(metadata[i].first, "a metadata key");
      utf8(metadata[i].second, "a metadata value");
      if (!keys.insert(metadata[i].first).second)
        throw std::invalid_argument("[safetensors] metadata key '" + metadata[i].first + "' appears twice");
      json += (i ? "," : "") + json_quote(metadata[i].first) + ":" + json_quote(metadata[i].second);
    }
    json += "}";
  }
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const SafetensorsTensor& t = tensors[i];
    utf8(t.name, "a tensor name");
    if (t.name == "__metadata__")
      throw std::invalid_argument("[safetensors] a tensor cannot be named '" + t.name + "'");
    if (!names.insert(t.name).second) throw std::invalid_argument("[safetensors] tensor name '" + t.name + "' appears twice");
    uint64_t numel = 1;
    for (int64_t d : t.shape) numel *= static_cast<uint64_t>(d);
    if (numel != t.values.size())
      throw std::invalid_argument("[safetensors] tensor '" + t.name + "' has shape " + shape_text(t.shape) + " but " +
                                  std::to_string(t.values.size()) + " values");
    json += std::string(json.size() > 1 ? "," : "") + json_quote(t.name) + ":{\"dtype\":\"F32\",\"shape\":" +
            shape_text(t.shape) + ",\"data_offsets\":[" + std::to_string(offset) + "," +
            std::to_string(offset + 4 * numel) + "]}";
    offset += 4 * numel;
  }
  json += "}";
  json.append((8 - json.size() % 8) % 8, ' ');  // the data start 8-byte aligned
  std::string out;
  out.reserve(8 + json.size() + offset);
  put_u64(out, json.size());
  out += json;
  for (const SafetensorsTensor& t : tensors)
    for (float v : t.values) {
      uint32_t b;
      std::memcpy(&b, &v, 4);
      for (int k = 0; k < 4; ++k) out += static_cast<char>((b >> (8 * k)) & 0xFF);
    }
  return out;
}

void write_safetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                       const SafetensorsMetadata& metadata) {
  write_file_atomically(path, format_safetensors(tensors, metadata), "safetensors");
}

bool is_safetensors_path(const std::string& path) {
  // Any case: "M.SAFETENSORS" is the same format to every other reader of the extension.
  const std::string ext = ".safetensors";
  if (path.size() < ext.size()) return false;
  for (size_t i = 0; i < ext.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
  return true;
}

ModelSettings safetensors_settings(const SafetensorsMetadata& metadata) {
  ModelSettings s;
  for (const auto& [k, v] : metadata)
    if (is_setting_key(k)) s.emplace_back(k, v);
  return s;
}

SavedFile save_safetensors_params(const std::string& path, const Module& net, const ModelSettings& settings,
                                  const SafetensorsMetadata& extra) {
  format_settings(settings);  // the same rules on keys and values as our own format
  SafetensorsMetadata metadata{{"format", "pt"}};  // what PyTorch's own writers put there
  for (const auto& kv : settings) metadata.push_back(kv);
  for (const auto& [k, v] : extra) {
    if (is_setting_key(k))
      throw std::invalid_argument("[Module.save] extra metadata key '" + k + "' would read back as a setting");
    metadata.emplace_back(k, v);
  }
  std::vector<SafetensorsTensor> tensors;
  for (const auto& [name, t] : net.named_parameters()) {
    const float* p = t.data();
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isfinite(p[i]))
        throw std::runtime_error("[Module.save] cannot write '" + path + "': parameter '" + name + "' holds " +
                                 (std::isnan(p[i]) ? "NaN" : "inf") + " at flat index " + std::to_string(i) +
                                 ": such a model cannot be loaded again");
    tensors.push_back({name, "F32", t.shape(), std::vector<float>(p, p + t.numel())});
  }
  const std::string bytes = format_safetensors(tensors, metadata);
  write_file_atomically(path, bytes, "Module.save");
  return SavedFile{bytes.size(), fnv1a64(bytes.data(), bytes.size())};
}

ParamFileContents read_safetensors_params(const std::string& path, const Module& net, const ModelSettings& settings,
                                          bool without_settings) {
  const auto params = net.named_parameters();
  auto fail = [&path](const std::string& what) -> void { throw std::runtime_error("[Module.load] " + path + ": " + what); };
  // The largest file this model can have: its values as F64 and a generous header.
  uint64_t most = 8 + kSafetensorsMaxHeader;
  for (const auto& p : params) most += 8 * static_cast<uint64_t>(p.second.numel());
  SafetensorsFile file;
  try {
    file = read_safetensors(path, most);
  } catch (const std::runtime_error& e) {
    const std::string what = e.what(), prefix = "[safetensors] " + path + ": ";
    fail(what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
  }
  ModelSettings mine = settings, theirs = safetensors_settings(file.metadata);
  if (theirs.empty() && !without_settings) {
    std::string keys;
    for (const auto& [k, v] : settings) keys += (keys.empty() ? "" : ", ") + k + "=" + v;
    fail("its __metadata__ records no model settings, so nothing says it was trained for this model and "
         "vocabulary; add them to the file's metadata: " + keys);
  }
  std::sort(mine.begin(), mine.end()), std::sort(theirs.begin(), theirs.end());
  if (const std::string diff = theirs.empty() ? "" : settings_mismatch(theirs, mine); !diff.empty())
    fail("the model's settings differ from this run's: " + diff +
         " (a model for other data or options; train one for this run, or run with the file's options)");
  ParamFileContents out;
  std::vector<bool> used(file.tensors.size());
  std::unordered_map<std::string, size_t> index;  // one lookup per parameter, not one scan
  for (size_t k = 0; k < file.tensors.size(); ++k) index.emplace(file.tensors[k].name, k);
  for (const auto& [name, t] : params) {
    const auto found = index.find(name);
    const size_t k = found == index.end() ? file.tensors.size() : found->second;
    if (k == file.tensors.size()) fail("has no tensor '" + name + "', which the model needs (shape " + shape_text(t.shape()) + ")");
    const SafetensorsTensor& f = file.tensors[k];
    if (f.shape != t.shape())
      fail("tensor '" + name + "' has shape " + shape_text(f.shape) + ", the model expects " + shape_text(t.shape()));
    for (size_t i = 0; i < f.values.size(); ++i)
      if (!std::isfinite(f.values[i]))
        fail("tensor '" + name + "' (" + f.dtype + ") holds " + (std::isnan(f.values[i]) ? "NaN" : "inf") +
             " at flat index " + std::to_string(i) + (f.dtype == "F64" ? " (or a value beyond the float range)" : "") +
             ": refusing a model that is not finite");
    used[k] = true;
    out.values.push_back(f.values);
  }
  for (size_t k = 0; k < file.tensors.size(); ++k)
    if (!used[k]) fail("holds tensor " + quote_input(file.tensors[k].name, 80, '\'') + ", which this model does not have (a different model?)");
  out.settings = safetensors_settings(file.metadata);
  return out;
}

}  // namespace d2l
