// HTTP/1.1 request heads, chunked bodies and response heads as bytes (http_wire.h). The rules
// follow HTTP/1.1's message syntax as docs/kubernetes-api.md ("HTTP") lists them; each refusal
// names what was wrong, for the body of the error response.
#include "server/http_wire.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "common/strings.h"

namespace hop::server::http {

namespace {

// The longest chunk-size line (size and extensions) a chunked body may have.
constexpr size_t kMaxChunkLine = 4096;

bool IsTokenChar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c != 0 &&
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// A field value's bytes: visible ASCII, blanks, and bytes of 0x80 and above (obs-text); no other
// control character (NUL, CR, DEL, ...).
bool IsFieldValue(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\t') continue;
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Calls `each` with every element of a comma-separated field value, trimmed; empty elements
// (`a, , b`) are skipped, as lists in fields allow.
template <typename F>
void ForEachListElement(std::string_view value, F&& each) {
  while (true) {
    const size_t comma = value.find(',');
    const std::string_view element = TrimBlanks(value.substr(0, comma));
    if (!element.empty()) each(element);
    if (comma == std::string_view::npos) return;
    value.remove_prefix(comma + 1);
  }
}

// Splits a field line into its name and trimmed value; false, with `*why`, when it is not
// `name: value`.
bool SplitFieldLine(std::string_view line, std::string_view* name, std::string_view* value,
                    std::string* why) {
  if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    *why = "a field line starts with a blank (obs-fold, which HTTP/1.1 no longer allows)";
    return false;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    *why = "a field line has no colon";
    return false;
  }
  *name = line.substr(0, colon);
  if (!IsToken(*name)) {
    *why = "a field name is empty or holds characters a token cannot (a blank before the colon?)";
    return false;
  }
  *value = TrimBlanks(line.substr(colon + 1));
  if (!IsFieldValue(*value)) {
    *why = fmt::format("the field {} holds a control character", *name);
    return false;
  }
  return true;
}

// The next line of `in` from `*pos`, without its LF and the CR before it, and `*pos` moved past
// it; false when `in` holds no LF from there.
bool NextLine(std::string_view in, size_t* pos, std::string_view* line) {
  const size_t lf = in.find('\n', *pos);
  if (lf == std::string_view::npos) return false;
  std::string_view l = in.substr(*pos, lf - *pos);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  *line = l;
  *pos = lf + 1;
  return true;
}

HeadParse Refused(int status, std::string message) {
  HeadParse p;
  p.outcome = HeadParse::Outcome::kRefused;
  p.refusal = {status, std::move(message)};
  return p;
}

HeadParse TooLarge(const Limits& limits) {
  return Refused(431,
                 fmt::format("the request's head is larger than {} bytes", limits.max_head_bytes));
}

// The path and query of a request-target: origin-form (`/path?query`), absolute-form
// (`http://host/path?query`, which servers must accept), or `*` (OPTIONS, refused later by
// its method).
bool SplitTarget(std::string_view target, std::string_view* path, std::string_view* query) {
  for (char c : target) {
    // Visible ASCII only; a fragment never belongs in a request.
    if (c <= 0x20 || c >= 0x7f || c == '#') return false;
  }
  if (target == "*") {
    *path = target;
    *query = {};
    return true;
  }
  if (target.front() != '/') {
    const size_t scheme = target.find("://");
    if (scheme == std::string_view::npos) return false;
    const std::string_view name = target.substr(0, scheme);
    if (!EqualsIgnoreCase(name, "http") && !EqualsIgnoreCase(name, "https")) return false;
    target.remove_prefix(scheme + 3);
    const size_t rest = target.find_first_of("/?");
    if (rest == 0) return false;  // no authority
    target = rest == std::string_view::npos ? std::string_view("/") : target.substr(rest);
  }
  const size_t q = target.find('?');
  *path = target.substr(0, q);
  if (path->empty()) *path = "/";
  *query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  return true;
}

}  // namespace

std::string_view RequestHead::Field(std::string_view name) const {
  for (const auto& [n, v] : fields) {
    if (EqualsIgnoreCase(n, name)) return v;
  }
  return {};
}

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%' && i + 2 < s.size()) {
      const int hi = HexDigitValue(s[i + 1]);
      const int lo = HexDigitValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      std::string key = PercentDecode(pair.substr(0, eq), true);
      std::string value =
          eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1), true);
      out[std::move(key)] = std::move(value);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

