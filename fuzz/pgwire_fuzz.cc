// Fuzzes the PostgreSQL protocol decoder (server/pg_protocol.h) the way the server reads a
// connection: a startup packet, then typed messages, each decoded by its message's decoder.
// Whatever the bytes, decoding succeeds or fails with a "protocol violation" error; nothing
// reads past what there is, and errors render into ErrorResponse messages.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/pg_protocol.h"

namespace {

constexpr uint32_t kMaxMessage = 1 << 20;

void DecodeMessage(char type, std::string_view body) {
  using namespace hop::server;
  hop::Status st;
  switch (type) {
    case 'Q': st = DecodeQuery(body).status(); break;
    case 'P': st = DecodeParse(body).status(); break;
    case 'B': st = DecodeBind(body).status(); break;
    case 'D': st = DecodeTarget(body, "Describe").status(); break;
    case 'C': st = DecodeTarget(body, "Close").status(); break;
    case 'E': st = DecodeExecute(body).status(); break;
    case 'p':
      st = DecodePassword(body).status();
      if (!st.ok()) st = DecodeSaslInitial(body).status();
      break;
    default: return;
  }
  std::string out;
  WriteError(out, ErrorOf(st, body));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto length = hop::server::StartupLength(in, 10000);
  if (!length.ok()) return 0;
  if (*length > in.size()) {
    (void)hop::server::DecodeStartup(in.substr(4));
    return 0;
  }
  auto startup = hop::server::DecodeStartup(in.substr(4, *length - 4));
  if (startup.ok()) (void)startup->Parameter("user");
  in.remove_prefix(*length);
  while (in.size() >= 5) {
    auto n = hop::server::MessageBodyLength(in.substr(1, 4), kMaxMessage);
    if (!n.ok()) return 0;
    const char type = in[0];
    in.remove_prefix(5);
    if (*n > in.size()) {
      DecodeMessage(type, in);  // a message cut short
      return 0;
    }
    DecodeMessage(type, in.substr(0, *n));
    in.remove_prefix(*n);
  }
  return 0;
}
