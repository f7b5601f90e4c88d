// The PostgreSQL frontend/backend protocol 3.0 as bytes (docs/pgwire.md): the startup packets
// (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest), the framing of typed messages, the
// decoding of every frontend message hop reads, and a writer for backend messages. Pure: no
// sockets and no session, so the fuzzer (fuzz/pgwire_fuzz.cc) and the tests drive it directly.
// Every decoder checks each length against the bytes there are; what does not fit is an
// InvalidArgument error whose message starts with "protocol violation".
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hop::server {

constexpr int32_t kProtocolVersion3 = 196608;  // 3.0
constexpr int32_t kSslRequestCode = 80877103;
constexpr int32_t kGssEncRequestCode = 80877104;
constexpr int32_t kCancelRequestCode = 80877102;

struct StartupPacket {
  enum class Kind { kStartup, kSsl, kGssEnc, kCancel };
  Kind kind = Kind::kStartup;
  std::vector<std::pair<std::string, std::string>> parameters;  // kStartup, in order
  int32_t process_id = 0;                                       // kCancel
  int32_t secret_key = 0;                                       // kCancel

  // The value of parameter `name`, or "".
  std::string Parameter(std::string_view name) const;
};

// The length word of a startup packet (the whole packet, itself included): an error when it is
// below 8 or above `max_bytes`.
Result<uint32_t> StartupLength(std::string_view four_bytes, uint32_t max_bytes);
// Decodes a startup packet from what follows its length word. Errors: a protocol version other
// than 3.0 (the message says which), parameters not NUL-terminated, a packet of the wrong size.
Result<StartupPacket> DecodeStartup(std::string_view body);

// The length word of a typed message (itself included, the type byte not): the body's length,
// or an error when the word is below 4 or the body above `max_bytes`.
Result<uint32_t> MessageBodyLength(std::string_view four_bytes, uint32_t max_bytes);

// Reads the fields of one message body in order; each read fails once the body is short.
class Reader {
 public:
  explicit Reader(std::string_view body) : body_(body) {}
  Result<int16_t> Int16();
  Result<int32_t> Int32();
  Result<std::string> CString();
  Result<std::string_view> Bytes(size_t n);
  // OK when every byte was read; else the error naming `what`.
  Status End(std::string_view what) const;

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

struct ParseMessage {
  std::string statement;
  std::string query;
  std::vector<uint32_t> param_types;  // OIDs; 0: unspecified
};
struct BindMessage {
  std::string portal;
  std::string statement;
  std::vector<int16_t> param_formats;              // 0, 1 (all) or one per parameter
  std::vector<std::optional<std::string>> params;  // nullopt: NULL
  std::vector<int16_t> result_formats;             // 0, 1 (all) or one per column
};
// Describe and Close: 'S' (statement) or 'P' (portal), and the name.
struct TargetMessage {
  char target = 'S';
  std::string name;
};
struct ExecuteMessage {
  std::string portal;
  int32_t max_rows = 0;  // 0: all
};

Result<std::string> DecodeQuery(std::string_view body);
Result<ParseMessage> DecodeParse(std::string_view body);
Result<BindMessage> DecodeBind(std::string_view body);
Result<TargetMessage> DecodeTarget(std::string_view body, std::string_view what);
Result<ExecuteMessage> DecodeExecute(std::string_view body);
// A PasswordMessage holding a NUL-terminated password (cleartext or md5).
Result<std::string> DecodePassword(std::string_view body);
// SASLInitialResponse: the mechanism and the client's first message.
Result<std::pair<std::string, std::string>> DecodeSaslInitial(std::string_view body);

// Builds backend messages into `out`: Begin writes the type and room for the length, which End
// fills in.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  Writer& Begin(char type);
  Writer& Int8(uint8_t v);
  Writer& Int16(int16_t v);
  Writer& Int32(int32_t v);
  Writer& CString(std::string_view s);  // bytes up to a NUL in `s` and a NUL
  Writer& Bytes(std::string_view s);
  void End();

 private:
  std::string& out_;
  size_t start_ = 0;
};

// Where and how a statement failed, for an ErrorResponse or NoticeResponse.
struct ErrorFields {
  std::string severity = "ERROR";  // ERROR, FATAL, WARNING, NOTICE, INFO
  std::string sqlstate = "XX000";
  std::string message;
  std::string detail;
  int position = 0;  // 1-based character position in the query; 0: none
};
void WriteError(std::string& out, const ErrorFields& fields, bool notice = false);

// The SQLSTATE of a hop error: one table over every StatusCode (common/status.h).
std::string_view SqlState(StatusCode code);
// The fields of an error of hop's: its SQLSTATE, its first line as the message and the rest as
// the detail, and for a parse error "at line L, column C" turned into a position in `query`
// (where the statement starts at byte `offset`).
ErrorFields ErrorOf(const Status& status, std::string_view query = {}, size_t offset = 0);

// The settings a startup packet's `options` gives, as PostgreSQL reads that parameter: words
// split at blanks, a backslash taking the next character as it is (`a\ b` is `a b`, `\\` a
// backslash); `-c name=value`, `-cname=value` and `--name=value` each give a setting (a dash
// in the name read as `_`), in order. Other words (other switches) give none.
std::vector<std::pair<std::string, std::string>> StartupOptionSettings(std::string_view options);

// A value of one of PostgreSQL's timeout settings, `name` (statement_timeout,
// idle_in_transaction_session_timeout), as PostgreSQL reads one: a number, optionally
// fractional, and a unit (`us`, `ms`, `s`, `min`, `h`, `d`; none: milliseconds), rounded to
// whole milliseconds and within 0 .. 2147483647 ms. Errors (InvalidArgument) say why, in
// PostgreSQL's words.
Result<std::chrono::milliseconds> ParseTimeoutSetting(std::string_view name,
                                                      std::string_view value);
// The form SHOW gives such a setting: the largest unit that holds it whole (`5s`, `1500ms`,
// `2min`), `0` for none.
std::string FormatTimeoutSetting(std::chrono::milliseconds timeout);

}  // namespace hop::server
