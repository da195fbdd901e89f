// tools/browser/json_out.h — the little JSON the browser API answers with (tools/browser/api.cpp):
// an object built key by key, numbers as %.9g (a float read back from it is the same float,
// so the page shows exactly what the engine computed).
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "core/io/json.h"
#include "core/tensor.h"

namespace d2l::browser {

class JsonOut {
 public:
  JsonOut& str(const char* key, const std::string& v) { return raw(key, json_quote(v)); }
  JsonOut& num(const char* key, double v) { return raw(key, number(v)); }
  JsonOut& nums(const char* key, const std::vector<float>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + number(v[i]);
    return raw(key, s + "]");
  }
  JsonOut& strs(const char* key, const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + json_quote(v[i]);
    return raw(key, s + "]");
  }
  // A tensor as {"shape": [...], "data": [...]} (row-major).
  JsonOut& tensor(const char* key, const Tensor& t) {
    std::string shape = "[";
    for (int64_t d = 0; d < t.ndim(); ++d) shape += (d ? "," : "") + std::to_string(t.size(d));
    JsonOut o;
    o.raw("shape", shape + "]").nums("data", t.to_vector());
    return raw(key, o.done());
  }
  JsonOut& raw(const char* key, const std::string& json) {
    body_ += (body_.empty() ? "" : ",") + json_quote(key) + ":" + json;
    return *this;
  }
  std::string done() const { return "{" + body_ + "}"; }

  static std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
  }

 private:
  std::string body_;
};

}  // namespace d2l::browser
