#include "cli/resource_commands.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/follow_testing.h"

#include "resource/yaml.h"
#include "store/sqlite_store.h"

namespace hop::cli {
namespace {

// Hoptimator-style documents, as users keep them in their repositories.
constexpr const char* kSamples = R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata:
  name: ads-database
spec:
  schema: ADS
  url: jdbc:demodb://names=ads
  dialect: Calcite

---

apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTemplate
metadata:
  name: demodb-read-template
spec:
  databases:
  - profile-database
  - ads-database
  methods:
  - Scan
  connector: |
    connector = datagen
    number-of-rows = 10
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata:
  name: flink-template
spec:
  yaml: |
    apiVersion: flink.apache.org/v1beta1
    kind: FlinkSessionJob
    metadata:
      name: {{name}}
    spec:
      deploymentName: basic-session-deployment
      job:
        entryClass: com.linkedin.hoptimator.flink.runner.FlinkRunner
        args:
        - {{flinksql}}
        jarURI: file:///opt/{{flink.app.name}}.jar
        parallelism: {{flink.parallelism:1}}
        upgradeMode: stateless
        state: running
    {{flink.app.type==SQL}}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTrigger
metadata:
  name: test-table-trigger
spec:
  schema: ADS
  table: AD_CLICKS
  schedule: '0 * * * *'
  jobProperties:
    account: '0012'
    enabled: 'true'
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{trigger}}-job
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: alpine/k8s:1.33.0
            command: ["bash", "-c", "echo {{trigger}}"]
          restartPolicy: Never
)";

class ResourceCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-cli-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    auto s = store::SqliteStore::Open(dir_, opts);
    ASSERT_TRUE(s.ok());
    store_ = std::move(s).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string File(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  int Apply(const std::string& path, std::string* out, std::string* err,
            const std::string& ns = "") {
    std::ostringstream o, e;
    int rc = RunApply({path, ns}, *store_, o, e);
    *out = o.str();
    *err = e.str();
    return rc;
  }

  int Get(GetOptions opts, std::string* out, std::string* err) {
    std::ostringstream o, e;
    int rc = RunGet(opts, *store_, o, e);
    *out = o.str();
    *err = e.str();
    return rc;
  }

  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
};

TEST_F(ResourceCommandsTest, ApplyIsIdempotent) {
  const std::string path = File("samples.yaml", kSamples);
  std::string out, err;
  ASSERT_EQ(Apply(path, &out, &err), 0) << err;
  EXPECT_EQ(out,
            "database.hoptimator.linkedin.com/ads-database created\n"
            "tabletemplate.hoptimator.linkedin.com/demodb-read-template created\n"
            "jobtemplate.hoptimator.linkedin.com/flink-template created\n"
            "tabletrigger.hoptimator.linkedin.com/test-table-trigger created\n");
  const int64_t revision = *store_->Revision();
  ASSERT_EQ(Apply(path, &out, &err), 0) << err;
  EXPECT_EQ(out,
            "database.hoptimator.linkedin.com/ads-database unchanged\n"
            "tabletemplate.hoptimator.linkedin.com/demodb-read-template unchanged\n"
            "jobtemplate.hoptimator.linkedin.com/flink-template unchanged\n"
            "tabletrigger.hoptimator.linkedin.com/test-table-trigger unchanged\n");
  EXPECT_EQ(*store_->Revision(), revision);  // nothing written, resourceVersions included

  std::string changed = kSamples;
  changed.replace(changed.find("schema: ADS"), 11, "schema: AD2");
  ASSERT_EQ(Apply(File("changed.yaml", changed), &out, &err), 0) << err;
  EXPECT_NE(out.find("database.hoptimator.linkedin.com/ads-database configured"),
            std::string::npos);
  EXPECT_NE(out.find("tabletemplate.hoptimator.linkedin.com/demodb-read-template unchanged"),
            std::string::npos);
}

