// tools/d2l/data/vocab_tokens.cpp — vocabularies as JSON token lists (see the header).
#include "tools/d2l/data/vocab_tokens.h"

#include <stdexcept>
#include <unordered_set>
#include <vector>

#include "core/io/json.h"

namespace d2l {

std::string vocab_tokens_json(const Vocab& vocab) {
  std::string s = "[";
  for (size_t i = 0; i < vocab.idx_to_token().size(); ++i) s += (i ? "," : "") + json_quote(vocab.idx_to_token()[i]);
  return s + "]";
}

Vocab vocab_from_tokens_json(const std::string& json, const std::string& what) {
  auto fail = [&what](const std::string& why) { throw std::runtime_error("[vocab] " + what + ": " + why); };
  JsonValue v;
  try {
    v = parse_json(json);
  } catch (const std::runtime_error& e) {
    fail(std::string("not JSON: ") + e.what());
  }
  if (v.kind != JsonValue::Kind::array || v.items.empty()) fail("not a non-empty JSON array of tokens");
  std::vector<std::string> tokens;
  std::unordered_set<std::string> seen;
  for (const JsonValue& t : v.items) {
    if (t.kind != JsonValue::Kind::string) fail("holds " + std::string(t.kind_name()) + ", not only strings");
    if (!seen.insert(t.text).second) fail("token '" + t.text + "' appears twice");
    tokens.push_back(t.text);
  }
  if (tokens[0] != "<unk>") fail("index 0 is '" + tokens[0] + "', not '<unk>'");
  // Every other token seen once, in order: the book's Vocab keeps first-seen order among
  // equal counts, so the indices come out as listed.
  Vocab vocab({std::vector<std::string>(tokens.begin() + 1, tokens.end())}, 0);
  if (vocab.idx_to_token() != tokens) fail("does not rebuild as listed");
  return vocab;
}

}  // namespace d2l
