#include "server/listen.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/strings.h"
#include "server/pg_server.h"

namespace hop::server {

Result<Listening> ListenTcp(const ListenRequest& request) {
  const std::string address = request.address == "localhost" ? "127.0.0.1" : request.address;
  sockaddr_storage storage{};
  socklen_t len = 0;
  int family = AF_INET;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    auto* sa = reinterpret_cast<sockaddr_in*>(&storage);
    sa->sin_family = AF_INET;
    sa->sin_addr = v4;
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
    family = AF_INET6;
    auto* sa = reinterpret_cast<sockaddr_in6*>(&storage);
    sa->sin6_family = AF_INET6;
    sa->sin6_addr = v6;
    len = sizeof(sockaddr_in6);
  } else {
    return Status::InvalidArgument(fmt::format("{} takes an IP address or localhost, not '{}'",
                                               request.address_flag, request.address));
  }
  if (request.port < 0 || request.port > 65535) {
    return Status::InvalidArgument(
        fmt::format("{} {} is not a port", request.port_flag, request.port));
  }
  const uint16_t port = htons(static_cast<uint16_t>(request.port));
  if (family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&storage)->sin_port = port;
  } else {
    reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = port;
  }
  const int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Unavailable(fmt::format("cannot create a socket{}", request.purpose));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (family == AF_INET6 && request.dual_stack) {
    int zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&storage), len) != 0 ||
      listen(fd, request.backlog) != 0) {
    const int err = errno;
    close(fd);
    return Status::Unavailable(fmt::format("cannot listen on {}:{}{}: {}", request.address,
                                           request.port, request.purpose, strerror(err)));
  }
  Listening out{fd, request.port};
  if (request.port == 0) {
    sockaddr_storage bound{};
    socklen_t blen = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen);
    out.port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                       : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  }
  return out;
}

namespace {

// An IPv4 client of a dual-stack socket is seen as ::ffff:a.b.c.d; its own socket is IPv4.
void UnmapV4(sockaddr_storage& a) {
  if (a.ss_family != AF_INET6) return;
  const auto v6 = *reinterpret_cast<const sockaddr_in6*>(&a);
  if (!IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) return;
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_port = v6.sin6_port;
  std::memcpy(&v4.sin_addr, &v6.sin6_addr.s6_addr[12], 4);
  std::memset(&a, 0, sizeof a);
  std::memcpy(&a, &v4, sizeof v4);
}

// The IPv6 form (::ffff:a.b.c.d) of an IPv4 address.
sockaddr_storage MapV4(const sockaddr_storage& a) {
  const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
  sockaddr_storage out{};
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out);
  v6->sin6_family = AF_INET6;
  v6->sin6_port = v4->sin_port;
  v6->sin6_addr.s6_addr[10] = 0xff;
  v6->sin6_addr.s6_addr[11] = 0xff;
  std::memcpy(&v6->sin6_addr.s6_addr[12], &v4->sin_addr, 4);
  return out;
}

// Fills a sock_diag id's port and address from `a` (IPv4 or IPv6).
void SetEnd(const sockaddr_storage& a, __be16* port, __be32* address) {
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    *port = v4->sin_port;
    std::memcpy(address, &v4->sin_addr, 4);
  } else {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    *port = v6->sin6_port;
    std::memcpy(address, &v6->sin6_addr, 16);
  }
}

// Asks the kernel (sock_diag, one exact lookup: what `ss` reads) for the owner of the TCP socket
// whose local end is `source` and remote end `destination`. nullopt: no such socket.
Result<std::optional<uid_t>> SocketOwner(const sockaddr_storage& source,
                                         const sockaddr_storage& destination) {
  const int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) {
    return Status::Unavailable(
        fmt::format("cannot ask the kernel whose socket it is: {}", std::strerror(errno)));
  }
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.request.sdiag_family = static_cast<uint8_t>(source.ss_family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;
  SetEnd(source, &message.request.id.idiag_sport, message.request.id.idiag_src);
  SetEnd(destination, &message.request.id.idiag_dport, message.request.id.idiag_dst);
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(nl, &message, sizeof message, 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof kernel) != static_cast<ssize_t>(sizeof message)) {
    const int error = errno;
    close(nl);
    return Status::Unavailable(
        fmt::format("cannot ask the kernel whose socket it is: {}", std::strerror(error)));
  }
  alignas(nlmsghdr) char reply[4096];
  const ssize_t n = recv(nl, reply, sizeof reply, 0);
  const int error = errno;
  close(nl);
  if (n < 0) {
    return Status::Unavailable(
        fmt::format("cannot ask the kernel whose socket it is: {}", std::strerror(error)));
  }
  const auto* h = reinterpret_cast<const nlmsghdr*>(reply);
  if (!NLMSG_OK(h, static_cast<uint32_t>(n))) {
    return Status::Unavailable("the kernel's answer about a socket is cut short");
  }
  if (h->nlmsg_type == NLMSG_ERROR) {
    const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
    if (e->error == -ENOENT) return std::optional<uid_t>();
    return Status::Unavailable(
        fmt::format("cannot ask the kernel whose socket it is: {}", std::strerror(-e->error)));
  }
  if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
    return Status::Unavailable("the kernel's answer about a socket is not one");
  }
  return std::optional<uid_t>(static_cast<const inet_diag_msg*>(NLMSG_DATA(h))->idiag_uid);
}

}  // namespace

Result<std::optional<uid_t>> LoopbackPeerUid(int fd) {
  sockaddr_storage peer{}, self{};
  socklen_t peer_len = sizeof peer, self_len = sizeof self;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&self), &self_len) != 0) {
    return std::optional<uid_t>();
  }
  UnmapV4(peer);
  UnmapV4(self);
  if (peer.ss_family != self.ss_family ||
      (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)) {
    return std::optional<uid_t>();
  }
  // The client's socket: its local end is our peer, its remote end is us. An IPv4 client may
  // have made it as an IPv6 socket (Java's are), with mapped addresses.
  HOP_ASSIGN_OR_RETURN(std::optional<uid_t> owner, SocketOwner(peer, self));
  if (!owner && peer.ss_family == AF_INET) {
    HOP_ASSIGN_OR_RETURN(owner, SocketOwner(MapV4(peer), MapV4(self)));
  }
  return owner;
}

bool IsLoopbackHost(std::string_view host) {
  host = TrimWhitespace(host);
  if (host.empty()) return true;
  std::string_view name = host;
  if (name.front() == '[') {
    const size_t close = name.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view rest = name.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || rest.size() == 1)) return false;
    name = name.substr(1, close - 1);
  } else if (const size_t colon = name.rfind(':'); colon != std::string_view::npos) {
    if (name.find(':') != colon) return false;  // an IPv6 address must be in brackets
    name = name.substr(0, colon);
  }
  if (EqualsIgnoreCase(name, "localhost")) return true;
  // Only the literal forms inet_pton reads (127.0.0.1, ::1): not `127.1`, not a name.
  const std::string text(name);
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, text.c_str(), &v4) != 1 && inet_pton(AF_INET6, text.c_str(), &v6) != 1) {
    return false;
  }
  return IsLoopbackAddress(text);
}

}  // namespace hop::server