// A document that names a resourceVersion asks for it: apply fails when the object has moved on
// (docs/resources.md), and writes nothing.
TEST_F(ResourceCommandsTest, ApplyOfAPinnedVersionFailsWhenTheObjectMovedOn) {
  std::string out, err;
  ASSERT_EQ(Apply(File("samples.yaml", kSamples), &out, &err), 0) << err;
  ASSERT_EQ(Get({"db", "ads-database", "", false, "", "yaml"}, &out, &err), 0) << err;
  const std::string pinned = out;
  std::string changed = kSamples;
  changed.replace(changed.find("schema: ADS"), 11, "schema: AD2");
  ASSERT_EQ(Apply(File("changed.yaml", changed), &out, &err), 0) << err;
  const int64_t revision = *store_->Revision();
  std::string stale = pinned;
  stale.replace(stale.find("schema: ADS"), 11, "schema: AD3");
  EXPECT_EQ(Apply(File("stale.yaml", stale), &out, &err), 1);
  EXPECT_NE(err.find("Conflict"), std::string::npos) << err;
  EXPECT_EQ(*store_->Revision(), revision);
}

// Fields hop's kinds do not declare are refused by default, with their path; --validate warn
// and ignore let them through (docs/resources.md "Validation").
TEST_F(ResourceCommandsTest, UnknownFieldsAreRefusedUnlessAsked) {
  const std::string typo = File("typo.yaml", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata:
  name: typo
  lables: {a: b}
spec:
  url: jdbc:demodb://names=ads
  schem: ADS
statsu: {}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {anything: goes}
)");
  std::string out, err;
  EXPECT_EQ(Apply(typo, &out, &err), 1);
  EXPECT_EQ(out, "");
  for (const char* want :
       {"- ERROR: spec.schem: unknown field (known fields: url, catalog, schema, dialect, driver, "
        "provisioning)",
        "- ERROR: metadata.lables: unknown field", "- ERROR: statsu: unknown field"}) {
    EXPECT_NE(err.find(want), std::string::npos) << want << "\n" << err;
  }
  EXPECT_EQ(err.find("anything"), std::string::npos) << err;  // a ConfigMap's data is its own

  std::ostringstream o, e;
  EXPECT_EQ(RunApply({typo, "", "warn"}, *store_, o, e), 0) << e.str();
  EXPECT_NE(e.str().find("- WARNING: spec.schem: unknown field"), std::string::npos) << e.str();
  EXPECT_NE(o.str().find("database.hoptimator.linkedin.com/typo created"), std::string::npos);
  std::ostringstream o2, e2;
  EXPECT_EQ(RunApply({typo, "", "ignore"}, *store_, o2, e2), 0) << e2.str();
  EXPECT_EQ(e2.str(), "");
  std::ostringstream o3, e3;
  EXPECT_EQ(RunApply({typo, "", "loose"}, *store_, o3, e3), 2);
  // What hop get prints applies back under strict validation, status and all.
  ASSERT_EQ(Apply(File("samples.yaml", kSamples), &out, &err), 0) << err;
  ASSERT_EQ(Get({"tabletrigger", "test-table-trigger", "", false, "", "yaml"}, &out, &err), 0);
  EXPECT_EQ(Apply(File("back.yaml", out), &out, &err), 0) << err;
}

