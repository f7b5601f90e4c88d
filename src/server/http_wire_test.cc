// HTTP/1.1 as bytes (http_wire.h): request heads that parse, wait for more or are refused with
// their status code (smuggling attempts among them), query and path decoding, keep-alive, chunked
// bodies fed whole and byte by byte, response heads, and the inputs the fuzzer failed on.
#include "server/http_wire.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "test/lib/datadriven.h"

namespace hop::server::http {
namespace {

constexpr int kIncomplete = -1;

// The bytes of a string literal, NULs included (without the terminating one).
template <size_t N>
std::string Bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

// The outcome of parsing `in` as a status: 0 parsed, kIncomplete, or the refusal's status code.
int Outcome(const HeadParse& p) {
  switch (p.outcome) {
    case HeadParse::Outcome::kHead: return 0;
    case HeadParse::Outcome::kIncomplete: return kIncomplete;
    case HeadParse::Outcome::kRefused: return p.refusal.status;
  }
  return -2;
}

Limits SmallLimits() {
  Limits l;
  l.max_head_bytes = 1024;
  l.max_fields = 8;
  l.max_body_bytes = 100;
  return l;
}

std::string Get(std::string_view fields) {
  return "GET / HTTP/1.1\r\nHost: h\r\n" + std::string(fields) + "\r\n";
}
std::string Post(std::string_view fields) {
  return "POST /x HTTP/1.1\r\nHost: h\r\n" + std::string(fields) + "\r\n";
}

struct HeadCase {
  const char* name;
  std::string input;
  int want;  // 0 parsed, kIncomplete, or the refusal's status
};

TEST(HttpHeadTest, EachRuleParsesWaitsOrRefuses) {
  const HeadCase kCases[] = {
      {"a GET", Get(""), 0},
      {"lines ending in a bare LF", "GET / HTTP/1.1\nHost: h\n\n", 0},
      {"empty lines before the request line", "\r\n\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 0},
      {"HTTP/1.0 needs no Host", "GET / HTTP/1.0\r\n\r\n", 0},
      {"HTTP/1.2 reads as 1.1", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", 0},
      {"absolute form", "GET http://h:1/api?x=1 HTTP/1.1\r\nHost: h\r\n\r\n", 0},
      {"asterisk form", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", 0},
      {"an empty field value", Get("X-Empty:\r\n"), 0},
      {"obs-text in a value", Get("X-Name: caf\xc3\xa9\r\n"), 0},
      {"nothing yet", "", kIncomplete},
      {"only empty lines", "\r\n\r\n", kIncomplete},
      {"half a request line", "GET / HT", kIncomplete},
      {"half a head", "GET / HTTP/1.1\r\nHost: h\r\n", kIncomplete},
      {"a head without its last LF", "GET / HTTP/1.1\r\nHost: h\r\n\r", kIncomplete},
      {"garbage", "garbage\r\n\r\n", 400},
      {"binary garbage", Bytes("\x00\x01\x02\xff\xfe garbage\r\n\r\n"), 400},
      {"no version (HTTP/0.9)", "GET /\r\n\r\n", 400},
      {"a method alone", "GET\r\n\r\n", 400},
      {"two spaces", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"a tab for a space", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"a trailing space", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400},
      {"a lower-case version", "GET / http/1.1\r\nHost: h\r\n\r\n", 400},
      {"a version of three digits", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400},
      {"HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505},
      {"HTTP/9.9", "GET / HTTP/9.9\r\nHost\r\n\r\n", 505},
      {"a target that is no path", "GET api HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"an absolute form without authority", "GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"another scheme", "GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"a fragment", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"a non-ASCII target", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"a NUL in the method", Bytes("G\0T / HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
      {"a NUL in the target", Bytes("GET /\0 HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
      {"a decoded NUL in the path", "GET /a%00b HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"a NUL in a field value", Get(Bytes("X: a\0b\r\n")), 400},
      {"a bare CR in a field value", Get("X: a\rb\r\n"), 400},
      {"a bare CR ending the request line", "GET / HTTP/1.1\rHost: h\r\n\r\n", 400},
      {"a DEL in a field value", Get("X: a\x7f\r\n"), 400},
      {"a field without a colon", "GET / HTTP/1.1\r\nHost\r\n\r\n", 400},
      {"a blank before the colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400},
      {"an empty field name", Get(": v\r\n"), 400},
      {"a field name with a slash", Get("X/Y: v\r\n"), 400},
      {"obs-fold", Get("X: a\r\n b\r\n"), 400},
      {"obs-fold with a tab", Get("X: a\r\n\tb\r\n"), 400},
      {"an HTTP/1.1 request without Host", "GET / HTTP/1.1\r\n\r\n", 400},
      {"two Hosts", Get("Host: other\r\n"), 400},
      {"two Hosts in HTTP/1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      // Request smuggling: whoever reads this message before hop must not see another body.
      {"Content-Length and chunked", Post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
       400},
      {"chunked and Content-Length", Post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
       400},
      {"two Content-Lengths that differ", Post("Content-Length: 5\r\nContent-Length: 6\r\n"), 400},
      {"a Content-Length list that differs", Post("Content-Length: 5, 6\r\n"), 400},
      {"two equal Content-Lengths", Post("Content-Length: 5\r\nContent-Length: 5\r\n"), 0},
      {"an equal Content-Length list", Post("Content-Length: 5,5\r\n"), 0},
      {"a negative Content-Length", Post("Content-Length: -5\r\n"), 400},
      {"a Content-Length with a sign", Post("Content-Length: +5\r\n"), 400},
      {"a hex Content-Length", Post("Content-Length: 0x5\r\n"), 400},
      {"an empty Content-Length", Post("Content-Length:\r\n"), 400},
      {"a Content-Length with inner blanks", Post("Content-Length: 1 0\r\n"), 400},
      {"a huge Content-Length", Post("Content-Length: 99999999999999999999999999\r\n"), 413},
      {"a Content-Length past the limit", Post("Content-Length: 101\r\n"), 413},
      {"a Content-Length at the limit", Post("Content-Length: 100\r\n"), 0},
      {"chunked in HTTP/1.0", "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"a coding before chunked", Post("Transfer-Encoding: gzip, chunked\r\n"), 501},
      {"codings on two lines", Post("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"),
       501},
      {"chunked not last", Post("Transfer-Encoding: chunked, gzip\r\n"), 400},
      {"chunked twice", Post("Transfer-Encoding: chunked, chunked\r\n"), 400},
      {"a coding without chunked", Post("Transfer-Encoding: gzip\r\n"), 400},
      {"an empty Transfer-Encoding", Post("Transfer-Encoding:\r\n"), 400},
      {"chunked with a parameter", Post("Transfer-Encoding: chunked;q=1\r\n"), 400},
      {"Chunked in capitals", Post("Transfer-Encoding: Chunked\r\n"), 0},
      {"Expect: 100-continue", Post("Content-Length: 5\r\nExpect: 100-Continue\r\n"), 0},
      {"another expectation", Post("Expect: something\r\n"), 417},
      {"an HTTP/1.0 expectation is ignored", "GET / HTTP/1.0\r\nExpect: something\r\n\r\n", 0},
      {"a head over the limit", "GET /" + std::string(2000, 'a') + " HTTP/1.1\r\n\r\n", 431},
      {"a head over the limit, incomplete", std::string(2000, 'A'), 431},
      {"empty lines over the limit", std::string(1100, '\n'), 431},
      {"a field past the limit", Get("X: " + std::string(1100, 'x') + "\r\n"), 431},
      {"too many fields", Get("A: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\nG: 1\r\nH: 1\r\n"),
       431},
      {"as many fields as allowed", Get("A: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\nG: 1\r\n"),
       0},
  };
  for (const HeadCase& c : kCases) {
    RequestHead head;
    const HeadParse p = ParseRequestHead(c.input, SmallLimits(), &head);
    EXPECT_EQ(Outcome(p), c.want) << c.name << ": " << p.refusal.message;
    if (p.outcome == HeadParse::Outcome::kRefused) {
      EXPECT_FALSE(p.refusal.message.empty()) << c.name;
    }
    if (p.outcome == HeadParse::Outcome::kHead) {
      EXPECT_LE(p.consumed, c.input.size()) << c.name;
      // Every shorter prefix of a head is incomplete: nothing is decided on part of a line.
      for (size_t n = 0; n < p.consumed; ++n) {
        RequestHead partial;
        EXPECT_EQ(Outcome(ParseRequestHead(c.input.substr(0, n), SmallLimits(), &partial)),
                  kIncomplete)
            << c.name << " cut at " << n;
      }
    }
  }
}

TEST(HttpHeadTest, FieldsTargetAndQueryAreRead) {
  const std::string in =
      "GET /api/v1/namespaces/a%20b/configmaps?labelSelector=app%3Dweb&watch=1&watch=true&x"
      "&plus=a+b&bad=%zz%4 HTTP/1.1\r\n"
      "host: example:8080\r\n"
      "Content-TYPE:  application/json \t\r\n"
      "Accept:application/yaml\r\n"
      "\r\n"
      "GET /next";
  RequestHead head;
  const HeadParse p = ParseRequestHead(in, Limits(), &head);
  ASSERT_EQ(p.outcome, HeadParse::Outcome::kHead) << p.refusal.message;
  EXPECT_EQ(in.substr(p.consumed), "GET /next");
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.path, "/api/v1/namespaces/a b/configmaps");
  EXPECT_EQ(head.query.at("labelSelector"), "app=web");
  EXPECT_EQ(head.query.at("watch"), "true");  // the last one wins
  EXPECT_EQ(head.query.at("x"), "");
  EXPECT_TRUE(head.HasQuery("x"));
  EXPECT_FALSE(head.HasQuery("y"));
  EXPECT_EQ(head.query.at("plus"), "a b");
  EXPECT_EQ(head.query.at("bad"), "%zz%4");
  EXPECT_EQ(head.Field("Host"), "example:8080");
  EXPECT_EQ(head.Field("content-type"), "application/json");
  EXPECT_EQ(head.Field("ACCEPT"), "application/yaml");
  EXPECT_EQ(head.Field("Missing"), "");
  EXPECT_EQ(head.framing, Framing::kNone);
  EXPECT_TRUE(head.keep_alive);

  RequestHead absolute;
  ASSERT_EQ(ParseRequestHead("PUT HTTPS://h:1?a=1 HTTP/1.1\r\nHost: h\r\n\r\n", Limits(), &absolute)
                .outcome,
            HeadParse::Outcome::kHead);
  EXPECT_EQ(absolute.path, "/");
  EXPECT_EQ(absolute.query.at("a"), "1");
}

TEST(HttpHeadTest, PipelinedRequestsParseOneAfterTheOther) {
  const std::string in = Post("Content-Length: 3\r\n") + "abc" + Get("") +
                         "DELETE /y HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
  std::string_view rest = in;
  RequestHead head;
  HeadParse p = ParseRequestHead(rest, Limits(), &head);
  ASSERT_EQ(p.outcome, HeadParse::Outcome::kHead);
  EXPECT_EQ(head.method, "POST");
  EXPECT_EQ(head.framing, Framing::kLength);
  EXPECT_EQ(head.content_length, 3u);
  rest.remove_prefix(p.consumed);
  EXPECT_EQ(rest.substr(0, 3), "abc");
  rest.remove_prefix(3);
  p = ParseRequestHead(rest, Limits(), &head);
  ASSERT_EQ(p.outcome, HeadParse::Outcome::kHead);
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.framing, Framing::kNone);
  rest.remove_prefix(p.consumed);
  p = ParseRequestHead(rest, Limits(), &head);
  ASSERT_EQ(p.outcome, HeadParse::Outcome::kHead);
  EXPECT_EQ(head.method, "DELETE");
  EXPECT_FALSE(head.keep_alive);
  EXPECT_EQ(p.consumed, rest.size());
}

TEST(HttpHeadTest, KeepAliveFollowsTheVersionAndConnection) {
  struct Case {
    const char* name;
    std::string input;
    bool keep_alive;
  };
  const Case kCases[] = {
      {"HTTP/1.1 by default", Get(""), true},
      {"HTTP/1.1 with close", Get("Connection: close\r\n"), false},
      {"close in a list", Get("Connection: Upgrade, CLOSE\r\n"), false},
      {"HTTP/1.1 with keep-alive", Get("Connection: keep-alive\r\n"), true},
      {"HTTP/1.0 by default", "GET / HTTP/1.0\r\n\r\n", false},
      {"HTTP/1.0 with keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true},
      {"HTTP/1.0 with keep-alive and close",
       "GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false},
  };
  for (const Case& c : kCases) {
    RequestHead head;
    ASSERT_EQ(ParseRequestHead(c.input, Limits(), &head).outcome, HeadParse::Outcome::kHead)
        << c.name;
    EXPECT_EQ(head.keep_alive, c.keep_alive) << c.name;
  }
}

TEST(HttpHeadTest, FramingAndExpectation) {
  RequestHead head;
  ASSERT_EQ(ParseRequestHead(Post("Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n"),
                             Limits(), &head)
                .outcome,
            HeadParse::Outcome::kHead);
  EXPECT_EQ(head.framing, Framing::kChunked);
  EXPECT_TRUE(head.expect_continue);
  ASSERT_EQ(ParseRequestHead(Post("Content-Length: 0\r\n"), Limits(), &head).outcome,
            HeadParse::Outcome::kHead);
  EXPECT_EQ(head.framing, Framing::kNone);
  EXPECT_FALSE(head.expect_continue);
  ASSERT_EQ(ParseRequestHead("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
                             Limits(), &head)
                .outcome,
            HeadParse::Outcome::kHead);
  EXPECT_EQ(head.framing, Framing::kLength);
  EXPECT_FALSE(head.expect_continue);  // HTTP/1.0 has no 100 Continue
}

TEST(HttpQueryTest, DecodesPairs) {
  struct Case {
    const char* query;
    std::map<std::string, std::string> want;
  };
  const Case kCases[] = {
      {"", {}},
      {"a=1", {{"a", "1"}}},
      {"a=1&&b=", {{"a", "1"}, {"b", ""}}},
      {"a=1&a=2", {{"a", "2"}}},
      {"k%3D=v%26w", {{"k=", "v&w"}}},
      {"a=x=y", {{"a", "x=y"}}},
      {"=v", {{"", "v"}}},
      {"a+b=c+d", {{"a b", "c d"}}},
  };
  for (const Case& c : kCases) EXPECT_EQ(ParseQuery(c.query), c.want) << c.query;
  EXPECT_EQ(PercentDecode("a+b%2Fc%2", false), "a+b/c%2");
  EXPECT_EQ(PercentDecode("%41%4a%4A", true), "AJJ");
  EXPECT_EQ(PercentDecode("%", true), "%");
}

// --- chunked bodies ---

struct ChunkCase {
  const char* name;
  std::string input;
  int want;  // 0 done, kIncomplete (more), or the refusal's status
  std::string body;
  size_t consumed;  // with 0 (done)
};

// Feeds `in` to a fresh decoder in pieces of `piece` bytes (0: all at once).
std::tuple<int, std::string, size_t> Decode(const std::string& in, size_t piece) {
  ChunkedDecoder d(SmallLimits());
  std::string body;
  size_t at = 0;
  for (;;) {
    const size_t n = piece == 0 ? in.size() - at : std::min(piece, in.size() - at);
    const auto step = d.Feed(std::string_view(in).substr(at, n), &body);
    at += step.consumed;
    if (step.outcome == ChunkedDecoder::Step::Outcome::kDone) return {0, body, at};
    if (step.outcome == ChunkedDecoder::Step::Outcome::kRefused) {
      return {step.refusal.status, body, at};
    }
    EXPECT_EQ(step.consumed, n) << "more, yet not every byte was used";
    if (at >= in.size()) return {kIncomplete, body, at};
  }
}

TEST(HttpChunkedTest, DecodesWholeAndByteByByte) {
  const ChunkCase kCases[] = {
      {"one chunk", "5\r\nhello\r\n0\r\n\r\n", 0, "hello", 15},
      {"two chunks, hex in capitals", "3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n", 0,
       "abc0123456789", 0},
      {"leading zeros", "0005\r\nhello\r\n000\r\n\r\n", 0, "hello", 0},
      {"extensions", "5;name=value;x\r\nhello\r\n0;last\r\n\r\n", 0, "hello", 0},
      {"a blank before an extension", "5 ;a=b\r\nhello\r\n0\r\n\r\n", 0, "hello", 0},
      {"trailer fields", "2\r\nhi\r\n0\r\nX-Sum: 1\r\nY: 2\r\n\r\n", 0, "hi", 0},
      {"the next request follows", "2\r\nhi\r\n0\r\n\r\nGET / HTTP/1.1\r\n", 0, "hi", 12},
      {"a body at the limit", "64\r\n" + std::string(100, 'x') + "\r\n0\r\n\r\n", 0,
       std::string(100, 'x'), 0},
      {"cut in the data", "5\r\nhel", kIncomplete, "hel", 0},
      {"cut before the trailer's end", "0\r\n", kIncomplete, "", 0},
      {"cut in a trailer field", "0\r\nX: 1", kIncomplete, "", 0},
      {"empty", "", kIncomplete, "", 0},
      {"no size", "\r\nhello\r\n", 400, "", 0},
      {"a size that is no hex", "g\r\n", 400, "", 0},
      {"a negative size", "-5\r\n", 400, "", 0},
      {"a size line ending in a bare LF", "5\nhello\r\n0\r\n\r\n", 400, "", 0},
      {"a size line ending in a bare CR", "5\rhello", 400, "", 0},
      {"data longer than its size", "5\r\nhelloX\r\n0\r\n\r\n", 400, "hello", 0},
      {"data ending in a bare LF", "5\r\nhello\n0\r\n\r\n", 400, "hello", 0},
      {"a size that overflows 64 bits", "ffffffffffffffffffffff\r\n", 413, "", 0},
      {"a size past the limit", "65\r\n", 413, "", 0},
      {"chunks that add up past the limit", "32\r\n" + std::string(50, 'x') + "\r\n33\r\n", 413,
       std::string(50, 'x'), 0},
      {"a NUL in an extension", Bytes("5;a\0\r\nhello\r\n0\r\n\r\n"), 400, "", 0},
      {"a size line of endless zeros", std::string(5000, '0'), 400, "", 0},
      {"a trailer without a colon", "0\r\nX\r\n\r\n", 400, "", 0},
      {"a trailer ending in a bare LF", "0\r\nX: 1\n\r\n", 400, "", 0},
      {"an end ending in a bare LF", "0\r\n\n", 400, "", 0},
      {"too many trailer fields",
       "0\r\nA:1\r\nB:1\r\nC:1\r\nD:1\r\nE:1\r\nF:1\r\nG:1\r\nH:1\r\nI:1\r\n\r\n", 431, "", 0},
  };
  for (const ChunkCase& c : kCases) {
    for (size_t piece : {size_t{0}, size_t{1}, size_t{3}}) {
      const auto [got, body, consumed] = Decode(c.input, piece);
      EXPECT_EQ(got, c.want) << c.name << " in pieces of " << piece;
      EXPECT_EQ(body, c.body) << c.name << " in pieces of " << piece;
      if (c.want == 0 && c.consumed > 0) {
        EXPECT_EQ(consumed, c.consumed) << c.name << " in pieces of " << piece;
      }
      if (c.want == 0 && c.consumed == 0) {
        EXPECT_EQ(consumed, c.input.size()) << c.name << " in pieces of " << piece;
      }
    }
  }
}

// --- responses ---

TEST(HttpResponseTest, HeadsAreWrittenWholeAndFieldsCannotBreakThem) {
  std::string out;
  ResponseFraming framing;
  framing.content_length = 2;
  framing.date = "Sun, 06 Nov 1994 08:49:37 GMT";
  WriteResponseHead(out, 200, {{"Content-Type", "application/json"}}, framing);
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n");

  out.clear();
  framing = ResponseFraming();
  framing.chunked = true;
  framing.close = true;
  WriteResponseHead(out, 404, {{"Warning", Bytes("a\r\nX-Evil: 1\r\n\r\nb\0c")}}, framing);
  EXPECT_EQ(out,
            "HTTP/1.1 404 Not Found\r\nWarning: a  X-Evil: 1    b c\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");

  out.clear();
  framing = ResponseFraming();
  framing.keep_alive_1_0 = true;
  WriteResponseHead(out, 413, {}, framing);
  EXPECT_EQ(
      out, "HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n");

  out.clear();
  WriteContinue(out);
  EXPECT_EQ(out, "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST(HttpResponseTest, ChunksAndDates) {
  std::string out;
  WriteChunk(out, "");
  EXPECT_EQ(out, "");  // an empty chunk would end the body
  WriteChunk(out, "hello");
  WriteChunk(out, std::string(26, 'z'));
  WriteLastChunk(out);
  EXPECT_EQ(out, "5\r\nhello\r\n1a\r\n" + std::string(26, 'z') + "\r\n0\r\n\r\n");
  // What the writer writes, the decoder reads.
  const auto [got, body, consumed] = Decode(out, 0);
  EXPECT_EQ(got, 0);
  EXPECT_EQ(body, "hello" + std::string(26, 'z'));
  EXPECT_EQ(consumed, out.size());

  EXPECT_EQ(HttpDate(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(HttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(HttpDate(951782400), "Tue, 29 Feb 2000 00:00:00 GMT");
  EXPECT_EQ(ReasonPhrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(ReasonPhrase(299), "Unknown");
}

// Every input the HTTP fuzzer (fuzz/http_fuzz.cc) failed on is kept in fuzz/regressions/http: each
// parses, waits or is refused with one of the parser's codes, and a chunked body decodes the same
// whole and byte by byte.
TEST(HttpRegressionTest, FuzzRegressionsPass) {
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(hop::testing::SourcePath("fuzz/regressions/http"))) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string input = buf.str();
    ++files;
    RequestHead head;
    const HeadParse p = ParseRequestHead(input, SmallLimits(), &head);
    if (p.outcome == HeadParse::Outcome::kRefused) {
      EXPECT_TRUE(p.refusal.status == 400 || p.refusal.status == 413 || p.refusal.status == 417 ||
                  p.refusal.status == 431 || p.refusal.status == 501 || p.refusal.status == 505)
          << entry.path() << ": " << p.refusal.status;
      continue;
    }
    if (p.outcome != HeadParse::Outcome::kHead) continue;
    ASSERT_LE(p.consumed, input.size()) << entry.path();
    if (head.framing == Framing::kChunked) {
      const std::string rest = input.substr(p.consumed);
      const auto [whole, whole_body, whole_consumed] = Decode(rest, 0);
      const auto [bytewise, bytewise_body, bytewise_consumed] = Decode(rest, 1);
      EXPECT_EQ(whole, bytewise) << entry.path();
      EXPECT_EQ(whole_body, bytewise_body) << entry.path();
      if (whole == 0) {
        EXPECT_EQ(whole_consumed, bytewise_consumed) << entry.path();
      }
    }
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace hop::server::http
