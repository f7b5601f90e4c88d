#include "server/listen.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace hop::server
