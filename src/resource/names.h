// Names of resources: Hoptimator's canonical names and dependency labels, which hop must produce
// byte for byte to stay compatible, and Kubernetes' rules for object names, label keys and values,
// which every object hop stores must satisfy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hop::resource {

// --- Hoptimator canonical names ------------------------------------------------------------------

// Hoptimator's canonical form of one name part: ASCII letters lower-cased, every '_' deleted,
// every '$' replaced by '-'; every other byte kept. Never fails and does not check the length or
// the characters of the result (validate it separately, e.g. with ValidateObjectName).
// Example: "PAGE_VIEWS$forward-field-order" -> "pageviews-forward-field-order".
std::string Canonicalize(std::string_view s);

// The canonical form of each part, joined with '-'. Callers pass only the parts that exist
// (Hoptimator drops null parts before joining); an empty vector gives "".
// Example: {"ads-database", "PAGE_VIEWS"} -> "ads-database-pageviews".
std::string Canonicalize(const std::vector<std::string>& parts);

// --- Hoptimator dependency labels ----------------------------------------------------------------

// The identifier of a dependency on a table: `<database>_<path joined with '.'>`, e.g.
// ("ads-database", {"ADS", "PAGE_VIEWS"}) -> "ads-database_ADS.PAGE_VIEWS". Case is kept.
std::string DependencyIdentifier(std::string_view database, const std::vector<std::string>& path);

// The label key that marks an object as depending on `identifier`:
// "hoptimator.linkedin.com/depends-on-" followed by the first 16 lower-case hex digits of the
// SHA-256 of the identifier's bytes. Always a valid label key. Thread-safe.
std::string DependencyLabelKey(std::string_view identifier);

// The label value stored under DependencyLabelKey: the identifier cut to its first 63 bytes, then
// stripped of leading and trailing bytes that are not ASCII letters or digits. The result can
// still be an invalid label value if the identifier holds characters other than letters, digits,
// '-', '_' and '.'; check it with ValidateLabelValue when that matters.
std::string DependencyLabelValue(std::string_view identifier);

// --- Kubernetes name rules -----------------------------------------------------------------------
// Each returns OK, or InvalidArgument naming the offending value, what is wrong with it and the
// rule it breaks. Positions in messages count bytes from 1.

// A DNS-1123 subdomain, the rule for most object names: 1 to 253 characters of lower-case ASCII
// letters, digits, '-' and '.', made of dot-separated parts that each start and end with a letter
// or digit ("a.b-c", not "a..b", "a-.b" or ".a").
Status ValidateObjectName(std::string_view name);

// A DNS-1123 label, the rule for namespaces: 1 to 63 characters of lower-case ASCII letters,
// digits and '-', starting and ending with a letter or digit.
Status ValidateDnsLabel(std::string_view name);

// A label key (a Kubernetes qualified name): an optional prefix and '/', then a name. The prefix,
// when present, must be a non-empty DNS-1123 subdomain; the name must be 1 to 63 characters of
// ASCII letters, digits, '-', '_' and '.', starting and ending with a letter or digit.
// "app", "app.kubernetes.io/name" and "My_Key" are valid; "/a", "a/", "a/b/c" and "-a" are not.
Status ValidateLabelKey(std::string_view key);

// An annotation key: the label-key rule with the prefix compared case-insensitively, as
// Kubernetes lower-cases annotation keys before checking them ("Example.COM/a" is a valid
// annotation key but not a valid label key).
Status ValidateAnnotationKey(std::string_view key);

// A label value: empty, or 1 to 63 characters of ASCII letters, digits, '-', '_' and '.',
// starting and ending with a letter or digit.
Status ValidateLabelValue(std::string_view value);

// A key of a ConfigMap's or Secret's data (and of a ConfigMap's binaryData), as their API
// server checks it: 1 to 253 characters of ASCII letters, digits, '-', '_' and '.', and neither
// "." nor "..", nor starting with ".." (a key may name a file in a mounted volume).
Status ValidateDataKey(std::string_view key);

// Hoptimator's check for names that SQL statements create (its `checkK8sName`): 1 to 63
// characters of lower-case ASCII letters, digits and '-', starting with a letter and ending with a
// letter or digit. The checks run in that order and the messages are Hoptimator's, exactly:
// "Name is empty.", "Name is too long: <name>", "Name contains illegal characters: <name>",
// "Name starts with illegal character: <name>", "Name ends with illegal character: <name>".
Status ValidateHopName(std::string_view name);

}  // namespace hop::resource
