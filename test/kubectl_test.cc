// The real kubectl against `hop serve --http-port 0 --kubeconfig-out`, as its own process, over a
// state directory holding the demo environment (applied with kubectl) and the views and triggers
// of examples/quickstart.sql; and a deployment bundle of hop's operator (CRDs, RBAC, Deployment,
// Service) and a CRD of its own, applied in a server-side dry run and for real. Each test works on
// objects of its own where it changes anything, so that the tests do not depend on their order.
// kubectl must be on PATH (scripts/setup installs it); a missing kubectl fails every test. The
// flags used are those of kubectl 1.20 as well as 1.32, except where a test checks the version.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "test/lib/fixtures.h"

extern char** environ;

namespace {

using namespace std::chrono_literals;

std::string Source(const std::string& rel) { return std::string(HOP_SOURCE_DIR) + "/" + rel; }

using hop::testing::Shell;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Starts `argv` with its stdout and stderr going to `log`; -1 when it cannot.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits until `path` holds `want`, for up to `timeout`.
bool WaitForText(const std::string& path, const std::string& want,
                 std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (ReadFile(path).find(want) != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One `hop serve` for the suite, on a state directory of its own, stopped by its pid.
class KubectlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new hop::testing::TempDir("hop-kubectl");
    auto [where, found] = Shell("command -v kubectl");
    has_kubectl_ = found == 0;
    if (!has_kubectl_) return;
    kubeconfig_ = dir_->path() + "/kubeconfig";
    const std::string log = dir_->path() + "/serve.log";
    pid_ = Spawn({HOP_BINARY, "--state", State(), "serve", "--http-port", "0", "--kubeconfig-out",
                  kubeconfig_},
                 log);
    started_ = pid_ > 0 && WaitForText(log, "Kubernetes API on http://127.0.0.1:", 10s) &&
               WaitForText(log, "kubeconfig written", 10s);
    if (!started_) {
      setup_output_ = ReadFile(log);
      return;
    }
    auto [version, vrc] = Shell("kubectl version --client -o json");
    const size_t at = version.find("\"minor\"");
    if (at != std::string::npos) {
      const size_t q = version.find('"', version.find(':', at));
      minor_ = std::atoi(version.c_str() + q + 1);
    }
    // The demo environment through kubectl, then the quickstart's views and triggers.
    std::tie(applied_, applied_rc_) =
        Kubectl("apply -f " + Source("examples/demo-environment.yaml"));
    std::tie(quickstart_, quickstart_rc_) = Shell(std::string(HOP_BINARY) + " --state " + State() +
                                                  " -f " + Source("examples/quickstart.sql"));
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    }
    delete dir_;
  }
  void SetUp() override {
    ASSERT_TRUE(has_kubectl_) << "kubectl is not on PATH: these tests drive the real kubectl "
                                 "(scripts/setup installs it)";
    ASSERT_TRUE(started_) << "hop serve --http-port 0 did not start:\n" << setup_output_;
    ASSERT_EQ(applied_rc_, 0) << applied_;
    ASSERT_EQ(quickstart_rc_, 0) << quickstart_;
  }

  static std::string State() { return dir_->path() + "/state"; }
  static std::string Path(const std::string& name) { return dir_->path() + "/" + name; }
  static std::pair<std::string, int> Kubectl(const std::string& args) {
    return Shell("kubectl --kubeconfig " + kubeconfig_ + " --cache-dir " + dir_->path() +
                 "/kube-cache --request-timeout 20s " + args);
  }
  // kubectl's output, which the command must succeed to give.
  static std::string Ok(const std::string& args) {
    auto [out, rc] = Kubectl(args);
    EXPECT_EQ(rc, 0) << "kubectl " << args << "\n" << out;
    return out;
  }
  // Applies `yaml`, written to a file named `name`.
  static std::string Apply(const std::string& name, const std::string& yaml) {
    WriteFile(Path(name), yaml);
    return Ok("apply -f " + Path(name));
  }

  static hop::testing::TempDir* dir_;
  static bool has_kubectl_;
  static bool started_;
  static pid_t pid_;
  static std::string kubeconfig_;
  static int minor_;
  static std::string setup_output_;
  static std::string applied_;
  static int applied_rc_;
  static std::string quickstart_;
  static int quickstart_rc_;
};

