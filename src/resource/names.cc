// Hoptimator's canonical names and dependency labels, and the Kubernetes name rules. The rule
// checks are written out by hand, not as regular expressions, so that a rejection can say which
// character broke which part of the rule and where.
#include "resource/names.h"

#include <cstdio>
#include <string>

#include "common/digest.h"
#include "common/strings.h"

namespace hop::resource {
namespace {

constexpr std::string_view kDependsOnPrefix = "hoptimator.linkedin.com/depends-on-";
constexpr size_t kSubdomainMax = 253;
constexpr size_t kLabelMax = 63;  // DNS labels, label-key names, label values, Hoptimator names

constexpr std::string_view kSubdomainRule =
    "a DNS-1123 subdomain is at most 253 lower-case letters, digits, '-' and '.', in dot-separated "
    "parts that start and end with a letter or digit (e.g. 'my-name' or 'example.com')";
constexpr std::string_view kDnsLabelRule =
    "a DNS-1123 label is at most 63 lower-case letters, digits and '-', starting and ending with a "
    "letter or digit (e.g. 'my-name')";
constexpr std::string_view kLabelKeyRule =
    "a label key is an optional prefix and '/', then a name; the prefix is a DNS-1123 subdomain "
    "(at most 253 lower-case letters, digits, '-' and '.', in dot-separated parts that start and "
    "end with a letter or digit) and the name is at most 63 letters, digits, '-', '_' and '.', "
    "starting and ending with a letter or digit (e.g. 'app' or 'example.com/app')";
constexpr std::string_view kAnnotationKeyRule =
    "an annotation key is an optional prefix and '/', then a name; the prefix is a DNS-1123 "
    "subdomain in any case (at most 253 letters, digits, '-' and '.', in dot-separated parts that "
    "start and end with a letter or digit) and the name is at most 63 letters, digits, '-', '_' "
    "and '.', starting and ending with a letter or digit (e.g. 'app' or 'example.com/app')";
constexpr std::string_view kDataKeyRule =
    "a data key is at most 253 letters, digits, '-', '_' and '.', and neither '.' nor '..' nor "
    "starting with '..' (e.g. 'key.name', 'KEY_NAME' or 'key-name')";
constexpr std::string_view kLabelValueRule =
    "a label value is empty or at most 63 letters, digits, '-', '_' and '.', starting and ending "
    "with a letter or digit (e.g. 'my_value.1')";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || IsDigit(c); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }
bool IsSubdomainChar(char c) { return IsLowerAlnum(c) || c == '-' || c == '.'; }
bool IsDnsLabelChar(char c) { return IsLowerAlnum(c) || c == '-'; }
bool IsNameChar(char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; }

// A character as messages show it: 'x' when printable ASCII, otherwise its byte value, so that
// control characters and UTF-8 bytes do not garble the message.
std::string DescribeChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02x", byte);
  return buf;
}

// What a string must look like: its longest length, the characters it may hold and those it may
// start and end with; `dotted` adds the subdomain rule that every dot-separated part starts and
// ends with an edge character.
struct Shape {
  size_t max_len;
  bool (*allowed)(char);
  bool (*edge)(char);
  bool dotted;
};

constexpr Shape kSubdomainShape{kSubdomainMax, IsSubdomainChar, IsLowerAlnum, true};
constexpr Shape kDnsLabelShape{kLabelMax, IsDnsLabelChar, IsLowerAlnum, false};
constexpr Shape kNameShape{kLabelMax, IsNameChar, IsAlnum, false};
constexpr Shape kDataKeyShape{kSubdomainMax, IsNameChar, IsNameChar, false};

// Why `s` does not have `shape`, as a predicate ("is empty", "contains '$' at position 4"), or ""
// when it does. `offset` is added to the positions, for parts of a larger string.
std::string ShapeProblem(std::string_view s, const Shape& shape, size_t offset = 0) {
  if (s.empty()) return "is empty";
  if (s.size() > shape.max_len) {
    return "is " + std::to_string(s.size()) + " characters long, more than " +
           std::to_string(shape.max_len);
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (!shape.allowed(s[i])) {
      return "contains " + DescribeChar(s[i]) + " at position " + std::to_string(offset + i + 1);
    }
  }
  if (!shape.edge(s.front())) return "starts with " + DescribeChar(s.front());
  if (!shape.edge(s.back())) return "ends with " + DescribeChar(s.back());
  if (shape.dotted) {
    // Start and end are alphanumeric, so every '.' here has a neighbour on both sides.
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] != '.') continue;
      const std::string pos = std::to_string(offset + i + 1);
      if (s[i + 1] == '.') return "has two dots in a row at position " + pos;
      if (!shape.edge(s[i - 1]))
        return "has " + DescribeChar(s[i - 1]) + " before the '.' at position " + pos;
      if (!shape.edge(s[i + 1]))
        return "has " + DescribeChar(s[i + 1]) + " after the '.' at position " + pos;
    }
  }
  return "";
}

