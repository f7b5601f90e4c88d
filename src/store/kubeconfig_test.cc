#include "store/kubeconfig.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "test/lib/fixtures.h"

namespace hop::store {
namespace {

using testing::TempDir;

class KubeconfigTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  TempDir dir_{"hop-kubeconfig"};
};

constexpr const char* kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example.com:6443/
    certificate-authority-data: Q0EgUEVN
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    certificate-authority: certs/ca.pem
    insecure-skip-tls-verify: false
users:
- name: dev-user
  user: {token: dev-token}
- name: prod-user
  user:
    client-certificate: certs/client.pem
    client-key-data: S0VZ
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: pipelines}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
)";

TEST_F(KubeconfigTest, TheCurrentContextOrTheOneNamed) {
  Write("certs/ca.pem", "PROD CA");
  Write("certs/client.pem", "CLIENT CERT");
  const std::string path = Write("config", kTwoContexts);
  auto dev = LoadKubeconfig(path);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->context, "dev");
  EXPECT_EQ(dev->server, "https://dev.example.com:6443");  // without the trailing slash
  EXPECT_EQ(dev->ca_pem, "CA PEM");
  EXPECT_EQ(dev->token, "dev-token");
  EXPECT_EQ(dev->namespace_name, "pipelines");

  // Files a kubeconfig names are relative to its directory.
  auto prod = LoadKubeconfig(path, "prod");
  ASSERT_TRUE(prod.ok()) << prod.status().ToString();
  EXPECT_EQ(prod->server, "https://prod.example.com");
  EXPECT_EQ(prod->ca_pem, "PROD CA");
  EXPECT_EQ(prod->client_cert_pem, "CLIENT CERT");
  EXPECT_EQ(prod->client_key_pem, "KEY");
  EXPECT_EQ(prod->namespace_name, "");
}

// KUBECONFIG's files merge as kubectl merges them: the first to name an entry wins.
TEST_F(KubeconfigTest, SeveralFilesMergeFirstWins) {
  const std::string first = Write("a", R"(current-context: one
contexts:
- {name: one, context: {cluster: c, user: u}}
users:
- {name: u, user: {tokenFile: token}}
)");
  const std::string second = Write("b", R"(current-context: two
clusters:
- {name: c, cluster: {server: 'http://127.0.0.1:8080'}}
contexts:
- {name: one, context: {cluster: elsewhere}}
)");
  auto merged = LoadKubeconfig(first + ":" + second);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->context, "one");
  EXPECT_EQ(merged->server, "http://127.0.0.1:8080");
  EXPECT_EQ(merged->token_file, dir_.path() + "/token");
}

TEST_F(KubeconfigTest, WhatHopCannotUseIsSaidPlainly) {
  struct Case {
    const char* text;
    const char* context;
    const char* message;  // a part of the error
  };
  const Case kCases[] = {
      {"contexts: []\n", "", "no current-context"},
      {"current-context: x\ncontexts: []\n", "", "no context named 'x'"},
      {"current-context: x\ncontexts:\n- {name: x, context: {cluster: nope}}\n", "",
       "names cluster 'nope', which it does not define"},
      {"current-context: x\nclusters:\n- {name: c, cluster: {server: 'ftp://h'}}\n"
       "contexts:\n- {name: x, context: {cluster: c}}\n",
       "", "is not an http:// or https:// URL"},
      {"current-context: x\nclusters:\n- {name: c, cluster: {server: 'https://h'}}\n"
       "users:\n- {name: u, user: {exec: {command: aws}}}\n"
       "contexts:\n- {name: x, context: {cluster: c, user: u}}\n",
       "", "an exec credential plugin, which hop does not run"},
      {"current-context: x\nclusters:\n- {name: c, cluster: {server: 'https://h', "
       "certificate-authority-data: '!!!'}}\ncontexts:\n- {name: x, context: {cluster: c}}\n",
       "", "certificate-authority-data is not base64"},
      {"current-context: x\nclusters:\n- {name: c, cluster: {server: 'https://h', "
       "certificate-authority: missing.pem}}\ncontexts:\n- {name: x, context: {cluster: c}}\n",
       "", "cannot read"},
      {"current-context: x\nclusters:\n- {name: c, cluster: {server: 'https://h'}}\n"
       "users:\n- {name: u, user: {client-certificate-data: Q0VSVA==}}\n"
       "contexts:\n- {name: x, context: {cluster: c, user: u}}\n",
       "", "a client certificate needs its key"},
      {"clusters: {not: a list}\n", "", "clusters is not a list"},
      {"- just\n- a list\n", "", "is not a mapping"},
  };
  for (const Case& c : kCases) {
    const std::string path = Write("bad", c.text);
    auto config = LoadKubeconfig(path, c.context);
    ASSERT_FALSE(config.ok()) << c.text;
    EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(config.status().message().find(c.message), std::string::npos)
        << c.text << "\n"
        << config.status().ToString();
  }
  EXPECT_FALSE(LoadKubeconfig(dir_.path() + "/none").ok());
}

// A pod's service account: the variables Kubernetes sets, the files it mounts.
TEST_F(KubeconfigTest, InClusterFromTheServiceAccount) {
  const std::string sa = dir_.path() + "/sa";
  Write("sa/token", "sa-token\n");
  Write("sa/ca.crt", "CLUSTER CA");
  Write("sa/namespace", "hop-system\n");
  setenv("HOP_SERVICE_ACCOUNT_DIR", sa.c_str(), 1);
  unsetenv("KUBERNETES_SERVICE_HOST");
  auto outside = InClusterConfig();
  EXPECT_EQ(outside.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(outside.status().message().find("not running in a Kubernetes pod"), std::string::npos);
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto inside = InClusterConfig();
  ASSERT_TRUE(inside.ok()) << inside.status().ToString();
  EXPECT_EQ(inside->server, "https://[fd00::1]:443");
  EXPECT_EQ(inside->token_file, sa + "/token");
  EXPECT_EQ(inside->ca_pem, "CLUSTER CA");
  EXPECT_EQ(inside->namespace_name, "hop-system");
  EXPECT_EQ(inside->context, "in-cluster");
  std::filesystem::remove(sa + "/token");
  EXPECT_EQ(InClusterConfig().status().code(), StatusCode::kInvalidArgument);
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  unsetenv("HOP_SERVICE_ACCOUNT_DIR");
}

}  // namespace
}  // namespace hop::store