HeadParse ParseRequestHead(std::string_view in, const Limits& limits, RequestHead* head) {
  *head = RequestHead();
  size_t pos = 0;
  std::string_view line;
  // Empty lines before a request line are skipped (some clients send one after a body).
  for (;;) {
    if (!NextLine(in, &pos, &line)) {
      return in.size() > limits.max_head_bytes ? TooLarge(limits) : HeadParse();
    }
    if (pos > limits.max_head_bytes) return TooLarge(limits);
    if (!line.empty()) break;
  }

  // The request line: METHOD SP TARGET SP HTTP/x.y, with single spaces.
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) {
    return Refused(400, "the request line is not METHOD TARGET HTTP/VERSION");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Refused(400, "the request's method is not a token");
  std::string_view raw_path;
  std::string_view raw_query;
  if (target.empty() || !SplitTarget(target, &raw_path, &raw_query)) {
    return Refused(400, "the request's target is not a path, an absolute URL or *");
  }
  if (version.size() != 8 || !version.starts_with("HTTP/") || version[6] != '.' ||
      HexDigitValue(version[5]) < 0 || HexDigitValue(version[5]) > 9 || HexDigitValue(version[7]) < 0 ||
      HexDigitValue(version[7]) > 9) {
    return Refused(400, "the request line does not end in HTTP/1.1 or HTTP/1.0");
  }
  if (version[5] != '1') {
    return Refused(505, "the server speaks HTTP/1.1 (and HTTP/1.0) only");
  }
  head->method = std::string(method);
  head->target = std::string(target);
  head->minor_version = version[7] == '0' ? 0 : 1;
  head->path = PercentDecode(raw_path, false);
  if (head->path.find('\0') != std::string::npos) {
    return Refused(400, "the request's path holds a NUL byte");
  }
  head->query = ParseQuery(raw_query);

  // The field lines, up to the blank line.
  for (;;) {
    if (!NextLine(in, &pos, &line)) {
      return in.size() > limits.max_head_bytes ? TooLarge(limits) : HeadParse();
    }
    if (pos > limits.max_head_bytes) return TooLarge(limits);
    if (line.empty()) break;
    std::string_view name;
    std::string_view value;
    std::string why;
    if (!SplitFieldLine(line, &name, &value, &why)) return Refused(400, why);
    if (head->fields.size() >= limits.max_fields) {
      return Refused(431, fmt::format("the request has more than {} fields", limits.max_fields));
    }
    head->fields.emplace_back(std::string(name), std::string(value));
  }

  int hosts = 0;
  bool has_length = false;
  bool has_coding = false;
  uint64_t length = 0;
  std::vector<std::string> codings;
  bool close = false;
  bool keep_alive = false;
  for (const auto& [name, value] : head->fields) {
    if (EqualsIgnoreCase(name, "host")) {
      ++hosts;
    } else if (EqualsIgnoreCase(name, "content-length")) {
      // A list of equal values is one length (some senders repeat the field); any other is an
      // attempt to make two readers see two different bodies.
      bool valid = true;
      bool any = false;
      ForEachListElement(value, [&](std::string_view element) {
        any = true;
        uint64_t n = 0;
        for (char c : element) {
          if (c < '0' || c > '9') {
            valid = false;
            return;
          }
          // Saturates: a length this large is refused as too large, whatever its digits.
          n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n * 10 + static_cast<uint64_t>(c - '0');
        }
        if (has_length && n != length) valid = false;
        has_length = true;
        length = n;
      });
      if (!valid || !any) {
        return Refused(400, "Content-Length is not one non-negative decimal number");
      }
    } else if (EqualsIgnoreCase(name, "transfer-encoding")) {
      has_coding = true;
      ForEachListElement(
          value, [&](std::string_view element) { codings.push_back(AsciiToLower(element)); });
    } else if (EqualsIgnoreCase(name, "connection")) {
      ForEachListElement(value, [&](std::string_view element) {
        if (EqualsIgnoreCase(element, "close")) close = true;
        if (EqualsIgnoreCase(element, "keep-alive")) keep_alive = true;
      });
    } else if (EqualsIgnoreCase(name, "expect") && head->minor_version >= 1) {
      // An HTTP/1.0 request's Expect is ignored: 1.0 has no 100 Continue.
      bool unknown = false;
      ForEachListElement(value, [&](std::string_view element) {
        if (EqualsIgnoreCase(element, "100-continue")) {
          head->expect_continue = true;
        } else {
          unknown = true;
        }
      });
      if (unknown) return Refused(417, "the server meets no expectation but 100-continue");
    }
  }
  if (hosts > 1 || (hosts == 0 && head->minor_version >= 1)) {
    return Refused(400, "an HTTP/1.1 request has exactly one Host field");
  }
  if (has_coding) {
    // Each of these would let a reader before hop (a proxy) and hop disagree on where the body
    // ends, and smuggle a second request inside the first.
    if (head->minor_version == 0) {
      return Refused(400, "Transfer-Encoding is not HTTP/1.0");
    }
    if (has_length)
      return Refused(400, "a request has Transfer-Encoding or Content-Length, not both");
    if (codings.empty() || codings.back() != "chunked") {
      return Refused(400, "a request's Transfer-Encoding must end in chunked");
    }
    for (size_t i = 0; i + 1 < codings.size(); ++i) {
      if (codings[i] == "chunked") return Refused(400, "chunked is applied once");
    }
    if (codings.size() > 1) {
      return Refused(501, fmt::format("the server decodes no transfer coding but chunked, not {}",
                                      codings.front()));
    }
    head->framing = Framing::kChunked;
  } else if (has_length) {
    if (length > limits.max_body_bytes) {
      return Refused(413, "the request is larger than the server accepts");
    }
    head->content_length = length;
    head->framing = length > 0 ? Framing::kLength : Framing::kNone;
  }
  head->keep_alive = head->minor_version >= 1 ? !close : keep_alive && !close;
  HeadParse done;
  done.outcome = HeadParse::Outcome::kHead;
  done.consumed = pos;
  return done;
}