hop::testing::TempDir* KubectlTest::dir_ = nullptr;
bool KubectlTest::has_kubectl_ = false;
bool KubectlTest::started_ = false;
pid_t KubectlTest::pid_ = -1;
std::string KubectlTest::kubeconfig_;
int KubectlTest::minor_ = 0;
std::string KubectlTest::setup_output_;
std::string KubectlTest::applied_;
int KubectlTest::applied_rc_ = -1;
std::string KubectlTest::quickstart_;
int KubectlTest::quickstart_rc_ = -1;

// A Database of its own schema (T_NAME): a second database of schema ADS would let the demo's
// ads-database go although views read ADS.
std::string Database(const std::string& name, const std::string& url = "jdbc:demodb://names=ads") {
  std::string schema = "T_" + name;
  for (char& c : schema) c = c == '-' ? '_' : static_cast<char>(toupper(c));
  return "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata:\n  name: " +
         name + "\nspec:\n  schema: " + schema + "\n  url: \"" + url + "\"\n  dialect: Calcite\n";
}

std::string ConfigMap(const std::string& name, const std::string& extra_metadata = "") {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" + extra_metadata +
         "data:\n  a: \"1\"\n";
}

TEST_F(KubectlTest, GetsInEveryFormatWithLabelSelectors) {
  Apply("sel.yaml", Database("sel-one") + "---\n" + Database("sel-two"));
  Ok("label database sel-one sel-two tier=gold");
  Ok("label database sel-two size=big");
  EXPECT_EQ(Ok("get databases -l tier=gold -o name"),
            "database.hoptimator.linkedin.com/sel-one\ndatabase.hoptimator.linkedin.com/sel-two\n");
  EXPECT_EQ(Ok("get databases -l 'tier=gold,size!=big' -o name"),
            "database.hoptimator.linkedin.com/sel-one\n");
  EXPECT_EQ(Ok("get databases -l 'size in (big)' -o name"),
            "database.hoptimator.linkedin.com/sel-two\n");

  const std::string yaml = Ok("get database sel-one -o yaml");
  EXPECT_TRUE(Contains(yaml, "kind: Database\n")) << yaml;
  EXPECT_TRUE(Contains(yaml, "  name: sel-one\n")) << yaml;
  EXPECT_TRUE(Contains(yaml, "    tier: gold\n")) << yaml;
  EXPECT_TRUE(Contains(yaml, "  url: jdbc:demodb://names=ads\n")) << yaml;
  const std::string json = Ok("get databases -l tier=gold -o json");
  EXPECT_TRUE(Contains(json, "\"kind\": \"List\"") || Contains(json, "\"kind\": \"DatabaseList\""))
      << json;
  EXPECT_TRUE(Contains(json, "\"name\": \"sel-two\"")) << json;
  EXPECT_FALSE(Contains(json, "\"name\": \"ads-database\"")) << json;

  // The printer columns of the kind, from the server's Table.
  const std::string wide = Ok("get databases -o wide");
  EXPECT_EQ(wide.rfind("NAME ", 0), 0u) << wide;
  for (const char* column : {"CATALOG", "SCHEMA", "URL", "AGE"}) {
    EXPECT_TRUE(Contains(wide.substr(0, wide.find('\n')), column)) << wide;
  }
  EXPECT_TRUE(Contains(wide, "ads-catalog-database   ADS_CATALOG")) << wide;

  const std::string all = Ok("get databases -A");
  EXPECT_EQ(all.rfind("NAMESPACE ", 0), 0u) << all;
  EXPECT_TRUE(Contains(all, "\ndefault     ads-database ")) << all;
  const std::string views = Ok("get views -A -o name");
  EXPECT_TRUE(Contains(views, "view.hoptimator.linkedin.com/ads-audience\n")) << views;
}

TEST_F(KubectlTest, DiscoveryListsHopsKindsAndExplainReadsTheSchema) {
  const std::string resources = Ok("api-resources");
  for (const char* row : {"databases", "views", "tabletriggers", "pipelines", "jobtemplates",
                          "tabletemplates", "subscriptions", "configmaps"}) {
    EXPECT_TRUE(Contains(resources, std::string("\n") + row + " ")) << row << "\n" << resources;
  }
  EXPECT_TRUE(Contains(resources, "hoptimator.linkedin.com/v1alpha1")) << resources;
  EXPECT_EQ(Ok("api-resources --api-group hoptimator.linkedin.com -o name").find("databases."), 0u);
  const std::string explained = Ok("explain view.spec");
  EXPECT_TRUE(Contains(explained, "View")) << explained;
  EXPECT_TRUE(Contains(explained, "sql")) << explained;
  EXPECT_TRUE(Contains(explained, "schema")) << explained;
}

