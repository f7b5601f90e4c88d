// HTTP/1.1 as bytes, for the server of `hop serve --http-port` (docs/kubernetes-api.md, "HTTP"):
// the request head (request line and fields), the framing of a request's body (Content-Length or
// chunked), and the writing of responses. Pure: no sockets and no clock, so the server
// (http_server.cc), the tests and the fuzzer (fuzz/http_fuzz.cc) drive it alike. What breaks the
// rules is refused with the status code the protocol names for it; after a refusal the server
// answers and closes the connection, since it can no longer tell where the next request starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hop::server::http {

struct Limits {
  size_t max_head_bytes = 64 * 1024;          // request line and fields; past it 431
  size_t max_fields = 128;                    // field lines of a head or a trailer; past it 431
  uint64_t max_body_bytes = 3 * 1024 * 1024;  // a body's decoded bytes; past it 413
};

// Why a request is not served: the status code and a sentence for the response's body.
struct Refusal {
  int status = 400;
  std::string message;
};

// How a request's body is delimited.
enum class Framing {
  kNone,     // no body
  kLength,   // Content-Length bytes
  kChunked,  // Transfer-Encoding: chunked
};

struct RequestHead {
  std::string method;                        // as sent: methods are case-sensitive
  std::string target;                        // the request-target as sent
  std::string path;                          // of the target, percent-decoded, without the query
  std::map<std::string, std::string> query;  // decoded; a repeated key keeps its last value
  int minor_version = 1;                     // HTTP/1.0 or HTTP/1.1 (1.2 and later read as 1.1)
  std::vector<std::pair<std::string, std::string>> fields;  // names as sent, values trimmed
  Framing framing = Framing::kNone;
  uint64_t content_length = 0;   // with kLength
  bool keep_alive = true;        // the connection may carry another request after this one
  bool expect_continue = false;  // `Expect: 100-continue` in an HTTP/1.1 request

  // The value of the first field named `name` (ASCII case-insensitive), or "".
  std::string_view Field(std::string_view name) const;
  bool HasQuery(std::string_view key) const { return query.count(std::string(key)) > 0; }
};

struct HeadParse {
  enum class Outcome {
    kIncomplete,  // no blank line yet, and within the limits: read more, then parse it all again
    kHead,        // *head is the request's head, the first `consumed` bytes of the input
    kRefused,     // `refusal` says why
  };
  Outcome outcome = Outcome::kIncomplete;
  size_t consumed = 0;
  Refusal refusal;
};

// Parses the request head at the start of `in` into `*head` (overwritten). Lines end in CRLF or
// a bare LF; empty lines before the request line are skipped. Refused: a request line that is
// not `METHOD SP TARGET SP HTTP/1.x` (400; another major version 505), a field line without a
// colon, with blanks before it, folded onto the next (obs-fold), or holding control characters
// such as NUL or a bare CR (400); a head over the limits (431); an HTTP/1.1 request without
// exactly one Host (400); Content-Length not a number, or two that differ (400), or over
// max_body_bytes (413); Transfer-Encoding with Content-Length, in an HTTP/1.0 request, or with
// chunked missing or not last (400), or naming any other coding (501); an Expect other than
// 100-continue (417).
[[nodiscard]] HeadParse ParseRequestHead(std::string_view in, const Limits& limits,
                                         RequestHead* head);

// `s` with each %XX replaced by its byte; with `plus_is_space`, `+` by a space (query strings).
// A `%` not followed by two hex digits stays as it is.
std::string PercentDecode(std::string_view s, bool plus_is_space);
// The pairs of a query string (`a=1&b=x%20y&c`), decoded; a repeated key keeps its last value,
// a key without `=` has the value "".
std::map<std::string, std::string> ParseQuery(std::string_view query);

// Decodes a chunked body as its bytes arrive (chunk sizes in hex, extensions ignored, trailer
// fields read and dropped). Chunk lines must end in CRLF.
class ChunkedDecoder {
 public:
  explicit ChunkedDecoder(const Limits& limits) : limits_(limits) {}

  struct Step {
    enum class Outcome {
      kMore,     // every byte was used; the body goes on in bytes not received yet
      kDone,     // the body ended after `consumed` bytes: what follows is the next request's
      kRefused,  // `refusal` says why: a malformed chunk (400), the body over its limit (413)
    };
    Outcome outcome = Outcome::kMore;
    size_t consumed = 0;  // of `in` (kMore: all of it); 0 with kRefused
    Refusal refusal;
  };
  // Reads what it can of `in`, appending the body's bytes to `*body`. After kDone or kRefused
  // it must not be fed again.
  [[nodiscard]] Step Feed(std::string_view in, std::string* body);

 private:
  enum class State { kSize, kExtension, kSizeLf, kData, kDataCr, kDataLf, kTrailer };
  Step Refuse(int status, std::string message);

  Limits limits_;
  State state_ = State::kSize;
  uint64_t size_ = 0;       // of the chunk being read
  uint64_t remaining_ = 0;  // of its data, still to come
  size_t digits_ = 0;       // of its size line so far
  size_t line_bytes_ = 0;   // of its size line (extensions included) so far
  std::string trailer_line_;
  size_t trailer_bytes_ = 0;
  size_t trailer_fields_ = 0;
  uint64_t decoded_ = 0;  // body bytes so far
};

// The reason phrase of a status code ("OK", "Not Found", ...); "Unknown" for others.
std::string_view ReasonPhrase(int status);

// What a response's head says beside its status and fields.
struct ResponseFraming {
  bool chunked = false;         // Transfer-Encoding: chunked (a watch)
  uint64_t content_length = 0;  // otherwise
  bool close = false;           // Connection: close
  bool keep_alive_1_0 = false;  // Connection: keep-alive, for an HTTP/1.0 client that asked
  std::string_view date;        // the Date field's value (HttpDate); empty: none
};

// Appends a response's status line and head to `out`: `fields` in order, then the framing, then
// the blank line. A field value's CR, LF and NUL become spaces, so text from a request or an
// object can never end the head or start a field.
void WriteResponseHead(std::string& out, int status,
                       const std::vector<std::pair<std::string, std::string>>& fields,
                       const ResponseFraming& framing);
// `HTTP/1.1 100 Continue` and its blank line.
void WriteContinue(std::string& out);
// One chunk holding `data`; nothing for empty data (an empty chunk ends the body).
void WriteChunk(std::string& out, std::string_view data);
// The last chunk: the end of a chunked body.
void WriteLastChunk(std::string& out);
// `seconds` since the epoch as an HTTP date (IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
std::string HttpDate(int64_t seconds);

}  // namespace hop::server::http
