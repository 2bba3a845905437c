// Inside the record codecs (runtime_record.cpp, deep_record.cpp): the strict reader of
// one JSON object and the writer of optional values, so both records read and write
// absent and mistyped keys the same way. Not for other layers.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/units.hpp"
#include "base/result.hpp"

namespace amdml::formats::record {

using nlohmann::json;

// Reads obj[key] into out when present and not null; a value of another kind fails
// with "<where><key> must be ...".
class Reader {
 public:
  Reader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  bool str(const char* key, std::optional<std::string>& out) {
    const json* v = get(key);
    if (!v) return true;
    if (!v->is_string()) return fail(key, "a string");
    out = v->get<std::string>();
    return true;
  }
  bool str(const char* key, std::string& out) {
    std::optional<std::string> s;
    if (!str(key, s)) return false;
    if (s) out = *s;
    return true;
  }
  template <class T>
  bool uint(const char* key, std::optional<T>& out) {
    const json* v = get(key);
    if (!v) return true;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<long long>() >= 0))
      return fail(key, "a non-negative integer");
    auto raw = v->get<unsigned long long>();
    if (raw > static_cast<unsigned long long>(std::numeric_limits<T>::max())) return fail(key, "in range");
    out = static_cast<T>(raw);
    return true;
  }
  bool bytes(const char* key, std::optional<Bytes>& out) {
    std::optional<std::uint64_t> v;
    if (!uint(key, v)) return false;
    if (v) out = Bytes{*v};
    return true;
  }
  bool number(const char* key, std::optional<double>& out) {
    const json* v = get(key);
    if (!v) return true;
    if (!v->is_number() || !(v->get<double>() >= 0) || v->get<double>() > 1e12) return fail(key, "a non-negative number");
    out = v->get<double>();
    return true;
  }
  bool boolean(const char* key, std::optional<bool>& out) {
    const json* v = get(key);
    if (!v) return true;
    if (!v->is_boolean()) return fail(key, "true or false");
    out = v->get<bool>();
    return true;
  }
  bool strings(const char* key, std::vector<std::string>& out) {
    const json* v = get(key);
    if (!v) return true;
    if (!v->is_array()) return fail(key, "an array of strings");
    for (const auto& x : *v) {
      if (!x.is_string()) return fail(key, "an array of strings");
      out.push_back(x.get<std::string>());
    }
    return true;
  }
  const json* array(const char* key) {
    const json* v = get(key);
    if (!v) return nullptr;
    if (!v->is_array()) {
      fail(key, "an array");
      return nullptr;
    }
    return v;
  }
  const std::string& where() const { return where_; }
  std::optional<Error> error;

 private:
  const json* get(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  bool fail(const char* key, const char* what) {
    if (!error) error = make_error(where_ + key + " must be " + what);
    return false;
  }
  const json& obj_;
  std::string where_;
};

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
inline json opt(const std::optional<Bytes>& v) { return v ? json(v->value) : json(nullptr); }

}  // namespace amdml::formats::record