// The declared fields of kinds hop does not define are checked as their API server checks them,
// and as hop's Kubernetes API does (src/server/kube_api.cc): a ConfigMap's data holds strings, a
// Secret's base64. --validate concerns unknown fields only, so it lets no wrong type through.
TEST_F(ResourceCommandsTest, TheFieldsOfOtherKindsHaveTheirTypes) {
  const std::string wrong = File("wrong.yaml", R"(apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data:
  list: [1, 2]
  number: 3
  quoted: "3"
---
apiVersion: v1
kind: Secret
metadata: {name: token}
data: {key: "not base64!"}
)");
  for (const char* validate : {"strict", "warn", "ignore"}) {
    std::ostringstream o, e;
    EXPECT_EQ(RunApply({wrong, "", validate}, *store_, o, e), 1) << validate;
    EXPECT_EQ(o.str(), "") << validate;
    for (const char* want : {"- ERROR: data.list: must be a string, not array",
                             "- ERROR: data.number: must be a string, not integer"}) {
      EXPECT_NE(e.str().find(want), std::string::npos) << validate << ": " << want << "\n"
                                                       << e.str();
    }
    EXPECT_EQ(e.str().find("data.quoted"), std::string::npos) << e.str();
    EXPECT_NE(e.str().find("document 2 (Secret/token):\n  - ERROR: data.key: must be base64"),
              std::string::npos)
        << e.str();
  }
  std::string out, err;
  ASSERT_EQ(Get({"configmaps", "", "", false, "", ""}, &out, &err), 0) << err;
  EXPECT_EQ(out.find("settings"), std::string::npos) << out;  // nothing was applied
  const std::string right = File("right.yaml", R"(apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {number: "3"}
---
apiVersion: v1
kind: Secret
metadata: {name: token}
data:
  key: |
    aG9wIHNlY3JldCB2YWx1
    ZQ==
)");
  EXPECT_EQ(Apply(right, &out, &err), 0) << err;
  EXPECT_NE(out.find("configmap/settings created"), std::string::npos) << out;
  EXPECT_NE(out.find("secret/token created"), std::string::npos) << out;
}

// What their API server refuses of a ConfigMap, a Secret or a Namespace beyond their fields'
// types (keys, the keys a Secret's type needs, a Namespace's name), hop apply refuses too,
// whatever --validate says.
TEST_F(ResourceCommandsTest, ObjectsTheirApiServerRefusesAreNotApplied) {
  const std::string wrong = File("wrong.yaml", R"(apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {"a b": "1", "k": "2"}
binaryData: {k: AA==}
---
apiVersion: v1
kind: Secret
metadata: {name: cert}
stringData: {tls/crt: c}
---
apiVersion: v1
kind: Secret
metadata: {name: tls}
type: kubernetes.io/tls
stringData: {tls.crt: c}
---
apiVersion: v1
kind: Namespace
metadata: {name: team.a}
)");
  for (const char* validate : {"strict", "ignore"}) {
    std::ostringstream o, e;
    EXPECT_EQ(RunApply({wrong, "", validate}, *store_, o, e), 1) << validate;
    EXPECT_EQ(o.str(), "") << validate;
    for (const char* want :
         {"- ERROR: data[a b]: ",
          R"(- ERROR: data[k]: Invalid value: "k": duplicate of key present in binaryData)",
          "document 2 (Secret/cert):\n  - ERROR: data[tls/crt]: ",
          "document 3 (Secret/tls):\n  - ERROR: data[tls.key]: Required value",
          "document 4 (Namespace/team.a):\n  - ERROR: metadata.name: invalid DNS-1123 label"}) {
      EXPECT_NE(e.str().find(want), std::string::npos) << validate << ": " << want << "\n"
                                                       << e.str();
    }
  }
  std::string out, err;
  ASSERT_EQ(Get({"configmaps", "", "", false, "", ""}, &out, &err), 0) << err;
  EXPECT_EQ(out.find("settings"), std::string::npos) << out;  // nothing was applied
}

