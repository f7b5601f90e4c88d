// Status and Result<T>: hop's error values. Every expected failure is returned, never thrown,
// as one of a closed set of codes; the rendered message starts with the code's category
// ("Parse Error: ...") so users and tests can tell failures apart at a glance.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace hop {

// The closed set of error categories. Adding one means adding its category text in status.cc
// and its SQLSTATE mapping in the PostgreSQL wire server.
enum class StatusCode {
  kOk = 0,
  kParse,            // SQL, template or file syntax
  kBind,             // name resolution and typing of a statement
  kCatalogNotFound,  // a schema, table or database that the catalog does not have
  kAlreadyExists,    // create of something that exists
  kInvalidArgument,  // a request that can never succeed as written
  kValidation,       // a validator rejected the request
  kConflict,         // optimistic concurrency: the object changed underneath
  kNotFound,         // get/update/delete of a missing object
  kUnavailable,      // a dependency is down; retrying may help
  kExecution,        // a query failed while it ran (a bad value, a division by zero, its budget)
  kInternal,         // a bug in hop
};

// The category text that prefixes messages of this code, e.g. "Parse Error".
std::string_view StatusCodeCategory(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status ParseError(std::string msg) { return {StatusCode::kParse, std::move(msg)}; }
  static Status BindError(std::string msg) { return {StatusCode::kBind, std::move(msg)}; }
  static Status CatalogNotFound(std::string msg) {
    return {StatusCode::kCatalogNotFound, std::move(msg)};
  }
  static Status AlreadyExists(std::string msg) {
    return {StatusCode::kAlreadyExists, std::move(msg)};
  }
  static Status InvalidArgument(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status ValidationError(std::string msg) {
    return {StatusCode::kValidation, std::move(msg)};
  }
  static Status Conflict(std::string msg) { return {StatusCode::kConflict, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
  static Status ExecutionError(std::string msg) { return {StatusCode::kExecution, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // The message without its category prefix.
  const std::string& message() const { return message_; }
  // "<Category>: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is `prefix` followed by this message; the code is kept.
  Status WithContext(std::string_view prefix) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status explaining why there is none. Constructing a Result from an OK Status is
// a programmer error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value)
      : data_(std::in_place_index<1>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::in_place_index<0>, std::move(status)) {  // NOLINT
    assert(!std::get<0>(data_).ok() && "a Result needs a value or an error, not an OK status");
  }
  template <typename U>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
           !std::is_same_v<std::decay_t<U>, Status>) Result(U&& value)
      : data_(std::in_place_index<1>, std::forward<U>(value)) {}  // NOLINT

  bool ok() const { return data_.index() == 1; }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<0>(data_);
  }

  T& value() & { return std::get<1>(data_); }
  const T& value() const& { return std::get<1>(data_); }
  T&& value() && { return std::get<1>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> data_;
};

namespace internal {
inline const Status& AsStatus(const Status& s) { return s; }
template <typename T>
const Status& AsStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace hop

#define HOP_CONCAT_INNER(a, b) a##b
#define HOP_CONCAT(a, b) HOP_CONCAT_INNER(a, b)

// Returns the Status of `expr` (a Status or a Result) from the enclosing function if it failed.
#define HOP_RETURN_IF_ERROR(expr)                                                   \
  do {                                                                              \
    /* A copy, made before any temporary in `expr` ends: `f().status()` is safe. */ \
    ::hop::Status hop_status_ = ::hop::internal::AsStatus(expr);                    \
    if (!hop_status_.ok()) return hop_status_;                                      \
  } while (0)

// Evaluates `rexpr` (a Result<T>); on error returns its Status, otherwise moves the value into
// `lhs`, which may be a declaration (`auto x`) or an existing variable.
#define HOP_ASSIGN_OR_RETURN(lhs, rexpr) \
  HOP_ASSIGN_OR_RETURN_IMPL(HOP_CONCAT(hop_result_, __LINE__), lhs, rexpr)
#define HOP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                              \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
