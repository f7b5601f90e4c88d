#include "cli/export_command.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/resource_commands.h"
#include "cli/run_command.h"
#include "common/limits.h"
#include "resource/kinds.h"
#include "resource/yaml.h"
#include "store/sqlite_store.h"
#include "test/lib/datadriven.h"

namespace hop::cli {
namespace {

using resource::Resource;

Resource Parse(const std::string& yaml) {
  auto docs = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  auto r = Resource::FromJson(docs->at(0), "test");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

// A store of its own in a temporary directory.
class TempStore {
 public:
  TempStore() {
    char tmpl[] = "/tmp/hop-export-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    auto s = store::SqliteStore::Open(dir_, opts);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  ~TempStore() {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  store::SqliteStore& operator*() { return *store_; }
  store::SqliteStore* operator->() { return store_.get(); }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
};

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome Export(store::Store& store, ExportOptions options = {}) {
  std::ostringstream out, err;
  const int rc = RunExport(options, store, out, err);
  return {rc, out.str(), err.str()};
}

class ExportImportTest : public ::testing::Test {
 protected:
  void TearDown() override { SetLimits(Limits{}); }

  // Writes `text` to a file of the test's own and imports it into `store`.
  Outcome Import(store::Store& store, const std::string& text, bool overwrite = false) {
    const std::string path = files_.dir() + "/import-" + std::to_string(++files_count_) + ".yaml";
    std::ofstream(path) << text;
    std::ostringstream out, err;
    const int rc = RunImport({path, overwrite}, store, out, err);
    return {rc, out.str(), err.str()};
  }

  // Applies the demo environment and the statements that make views, a materialized view (View
  // -> Pipeline -> FlinkSessionJob), a table and a trigger, then records runs in the trigger's
  // status as the operator would, and adds a Secret.
  void MakeEnvironment(store::Store& store) {
    std::ostringstream out, err;
    ApplyOptions apply;
    apply.file = hop::testing::SourcePath("examples/demo-environment.yaml");
    ASSERT_EQ(RunApply(apply, store, out, err), 0) << err.str();
    RunOptions run;
    run.execute = {
        "CREATE VIEW ads.visitors AS SELECT first_name, last_name, page_urn FROM ads.page_views "
        "NATURAL JOIN profile.members;",
        "CREATE MATERIALIZED VIEW ads.audience AS SELECT first_name, last_name FROM "
        "ads.visitors WHERE page_urn LIKE 'urn:li:page:%';",
        "CREATE TRIGGER audience_report ON ads.audience AS 'audience-report';",
        "CREATE TABLE kafka.\"click-events\" (page_urn VARCHAR, member_urn VARCHAR);",
    };
    run.state_dir = files_.dir();
    ASSERT_EQ(RunSql(run, store, out, err), 0) << out.str() << err.str();
    auto trigger =
        store.Get({resource::TableTriggerKind::Info().group_kind(), "default", "audiencereport"});
    ASSERT_TRUE(trigger.ok()) << trigger.status().ToString();
    trigger->mutable_status() = nlohmann::ordered_json::parse(R"({
      "timestamp": "2026-03-01T02:00:00.000Z", "watermark": "2026-03-01T02:00:00.000Z",
      "lastRun": "Succeeded",
      "jobs": [{"name": "audiencereport-20260301t020000000", "namespace": "default",
                "from": "1970-01-01T00:00:00.000Z", "to": "2026-03-01T02:00:00.000Z",
                "started": "2026-03-01T02:00:01.000Z", "finished": "2026-03-01T02:00:02.000Z",
                "outcome": "Succeeded"}]})");
    ASSERT_TRUE(store.UpdateStatus(*trigger).ok());
    ASSERT_TRUE(store
                    .Create(Parse(R"(apiVersion: v1
kind: Secret
metadata: {name: kafka-credentials}
type: Opaque
stringData: {password: s3cret-value}
data: {token: c2VjcmV0}
)"))
                    .ok());
  }

  TempStore files_;
  int files_count_ = 0;
};

std::vector<Resource> Documents(const std::string& text) {
  auto docs = ParseYamlDocuments(text, "export");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<Resource> out;
  for (auto& doc : *docs) out.push_back(*Resource::FromJson(doc, "export"));
  return out;
}

// Export, import into a fresh store, export again: the same text, with owners pointing at the
// new store's objects; importing again writes nothing.
TEST_F(ExportImportTest, AStoreMovesWholeAndAgainChangesNothing) {
  TempStore source;
  ASSERT_NO_FATAL_FAILURE(MakeEnvironment(*source));
  const Outcome first = Export(*source);
  ASSERT_EQ(first.rc, 0) << first.err;
  EXPECT_EQ(first.err, "");
  // Secrets go whole (a Secret's stringData is in its data, as the store keeps it); what a store
  // sets does not go.
  EXPECT_NE(first.out.find("password: czNjcmV0LXZhbHVl"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("stringData"), std::string::npos) << first.out;
  for (const char* set : {"uid:", "resourceVersion:", "creationTimestamp:", "generation:"}) {
    EXPECT_EQ(first.out.find(set), std::string::npos) << set;
  }
  // The trigger's runs go with it.
  EXPECT_NE(first.out.find("name: audiencereport-20260301t020000000"), std::string::npos);

  TempStore target;
  const Outcome imported = Import(*target, first.out);
  ASSERT_EQ(imported.rc, 0) << imported.out << imported.err;
  EXPECT_EQ(imported.err, "");
  const size_t objects = Documents(first.out).size();
  EXPECT_NE(imported.out.find(fmt::format("{} objects: {} created, 0 updated, 0 unchanged, 0 "
                                          "failed",
                                          objects, objects)),
            std::string::npos)
      << imported.out;
  EXPECT_NE(imported.out.find("TableTrigger.hoptimator.linkedin.com/default/audiencereport "
                              "created\n"),
            std::string::npos)
      << imported.out;

  const Outcome second = Export(*target);
  ASSERT_EQ(second.rc, 0) << second.err;
  EXPECT_EQ(second.out, first.out);

  // Owners point at the target's objects, found by name.
  const resource::GroupKind view = resource::ViewKind::Info().group_kind();
  const resource::GroupKind pipeline = resource::PipelineKind::Info().group_kind();
  auto new_view = target->Get({view, "default", "ads-audience"});
  auto new_pipeline = target->Get({pipeline, "default", "ads-audience"});
  auto old_view = source->Get({view, "default", "ads-audience"});
  ASSERT_TRUE(new_view.ok() && new_pipeline.ok() && old_view.ok());
  ASSERT_EQ(new_pipeline->owner_references().size(), 1u);
  EXPECT_EQ(new_pipeline->owner_references()[0].uid, new_view->uid());
  EXPECT_NE(new_view->uid(), old_view->uid());
  auto elements = target->List({resource::GroupKind{"flink.apache.org", "FlinkSessionJob"}});
  ASSERT_TRUE(elements.ok());
  ASSERT_EQ(elements->items.size(), 1u);
  ASSERT_EQ(elements->items[0].owner_references().size(), 1u);
  EXPECT_EQ(elements->items[0].owner_references()[0].uid, new_pipeline->uid());
  // The status came with its object.
  auto trigger =
      target->Get({resource::TableTriggerKind::Info().group_kind(), "default", "audiencereport"});
  ASSERT_TRUE(trigger.ok());
  EXPECT_EQ(resource::TableTriggerKind::kWatermark.Get(*trigger), "2026-03-01T02:00:00.000Z");

  const int64_t revision = *target->Revision();
  const Outcome again = Import(*target, first.out);
  EXPECT_EQ(again.rc, 0) << again.err;
  EXPECT_NE(again.out.find(fmt::format("{} objects: 0 created, 0 updated, {} unchanged, 0 failed",
                                       objects, objects)),
            std::string::npos)
      << again.out;
  EXPECT_EQ(*target->Revision(), revision);
}

// Owners first, whatever their kinds' names; then kind, group, namespace and name.
TEST_F(ExportImportTest, OwnersComeBeforeWhatTheyOwn) {
  TempStore store;
  // Kinds named so that sorting by name alone would put each dependent before its owner.
  ASSERT_TRUE(store
                  ->Create(Parse(R"(apiVersion: example.com/v1
kind: Zebra
metadata: {name: z, namespace: b}
)"))
                  .ok());
  ASSERT_TRUE(store
                  ->Create(Parse(R"(apiVersion: example.com/v1
kind: Yak
metadata:
  name: yak
  namespace: b
  ownerReferences: [{apiVersion: example.com/v1, kind: Zebra, name: z}]
)"))
                  .ok());
  ASSERT_TRUE(store
                  ->Create(Parse(R"(apiVersion: example.com/v1
kind: Ant
metadata:
  name: a
  namespace: b
  ownerReferences: [{apiVersion: example.com/v1, kind: Yak, name: yak, controller: true}]
)"))
                  .ok());
  for (const char* ns : {"b", "a"}) {
    ASSERT_TRUE(store
                    ->Create(Parse(fmt::format(R"(apiVersion: v1
kind: ConfigMap
metadata: {{name: m, namespace: {}}}
)",
                                               ns)))
                    .ok());
  }
  const Outcome run = Export(*store);
  ASSERT_EQ(run.rc, 0) << run.err;
  std::vector<std::string> order;
  for (const Resource& r : Documents(run.out)) {
    order.push_back(r.kind() + "/" + r.namespace_name() + "/" + r.name());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"ConfigMap/a/m", "ConfigMap/b/m", "Zebra/b/z",
                                             "Yak/b/yak", "Ant/b/a"}));
  // An owner reference keeps all but its owner's uid.
  EXPECT_NE(run.out.find("ownerReferences:\n  - apiVersion: example.com/v1\n    kind: Yak\n    "
                         "name: yak\n    controller: true\n"),
            std::string::npos)
      << run.out;

  // Only the dependent: its owner is not exported, and the export says what that means.
  const Outcome ants = Export(*store, {"", {"Ant"}, ""});
  ASSERT_EQ(ants.rc, 0);
  EXPECT_EQ(Documents(ants.out).size(), 1u);
  EXPECT_NE(ants.err.find("Ant.example.com/b/a is owned by Yak/yak, which is not exported"),
            std::string::npos)
      << ants.err;
  // Imported alone, it fails for want of its owner; the rest of the stream still goes in.
  TempStore target;
  const Outcome imported = Import(*target, ants.out + "---\n" + Export(*store, {"a", {}, ""}).out);
  EXPECT_EQ(imported.rc, 1);
  EXPECT_NE(imported.err.find("Ant.example.com/b/a failed: Invalid Argument: "), std::string::npos)
      << imported.err;
  EXPECT_NE(imported.out.find("ConfigMap/a/m created"), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("2 objects: 1 created, 0 updated, 0 unchanged, 1 failed"),
            std::string::npos)
      << imported.out;
}

TEST_F(ExportImportTest, ObjectsBeingDeletedAndJobsAreLeftOut) {
  TempStore store;
  ASSERT_TRUE(store
                  ->Create(Parse(R"(apiVersion: v1
kind: ConfigMap
metadata: {name: going, finalizers: [example.com/hold]}
)"))
                  .ok());
  ASSERT_TRUE(store->Delete({{"", "ConfigMap"}, "default", "going"}).ok());
  ASSERT_TRUE(store
                  ->Create(Parse(R"(apiVersion: batch/v1
kind: Job
metadata: {name: run-1}
spec: {template: {spec: {containers: [{name: c, image: i}], restartPolicy: Never}}}
)"))
                  .ok());
  ASSERT_TRUE(
      store->Create(Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\n")).ok());
  const Outcome run = Export(*store);
  ASSERT_EQ(run.rc, 0);
  auto docs = Documents(run.out);
  ASSERT_EQ(docs.size(), 1u) << run.out;
  EXPECT_EQ(docs[0].name(), "kept");
  EXPECT_EQ(run.err,
            "hop export: 1 batch/v1 Job left out (1 not finished): a Job imported into a cluster "
            "runs again; --kind jobs exports them\n");
  // Asked for, Jobs go.
  const Outcome jobs = Export(*store, {"", {"jobs"}, ""});
  ASSERT_EQ(jobs.rc, 0);
  docs = Documents(jobs.out);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].kind(), "Job");
  EXPECT_EQ(jobs.err, "");
}

TEST_F(ExportImportTest, SelectsNamespacesAndKinds) {
  TempStore store;
  for (const char* doc : {
           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: one}\n",
           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c2, namespace: two}\n",
           "apiVersion: v1\nkind: Secret\nmetadata: {name: s1, namespace: one}\n",
           "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: one}\n",
       }) {
    ASSERT_TRUE(store->Create(Parse(doc)).ok()) << doc;
  }
  struct Case {
    ExportOptions options;
    std::vector<std::string> names;  // what is exported, in order
  };
  const Case kCases[] = {
      {{}, {"c1", "c2", "s1", "w1"}},
      {{"one", {}, ""}, {"c1", "s1", "w1"}},
      {{"", {"cm"}, ""}, {"c1", "c2"}},
      {{"one", {"configmaps", "secret"}, ""}, {"c1", "s1"}},
      {{"", {"widgets"}, ""}, {"w1"}},  // a kind hop does not know, by what is stored
      {{"", {"Widget", "cm"}, ""}, {"c1", "c2", "w1"}},
      {{"three", {}, ""}, {}},
  };
  for (const Case& c : kCases) {
    const Outcome run = Export(*store, c.options);
    SCOPED_TRACE(c.options.namespace_name + " " + ::testing::PrintToString(c.options.kinds));
    ASSERT_EQ(run.rc, 0) << run.err;
    std::vector<std::string> names;
    for (const Resource& r : Documents(run.out)) names.push_back(r.name());
    EXPECT_EQ(names, c.names);
  }
  const Outcome unknown = Export(*store, {"", {"gadgets"}, ""});
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.err,
            "hop export: Not Found: hop knows no kind \"gadgets\" and the store holds none of "
            "that name\n");
  EXPECT_EQ(unknown.out, "");
}

// -o writes a file only its owner can read, even one that was readable before.
TEST_F(ExportImportTest, TheFileIsPrivate) {
  TempStore store;
  ASSERT_TRUE(store
                  ->Create(Parse("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
                                 "stringData: {password: hunter2}\n"))
                  .ok());
  const std::string path = files_.dir() + "/export.yaml";
  std::ofstream(path) << "old";
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  const mode_t old_umask = umask(0);
  const Outcome run = Export(*store, {"", {}, path});
  umask(old_umask);
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.out, "1 object written to " + path + "\n");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("password: aHVudGVyMg=="), std::string::npos) << text;  // hunter2
  EXPECT_EQ(text.rfind("apiVersion: v1\n", 0), 0u) << text;

  const Outcome unwritable = Export(*store, {"", {}, files_.dir() + "/no/such/dir/x.yaml"});
  EXPECT_EQ(unwritable.rc, 1);
  EXPECT_NE(unwritable.err.find("hop export: cannot write "), std::string::npos);
}

// An export of several megabytes, written a megabyte at a time, is the same text as its
// documents emitted whole, on standard output and in a file.
TEST_F(ExportImportTest, ALargeExportIsWrittenWholeInPieces) {
  TempStore store;
  const std::string filler(8000, 'x');
  for (int i = 0; i < 400; ++i) {
    Resource r = Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    r.set_name(fmt::format("map-{:03}", i));
    r.mutable_json()["data"] = {{"filler", filler + std::to_string(i)}};
    ASSERT_TRUE(store->Create(r).ok());
  }
  std::vector<std::string> notes;
  auto docs = ExportDocuments({}, *store, &notes);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  const std::string whole = EmitYamlDocuments(*docs);
  ASSERT_GT(whole.size(), 3u << 20);

  const Outcome printed = Export(*store);
  ASSERT_EQ(printed.rc, 0) << printed.err;
  EXPECT_TRUE(printed.out == whole) << "standard output differs";

  const std::string path = files_.dir() + "/large.yaml";
  const Outcome written = Export(*store, {"", {}, path});
  ASSERT_EQ(written.rc, 0) << written.err;
  EXPECT_EQ(written.out, "400 objects written to " + path + "\n");
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(text == whole) << "the file differs";
}

// An object that exists and differs is left alone and reported, unless --overwrite; its status
// goes through the status subresource.
TEST_F(ExportImportTest, AnObjectThatDiffersIsReplacedOnlyWhenAsked) {
  TempStore store;
  const std::string trigger = R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTrigger
metadata: {name: t, labels: {team: a}}
spec: {schema: ADS, table: PAGE_VIEWS, yaml: 'kind: Job'}
status: {watermark: '2026-01-01T00:00:00.000Z'}
)";
  Outcome run = Import(*store, trigger);
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.out,
            "TableTrigger.hoptimator.linkedin.com/default/t created\n"
            "1 object: 1 created, 0 updated, 0 unchanged, 0 failed\n");
  const resource::GroupKind kind = resource::TableTriggerKind::Info().group_kind();
  // A field the target has and the file does not (a label someone added) is no difference.
  auto stored = store->Get({kind, "default", "t"});
  ASSERT_TRUE(stored.ok());
  stored->set_label("added", "there");
  ASSERT_TRUE(store->Update(*stored).ok());
  run = Import(*store, trigger);
  EXPECT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.out,
            "TableTrigger.hoptimator.linkedin.com/default/t unchanged\n"
            "1 object: 0 created, 0 updated, 1 unchanged, 0 failed\n");

  struct Case {
    std::string from, to;  // the change to the file
    std::string where;     // where it differs
  };
  const Case kCases[] = {
      {"table: PAGE_VIEWS", "table: AD_CLICKS", "spec.table"},
      {"team: a", "team: b", "metadata.labels.team"},
      {"2026-01-01T00", "2026-02-01T00", "status.watermark"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.where);
    std::string changed = trigger;
    changed.replace(changed.find(c.from), c.from.size(), c.to);
    const int64_t revision = *store->Revision();
    run = Import(*store, changed);
    EXPECT_EQ(run.rc, 1);
    EXPECT_EQ(run.err,
              "TableTrigger.hoptimator.linkedin.com/default/t failed: Already Exists: it "
              "exists and differs at " +
                  c.where + ": left as it is (--overwrite replaces it)\n");
    EXPECT_EQ(*store->Revision(), revision);
    run = Import(*store, changed, /*overwrite=*/true);
    EXPECT_EQ(run.rc, 0) << run.err;
    EXPECT_EQ(run.out,
              "TableTrigger.hoptimator.linkedin.com/default/t updated\n"
              "1 object: 0 created, 1 updated, 0 unchanged, 0 failed\n");
    // What the file says is what the store holds now.
    run = Import(*store, changed);
    EXPECT_EQ(run.rc, 0) << run.err;
    EXPECT_NE(run.out.find(" unchanged\n"), std::string::npos);
    ASSERT_EQ(Import(*store, trigger, /*overwrite=*/true).rc, 0);
  }

  // An empty mapping says what an absent one does: a status of {} over none is no change.
  ASSERT_TRUE(
      store->Create(Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bare}\n")).ok());
  run = Import(*store,
               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bare, labels: {}}\n"
               "data: {}\nstatus: {}\n");
  EXPECT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.out,
            "ConfigMap/default/bare unchanged\n"
            "1 object: 0 created, 0 updated, 1 unchanged, 0 failed\n");
}

