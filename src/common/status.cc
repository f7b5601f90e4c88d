// Category names for status codes and message rendering.
#include "common/status.h"

namespace hop {

std::string_view StatusCodeCategory(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kParse: return "Parse Error";
    case StatusCode::kBind: return "Binder Error";
    case StatusCode::kCatalogNotFound: return "Catalog Error";
    case StatusCode::kAlreadyExists: return "Already Exists";
    case StatusCode::kInvalidArgument: return "Invalid Argument";
    case StatusCode::kValidation: return "Validation Error";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kNotFound: return "Not Found";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kExecution: return "Execution Error";
    case StatusCode::kInternal: return "Internal Error";
  }
  return "Unknown Error";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeCategory(code_));
  out += ": ";
  out += message_;
  return out;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += message_;
  return Status(code_, std::move(msg));
}

}  // namespace hop