TEST_F(KubectlTest, ApplySaysCreatedUnchangedAndConfigured) {
  // The suite applied the demo environment: every object created.
  EXPECT_TRUE(Contains(applied_, "database.hoptimator.linkedin.com/ads-database created\n"))
      << applied_;
  EXPECT_TRUE(Contains(applied_, "configmap/hoptimator-configmap created\n")) << applied_;
  const std::string demo = Source("examples/demo-environment.yaml");
  const std::string again = Ok("apply -f " + demo);
  EXPECT_TRUE(
      Contains(again, "tabletemplate.hoptimator.linkedin.com/demodb-read-template unchanged\n"))
      << again;
  EXPECT_FALSE(Contains(again, " created\n")) << again;
  // One value changed in one object of the file: that object is configured.
  const std::string text = ReadFile(demo);
  const size_t at = text.find("number-of-rows = 10");
  ASSERT_NE(at, std::string::npos);
  const size_t begin = text.rfind("\n---\n", at);
  const size_t end = text.find("\n---\n", at);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::string one = text.substr(begin + 5, end - begin - 4);
  ASSERT_TRUE(Contains(one, "name: demodb-read-template")) << one;
  const std::string original = one;
  one.replace(one.find("number-of-rows = 10"), 19, "number-of-rows = 11");
  EXPECT_EQ(Apply("demo-changed.yaml", one),
            "tabletemplate.hoptimator.linkedin.com/demodb-read-template configured\n");
  EXPECT_TRUE(
      Contains(Ok("get tabletemplate demodb-read-template -o yaml"), "number-of-rows = 11"));
  EXPECT_EQ(Apply("demo-restored.yaml", original),
            "tabletemplate.hoptimator.linkedin.com/demodb-read-template configured\n");
  EXPECT_EQ(Apply("demo-restored.yaml", original),
            "tabletemplate.hoptimator.linkedin.com/demodb-read-template unchanged\n");
}

// The JobTemplates of hop's SQL tests are Hoptimator's own YAML (hoptimator.linkedin.com/v1alpha1).
TEST_F(KubectlTest, AppliesHoptimatorsOwnYaml) {
  const std::string jobs = Source("test/sql/env/jobs.yaml");
  const std::string first = Ok("apply -f " + jobs);
  EXPECT_TRUE(Contains(first, "jobtemplate.hoptimator.linkedin.com/echo-report created\n"))
      << first;
  EXPECT_TRUE(Contains(first, "jobtemplate.hoptimator.linkedin.com/slow-report created\n"))
      << first;
  const std::string second = Ok("apply -f " + jobs);
  EXPECT_TRUE(Contains(second, "jobtemplate.hoptimator.linkedin.com/echo-report unchanged\n"))
      << second;
  EXPECT_FALSE(Contains(second, "created")) << second;
  EXPECT_TRUE(Contains(Ok("get jobtemplate echo-report -o yaml"), "image: busybox"));
}

