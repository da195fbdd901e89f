// tools/browser/json_out.h — the little JSON the browser API answers with (tools/browser/api.cpp):
// an object built key by key, numbers as %.9g (a float read back from it is the same float,
// so the page shows exactly what the engine computed). JSON has no NaN or infinity: a
// non-finite number throws JsonOut::NonFinite naming the key and the position, and the
// entry point reports it with the inputs that produced it (never "-nan" in the answer).
#pragma once
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/io/json.h"
#include "core/tensor.h"

namespace d2l::browser {

class JsonOut {
 public:
  struct NonFinite : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  JsonOut& str(const char* key, const std::string& v) { return raw(key, json_quote(v)); }
  JsonOut& num(const char* key, double v) { return raw(key, finite_number(v, key)); }
  JsonOut& nums(const char* key, const std::vector<float>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + finite_number(v[i], key, i);
    return raw(key, s + "]");
  }
  JsonOut& strs(const char* key, const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + json_quote(v[i]);
    return raw(key, s + "]");
  }
  // A tensor as {"shape": [...], "data": [...]} (row-major).
  JsonOut& tensor(const char* key, const Tensor& t) {
    std::string shape = "[", data = "[";
    for (int64_t d = 0; d < t.ndim(); ++d) shape += (d ? "," : "") + std::to_string(t.size(d));
    const std::vector<float> v = t.to_vector();
    for (size_t i = 0; i < v.size(); ++i) data += (i ? "," : "") + finite_number(v[i], key, i);
    return raw(key, "{\"shape\":" + shape + "],\"data\":" + data + "]}");
  }
  JsonOut& raw(const char* key, const std::string& json) {
    body_ += (body_.empty() ? "" : ",") + json_quote(key) + ":" + json;
    return *this;
  }
  std::string done() const { return "{" + body_ + "}"; }

  // v as %.9g, or NonFinite: "the result 'weights' is not finite (nan at element 3)".
  static std::string finite_number(double v, const char* key, size_t at = 0) {
    if (!std::isfinite(v))
      throw NonFinite(std::string("the result '") + key + "' is not finite (" + (std::isnan(v) ? "NaN" : "infinity") +
                      " at element " + std::to_string(at) + ")");
    return number(v);
  }
  static std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
  }

 private:
  std::string body_;
};

}  // namespace d2l::browser