// A file that names one object twice is refused whole: its documents are written in one batch,
// where the second could only fail as already existing. The same name in another namespace or of
// another kind is another object.
TEST_F(ResourceCommandsTest, AFileNamesEachObjectOnce) {
  const std::string twice = File("twice.yaml", R"(apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: other}
---
apiVersion: v1
kind: Secret
metadata: {name: settings}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {a: "2"}
)");
  std::string out, err;
  EXPECT_EQ(Apply(twice, &out, &err), 1);
  EXPECT_EQ(out, "");
  EXPECT_NE(err.find("document 4 (ConfigMap/settings):\n  - ERROR: the same object as document 1: "
                     "a file names each object once"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("document 2"), std::string::npos) << err;
  EXPECT_EQ(err.find("document 3"), std::string::npos) << err;
}

TEST_F(ResourceCommandsTest, SamplesReadBackIdentically) {
  std::string out, err;
  ASSERT_EQ(Apply(File("samples.yaml", kSamples), &out, &err), 0) << err;
  auto docs = ParseYamlDocuments(kSamples, "samples");
  ASSERT_TRUE(docs.ok());
  const char* kinds[] = {"db", "tabt", "jobt", "tabletrigger"};
  for (size_t i = 0; i < docs->size(); ++i) {
    const std::string name = (*docs)[i]["metadata"]["name"].get<std::string>();
    ASSERT_EQ(Get({kinds[i], name, "", false, "", "yaml"}, &out, &err), 0) << err;
    auto back = ParseYamlDocuments(out, "get");
    ASSERT_TRUE(back.ok()) << out;
    Json got = (*back)[0];
    // The store adds its own metadata; everything the user wrote reads back as written.
    for (const char* key :
         {"namespace", "uid", "resourceVersion", "generation", "creationTimestamp"}) {
      EXPECT_TRUE(got["metadata"].contains(key)) << name << " " << key;
      got["metadata"].erase(key);
    }
    EXPECT_EQ(EmitYaml(got), EmitYaml((*docs)[i])) << name;
  }
  // Strings that look like numbers or booleans stay strings.
  ASSERT_EQ(Get({"tabletriggers", "test-table-trigger", "", false, "", "json"}, &out, &err), 0);
  EXPECT_NE(out.find("\"account\": \"0012\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"enabled\": \"true\""), std::string::npos) << out;
}

TEST_F(ResourceCommandsTest, OneInvalidDocumentMeansNothingIsWritten) {
  const std::string bad = std::string(kSamples) + R"(---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata:
  name: Bad_Name
spec:
  dialect: Oracle
)";
  std::string out, err;
  EXPECT_EQ(Apply(File("bad.yaml", bad), &out, &err), 1);
  EXPECT_EQ(out, "");
  EXPECT_NE(err.find("nothing was applied"), std::string::npos) << err;
  EXPECT_NE(err.find("document 5 (Database/Bad_Name):"), std::string::npos) << err;
  EXPECT_NE(err.find("metadata.name"), std::string::npos) << err;
  EXPECT_NE(err.find("spec.url: required field is missing"), std::string::npos) << err;
  EXPECT_NE(err.find("spec.dialect: \"Oracle\" is not one of ANSI, MySQL, Calcite"),
            std::string::npos)
      << err;
  EXPECT_EQ(*store_->Revision(), 1);  // a new store's: nothing written

  EXPECT_EQ(Apply(File("syntax.yaml", "a: [1, 2"), &out, &err), 1);
  EXPECT_NE(err.find("Parse Error:"), std::string::npos) << err;
  EXPECT_NE(err.find("syntax.yaml"), std::string::npos) << err;
}

TEST_F(ResourceCommandsTest, NamespacesAndSelectors) {
  std::string out, err;
  const std::string cms = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  labels: {app: web}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  labels: {app: db}
)";
  ASSERT_EQ(Apply(File("cms.yaml", cms), &out, &err, "team"), 0) << err;
  ASSERT_EQ(Get({"configmaps", "", "team", false, "app=web", ""}, &out, &err), 0) << err;
  EXPECT_NE(out.find("a "), std::string::npos) << out;
  EXPECT_EQ(out.find("b "), std::string::npos) << out;
  ASSERT_EQ(Get({"cm", "", "", false, "", ""}, &out, &err), 0);
  EXPECT_EQ(err, "No resources found in default namespace.\n");
  ASSERT_EQ(Get({"cm", "", "", true, "", "wide"}, &out, &err), 0);
  EXPECT_EQ(out.substr(0, 9), "NAMESPACE");
  EXPECT_NE(out.find("app=web"), std::string::npos) << out;

  const std::string mismatch =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  "
      "namespace: other\n";
  EXPECT_EQ(Apply(File("m.yaml", mismatch), &out, &err, "team"), 1);
  EXPECT_NE(err.find("does not match the namespace given with -n"), std::string::npos) << err;
  EXPECT_EQ(Get({"nosuchkind", "", "", false, "", ""}, &out, &err), 1);
  EXPECT_NE(err.find("no resource type \"nosuchkind\""), std::string::npos) << err;
}