TEST_F(KubectlTest, EditPatchLabelAnnotate) {
  Apply("edit.yaml", Database("edit-me") + "---\n" + ConfigMap("patch-me"));
  const std::string edited =
      Shell("EDITOR='sed -i s/names=ads/names=profile/' kubectl --kubeconfig " + kubeconfig_ +
            " --cache-dir " + dir_->path() + "/kube-cache edit database edit-me")
          .first;
  EXPECT_TRUE(Contains(edited, "database.hoptimator.linkedin.com/edit-me edited")) << edited;
  EXPECT_EQ(Ok("get database edit-me -o jsonpath={.spec.url}"), "jdbc:demodb://names=profile");

  EXPECT_TRUE(
      Contains(Ok("patch database edit-me --type merge -p '{\"spec\":{\"dialect\":\"MySQL\"}}'"),
               "patched"));
  EXPECT_EQ(Ok("get database edit-me -o jsonpath={.spec.dialect}"), "MySQL");
  Ok("patch database edit-me --type json -p "
     "'[{\"op\":\"replace\",\"path\":\"/spec/dialect\",\"value\":\"Calcite\"},"
     "{\"op\":\"add\",\"path\":\"/spec/catalog\",\"value\":\"EDITED\"}]'");
  EXPECT_EQ(Ok("get database edit-me -o jsonpath={.spec.dialect}/{.spec.catalog}"),
            "Calcite/EDITED");
  // A failing JSON patch test leaves the object as it was.
  auto [failed, frc] = Kubectl(
      "patch database edit-me --type json -p '[{\"op\":\"test\",\"path\":\"/spec/dialect\","
      "\"value\":\"Nope\"},{\"op\":\"remove\",\"path\":\"/spec/catalog\"}]'");
  EXPECT_NE(frc, 0) << failed;
  EXPECT_EQ(Ok("get database edit-me -o jsonpath={.spec.catalog}"), "EDITED");
  // A ConfigMap is a built-in kind: kubectl's default patch is a strategic merge patch.
  EXPECT_TRUE(Contains(Ok("patch configmap patch-me -p '{\"data\":{\"b\":\"2\"}}'"), "patched"));
  EXPECT_EQ(Ok("get configmap patch-me -o jsonpath={.data.a}/{.data.b}"), "1/2");
  // hop's kinds are custom resources, which take no strategic merge patch.
  auto [strategic, src] = Kubectl("patch database edit-me -p '{\"spec\":{\"dialect\":\"MySQL\"}}'");
  EXPECT_NE(src, 0) << strategic;
  EXPECT_TRUE(Contains(strategic, "strategic-merge-patch")) << strategic;

  EXPECT_TRUE(Contains(Ok("label database edit-me owner=ops"), "labeled"));
  EXPECT_TRUE(Contains(Ok("annotate database edit-me note='hello world'"), "annotated"));
  EXPECT_EQ(Ok("get database -l owner=ops -o name"), "database.hoptimator.linkedin.com/edit-me\n");
  EXPECT_EQ(Ok("get database edit-me -o jsonpath={.metadata.annotations.note}"), "hello world");
  Ok("label database edit-me owner-");
  EXPECT_EQ(Ok("get database -l owner=ops -o name"), "");
  Ok("label database edit-me tier=a");
  auto [relabel, rrc] = Kubectl("label database edit-me tier=b");
  EXPECT_NE(rrc, 0) << relabel;  // without --overwrite
  EXPECT_TRUE(Contains(Ok("label --overwrite database edit-me tier=b"), "labeled"));
}

TEST_F(KubectlTest, ReplaceWithAStaleResourceVersionIsAConflict) {
  Apply("stale.yaml", Database("stale-one"));
  WriteFile(Path("stale-copy.yaml"), Ok("get database stale-one -o yaml"));
  Ok("label database stale-one touched=yes");  // a new resourceVersion
  auto [out, rc] = Kubectl("replace -f " + Path("stale-copy.yaml"));
  EXPECT_NE(rc, 0) << out;
  EXPECT_TRUE(Contains(out, "Error from server (Conflict)")) << out;
  EXPECT_TRUE(Contains(out,
                       "the object has been modified; please apply your changes to the latest "
                       "version and try again"))
      << out;
  // The current version replaces.
  WriteFile(Path("fresh-copy.yaml"), Ok("get database stale-one -o yaml"));
  EXPECT_TRUE(Contains(Ok("replace -f " + Path("fresh-copy.yaml")), "replaced"));
}

TEST_F(KubectlTest, DeleteCascadesToDependentsUnlessOrphaned) {
  for (const std::string policy : {"background", "orphan"}) {
    const std::string owner = "owner-" + policy;
    const std::string dependent = "dependent-" + policy;
    Apply(owner + ".yaml", ConfigMap(owner));
    const std::string uid = Ok("get configmap " + owner + " -o jsonpath={.metadata.uid}");
    ASSERT_FALSE(uid.empty());
    Apply(dependent + ".yaml",
          ConfigMap(dependent,
                    "  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n"
                    "    name: " +
                        owner + "\n    uid: " + uid + "\n"));
    const std::string cascade = policy == "orphan" ? " --cascade=orphan" : "";
    EXPECT_TRUE(Contains(Ok("delete configmap " + owner + cascade), "deleted"));
    auto [got, rc] =
        Kubectl("get configmap " + dependent + " -o jsonpath={.metadata.ownerReferences}");
    if (policy == "orphan") {
      EXPECT_EQ(rc, 0) << got;
      EXPECT_EQ(got, "");  // kept, without the reference to its deleted owner
    } else {
      EXPECT_NE(rc, 0) << got;
      EXPECT_TRUE(Contains(got, "NotFound")) << got;
    }
  }
}

