// Result<T>: the value of a fallible operation or the Error that stopped it.
//
// Lower layers (platform, probes, engine, rules, fix) never throw: they return a
// Result and let the caller decide whether the failure is a fact to report or a
// reason to stop. Only the CLI edge turns errors into messages and exit codes.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace amdml {

struct Error {
  std::string message;  // one line, no trailing period, says what and where
  int code = 0;         // errno when the failure came from the OS, else 0
};

inline Error make_error(std::string message, int code = 0) { return Error{std::move(message), code}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace amdml
