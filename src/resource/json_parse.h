// Reading the JSON hop wrote itself (stored objects, watch events) several times faster than
// nlohmann's parser, which reads a character at a time through an input adapter and a token
// buffer. The result is always the document Json::parse would give: text this parser does not
// take on (invalid JSON, nesting deeper than kFastDepth, an integer outside 64 bits) goes to
// Json::parse instead, so an answer never depends on which parser gave it. json_parse_test.cc
// and fuzz/json_fuzz.cc check the two against each other.
#pragma once

#include <optional>
#include <string_view>

#include "resource/json.h"

namespace hop::resource {

inline constexpr int kFastDepth = 128;

// The document, or nullopt when the text is not one this parser takes on (see above).
std::optional<Json> FastParseJson(std::string_view text);

// Json::parse(text, nullptr, false): a discarded value when the text is not valid JSON.
Json ParseJsonOrDiscarded(std::string_view text);

}  // namespace hop::resource