// A Database that views read cannot go: the DDL guard names what depends on it.
TEST_F(KubectlTest, DeletingADatabaseThatViewsUseNamesTheDependents) {
  auto [out, rc] = Kubectl("delete database ads-database");
  EXPECT_NE(rc, 0) << out;
  EXPECT_TRUE(Contains(out, "Error from server (Conflict)")) << out;
  EXPECT_TRUE(Contains(out, "view/ads-audience")) << out;
  EXPECT_TRUE(Contains(out, "view/ads-visitors")) << out;
  EXPECT_EQ(Ok("get database ads-database -o name"),
            "database.hoptimator.linkedin.com/ads-database\n");
  // A server-side dry run asks the same guard, and a dry run that passes deletes nothing.
  auto [dry, dry_rc] = Kubectl("delete database ads-database --dry-run=server");
  EXPECT_NE(dry_rc, 0) << dry;
  EXPECT_TRUE(Contains(dry, "Error from server (Conflict)")) << dry;
  Ok("delete view ads-visitors --dry-run=server");
  EXPECT_EQ(Ok("get view ads-visitors -o name"), "view.hoptimator.linkedin.com/ads-visitors\n");
}

// Spec updates keep the status and status updates keep the spec, through the status
// subresource: `patch --subresource=status` where kubectl has it (1.24), raw PUT always.
TEST_F(KubectlTest, TheStatusSubresourceAndTheSpecKeepEachOther) {
  Apply("status.yaml",
        "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata:\n  name: status-view\n"
        "spec:\n  schema: ADS\n  view: STATUS_VIEW\n  sql: SELECT 1\n");
  const std::string url =
      "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/views/status-view";
  // A raw PUT of the status: the spec in the body is ignored.
  std::string doc = Ok("get --raw " + url);
  const size_t spec = doc.find("\"view\":\"STATUS_VIEW\"");
  ASSERT_NE(spec, std::string::npos) << doc;
  doc.replace(spec, 20, "\"view\":\"IGNORED\"");
  ASSERT_FALSE(Contains(doc, "\"status\":")) << doc;
  ASSERT_EQ(doc.back(), '}');
  doc.insert(doc.size() - 1, ",\"status\":{\"watermark\":\"2026-01-01T00:00:00Z\"}");
  WriteFile(Path("status.json"), doc);
  Ok("replace --raw " + url + "/status -f " + Path("status.json"));
  EXPECT_EQ(Ok("get view status-view -o jsonpath={.spec.view}/{.status.watermark}"),
            "STATUS_VIEW/2026-01-01T00:00:00Z");
  EXPECT_TRUE(Contains(Ok("get --raw " + url + "/status"), "2026-01-01T00:00:00Z"));
  // A spec patch on the object: the status in it is ignored, the stored one kept.
  Ok("patch view status-view --type merge -p "
     "'{\"spec\":{\"sql\":\"SELECT 2\"},\"status\":{\"watermark\":\"2030-01-01T00:00:00Z\"}}'");
  EXPECT_EQ(Ok("get view status-view -o jsonpath={.spec.sql}/{.status.watermark}"),
            "SELECT 2/2026-01-01T00:00:00Z");
  if (minor_ >= 24) {
    Ok("patch view status-view --subresource=status --type merge -p "
       "'{\"status\":{\"watermark\":\"2027-01-01T00:00:00Z\"},\"spec\":{\"sql\":\"SELECT 3\"}}'");
    EXPECT_EQ(Ok("get view status-view -o jsonpath={.spec.sql}/{.status.watermark}"),
              "SELECT 2/2027-01-01T00:00:00Z");
  }
}

