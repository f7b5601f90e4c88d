// The Kubernetes API's kinds beyond hop's own, called through KubeApi::Handle over a SqliteStore
// in a temporary directory: Kubernetes' own kinds with their declared fields (Lease, RBAC,
// ServiceAccount, Service, CustomResourceDefinition), discovery and field validation of them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "resource/json.h"
#include "server/kube_api.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::server {
namespace {

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

class KubeApiKindsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteStoreOptions options;
    options.durable = false;
    auto store = store::SqliteStore::Open(dir_.path(), options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    api_ = std::make_unique<KubeApi>(*store_, KubeApiOptions{});
    ASSERT_TRUE(api_->Start().ok());
  }
  void TearDown() override { api_->Stop(); }

  KubeResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "",
                    const std::string& content_type = "application/json") {
    KubeRequest req;
    req.method = method;
    const size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string query = target.substr(q + 1);
      size_t i = 0;
      while (i <= query.size()) {
        size_t j = query.find('&', i);
        if (j == std::string::npos) j = query.size();
        const std::string part = query.substr(i, j - i);
        const size_t eq = part.find('=');
        if (!part.empty()) {
          req.query[part.substr(0, eq)] = eq == std::string::npos ? "" : part.substr(eq + 1);
        }
        i = j + 1;
      }
    }
    req.body = body;
    req.content_type = content_type;
    return api_->Handle(req);
  }
  Json CallJson(const std::string& method, const std::string& target, const std::string& body = "",
                int want = 0, const std::string& content_type = "application/json") {
    KubeResponse r = Call(method, target, body, content_type);
    if (want != 0) EXPECT_EQ(r.status, want) << method << " " << target << "\n" << r.body;
    return Json::parse(r.body, nullptr, false);
  }

  hop::testing::TempDir dir_{"hop-kube-kinds"};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<KubeApi> api_;
};

// The resource of `plural` in an APIResourceList, or null.
Json Resource(const Json& list, const std::string& plural) {
  for (const Json& r : list.value("resources", Json::array())) {
    if (r.value("name", "") == plural) return r;
  }
  return nullptr;
}

Json Lease(const std::string& name, const std::string& holder) {
  return Json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
    "metadata":{"name":")" +
                     name + R"("},
    "spec":{"holderIdentity":")" +
                     holder + R"(","leaseDurationSeconds":15,
            "acquireTime":"2026-01-02T03:04:05.000000Z","renewTime":"2026-01-02T03:04:06.000000Z",
            "leaseTransitions":0}})");
}

TEST_F(KubeApiKindsTest, LeasesAreServedWithTheirSpecChecked) {
  const Json group = CallJson("GET", "/apis/coordination.k8s.io/v1", "", 200);
  const Json leases = Resource(group, "leases");
  ASSERT_TRUE(leases.is_object()) << group.dump();
  EXPECT_EQ(leases["kind"], "Lease");
  EXPECT_EQ(leases["namespaced"], true);
  EXPECT_EQ(leases["singularName"], "lease");
  EXPECT_TRUE(Resource(group, "leases/status").is_null()) << "a Lease has no status subresource";

  const std::string strict = std::string(kLeases) + "?fieldValidation=Strict";
  Json made = CallJson("POST", strict, Lease("hop-operator", "pod-a").dump(), 201);
  EXPECT_EQ(made["spec"]["holderIdentity"], "pod-a");
  EXPECT_EQ(made["spec"]["leaseDurationSeconds"], 15);
  EXPECT_FALSE(made["metadata"].value("resourceVersion", "").empty());

  // A renewal by the holder, then a stale one: the second is a conflict.
  Json renewed = made;
  renewed["spec"]["renewTime"] = "2026-01-02T03:04:10.000000Z";
  const std::string item = std::string(kLeases) + "/hop-operator?fieldValidation=Strict";
  CallJson("PUT", item, renewed.dump(), 200);
  made["spec"]["holderIdentity"] = "pod-b";
  EXPECT_EQ(Call("PUT", item, made.dump()).status, 409);
  EXPECT_EQ(CallJson("GET", std::string(kLeases) + "/hop-operator")["spec"]["holderIdentity"],
            "pod-a");

  // Strict refuses a field a Lease does not declare, in its spec and at the top level.
  Json unknown = Lease("other", "pod-c");
  unknown["spec"]["holder"] = "pod-c";
  KubeResponse refused = Call("POST", strict, unknown.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("spec.holder: unknown field"), std::string::npos) << refused.body;
  Json top = Lease("other", "pod-c");
  top["status"] = Json::object();
  refused = Call("POST", strict, top.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("status: unknown field"), std::string::npos) << refused.body;
  // A wrong type is refused whatever the field validation.
  Json wrong = Lease("other", "pod-c");
  wrong["spec"]["leaseDurationSeconds"] = "15s";
  refused = Call("POST", kLeases, wrong.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("spec.leaseDurationSeconds"), std::string::npos) << refused.body;
  // Warn keeps the unknown field and says so.
  KubeResponse warned =
      Call("POST", std::string(kLeases) + "?fieldValidation=Warn", unknown.dump());
  EXPECT_EQ(warned.status, 201) << warned.body;
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_NE(warned.warnings[0].find("spec.holder"), std::string::npos);
}

}  // namespace
}  // namespace hop::server