// A kind the target does not serve (a cluster without hop's CRDs) says what to do.
class UnservedKindStore : public store::Store {
 public:
  UnservedKindStore(store::Store& inner, resource::GroupKind unserved)
      : inner_(inner), unserved_(std::move(unserved)) {}

  Result<Resource> Get(const store::ObjectRef& ref) override {
    if (ref.kind == unserved_) return NotServed();
    return inner_.Get(ref);
  }
  Result<store::ListResult> List(const store::ListOptions& options) override {
    if (options.kind == unserved_) return NotServed();
    return inner_.List(options);
  }
  Result<std::vector<Resource>> Commit(std::vector<store::Write> writes) override {
    for (const store::Write& w : writes) {
      if (w.object.group_kind() == unserved_ || w.ref.kind == unserved_) return NotServed();
    }
    return inner_.Commit(std::move(writes));
  }
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& options) override {
    return inner_.StartWatch(options);
  }
  Result<int64_t> Revision() override { return inner_.Revision(); }

 private:
  // What a Kubernetes API server answers for a resource it does not serve.
  static Status NotServed() {
    return Status::NotFound("the server could not find the requested resource");
  }
  store::Store& inner_;
  resource::GroupKind unserved_;
};

TEST_F(ExportImportTest, AKindTheTargetDoesNotServeSaysToInstallTheCrds) {
  TempStore store;
  UnservedKindStore target(*store, resource::ViewKind::Info().group_kind());
  const std::string view = R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: View
metadata: {name: v1}
spec: {view: V1, sql: SELECT 1}
)";
  std::string stream = view;
  stream += "---\n" + view;
  stream.replace(stream.rfind("v1}"), 3, "v2}");
  stream +=
      "---\napiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\nmetadata: {name: f}\n";
  stream += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
  UnservedKindStore no_flink(target, {"flink.apache.org", "FlinkSessionJob"});
  const Outcome run = Import(no_flink, stream);
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.err,
            "View.hoptimator.linkedin.com/default/v1 failed: Not Found: the target does not serve "
            "View.hoptimator.linkedin.com: install hop's CRDs first (hop manifests | kubectl "
            "apply -f -)\n"
            "View.hoptimator.linkedin.com/default/v2 failed: Not Found: the target does not serve "
            "View.hoptimator.linkedin.com: install hop's CRDs first (hop manifests | kubectl "
            "apply -f -)\n"
            "FlinkSessionJob.flink.apache.org/default/f failed: Not Found: the target does not "
            "serve FlinkSessionJob.flink.apache.org: install its CustomResourceDefinition first "
            "(hop's own come with hop manifests | kubectl apply -f -)\n");
  EXPECT_EQ(run.out,
            "ConfigMap/default/c created\n"
            "4 objects: 1 created, 0 updated, 0 unchanged, 3 failed\n");
}

