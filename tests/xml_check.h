// tests/xml_check.h — a small XML well-formedness check for the SVG figures, so the tests
// need no XML library: tags balanced and properly nested, attributes quoted and unique, no
// raw '<' or '&' in text or attribute values, only the five named entities and numeric
// character references, one root element. It also collects every element with its
// attributes and decoded text, for the tests to look up labels and cells.
#pragma once
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/d2l/data/text.h"

namespace d2l_test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;  // values decoded
  std::string text;                          // the decoded text directly inside the element
  std::string attr(const std::string& key) const {
    auto it = attrs.find(key);
    return it == attrs.end() ? "" : it->second;
  }
};

struct XmlDoc {
  std::vector<XmlElement> elements;  // in document order
  std::string error;                 // empty when the document is well-formed
  std::vector<const XmlElement*> all(const std::string& name) const {
    std::vector<const XmlElement*> out;
    for (const XmlElement& e : elements)
      if (e.name == name) out.push_back(&e);
    return out;
  }
};

namespace xml_detail {

// Decodes character data; returns false on a raw '<', a bare '&' or an unknown entity.
inline bool decode(const std::string& raw, std::string& out) {
  static const std::map<std::string, char> named{{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '<') return false;
    if (raw[i] != '&') {
      out += raw[i];
      continue;
    }
    const size_t semi = raw.find(';', i);
    if (semi == std::string::npos) return false;
    const std::string ref = raw.substr(i + 1, semi - i - 1);
    if (named.count(ref)) {
      out += named.at(ref);
    } else if (ref.size() > 1 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string digits = ref.substr(hex ? 2 : 1);
      if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
        return false;
      d2l::append_utf8(out, static_cast<uint32_t>(std::stoul(digits, nullptr, hex ? 16 : 10)));
    } else {
      return false;
    }
    i = semi;
  }
  return true;
}

inline bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '-' || c == '_' || c == '.';
}

}  // namespace xml_detail

inline XmlDoc parse_xml(const std::string& s) {
  using namespace xml_detail;
  XmlDoc doc;
  std::vector<size_t> open;  // indices into doc.elements
  int roots = 0;
  size_t i = 0;
  auto fail = [&](const std::string& why) {
    doc.error = why + " at byte " + std::to_string(i);
    return doc;
  };
  auto skip_space = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  if (s.compare(0, 5, "<?xml") == 0) {
    i = s.find("?>");
    if (i == std::string::npos) return fail("unterminated XML declaration");
    i += 2;
  }
  while (i < s.size()) {
    if (s[i] != '<') {  // character data up to the next tag
      const size_t next = s.find('<', i);
      const std::string raw = s.substr(i, next == std::string::npos ? std::string::npos : next - i);
      std::string text;
      if (!decode(raw, text)) return fail("bad character data '" + raw.substr(0, 40) + "'");
      if (open.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos) return fail("text outside the root");
      if (!open.empty()) doc.elements[open.back()].text += text;
      i = next == std::string::npos ? s.size() : next;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const size_t end = s.find("-->", i);
      if (end == std::string::npos) return fail("unterminated comment");
      i = end + 3;
      continue;
    }
    if (s.compare(i, 2, "</") == 0) {
      i += 2;
      const size_t start = i;
      while (i < s.size() && name_char(s[i])) ++i;
      const std::string name = s.substr(start, i - start);
      skip_space();
      if (i >= s.size() || s[i] != '>') return fail("bad end tag");
      ++i;
      if (open.empty() || doc.elements[open.back()].name != name) return fail("end tag </" + name + "> unmatched");
      open.pop_back();
      continue;
    }
    ++i;  // a start tag
    const size_t start = i;
    while (i < s.size() && name_char(s[i])) ++i;
    XmlElement e;
    e.name = s.substr(start, i - start);
    if (e.name.empty()) return fail("a tag without a name");
    if (open.empty() && roots++ > 0) return fail("a second root element");
    for (;;) {
      skip_space();
      if (i >= s.size()) return fail("unterminated tag <" + e.name);
      if (s[i] == '>' || s.compare(i, 2, "/>") == 0) break;
      const size_t a = i;
      while (i < s.size() && name_char(s[i])) ++i;
      const std::string key = s.substr(a, i - a);
      if (key.empty() || i >= s.size() || s[i] != '=') return fail("bad attribute in <" + e.name);
      ++i;
      if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) return fail("unquoted attribute " + key);
      const size_t close = s.find(s[i], i + 1);
      if (close == std::string::npos) return fail("unterminated attribute " + key);
      std::string value;
      if (!decode(s.substr(i + 1, close - i - 1), value)) return fail("bad attribute value of " + key);
      if (!e.attrs.emplace(key, value).second) return fail("attribute " + key + " twice in <" + e.name);
      i = close + 1;
      if (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != '>' && s[i] != '/')
        return fail("no space after attribute " + key);
    }
    const bool self_closing = s[i] == '/';
    i += self_closing ? 2 : 1;
    doc.elements.push_back(e);
    if (!self_closing) open.push_back(doc.elements.size() - 1);
  }
  if (!open.empty()) return fail("<" + doc.elements[open.back()].name + "> is never closed");
  if (roots != 1) return fail("no root element");
  return doc;
}

}  // namespace d2l_test
