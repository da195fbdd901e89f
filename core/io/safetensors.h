// core/io/safetensors.h — the safetensors format, the one PyTorch users exchange weights in
// (the format's own specification, read and written here without any library):
//
//   u64 N, little-endian | N bytes of JSON (UTF-8, padded with spaces) | the data
//   JSON: {"__metadata__": {"key": "value", ...},
//          "name": {"dtype": "F32", "shape": [3, 4], "data_offsets": [begin, end]}, ...}
//   data_offsets count from the first byte after the header; the data of each tensor is its
//   values in row-major order, little-endian.
//
// Written: F32, the header's tensors in the order given, padded to a multiple of 8 bytes.
// Read: F32, F16, BF16 and F64, converted to float (F64 to the nearest float); any other
// dtype (I64, BOOL, F8_E4M3, ...) is refused, named. A file is refused before its data are
// read when its header says anything unsound: a header size past the end of the file or
// above 100 MB (the format's own limit), more than kSafetensorsMaxKeys JSON keys, JSON that is not valid UTF-8 or not an object, a
// tensor whose byte count is not shape × dtype size, offsets past the data or overlapping,
// or data bytes no tensor claims.
//
// Models: save_safetensors_params writes every parameter under its registered name (the
// book's state_dict() names, so PyTorch's load_state_dict takes the file as it is) with the
// model's settings and any extra metadata (the vocabularies' tokens) in __metadata__;
// read_safetensors_params checks the settings, every name and shape and that every value is
// finite before returning anything (see core/io/param_file.h for the same rules on our own
// format). The file's extension picks the format: is_safetensors_path.
//
// Names and layouts: no chapter model's name or layout differs from the book's, so nothing is
// converted on the way. Linear weights are (out_features, in_features) as nn.Linear's, GRU
// weights weight_ih_l{k} (3h, in) with the gates in PyTorch's order r, z, n, Embedding
// (vocab, embed), LayerNorm weight and bias; the Transformer's blocks are "blks.block{i}" as
// the book's add_module names them, and the NLI model's MLPs number their layers as its
// nn.Sequential ("attend.f.1.weight", "aggregate.h.4.weight"). The book's sinusoidal
// PositionalEncoding keeps P as a plain attribute, outside state_dict(); here it is no
// parameter either, so neither file holds it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/io/param_file.h"
#include "core/shape.h"

namespace d2l {

class Module;

// __metadata__: string keys and string values (any UTF-8), in file order.
using SafetensorsMetadata = std::vector<std::pair<std::string, std::string>>;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;          // as the file has it ("F32", "F16", "BF16", "F64")
  Shape shape;
  std::vector<float> values;  // converted to float
};

struct SafetensorsFile {
  SafetensorsMetadata metadata;
  std::vector<SafetensorsTensor> tensors;  // in the header's order
};

// The format's own limit on the header size.
constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;
// This reader's limit on the header's JSON keys (a tensor takes 4: its name, dtype, shape and
// data_offsets), so a 100 MB header of tiny entries is refused while it is read instead of
// being built: 250,000 tensors, far more than any model here or in the book.
constexpr uint64_t kSafetensorsMaxKeys = 1'000'000;

// Parses a whole file held in memory; `path` names it in errors, which are
// std::runtime_error "[safetensors] path: ...". Time and memory are linear in the file's size.
// A file in the project's own parameter format (core/io/param_file.h) is named as such.
SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& path);
// Reads a regular file (a FIFO or device is refused) of at most max_bytes and parses it.
SafetensorsFile read_safetensors(const std::string& path, uint64_t max_bytes = uint64_t(1) << 34);

// The bytes of a file holding every tensor as F32 (dtype is ignored) and the metadata.
// Throws std::invalid_argument on a duplicate name or key, a tensor named "__metadata__",
// values that do not fill the shape, or names, keys or values that are not valid UTF-8.
std::string format_safetensors(const std::vector<SafetensorsTensor>& tensors, const SafetensorsMetadata& metadata);
// format_safetensors, then write_file_atomically (no half-written file, ever).
void write_safetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                       const SafetensorsMetadata& metadata);

// Whether a parameter path is a safetensors file: it ends in ".safetensors", in any case
// ("M.SAFETENSORS" too; ".safetensors" alone is one).
bool is_safetensors_path(const std::string& path);

// Writes net's parameters, settings (each its own metadata entry, in order) and `extra`
// metadata (keys that are not settings, e.g. "src_vocab.tokens"). Refuses non-finite
// weights ("[Module.save] ...").
SavedFile save_safetensors_params(const std::string& path, const Module& net, const ModelSettings& settings,
                                  const SafetensorsMetadata& extra = {});

// Reads and checks a file against net and the loading run's settings; changes nothing. The
// file's settings are its metadata minus "format" and the keys ending in ".tokens"; they
// must equal `settings` (in any order: PyTorch writers may sort them). A file that records
// no settings at all (a plain PyTorch state_dict) is refused, unless `without_settings` says
// the caller accepts one checked by its names and shapes alone. Errors are
// std::runtime_error "[Module.load] path: ...".
ParamFileContents read_safetensors_params(const std::string& path, const Module& net, const ModelSettings& settings,
                                          bool without_settings = false);

// The settings recorded in a file's metadata (the rule above).
ModelSettings safetensors_settings(const SafetensorsMetadata& metadata);

}  // namespace d2l
