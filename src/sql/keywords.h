// The keywords of hop's SQL. Reserved keywords cannot be used as unquoted names; non-reserved ones
// can, and the parser recognises them only where the grammar expects them.
#pragma once

#include <cstdint>
#include <string_view>

namespace hop::sql {

// R(x): reserved keyword; N(x): non-reserved keyword. Order does not matter.
// clang-format off
#define HOP_SQL_KEYWORDS(R, N)                                                                   \
  R(ALL) R(AND) R(ARRAY) R(AS) R(BETWEEN) R(BY) R(CASE) R(CAST) R(CHECK) R(CONSTRAINT)            \
  R(CREATE) R(CROSS) R(CURRENT_DATE) R(CURRENT_TIME) R(CURRENT_TIMESTAMP) R(DEFAULT)             \
  R(DISTINCT) R(DROP) R(ELSE) R(END) R(EXCEPT) R(EXISTS) R(FALSE) R(FETCH) R(FROM) R(FULL)       \
  R(GROUP) R(HAVING) R(IN) R(INNER) R(INSERT) R(INTERSECT) R(INTERVAL) R(INTO) R(IS) R(JOIN)     \
  R(LATERAL) R(LEFT) R(LIKE) R(LIMIT) R(LOCALTIME) R(LOCALTIMESTAMP) R(NATURAL) R(NOT) R(NULL)   \
  R(OFFSET) R(ON) R(OR) R(ORDER) R(OUTER) R(OVER) R(PRIMARY) R(RIGHT) R(ROW) R(SELECT) R(TABLE)  \
  R(THEN) R(TRUE) R(UNION) R(UNIQUE) R(UNNEST) R(USING) R(VALUES) R(WHEN) R(WHERE) R(WITH)       \
  N(ABSENT) N(ALWAYS) N(ANY) N(ARCHIVE) N(ASC) N(ASYMMETRIC) N(CATALOG) N(COLLATE) N(CURRENT) N(DATABASE) N(DATE) N(DAY)         \
  N(DEFAULTS) N(DEPTH) N(DESC) N(DESCRIBE) N(ENFORCED) N(ESCAPE) N(EXCLUDING) N(EXPLAIN) N(EXTRACT) N(FILE) N(FILTER) N(FIRE)    \
  N(FIRST) N(FOLLOWING) N(FORMAT) N(FUNCTION) N(GENERATED) N(GRAPH) N(HOUR) N(IF) N(INCLUDING) N(JAR)               \
  N(JSON_OBJECT) N(KEY) N(LANGUAGE) N(LAST) N(LOCAL) N(MAP) N(MATERIALIZED) N(MINUTE) N(MONTH)   \
  N(NEXT) N(NULLS) N(ONLY) N(OPERATOR) N(ORDINALITY) N(PARTITION) N(PAUSE) N(PIPELINE) N(PRECEDING) N(QUARTER) N(RANGE)  \
  N(RECURSIVE) N(REFRESH) N(REFRESHED) N(REPLACE) N(RESET) N(RESOLVE) N(RESUME) N(RETRY) N(RETURNS) N(ROWS) \
  N(SCHEDULED) N(SECOND) N(SET) N(SHOW) N(SOME) N(SPECIFY) N(STORED) N(SYMMETRIC) N(TIME) N(TIMESTAMP) N(TO) N(TRIGGER)          \
  N(TRY_CAST) N(UNBOUNDED) N(UNKNOWN) N(VALUE) N(VIEW) N(VIRTUAL) N(WATERMARK) N(WEEK)         \
  N(WITHIN) N(WITHOUT) N(YEAR) N(ZONE)
// clang-format on

enum class Keyword : uint16_t {
  kNone = 0,
#define HOP_KW_ENUM(x) k##x,
  HOP_SQL_KEYWORDS(HOP_KW_ENUM, HOP_KW_ENUM)
#undef HOP_KW_ENUM
      kCount
};

inline constexpr int kKeywordCount = static_cast<int>(Keyword::kCount);

// The keyword spelled by `word` (any case), or Keyword::kNone.
Keyword LookupKeyword(std::string_view word);
// The upper-case spelling of a keyword.
std::string_view KeywordText(Keyword kw);
bool IsReserved(Keyword kw);

}  // namespace hop::sql
