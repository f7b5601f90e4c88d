// Fuzzes hop's HTTP/1.1 parser (server/http_wire.h) the way the server reads a connection:
// request heads one after the other, each followed by its body (Content-Length bytes, or chunks
// decoded as they would arrive). Whatever the bytes, a head parses, waits for more or is refused
// with one of the parser's status codes; every proper prefix of a head that parses waits for
// more; a chunked body decodes the same fed whole and byte by byte, within its limit; and a
// response head written with any field value ends exactly once.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/http_wire.h"

namespace {

using namespace hop::server::http;

Limits FuzzLimits() {
  Limits l;
  l.max_head_bytes = 2048;  // small, so that the limits are reached
  l.max_fields = 16;
  l.max_body_bytes = 1024;
  return l;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

bool IsRefusalStatus(int s) {
  return s == 400 || s == 413 || s == 417 || s == 431 || s == 501 || s == 505;
}

struct Decoded {
  ChunkedDecoder::Step::Outcome outcome;
  int status = 0;
  std::string body;
  size_t consumed = 0;
};

Decoded DecodeChunked(std::string_view in, size_t piece) {
  ChunkedDecoder d(FuzzLimits());
  Decoded out;
  size_t at = 0;
  for (;;) {
    const size_t n = piece == 0 ? in.size() - at : std::min(piece, in.size() - at);
    const auto step = d.Feed(in.substr(at, n), &out.body);
    Check(step.consumed <= n);
    at += step.consumed;
    out.outcome = step.outcome;
    if (step.outcome != ChunkedDecoder::Step::Outcome::kMore) {
      if (step.outcome == ChunkedDecoder::Step::Outcome::kRefused) {
        Check(IsRefusalStatus(step.refusal.status) && !step.refusal.message.empty());
        out.status = step.refusal.status;
      }
      break;
    }
    Check(step.consumed == n);
    if (at >= in.size()) break;
  }
  out.consumed = at;
  Check(out.body.size() <= FuzzLimits().max_body_bytes);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const Limits limits = FuzzLimits();
  for (int requests = 0; requests < 16 && !in.empty(); ++requests) {
    RequestHead head;
    const HeadParse p = ParseRequestHead(in, limits, &head);
    if (p.outcome == HeadParse::Outcome::kRefused) {
      Check(IsRefusalStatus(p.refusal.status) && !p.refusal.message.empty());
      return 0;
    }
    if (p.outcome == HeadParse::Outcome::kIncomplete) {
      Check(in.size() <= limits.max_head_bytes);
      return 0;
    }
    Check(p.consumed > 0 && p.consumed <= in.size() && p.consumed <= limits.max_head_bytes);
    Check(!head.method.empty() && !head.path.empty());
    for (size_t n : {p.consumed - 1, p.consumed / 2}) {
      RequestHead partial;
      Check(ParseRequestHead(in.substr(0, n), limits, &partial).outcome ==
            HeadParse::Outcome::kIncomplete);
    }
    // The head's fields, echoed into a response, cannot end it early.
    std::string out;
    ResponseFraming framing;
    WriteResponseHead(out, 200, head.fields, framing);
    Check(out.find("\r\n\r\n") == out.size() - 4);
    in.remove_prefix(p.consumed);
    if (head.framing == Framing::kLength) {
      Check(head.content_length > 0 && head.content_length <= limits.max_body_bytes);
      if (head.content_length > in.size()) return 0;
      in.remove_prefix(head.content_length);
    } else if (head.framing == Framing::kChunked) {
      const Decoded whole = DecodeChunked(in, 0);
      const Decoded bytewise = DecodeChunked(in, 1);
      Check(whole.outcome == bytewise.outcome && whole.status == bytewise.status &&
            whole.body == bytewise.body);
      if (whole.outcome != ChunkedDecoder::Step::Outcome::kDone) return 0;
      Check(whole.consumed == bytewise.consumed);
      std::string again;
      WriteChunk(again, whole.body);
      WriteLastChunk(again);
      const Decoded rewritten = DecodeChunked(again, 0);
      Check(rewritten.outcome == ChunkedDecoder::Step::Outcome::kDone &&
            rewritten.body == whole.body && rewritten.consumed == again.size());
      in.remove_prefix(whole.consumed);
    }
  }
  return 0;
}
