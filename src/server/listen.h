// The listening socket of hop's servers (pgwire, the Kubernetes API): an IP address or
// `localhost`, a port (0: any free one), bound and listening.
#pragma once

#include <sys/types.h>

#include <optional>
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

// The user who owns the other end of connection `fd` when that end is a socket of this machine
// (a loopback client): the kernel is asked (sock_diag, an exact lookup, as `ss` asks) for the
// TCP socket whose local end is this connection's peer and whose remote end is this connection's
// own. nullopt when there is none (the client is elsewhere, or has gone); an error when the
// kernel cannot be asked. What a server on a loopback address that asks no credentials checks,
// so that only the user it runs as gets in (docs/kubernetes-api.md, docs/pgwire.md): loopback is
// reachable by every user of the machine.
Result<std::optional<uid_t>> LoopbackPeerUid(int fd);

// Whether an HTTP Host header (host, host:port, [v6], [v6]:port) names this machine by a
// loopback address or `localhost`: what a browser sends to a loopback server only when the page
// itself is served from one, so a page of another site that had its name resolve to 127.0.0.1
// (DNS rebinding) is told apart. An empty header (HTTP/1.0) counts as loopback.
bool IsLoopbackHost(std::string_view host);

}  // namespace hop::server
