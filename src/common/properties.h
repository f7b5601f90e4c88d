// A reader for Java `.properties` text. Templates render connector configuration in this format
// (`connector = datagen`) and ConfigMap values such as `flink.config` hold it, so hop reads it the
// way java.util.Properties.load does, which is how Hoptimator reads the same text.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hop {

// Parses Java properties text, following java.util.Properties.load:
//  * Lines end at "\n", "\r" or "\r\n". Leading whitespace (space, tab, form feed) is skipped;
//    blank lines are ignored, and so are lines whose first other character is '#' or '!'.
//  * A line ending in an odd number of backslashes continues on the next line, whose leading
//    whitespace is dropped. A comment line never continues.
//  * The key ends at the first unescaped '=', ':' or whitespace. Whitespace around the separator
//    is skipped, and at most one '=' or ':' is taken as the separator. The value is the rest of
//    the logical line; like Java, hop keeps whitespace at its end. `key` and `key=` give "".
//  * Escapes, in keys and values: \t \n \r \f, \uXXXX (UTF-16; a surrogate pair becomes one
//    character, a lone surrogate U+FFFD; the result is UTF-8), and a backslash before any other
//    character stands for that character.
//  * A key given twice keeps its first position and takes the later value.
// The result is an ordered vector, not a std::map: callers print and render the entries in the
// order the text gave them, which a map would lose, and the lists are a handful of entries long,
// so FindProperty's linear lookup is cheaper than keeping an index beside them. (It is the same
// type as tmpl::Entries, so the result can be handed to a template as it is.)
// Errors: InvalidArgument naming the line of a malformed \uXXXX escape (fewer than four hex
// digits after the \u), as Java rejects it.
Result<std::vector<std::pair<std::string, std::string>>> ParseProperties(std::string_view text);

// The value of `key` in `properties`, or null if absent.
const std::string* FindProperty(const std::vector<std::pair<std::string, std::string>>& properties,
                                std::string_view key);

}  // namespace hop
