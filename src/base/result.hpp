// Result<T>: the value of a fallible operation or the Error that stopped it.
//
// Lower layers (platform, probes, formats, rules, fix) never throw: they return a
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

// Propagating an error without spelling it out. In a function that returns a Result<U>
// or a Status:
//   AMDML_TRY(auto text, host.read_file(path));  // declares text, or returns the Error
//   AMDML_TRY_STATUS(tree.write(path, bytes));   // returns the Error of a failed Status
#define AMDML_TRY_CAT2(a, b) a##b
#define AMDML_TRY_CAT(a, b) AMDML_TRY_CAT2(a, b)
#define AMDML_TRY_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                    \
  if (!tmp) return tmp.error();         \
  decl = std::move(*tmp)
#define AMDML_TRY(decl, expr) AMDML_TRY_IMPL(AMDML_TRY_CAT(amdml_try_, __LINE__), decl, expr)
#define AMDML_TRY_STATUS(expr)                     \
  do {                                             \
    if (auto amdml_status_ = (expr); !amdml_status_) \
      return amdml_status_.error();                \
  } while (0)