TEST_F(ResourceCommandsTest, DeleteByNameAndByFile) {
  std::string out, err;
  const std::string path = File("samples.yaml", kSamples);
  ASSERT_EQ(Apply(path, &out, &err), 0);
  std::ostringstream o, e;
  EXPECT_EQ(RunDelete({"db", "ads-database", "", ""}, *store_, o, e), 0) << e.str();
  EXPECT_EQ(o.str(), "database.hoptimator.linkedin.com/ads-database deleted\n");
  std::ostringstream o2, e2;
  EXPECT_EQ(RunDelete({"", "", path, ""}, *store_, o2, e2), 1);  // the database is gone already
  EXPECT_NE(e2.str().find("Not Found"), std::string::npos) << e2.str();
  EXPECT_NE(o2.str().find("jobtemplate.hoptimator.linkedin.com/flink-template deleted"),
            std::string::npos);
  auto list = store_->List({});
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->items.empty());
}

TEST_F(ResourceCommandsTest, CrdsCoverEveryKind) {
  std::ostringstream out;
  ASSERT_EQ(RunCrds(out), 0);
  auto docs = ParseYamlDocuments(out.str(), "crds");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 12u);
  const Json& tpj = (*docs)[11];
  EXPECT_EQ(tpj["metadata"]["name"], "tableprovisionjobs.hoptimator.linkedin.com");
  EXPECT_EQ(tpj["spec"]["names"]["shortNames"][0], "tpj");
  const Json& version = tpj["spec"]["versions"][0];
  EXPECT_EQ(version["subresources"]["status"], Json::object());
  const Json& spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"];
  EXPECT_EQ(spec["required"], Json::parse(R"(["database", "table"])"));
  EXPECT_EQ(version["additionalPrinterColumns"][0]["name"], "DATABASE");
  const Json& db = (*docs)[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  EXPECT_EQ(db["properties"]["spec"]["properties"]["dialect"]["enum"],
            Json::parse(R"(["ANSI", "MySQL", "Calcite"])"));
  // Template kinds have no status subresource.
  EXPECT_FALSE((*docs)[4]["spec"]["versions"][0].contains("subresources"));
}