// A document that does not parse, holds a redacted secret or is too large fails alone.
TEST_F(ExportImportTest, BadDocumentsFailAlone) {
  TempStore store;
  SetLimits(Limits{.max_request_bytes = 200});
  const std::string stream =
      "# written by hand\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b\n"
      "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: "
      "<redacted>}\n"
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {x: '" +
      std::string(300, 'x') +
      "'}\n"
      "--- \n# only a comment\n"
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
      "---\n- not an object\n"
      "---\napiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: ConfigMap, metadata: {name: d}}\n"
      "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n";
  const Outcome run = Import(*store, stream);
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.out,
            "ConfigMap/default/a created\n"
            "ConfigMap/default/c created\n"
            "ConfigMap/default/d created\n"
            "ConfigMap/default/a unchanged\n"
            "8 objects: 3 created, 0 updated, 1 unchanged, 4 failed\n");
  const std::string path = files_.dir() + "/import-1.yaml";
  EXPECT_NE(
      run.err.find("document 2 failed: Parse Error: " + path + ", the document at line 5: line "),
      std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("Secret/default/s failed: Validation Error: it holds a secret as `hop "
                         "get` prints it, not the secret itself:"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(path + ", the document at line 14 failed: Invalid Argument: it is "
                                "larger than 200 bytes"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("document 6 (" + path + ", the document at line 25) failed: "),
            std::string::npos)
      << run.err;

  const Outcome missing = Import(*store, "");
  EXPECT_EQ(missing.rc, 0);
  EXPECT_EQ(missing.out, "0 objects: 0 created, 0 updated, 0 unchanged, 0 failed\n");
  std::ostringstream out, err;
  // A file that cannot be read is a usage error (docs/cli.md, "Exit status").
  EXPECT_EQ(RunImport({files_.dir() + "/nope.yaml", false}, *store, out, err), 2);
  EXPECT_NE(err.str().find("hop import: cannot read "), std::string::npos);
  EXPECT_EQ(RunImport({files_.dir(), false}, *store, out, err), 2);
  EXPECT_NE(err.str().find(" is a directory"), std::string::npos);
  EXPECT_EQ(RunImport({}, *store, out, err), 2);
}

// The stream is read a document at a time: one larger than the request limit imports, and text
// that looks like a document marker inside a string stays in its string.
TEST_F(ExportImportTest, AStreamOfAnySizeImports) {
  TempStore source;
  SetLimits(Limits{.max_request_bytes = 4096});
  for (int i = 0; i < 100; ++i) {
    Resource r = Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    r.set_name(fmt::format("map-{:03}", i));
    r.mutable_json()["data"] = {{"script", "a\n---\nb\n--- c\n..."}, {"flat", "--- not a marker"}};
    ASSERT_TRUE(source->Create(r).ok());
  }
  const Outcome exported = Export(*source);
  ASSERT_EQ(exported.rc, 0);
  ASSERT_GT(exported.out.size(), 4 * 4096u);
  TempStore target;
  const Outcome imported = Import(*target, exported.out);
  EXPECT_EQ(imported.rc, 0) << imported.err;
  EXPECT_NE(imported.out.find("100 objects: 100 created"), std::string::npos) << imported.out;
  EXPECT_EQ(Export(*target).out, exported.out);
}

TEST_F(ExportImportTest, ExportedFormKeepsWhatAUserWrote) {
  const Resource stored = Parse(R"(apiVersion: example.com/v1
kind: Thing
metadata:
  name: thing
  namespace: ns
  uid: 1234
  resourceVersion: '7'
  generation: 3
  creationTimestamp: '2026-01-01T00:00:00Z'
  deletionTimestamp: '2026-01-02T00:00:00Z'
  deletionGracePeriodSeconds: 30
  selfLink: /apis/example.com/v1/namespaces/ns/things/n
  managedFields: [{manager: kubectl}]
  labels: {a: b}
  annotations: {c: d}
  finalizers: [example.com/f]
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: m, uid: 99, blockOwnerDeletion: true}]
spec: {x: 1}
status: {z: 2}
extra: kept
)");
  EXPECT_EQ(EmitYaml(ExportedForm(stored)), R"(apiVersion: example.com/v1
kind: Thing
metadata:
  name: thing
  namespace: ns
  labels:
    a: b
  annotations:
    c: d
  ownerReferences:
  - apiVersion: v1
    kind: ConfigMap
    name: m
    blockOwnerDeletion: true
  finalizers:
  - example.com/f
spec:
  x: 1
status:
  z: 2
extra: kept
)");
}

}  // namespace
}  // namespace hop::cli