// `kubectl get -w` sees a trigger's status change when it fires.
TEST_F(KubectlTest, WatchSeesATriggerFire) {
  const std::string before = Ok("get tabletrigger audiencereport -o jsonpath={.status.timestamp}");
  ASSERT_FALSE(before.empty());
  const std::string log = Path("watch.log");
  const pid_t watcher = Spawn({"kubectl", "--kubeconfig", kubeconfig_, "--cache-dir",
                               dir_->path() + "/kube-cache", "get", "tabletriggers", "-w"},
                              log);
  ASSERT_GT(watcher, 0);
  // The list comes first.
  EXPECT_TRUE(WaitForText(log, "busiestreport", 10s)) << ReadFile(log);
  EXPECT_TRUE(WaitForText(log, "audiencereport", 10s)) << ReadFile(log);
  auto [fired, rc] = Shell(std::string(HOP_BINARY) + " --state " + State() +
                           " -e 'FIRE TRIGGER audience_report;'");
  EXPECT_EQ(rc, 0) << fired;
  std::string after = before;
  for (int i = 0; i < 200 && after == before; ++i) {
    std::this_thread::sleep_for(25ms);
    after = Ok("get tabletrigger audiencereport -o jsonpath={.status.timestamp}");
  }
  ASSERT_NE(after, before);
  EXPECT_TRUE(WaitForText(log, after, 10s)) << ReadFile(log);
  kill(watcher, SIGTERM);
  waitpid(watcher, nullptr, 0);
  const std::string seen = ReadFile(log);
  EXPECT_EQ(seen.rfind("NAME ", 0), 0u) << seen;
  const size_t line = seen.find(after);
  ASSERT_NE(line, std::string::npos);
  EXPECT_EQ(seen.rfind("audiencereport", line), seen.rfind('\n', line) + 1) << seen;
}

TEST_F(KubectlTest, ServerDryRunWritesNothingAndSecretsAreRedacted) {
  WriteFile(Path("dry.yaml"), ConfigMap("dry-one") + "---\n" + Database("dry-db"));
  const std::string dry = Ok("create --dry-run=server -f " + Path("dry.yaml"));
  EXPECT_TRUE(Contains(dry, "configmap/dry-one created (server dry run)")) << dry;
  EXPECT_TRUE(Contains(dry, "database.hoptimator.linkedin.com/dry-db created (server dry run)"))
      << dry;
  auto [got, rc] = Kubectl("get configmap dry-one");
  EXPECT_NE(rc, 0);
  EXPECT_TRUE(Contains(got, "NotFound")) << got;
  EXPECT_NE(Kubectl("get database dry-db").second, 0);
  // A dry-run delete keeps the object.
  Apply("kept.yaml", ConfigMap("kept-one"));
  EXPECT_TRUE(Contains(Ok("delete configmap kept-one --dry-run=server"), "server dry run"));
  EXPECT_EQ(Ok("get configmap kept-one -o name"), "configmap/kept-one\n");

  Apply("secret-db.yaml",
        Database("secret-db", "jdbc:mysql://localhost:3306;user=app;password=swordfish"));
  // kubectl's JSON escapes < and >.
  for (const auto& [format, redacted] :
       {std::pair{"yaml", "password=<redacted>"}, {"json", "password=\\u003credacted\\u003e"}}) {
    const std::string shown = Ok(std::string("get database secret-db -o ") + format);
    EXPECT_TRUE(Contains(shown, redacted)) << shown;
    EXPECT_FALSE(Contains(shown, "swordfish")) << shown;
  }
}

// What a cluster running hop's operator needs (issue #19's `hop manifests`), written out: hop's
// CRDs as `hop crds` prints them, a Namespace, a ServiceAccount, RBAC for the operator and for
// its Lease, a Deployment with probes and a Service for its metrics.
std::string DeploymentBundle(const std::string& crds) {
  return crds + R"(---
apiVersion: v1
kind: Namespace
metadata:
  name: hop-system
  labels:
    app.kubernetes.io/name: hop
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: hop
  namespace: hop-system
  labels:
    app.kubernetes.io/name: hop
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: hop-operator
  labels:
    app.kubernetes.io/name: hop
rules:
- apiGroups: ["hoptimator.linkedin.com"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: hop-operator
  labels:
    app.kubernetes.io/name: hop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: hop-operator
subjects:
- kind: ServiceAccount
  name: hop
  namespace: hop-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: hop-leader-election
  namespace: hop-system
  labels:
    app.kubernetes.io/name: hop
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: hop-leader-election
  namespace: hop-system
  labels:
    app.kubernetes.io/name: hop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: hop-leader-election
subjects:
- kind: ServiceAccount
  name: hop
  namespace: hop-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hop
  namespace: hop-system
  labels:
    app.kubernetes.io/name: hop
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: hop
  template:
    metadata:
      labels:
        app.kubernetes.io/name: hop
    spec:
      serviceAccountName: hop
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
      containers:
      - name: hop
        image: hop:test
        args: ["--in-cluster", "operator", "--http-port", "8080"]
        env:
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        ports:
        - name: metrics
          containerPort: 8080
        livenessProbe:
          httpGet:
            path: /livez
            port: 8080
        readinessProbe:
          httpGet:
            path: /readyz
            port: 8080
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
        securityContext:
          readOnlyRootFilesystem: true
          allowPrivilegeEscalation: false
---
apiVersion: v1
kind: Service
metadata:
  name: hop-metrics
  namespace: hop-system
  labels:
    app.kubernetes.io/name: hop
spec:
  selector:
    app.kubernetes.io/name: hop
  ports:
  - name: metrics
    port: 8080
    targetPort: metrics
)";
}

