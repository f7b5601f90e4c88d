#include "server/listen.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

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

// An address and port as /proc/net/tcp writes them: the address's bytes as the kernel holds them
// (network order), printed as 32-bit words in hexadecimal, then the port in host order.
std::string ProcNetAddress(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    return fmt::format("{:08X}:{:04X}", v4->sin_addr.s_addr, ntohs(v4->sin_port));
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
  uint32_t words[4];
  std::memcpy(words, &v6->sin6_addr, sizeof words);
  return fmt::format("{:08X}{:08X}{:08X}{:08X}:{:04X}", words[0], words[1], words[2], words[3],
                     ntohs(v6->sin6_port));
}

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

}  // namespace

std::optional<uid_t> LoopbackPeerUid(int fd) {
  sockaddr_storage peer{}, self{};
  socklen_t peer_len = sizeof peer, self_len = sizeof self;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&self), &self_len) != 0) {
    return std::nullopt;
  }
  UnmapV4(peer);
  UnmapV4(self);
  if (peer.ss_family != self.ss_family ||
      (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)) {
    return std::nullopt;
  }
  // The client's socket: its local address is our peer, its remote address is us. An IPv4
  // client may have made it as an IPv6 socket (Java's are), listed with mapped addresses.
  struct Look {
    const char* table;
    std::string local, remote;
  };
  std::vector<Look> looks;
  if (peer.ss_family == AF_INET) {
    looks.push_back({"/proc/net/tcp", ProcNetAddress(peer), ProcNetAddress(self)});
    looks.push_back({"/proc/net/tcp6", ProcNetAddress(MapV4(peer)), ProcNetAddress(MapV4(self))});
  } else {
    looks.push_back({"/proc/net/tcp6", ProcNetAddress(peer), ProcNetAddress(self)});
  }
  for (const Look& look : looks) {
    std::ifstream table(look.table);
    std::string line;
    std::getline(table, line);  // the header
    while (std::getline(table, line)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
      std::istringstream fields(line);
      std::string sl, l, r, st, queues, timer, retransmits;
      long uid = -1;
      if (!(fields >> sl >> l >> r >> st >> queues >> timer >> retransmits >> uid)) continue;
      if (l == look.local && r == look.remote && uid >= 0) return static_cast<uid_t>(uid);
    }
  }
  return std::nullopt;
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