ChunkedDecoder::Step ChunkedDecoder::Refuse(int status, std::string message) {
  Step s;
  s.outcome = Step::Outcome::kRefused;
  s.refusal = {status, std::move(message)};
  return s;
}

ChunkedDecoder::Step ChunkedDecoder::Feed(std::string_view in, std::string* body) {
  size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    switch (state_) {
      case State::kSize: {
        const int v = HexDigitValue(c);
        if (v >= 0) {
          if (++line_bytes_ > kMaxChunkLine) return Refuse(400, "a chunk's size line is too long");
          // Bounded by the body's limit before it is multiplied, so it never overflows.
          const uint64_t room = limits_.max_body_bytes - decoded_;
          if (size_ > (room - static_cast<uint64_t>(v)) / 16 || static_cast<uint64_t>(v) > room) {
            return Refuse(413, "the request is larger than the server accepts");
          }
          size_ = size_ * 16 + static_cast<uint64_t>(v);
          ++digits_;
          ++i;
          break;
        }
        if (digits_ == 0) return Refuse(400, "a chunk does not start with its size in hex");
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::kExtension;
        } else {
          return Refuse(400, "a chunk's size is not hex");
        }
        ++line_bytes_;
        ++i;
        break;
      }
      case State::kExtension: {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if ((u < 0x20 && c != '\t') || u == 0x7f) {
          return Refuse(400, "a chunk extension holds a control character");
        }
        if (++line_bytes_ > kMaxChunkLine) return Refuse(400, "a chunk's size line is too long");
        ++i;
        break;
      }
      case State::kSizeLf:
        if (c != '\n') return Refuse(400, "a chunk's size line does not end in CR LF");
        ++i;
        digits_ = 0;
        line_bytes_ = 0;
        if (size_ == 0) {
          state_ = State::kTrailer;
        } else {
          remaining_ = size_;
          size_ = 0;
          state_ = State::kData;
        }
        break;
      case State::kData: {
        const size_t n = static_cast<size_t>(
            std::min<uint64_t>(remaining_, static_cast<uint64_t>(in.size() - i)));
        body->append(in.data() + i, n);
        i += n;
        remaining_ -= n;
        decoded_ += n;
        if (remaining_ == 0) state_ = State::kDataCr;
        break;
      }
      case State::kDataCr:
        if (c != '\r') return Refuse(400, "a chunk's data is longer than its size");
        state_ = State::kDataLf;
        ++i;
        break;
      case State::kDataLf:
        if (c != '\n') return Refuse(400, "a chunk's data does not end in CR LF");
        state_ = State::kSize;
        ++i;
        break;
      case State::kTrailer: {
        ++i;
        if (++trailer_bytes_ > limits_.max_head_bytes) {
          return Refuse(431, fmt::format("the request's trailer is larger than {} bytes",
                                         limits_.max_head_bytes));
        }
        if (c != '\n') {
          trailer_line_ += c;
          break;
        }
        if (trailer_line_.empty() || trailer_line_.back() != '\r') {
          return Refuse(400, "a trailer line does not end in CR LF");
        }
        trailer_line_.pop_back();
        if (trailer_line_.empty()) {
          Step done;
          done.outcome = Step::Outcome::kDone;
          done.consumed = i;
          return done;
        }
        std::string_view name;
        std::string_view value;
        std::string why;
        if (!SplitFieldLine(trailer_line_, &name, &value, &why)) return Refuse(400, why);
        if (++trailer_fields_ > limits_.max_fields) {
          return Refuse(431, fmt::format("the request's trailer has more than {} fields",
                                         limits_.max_fields));
        }
        trailer_line_.clear();
        break;
      }
    }
  }
  Step more;
  more.consumed = in.size();
  return more;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