// The bundle applies in a server-side dry run (writing nothing), then for real, then again
// unchanged; hop's CRDs are established, and deleting the bundle keeps hop's objects.
TEST_F(KubectlTest, ADeploymentBundleAppliesInADryRunAndForReal) {
  auto [crds, crds_rc] = Shell(std::string(HOP_BINARY) + " crds");
  ASSERT_EQ(crds_rc, 0) << crds;
  WriteFile(Path("bundle.yaml"), DeploymentBundle(crds));
  const std::vector<std::string> objects = {
      "customresourcedefinition.apiextensions.k8s.io/databases.hoptimator.linkedin.com",
      "customresourcedefinition.apiextensions.k8s.io/tabletriggers.hoptimator.linkedin.com",
      "namespace/hop-system",
      "serviceaccount/hop",
      "clusterrole.rbac.authorization.k8s.io/hop-operator",
      "clusterrolebinding.rbac.authorization.k8s.io/hop-operator",
      "role.rbac.authorization.k8s.io/hop-leader-election",
      "rolebinding.rbac.authorization.k8s.io/hop-leader-election",
      "deployment.apps/hop",
      "service/hop-metrics"};

  const std::string dry = Ok("apply --dry-run=server -f " + Path("bundle.yaml"));
  for (const std::string& o : objects) {
    EXPECT_TRUE(Contains(dry, o + " created (server dry run)\n")) << o << "\n" << dry;
  }
  EXPECT_EQ(Ok("get crd -o name"), "");
  EXPECT_NE(Kubectl("get deployment hop -n hop-system").second, 0);

  const std::string applied = Ok("apply -f " + Path("bundle.yaml"));
  for (const std::string& o : objects) {
    EXPECT_TRUE(Contains(applied, o + " created\n")) << o << "\n" << applied;
  }
  Ok("wait --for condition=established --timeout=20s crd/databases.hoptimator.linkedin.com "
     "crd/views.hoptimator.linkedin.com");
  EXPECT_EQ(Ok("get crd databases.hoptimator.linkedin.com -o "
               "jsonpath={.status.acceptedNames.kind}/{.status.storedVersions[0]}"),
            "Database/v1alpha1");
  EXPECT_EQ(Ok("get deployment hop -n hop-system -o "
               "jsonpath={.spec.template.spec.containers[0].livenessProbe.httpGet.path}"),
            "/livez");
  EXPECT_EQ(Ok("get clusterrolebinding hop-operator -o jsonpath={.subjects[0].namespace}"),
            "hop-system");
  EXPECT_EQ(Ok("get role hop-leader-election -n hop-system -o jsonpath={.rules[0].verbs}"),
            R"(["get","create","update"])");
  const std::string listed = Ok("get sa,svc,deploy -n hop-system -o name");
  for (const char* o : {"serviceaccount/hop", "service/hop-metrics", "deployment.apps/hop"}) {
    EXPECT_TRUE(Contains(listed, o)) << listed;
  }
  // hop's kinds are checked by their CRDs now as well, and still work.
  Apply("crd-checked.yaml", Database("crd-checked"));
  EXPECT_EQ(Ok("get database crd-checked -o jsonpath={.spec.schema}"), "T_CRD_CHECKED");

  const std::string again = Ok("apply -f " + Path("bundle.yaml"));
  for (const std::string& o : objects) {
    EXPECT_TRUE(Contains(again, o + " unchanged\n")) << o << "\n" << again;
  }
  EXPECT_TRUE(Contains(Ok("apply --dry-run=server -f " + Path("bundle.yaml")),
                       "deployment.apps/hop unchanged (server dry run)"));

  // Deleting the bundle deletes its objects; hop's kinds stay served, with their objects.
  const std::string deleted = Ok("delete -f " + Path("bundle.yaml"));
  EXPECT_TRUE(Contains(deleted, "deployment.apps \"hop\" deleted")) << deleted;
  EXPECT_EQ(Ok("get crd -o name"), "");
  EXPECT_EQ(Ok("get database crd-checked -o name"),
            "database.hoptimator.linkedin.com/crd-checked\n");
}

