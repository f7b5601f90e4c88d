// YAML and JSON text codecs for hop's documents. Resources are hop::Json inside; these functions
// are the only place their YAML or JSON text is read or written, so the scalar typing rules
// (YAML 1.2 core schema) and the kubectl-style output live in one file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resource/json.h"

namespace hop {

// The deepest nesting of mappings and sequences (objects and arrays) the parsers accept. Every
// document they return can be emitted and read back (yaml-cpp itself stops near 500 levels).
inline constexpr int kMaxNestingDepth = 256;

// The most values that aliases may copy in one ParseYamlDocuments call. With the byte bound of
// CurrentLimits().max_expanded_bytes (common/limits.h) on what they copy, it keeps "billion
// laughs" input (aliases of aliases, or of one large scalar) from exhausting memory.
inline constexpr size_t kMaxAliasValues = 1'000'000;

// How much larger than its text a stream without aliases can be as compact JSON: a flow mapping
// of keys without values, `{a,b}`, is the worst case ("a," becomes `"a":null,`).
inline constexpr size_t kMaxJsonBytesPerTextByte = 5;

// Parses a stream of YAML documents (UTF-8, separated by `---`) into one Json per document, in
// stream order. Empty documents and documents holding only comments are skipped; an explicit
// `null` or `~` document is kept as a Json null. A document whose root is a scalar or a sequence
// is returned as is: the caller validates the shape.
//
// Typing follows the YAML 1.2 core schema: quoted and block scalars are strings; plain scalars
// are null, bool, integer (int64, else uint64; a decimal, `0o` or `0x` integer beyond uint64
// stays a string), float or else string, so `yes`, `on` and `2024-01-01` are strings. A float
// too small for a double is a zero of its sign. The tags !!str, !!int, !!float, !!bool, !!null,
// !!map and !!seq are honoured. Key order is kept; keys are the text of scalar keys. Merge keys
// (`<<`) are ordinary keys.
//
// Fails with a Parse Error "<source_name>: line L, column C: <what> (document N)" on: syntax
// errors, a quoted scalar left open at the end of the input, duplicate keys in one mapping, keys
// that are not scalars, unsupported tags or values that do not fit their tag, a value that is a
// float JSON cannot hold (`.inf`, `-.inf`, `.nan` in any of their spellings, or a number beyond
// double's range such as `1e999`: <what> names the field, "spec.values[1]: ...", and says how to
// keep the text; as keys, and quoted, they are text), aliases to a node
// that contains them, invalid UTF-8 or control characters in `text`, nesting deeper than
// kMaxNestingDepth (aliases included), and aliases that copy more than kMaxAliasValues values or
// more than CurrentLimits().max_expanded_bytes bytes (counted as compact JSON) over the whole
// stream (text that is not UTF-8 or holds control characters is rejected before parsing, without
// a document number). So the documents' compact JSON totals at most
// kMaxJsonBytesPerTextByte * text.size() + max_expanded_bytes bytes. `text` itself is not bounded
// here: readers bound it (max_request_bytes). Never throws; thread-safe.
Result<std::vector<Json>> ParseYamlDocuments(std::string_view text, std::string_view source_name);

// The two readers ParseYamlDocuments uses, for tests and the fuzzer. ReadPlainYaml reads, with
// libyaml, a stream of UTF-8 `text` that has no anchors, aliases, tags, directives, duplicate or
// non-scalar keys, nesting deeper than kMaxNestingDepth, YAML 1.1 line breaks (NEL, LS, PS), CRs
// without an LF after them, byte order marks after the start or quoted scalars over several lines;
// nullopt for any other text, valid or not. Where both read a text they give the same documents.
// libyaml also reads some valid YAML that yaml-cpp refuses (a `?` inside a plain scalar in a flow
// collection, `{name: a?b}`), which ParseYamlDocuments therefore takes.
// ParseYamlDocumentsWithYamlCpp reads any text, with yaml-cpp.
std::optional<std::vector<Json>> ReadPlainYaml(std::string_view text);
Result<std::vector<Json>> ParseYamlDocumentsWithYamlCpp(std::string_view text,
                                                        std::string_view source_name);

// Writes one document as block-style YAML in kubectl's layout, ending with a newline: 2-space
// indentation, sequences under a key not indented, mappings in a sequence starting on the dash
// line, keys in the Json's order. Strings are plain unless a YAML 1.1 or 1.2 reader would read
// them as something else (then single-quoted), need escapes (double-quoted), or span lines
// (literal block `|`, or double-quoted when a block cannot hold them exactly).
//
// ParseYamlDocuments(EmitYaml(doc)) yields `doc` again for every doc nested at most
// kMaxNestingDepth deep whose strings are valid UTF-8 and whose numbers are finite (numbers keep
// their value; non-negative integers come back as int64 when they fit). An infinity or NaN built
// in code is written `.inf`, `-.inf` or `.nan`, which the readers refuse. Invalid UTF-8 bytes are
// written as U+FFFD, and binary values as null. Cannot fail; recurses once per nesting level, so a
// document built by hand thousands of levels deep (the parsers never return one) may exhaust the
// stack.
std::string EmitYaml(const Json& doc);

// EmitYaml of each document, separated by `---` lines (no separator before the first). An empty
// vector gives an empty string.
std::string EmitYamlDocuments(const std::vector<Json>& docs);

// Parses one JSON document (RFC 8259; strings must be valid UTF-8). Fails with a Parse Error
// "<source_name>: line L, column C: <what>" on a syntax error or nesting deeper than
// kMaxNestingDepth. A duplicate key keeps its first position and its last value. Never throws;
// thread-safe.
Result<Json> ParseJson(std::string_view text, std::string_view source_name);

// Writes `doc` as JSON without a trailing newline: compact when `indent` < 0, otherwise
// pretty-printed with `indent` spaces per level. Non-ASCII text is written as UTF-8; invalid
// UTF-8 bytes in strings are written as U+FFFD; NaN and infinities are written as null.
// Cannot fail.
std::string EmitJson(const Json& doc, int indent);

}  // namespace hop