Status Invalid(std::string_view what, std::string_view value, std::string_view problem,
               std::string_view rule) {
  std::string msg = "invalid ";
  msg += what;
  msg += " \"";
  msg += value;
  msg += "\": ";
  msg += problem;
  msg += "; ";
  msg += rule;
  return Status::InvalidArgument(std::move(msg));
}

// Why `key` (already lower-cased in its prefix when checking annotation keys) is not a qualified
// name, or "" when it is.
std::string QualifiedNameProblem(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    const std::string problem = ShapeProblem(key, kNameShape);
    return problem.empty() ? "" : "name " + problem;
  }
  if (key.find('/', slash + 1) != std::string_view::npos) {
    return "has more than one '/' (at positions " + std::to_string(slash + 1) + " and " +
           std::to_string(key.find('/', slash + 1) + 1) + ")";
  }
  const std::string_view prefix = key.substr(0, slash);
  if (prefix.empty()) return "prefix before '/' is empty";
  if (std::string problem = ShapeProblem(prefix, kSubdomainShape); !problem.empty()) {
    return "prefix " + problem;
  }
  const std::string_view name = key.substr(slash + 1);
  if (name.empty()) return "name after '/' is empty";
  if (std::string problem = ShapeProblem(name, kNameShape, slash + 1); !problem.empty()) {
    return "name " + problem;
  }
  return "";
}

}  // namespace

std::string Canonicalize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '_') continue;
    out += c == '$' ? '-' : AsciiLower(c);
  }
  return out;
}

std::string Canonicalize(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '-';
    out += Canonicalize(parts[i]);
  }
  return out;
}

std::string DependencyIdentifier(std::string_view database, const std::vector<std::string>& path) {
  std::string out(database);
  out += '_';
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += '.';
    out += path[i];
  }
  return out;
}

std::string DependencyLabelKey(std::string_view identifier) {
  // The first 8 bytes of the SHA-256 (16 hex digits).
  return std::string(kDependsOnPrefix) +
         digest::Hex(digest::Of<digest::Sha256>(identifier).substr(0, 8));
}

std::string DependencyLabelValue(std::string_view identifier) {
  std::string_view v = identifier.substr(0, kLabelMax);
  while (!v.empty() && !IsAlnum(v.front())) v.remove_prefix(1);
  while (!v.empty() && !IsAlnum(v.back())) v.remove_suffix(1);
  return std::string(v);
}

Status ValidateObjectName(std::string_view name) {
  const std::string problem = ShapeProblem(name, kSubdomainShape);
  if (problem.empty()) return Status::OK();
  return Invalid("object name", name, problem, kSubdomainRule);
}

Status ValidateDnsLabel(std::string_view name) {
  const std::string problem = ShapeProblem(name, kDnsLabelShape);
  if (problem.empty()) return Status::OK();
  return Invalid("DNS-1123 label", name, problem, kDnsLabelRule);
}

Status ValidateDataKey(std::string_view key) {
  std::string problem = ShapeProblem(key, kDataKeyShape);
  if (problem.empty() && (key == "." || key == "..")) problem = "is '" + std::string(key) + "'";
  if (problem.empty() && key.starts_with("..")) problem = "starts with '..'";
  if (problem.empty()) return Status::OK();
  return Invalid("data key", key, problem, kDataKeyRule);
}

Status ValidateLabelKey(std::string_view key) {
  const std::string problem = QualifiedNameProblem(key);
  if (problem.empty()) return Status::OK();
  return Invalid("label key", key, problem, kLabelKeyRule);
}

Status ValidateAnnotationKey(std::string_view key) {
  // Lower-casing touches only letters, which the name part allows in either case anyway, so the
  // net effect is a case-insensitive prefix; problems found name the same positions.
  const std::string problem = QualifiedNameProblem(AsciiToLower(key));
  if (problem.empty()) return Status::OK();
  return Invalid("annotation key", key, problem, kAnnotationKeyRule);
}

Status ValidateLabelValue(std::string_view value) {
  if (value.empty()) return Status::OK();
  const std::string problem = ShapeProblem(value, kNameShape);
  if (problem.empty()) return Status::OK();
  return Invalid("label value", value, problem, kLabelValueRule);
}

Status ValidateHopName(std::string_view name) {
  const std::string n(name);
  if (name.empty()) return Status::InvalidArgument("Name is empty.");
  if (name.size() > kLabelMax) return Status::InvalidArgument("Name is too long: " + n);
  for (char c : name) {
    if (!IsDnsLabelChar(c))
      return Status::InvalidArgument("Name contains illegal characters: " + n);
  }
  if (IsDigit(name.front()) || name.front() == '-') {
    return Status::InvalidArgument("Name starts with illegal character: " + n);
  }
  if (name.back() == '-') return Status::InvalidArgument("Name ends with illegal character: " + n);
  return Status::OK();
}

}  // namespace hop::resource