// What `hop manifests` prints is what a cluster takes: kubectl applies it in a server-side dry
// run, cluster-wide and for one watched namespace.
TEST_F(KubectlTest, HopManifestsApplyInAServerDryRun) {
  for (const std::string& flags : {std::string(), std::string(" --watch-namespace pipelines")}) {
    auto [manifests, rc] = Shell(std::string(HOP_BINARY) + " manifests" + flags);
    ASSERT_EQ(rc, 0) << manifests;
    WriteFile(Path("manifests.yaml"), manifests);
    const std::string dry = Ok("apply --dry-run=server -f " + Path("manifests.yaml"));
    for (const char* o :
         {"customresourcedefinition.apiextensions.k8s.io/views.hoptimator.linkedin.com created",
          "serviceaccount/hop-operator created",
          "rolebinding.rbac.authorization.k8s.io/"
          "hop-operator-leader-election created",
          "deployment.apps/hop-operator created", "service/hop-operator created"}) {
      EXPECT_TRUE(Contains(dry, std::string(o) + " (server dry run)")) << flags << "\n" << dry;
    }
    EXPECT_TRUE(Contains(dry, flags.empty() ? "clusterrole.rbac.authorization.k8s.io/hop-refresh"
                                            : "role.rbac.authorization.k8s.io/hop-refresh"))
        << dry;
  }
  EXPECT_NE(Kubectl("get deployment hop-operator -n hop-system").second, 0);  // nothing written
}

// A CRD of a kind hop does not know: kubectl applies objects of it, lists them with the CRD's
// columns, explains them, and shows the 422 when its schema refuses one.
TEST_F(KubectlTest, ACustomResourceDefinitionServesItsKindAndItsSchemaRefusesObjects) {
  Apply("widget-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size:
                type: integer
                minimum: 1
                description: How big the widget is.
              color:
                type: string
                enum: [red, blue]
                default: red
)");
  Ok("wait --for condition=established --timeout=20s crd/widgets.example.com");
  EXPECT_TRUE(Contains(Apply("widget.yaml",
                             "apiVersion: example.com/v1\nkind: Widget\n"
                             "metadata:\n  name: one\nspec:\n  size: 3\n"),
                       "widget.example.com/one created"));
  const std::string listed = Ok("get wd");
  EXPECT_EQ(listed.rfind("NAME ", 0), 0u) << listed;
  EXPECT_TRUE(Contains(listed.substr(0, listed.find('\n')), "SIZE")) << listed;
  EXPECT_TRUE(Contains(listed, "\none ")) << listed;
  EXPECT_EQ(Ok("get widget one -o jsonpath={.spec.color}"), "red");  // the schema's default
  EXPECT_TRUE(Contains(Ok("explain widget.spec"), "How big the widget is."));

  WriteFile(Path("bad-widget.yaml"),
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\n"
            "spec:\n  size: 0\n  color: green\n");
  auto [bad, rc] = Kubectl("apply -f " + Path("bad-widget.yaml"));
  EXPECT_NE(rc, 0) << bad;
  // kubectl words a 422 from the Status's details: the kind, the name and each cause.
  EXPECT_TRUE(Contains(bad, R"(The Widget "bad" is invalid: )")) << bad;
  EXPECT_TRUE(Contains(bad,
                       "* spec.size: Invalid value: 0: spec.size in body should be greater "
                       "than or equal to 1\n"))
      << bad;
  EXPECT_TRUE(
      Contains(bad, R"(* spec.color: Unsupported value: "green": supported values: "red", "blue")"))
      << bad;
  WriteFile(Path("odd-widget.yaml"),
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: odd\n"
            "spec:\n  size: 1\n  shape: round\n");
  auto [odd, odd_rc] = Kubectl("apply -f " + Path("odd-widget.yaml"));
  EXPECT_NE(odd_rc, 0) << odd;
  EXPECT_TRUE(Contains(odd, R"(unknown field "spec.shape")")) << odd;
  EXPECT_NE(Kubectl("get widget bad").second, 0);

  Ok("delete crd widgets.example.com");
  auto [gone, gone_rc] = Kubectl("get widgets");
  EXPECT_NE(gone_rc, 0) << gone;
}

}  // namespace