void WriteResponseHead(std::string& out, int status,
                       const std::vector<std::pair<std::string, std::string>>& fields,
                       const ResponseFraming& framing) {
  out += fmt::format("HTTP/1.1 {} {}\r\n", status, ReasonPhrase(status));
  if (!framing.date.empty()) {
    out += "Date: ";
    out += framing.date;
    out += "\r\n";
  }
  for (const auto& [name, value] : fields) {
    out += name;
    out += ": ";
    for (char c : value) out += (c == '\r' || c == '\n' || c == '\0') ? ' ' : c;
    out += "\r\n";
  }
  // 1xx, 204 and 304 responses have no body and say nothing of one.
  const bool bodiless = status < 200 || status == 204 || status == 304;
  if (framing.chunked) {
    out += "Transfer-Encoding: chunked\r\n";
  } else if (!bodiless) {
    out += fmt::format("Content-Length: {}\r\n", framing.content_length);
  }
  if (framing.close) {
    out += "Connection: close\r\n";
  } else if (framing.keep_alive_1_0) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
}

void WriteContinue(std::string& out) { out += "HTTP/1.1 100 Continue\r\n\r\n"; }

void WriteChunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  out += fmt::format("{:x}\r\n", data.size());
  out += data;
  out += "\r\n";
}

void WriteLastChunk(std::string& out) { out += "0\r\n\r\n"; }

std::string HttpDate(int64_t seconds) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto t = static_cast<time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT", kDays[tm.tm_wday % 7], tm.tm_mday,
                     kMonths[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace hop::server::http
