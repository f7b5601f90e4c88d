// The listening socket of hop's servers (pgwire, the Kubernetes API): an IP address or
// `localhost`, a port (0: any free one), bound and listening.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace hop::server {

struct ListenRequest {
  std::string address;            // an IPv4 or IPv6 address, or localhost (127.0.0.1)
  int port = 0;                   // 0: any free port
  std::string_view address_flag;  // for messages: --pg-listen, --http-listen
  std::string_view port_flag;     // --pg-port, --http-port
  std::string_view purpose;       // appended to socket errors, e.g. " for the Kubernetes API"
  int backlog = 256;
  bool dual_stack = false;  // an IPv6 socket serves IPv4 clients too (mapped addresses)
};

struct Listening {
  int fd = -1;   // SOCK_CLOEXEC, blocking; the caller closes it
  int port = 0;  // the port bound (the one asked for, or the one chosen for 0)
};

// Errors: InvalidArgument for an address that is not an IP address or localhost, or a port
// outside 0..65535; Unavailable when the socket cannot be made, bound or listened on.
Result<Listening> ListenTcp(const ListenRequest& request);

}  // namespace hop::server