// `hop get -w`: a store object written from the test's thread while RunGet follows in another.
class WatchTest : public ResourceCommandsTest {
 protected:
  void Create(const std::string& name, const std::string& app) {
    auto r = resource::Resource::FromJson(
        Json{{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
             {"data", {{"k", "v"}}}},
        "test");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(store_->Create(std::move(r).value()).ok());
  }
  void Relabel(const std::string& name, const std::string& app) {
    auto r = store_->Get({{"", "ConfigMap"}, "default", name});
    ASSERT_TRUE(r.ok());
    Json doc = r->json();
    doc["metadata"]["labels"]["app"] = app;
    auto updated = resource::Resource::FromJson(std::move(doc), "test");
    ASSERT_TRUE(updated.ok());
    ASSERT_TRUE(store_->Update(std::move(updated).value()).ok());
  }
  void Remove(const std::string& name) {
    ASSERT_TRUE(store_->Delete({{"", "ConfigMap"}, "default", name}).ok());
  }

  void Start(GetOptions options) {
    thread_ = std::thread([this, options] {
      rc_ = RunGet(options, *store_, out_, err_, [this] {
        watching_ = true;  // asked only once the watch is there
        return stop_.load();
      });
    });
  }
  // Stops the watch; its exit status.
  int Stop() {
    stop_ = true;
    thread_.join();
    return rc_;
  }
  std::string Text() { return shared_.Text(); }
  bool Shows(const std::string& what, size_t times = 1) {
    return testing::Eventually([&] { return testing::Count(Text(), what) >= times; });
  }
  void TearDown() override {
    if (thread_.joinable()) Stop();
    ResourceCommandsTest::TearDown();
  }

  testing::SharedOutput shared_;
  std::ostream out_{&shared_};
  std::ostringstream err_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> watching_{false};
  std::thread thread_;
  int rc_ = -1;
};

TEST_F(WatchTest, PrintsARowForEachAddedModifiedAndDeletedObject) {
  Create("first", "web");
  GetOptions options;
  options.kind = "cm";
  options.watch = true;
  options.output_watch_events = true;
  Start(options);
  ASSERT_TRUE(Shows("ADDED   first")) << Text();
  Create("second", "web");
  ASSERT_TRUE(Shows("ADDED   second")) << Text();
  Relabel("first", "api");
  ASSERT_TRUE(Shows("MODIFIED   first")) << Text();
  Remove("second");
  ASSERT_TRUE(Shows("DELETED   second")) << Text();
  EXPECT_EQ(Stop(), 0);
  // The header once, the list's row, then one row per event, each once.
  const std::vector<std::string> lines = [&] {
    std::vector<std::string> v;
    std::istringstream in(Text());
    for (std::string line; std::getline(in, line);) v.push_back(line.substr(0, line.find(' ')));
    return v;
  }();
  EXPECT_EQ(lines, (std::vector<std::string>{"EVENT", "ADDED", "ADDED", "MODIFIED", "DELETED"}))
      << Text();
  EXPECT_EQ(err_.str(), "");
}

TEST_F(WatchTest, ASelectorSkipsOtherObjectsAndSeesThemComeAndGo) {
  Create("web-1", "web");
  GetOptions options;
  options.kind = "configmaps";
  options.selector = "app=web";
  options.output = "wide";
  options.watch = true;
  Start(options);
  ASSERT_TRUE(Shows("web-1")) << Text();
  Create("db-1", "db");
  Create("web-2", "web");
  ASSERT_TRUE(Shows("web-2")) << Text();
  // Out of the selection: its last row (a deletion to the watcher); back in: added again.
  Relabel("web-1", "db");
  ASSERT_TRUE(Shows("app=db")) << Text();
  Relabel("db-1", "web");
  ASSERT_TRUE(Shows("db-1")) << Text();
  EXPECT_EQ(Stop(), 0);
  EXPECT_EQ(testing::Count(Text(), "NAME"), 1u) << Text();  // no header again
  EXPECT_EQ(testing::Count(Text(), "\n"), 5u) << Text();
  EXPECT_EQ(testing::Count(Text(), "db-1"), 1u) << Text();  // not while it was app=db
}

TEST_F(WatchTest, OneNamedObjectInYamlDocuments) {
  Create("watched", "web");
  Create("other", "web");
  GetOptions options;
  options.kind = "cm";
  options.name = "watched";
  options.output = "yaml";
  options.watch_only = true;
  Start(options);
  // Written after the watch starts: the list was not printed, so the first change is the first
  // document.
  ASSERT_TRUE(testing::Eventually([&] { return watching_.load(); }));
  Relabel("other", "api");
  Relabel("watched", "api");
  ASSERT_TRUE(Shows("app: api")) << Text();
  Remove("watched");
  ASSERT_TRUE(Shows("name: watched", 2)) << Text();
  EXPECT_EQ(Stop(), 0);
  EXPECT_EQ(testing::Count(Text(), "---\n"), 1u) << Text();
  EXPECT_EQ(Text().find("other"), std::string::npos) << Text();
  EXPECT_EQ(Text().rfind("apiVersion: v1\n", 0), 0u) << Text();
}

// A name the store does not have is an error at once, as without -w.
TEST_F(WatchTest, AMissingObjectIsNotWatched) {
  std::string out, err;
  GetOptions options;
  options.kind = "cm";
  options.name = "nope";
  options.watch = true;
  EXPECT_EQ(Get(options, &out, &err), 1);
  EXPECT_NE(err.find("Not Found"), std::string::npos) << err;
}

}  // namespace
}  // namespace hop::cli
