// LoopbackPeerUid and IsLoopbackHost: what the servers on a loopback address check when they ask
// no credentials (docs/kubernetes-api.md, docs/pgwire.md).
#include "server/listen.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hop::server {
namespace {

// A listening socket on `address` and a client connected to it; the accepted end's peer is the
// client.
struct Pair {
  int listener = -1, client = -1, accepted = -1;
  ~Pair() {
    for (int fd : {listener, client, accepted}) {
      if (fd >= 0) close(fd);
    }
  }
};

void Connect(const std::string& address, Pair& p) {
  auto listening = ListenTcp({address, 0, "--listen", "--port", "", 4, false});
  ASSERT_TRUE(listening.ok()) << listening.status().ToString();
  p.listener = listening->fd;
  sockaddr_storage to{};
  socklen_t len = 0;
  if (address.find(':') == std::string::npos) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&to);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(listening->port));
    inet_pton(AF_INET, address.c_str(), &v4->sin_addr);
    len = sizeof *v4;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&to);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(listening->port));
    inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr);
    len = sizeof *v6;
  }
  p.client = socket(to.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(connect(p.client, reinterpret_cast<sockaddr*>(&to), len), 0);
  p.accepted = accept4(p.listener, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(p.accepted, 0);
}

TEST(LoopbackPeerUidTest, FindsTheUserOfALoopbackClient) {
  for (const char* address : {"127.0.0.1", "::1"}) {
    Pair p;
    Connect(address, p);
    auto owner = LoopbackPeerUid(p.accepted);
    ASSERT_TRUE(owner.ok()) << owner.status().ToString();
    EXPECT_EQ(*owner, geteuid()) << address;
    // The client's own end names the accepted socket, which is ours too.
    owner = LoopbackPeerUid(p.client);
    ASSERT_TRUE(owner.ok()) << owner.status().ToString();
    EXPECT_EQ(*owner, geteuid()) << address;
  }
}

// Java makes its sockets IPv6 and reaches 127.0.0.1 as ::ffff:127.0.0.1: the client's socket is
// an IPv6 socket with mapped addresses, while the server sees an IPv4 peer.
TEST(LoopbackPeerUidTest, FindsAnIpv6ClientOfAnIpv4Listener) {
  Pair p;
  auto listening = ListenTcp({"127.0.0.1", 0, "--listen", "--port", "", 4, false});
  ASSERT_TRUE(listening.ok()) << listening.status().ToString();
  p.listener = listening->fd;
  sockaddr_in6 to{};
  to.sin6_family = AF_INET6;
  to.sin6_port = htons(static_cast<uint16_t>(listening->port));
  inet_pton(AF_INET6, "::ffff:127.0.0.1", &to.sin6_addr);
  p.client = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(connect(p.client, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  p.accepted = accept4(p.listener, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(p.accepted, 0);
  auto owner = LoopbackPeerUid(p.accepted);
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_EQ(*owner, geteuid());
}

TEST(LoopbackPeerUidTest, NothingForASocketWithoutAPeer) {
  Pair p;
  Connect("127.0.0.1", p);
  for (int fd : {p.listener, -1}) {
    auto owner = LoopbackPeerUid(fd);
    ASSERT_TRUE(owner.ok()) << owner.status().ToString();
    EXPECT_FALSE(owner->has_value());
  }
}

TEST(IsLoopbackHostTest, LoopbackNamesAndAddressesOnly) {
  for (const char* host : {"", "localhost", "LocalHost:8080", "127.0.0.1", "127.0.0.1:80",
                           "127.255.0.9:1", "[::1]", "[::1]:443"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"evil.example", "evil.example:80", "localhost.evil.example", "127.1",
                           "0x7f000001", "10.0.0.1:80", "::1", "[::1", "[::1]x", "[::2]:80",
                           "[::ffff:10.0.0.1]", "localhost:80:80"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

}  // namespace
}  // namespace hop::server
