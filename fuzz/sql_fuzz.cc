// libFuzzer target over the SQL front end: splitter, lexer, parser and printer. Besides "no crash,
// no hang, no sanitizer report" it checks the round-trip property on every statement that parses:
// whatever a dialect prints must parse back to an equal AST and print identically again.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "sql/parser.h"
#include "sql/round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hop::sql;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ParseExpression(text);
  (void)ParseDataType(text);
  hop::Status s = VerifyScript(text);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::abort();
  }
  return 0;
}
