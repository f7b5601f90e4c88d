// The "k8s" system tables (system_tables.h): each a TableSource that lists (or gets) resources of
// the store and turns them into rows.
#include "catalog/system_tables.h"

#include <fmt/format.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/source.h"
#include "common/redact.h"
#include "resource/kinds.h"
#include "resource/yaml.h"

namespace hop::catalog {

namespace {

using resource::Resource;
using Cell = std::optional<std::string>;

Cell Text(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return std::nullopt;
  auto it = object->find(key);
  if (it == object->end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

Cell Bool(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return std::nullopt;
  auto it = object->find(key);
  if (it == object->end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>() ? "true" : "false";
}

Cell Int(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return std::nullopt;
  auto it = object->find(key);
  if (it == object->end() || !it->is_number_integer()) return std::nullopt;
  return std::to_string(it->get<int64_t>());
}

// What a table reads: the kind it lists, and the rows of the resources listed.
struct Spec {
  std::string name;
  std::vector<std::pair<std::string, std::string>> columns;  // name, type
  resource::GroupKind kind;
  std::string what;  // for EXPLAIN
  // Whether column 0 is the resource's name (a constraint on it reads one resource).
  bool by_name = true;
  // The rows of the resources listed (the store, for what they refer to).
  std::function<Result<std::vector<Row>>(store::Store&, const std::string& ns,
                                         const std::vector<Resource>&)>
      rows;
};

using resource::DatabaseKind;
using resource::EngineKind;
using resource::PipelineKind;
using resource::TableKind;
using resource::TableTriggerKind;
using resource::ViewKind;

Result<std::vector<Row>> DatabaseRows(store::Store&, const std::string&,
                                      const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* spec = r.spec();
    // The URL as `hop get` shows it: its password redacted.
    Cell url = Text(spec, "url");
    if (url) url = RedactSecrets(*url);
    out.push_back({r.name(), std::move(url), Text(spec, "catalog"), Text(spec, "schema"),
                   Text(spec, "dialect"), Text(spec, "driver")});
  }
  return out;
}

Result<std::vector<Row>> EngineRows(store::Store&, const std::string&,
                                    const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* spec = r.spec();
    Cell databases;
    if (spec && spec->contains("databases") && (*spec)["databases"].is_array()) {
      databases = (*spec)["databases"].dump();
    }
    out.push_back(
        {r.name(), Text(spec, "url"), Text(spec, "dialect"), Text(spec, "driver"), databases});
  }
  return out;
}

Result<std::vector<Row>> PipelineRows(store::Store&, const std::string&,
                                      const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* status = r.status();
    out.push_back(
        {r.name(), Bool(status, "ready"), Bool(status, "failed"), Text(status, "message")});
  }
  return out;
}

// The elements a Pipeline's spec.yaml names: (kind, namespace, name, the element's document).
struct Element {
  std::string id;  // `<Kind>/<name>`
  store::ObjectRef ref;
};

std::vector<Element> ElementsOf(const Resource& pipeline) {
  std::vector<Element> out;
  const std::string yaml = PipelineKind::kYaml.Get(pipeline).value_or("");
  auto docs = ParseYamlDocuments(yaml, "pipeline " + pipeline.name());
  if (!docs.ok()) return out;
  for (Json& doc : *docs) {
    if (doc.is_null()) continue;
    auto element = Resource::FromJson(std::move(doc), "pipeline " + pipeline.name());
    if (!element.ok()) continue;
    const std::string ns =
        element->namespace_name().empty() ? pipeline.namespace_name() : element->namespace_name();
    out.push_back(
        {element->kind() + "/" + element->name(), {element->group_kind(), ns, element->name()}});
  }
  return out;
}

// The elements the Pipeline reconciler found that spec.yaml does not name: hop's own refreshes
// of a materialized view (`refresh/<view>`, operator/view_refresh.h), as status.elements has them.
std::vector<const Json*> RefreshElementsOf(const Resource& pipeline) {
  std::vector<const Json*> out;
  const Json* status = pipeline.status();
  if (status == nullptr || !status->is_object()) return out;
  auto it = status->find("elements");
  if (it == status->end() || !it->is_array()) return out;
  for (const Json& s : *it) {
    if (s.is_object() && s.value("name", "").rfind("refresh/", 0) == 0) out.push_back(&s);
  }
  return out;
}

// An element's READY, FAILED and MESSAGE are what the Pipeline reconciler last found
// (status.elements); null before it has looked.
Result<std::vector<Row>> ElementRows(store::Store& store, const std::string&,
                                     const std::vector<Resource>& items) {
  std::vector<Row> out;
  std::set<std::string> seen;
  for (const Resource& pipeline : items) {
    const Json* status = pipeline.status();
    const Json* states = nullptr;
    if (status != nullptr && status->is_object()) {
      auto it = status->find("elements");
      if (it != status->end() && it->is_array()) states = &*it;
    }
    for (const Element& e : ElementsOf(pipeline)) {
      if (!seen.insert(e.id).second) continue;
      const Json* state = nullptr;
      if (states != nullptr) {
        for (const Json& s : *states) {
          if (s.is_object() && s.value("name", "") == e.id) state = &s;
        }
      }
      Cell configs;
      auto live = store.Find(e.ref);
      if (!live.ok()) return live.status();
      if (*live && (*live)->spec() && (*live)->spec()->contains("configs")) {
        configs = (*(*live)->spec())["configs"].dump();
      }
      Cell message = Text(state, "message");
      if (message && message->empty()) message.reset();
      out.push_back({e.id, Bool(state, "ready"), Bool(state, "failed"), message, configs});
    }
    for (const Json* state : RefreshElementsOf(pipeline)) {
      const std::string id = state->value("name", "");
      if (!seen.insert(id).second) continue;
      Cell message = Text(state, "message");
      if (message && message->empty()) message.reset();
      out.push_back({id, Bool(state, "ready"), Bool(state, "failed"), message, Cell()});
    }
  }
  return out;
}

Result<std::vector<Row>> ElementMapRows(store::Store&, const std::string&,
                                        const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& pipeline : items) {
    for (const Element& e : ElementsOf(pipeline)) out.push_back({e.id, pipeline.name()});
    for (const Json* state : RefreshElementsOf(pipeline)) {
      out.push_back({state->value("name", ""), pipeline.name()});
    }
  }
  return out;
}

Result<std::vector<Row>> TriggerRows(store::Store&, const std::string&,
                                     const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* spec = r.spec();
    const Json* status = r.status();
    out.push_back({r.name(), Text(spec, "catalog"), Text(spec, "schema"), Text(spec, "table"),
                   Bool(spec, "paused"), Text(status, "timestamp"), Text(status, "watermark")});
  }
  return out;
}

Result<std::vector<Row>> ViewRows(store::Store&, const std::string&,
                                  const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* spec = r.spec();
    Cell materialized = Bool(spec, "materialized");
    if (!materialized) materialized = "false";
    out.push_back({r.name(), Text(spec, "catalog"), Text(spec, "schema"), Text(spec, "view"),
                   Text(spec, "sql"), materialized});
  }
  return out;
}

Result<std::vector<Row>> RunRows(store::Store&, const std::string&,
                                 const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* status = r.status();
    if (status == nullptr || !status->contains("jobs") || !(*status)["jobs"].is_array()) continue;
    for (const Json& run : (*status)["jobs"]) {
      if (!run.is_object()) continue;
      out.push_back({r.name(), Text(&run, "name"), Text(&run, "from"), Text(&run, "to"),
                     Text(&run, "started"), Text(&run, "finished"), Text(&run, "outcome"),
                     Text(&run, "message")});
    }
  }
  return out;
}

// A Job's state from its conditions (batch/v1): Complete, Failed, Running or Pending.
std::string JobState(const Json* status) {
  if (status == nullptr || !status->is_object()) return "Pending";
  if (status->contains("conditions") && (*status)["conditions"].is_array()) {
    for (const Json& c : (*status)["conditions"]) {
      if (!c.is_object() || Text(&c, "status") != Cell("True")) continue;
      const Cell type = Text(&c, "type");
      if (type == Cell("Complete")) return "Complete";
      if (type == Cell("Failed")) return "Failed";
    }
  }
  const Cell active = Int(status, "active");
  if (active && *active != "0") return "Running";
  return "Pending";
}

Result<std::vector<Row>> JobRows(store::Store&, const std::string&,
                                 const std::vector<Resource>& items) {
  std::vector<Row> out;
  for (const Resource& r : items) {
    const Json* status = r.status();
    const auto labels = r.labels();
    auto trigger = labels.find("trigger");
    out.push_back({r.name(), trigger == labels.end() ? Cell() : Cell(trigger->second),
                   Int(status, "active"), Int(status, "succeeded"), Int(status, "failed"),
                   Text(status, "startTime"), Text(status, "completionTime"), JobState(status)});
  }
  return out;
}

Result<std::vector<Row>> WatermarkRows(store::Store& store, const std::string& ns,
                                       const std::vector<Resource>& tables) {
  std::vector<Row> out;
  for (const Resource& r : tables) {
    const Json* spec = r.spec();
    out.push_back({"TABLE", r.name(), Text(spec, "catalog"), Text(spec, "schema"),
                   Text(spec, "table"), Text(r.status(), "watermark")});
  }
  HOP_ASSIGN_OR_RETURN(auto views, store.List({ViewKind::Info().group_kind(), ns, {}}));
  for (const Resource& r : views.items) {
    const Json* spec = r.spec();
    const bool materialized = Bool(spec, "materialized") == Cell("true");
    out.push_back({materialized ? "MATERIALIZED VIEW" : "VIEW", r.name(), Text(spec, "catalog"),
                   Text(spec, "schema"), Text(spec, "view"), Text(r.status(), "watermark")});
  }
  return out;
}

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = {
      {"DATABASES",
       {{"NAME", "VARCHAR NOT NULL"},
        {"URL", "VARCHAR"},
        {"CATALOG", "VARCHAR"},
        {"SCHEMA", "VARCHAR"},
        {"DIALECT", "VARCHAR"},
        {"DRIVER", "VARCHAR"}},
       DatabaseKind::Info().group_kind(),
       "Database resources",
       true,
       DatabaseRows},
      {"ENGINES",
       {{"NAME", "VARCHAR NOT NULL"},
        {"URL", "VARCHAR"},
        {"DIALECT", "VARCHAR"},
        {"DRIVER", "VARCHAR"},
        {"DATABASES", "VARCHAR ARRAY"}},
       EngineKind::Info().group_kind(),
       "Engine resources",
       true,
       EngineRows},
      {"PIPELINES",
       {{"NAME", "VARCHAR NOT NULL"},
        {"READY", "BOOLEAN"},
        {"FAILED", "BOOLEAN"},
        {"MESSAGE", "VARCHAR"}},
       PipelineKind::Info().group_kind(),
       "Pipeline resources",
       true,
       PipelineRows},
      {"PIPELINE_ELEMENTS",
       {{"NAME", "VARCHAR NOT NULL"},
        {"READY", "BOOLEAN NOT NULL"},
        {"FAILED", "BOOLEAN NOT NULL"},
        {"MESSAGE", "VARCHAR"},
        {"CONFIGS", "VARCHAR"}},
       PipelineKind::Info().group_kind(),
       "the elements of Pipeline resources",
       false,
       ElementRows},
      {"PIPELINE_ELEMENT_MAP",
       {{"ELEMENT_NAME", "VARCHAR NOT NULL"}, {"PIPELINE_NAME", "VARCHAR NOT NULL"}},
       PipelineKind::Info().group_kind(),
       "the elements of Pipeline resources",
       false,
       ElementMapRows},
      {"TABLE_TRIGGERS",
       {{"NAME", "VARCHAR NOT NULL"},
        {"CATALOG", "VARCHAR"},
        {"SCHEMA", "VARCHAR"},
        {"TABLE", "VARCHAR"},
        {"PAUSED", "BOOLEAN"},
        {"TIMESTAMP", "TIMESTAMP(3)"},
        {"WATERMARK", "TIMESTAMP(3)"}},
       TableTriggerKind::Info().group_kind(),
       "TableTrigger resources",
       true,
       TriggerRows},
      {"VIEWS",
       {{"NAME", "VARCHAR NOT NULL"},
        {"CATALOG", "VARCHAR"},
        {"SCHEMA", "VARCHAR"},
        {"VIEW", "VARCHAR"},
        {"SQL", "VARCHAR"},
        {"MATERIALIZED", "BOOLEAN NOT NULL"}},
       ViewKind::Info().group_kind(),
       "View resources",
       true,
       ViewRows},
      {"TRIGGER_RUNS",
       {{"TRIGGER", "VARCHAR NOT NULL"},
        {"JOB", "VARCHAR"},
        {"WINDOW_FROM", "TIMESTAMP(3)"},
        {"WINDOW_TO", "TIMESTAMP(3)"},
        {"STARTED", "TIMESTAMP(3)"},
        {"FINISHED", "TIMESTAMP(3)"},
        {"OUTCOME", "VARCHAR"},
        {"MESSAGE", "VARCHAR"}},
       TableTriggerKind::Info().group_kind(),
       "the runs in TableTriggers' status.jobs",
       true,
       RunRows},
      {"JOBS",
       {{"NAME", "VARCHAR NOT NULL"},
        {"TRIGGER", "VARCHAR"},
        {"ACTIVE", "INTEGER"},
        {"SUCCEEDED", "INTEGER"},
        {"FAILED", "INTEGER"},
        {"STARTED", "TIMESTAMP(3)"},
        {"COMPLETED", "TIMESTAMP(3)"},
        {"STATUS", "VARCHAR NOT NULL"}},
       {"batch", "Job"},
       "batch/v1 Jobs",
       true,
       JobRows},
      {"WATERMARKS",
       {{"KIND", "VARCHAR NOT NULL"},
        {"NAME", "VARCHAR NOT NULL"},
        {"CATALOG", "VARCHAR"},
        {"SCHEMA", "VARCHAR"},
        {"TABLE", "VARCHAR"},
        {"WATERMARK", "TIMESTAMP(3)"}},
       TableKind::Info().group_kind(),
       "Table and View resources",
       false,
       WatermarkRows},
  };
  return specs;
}

class VectorCursor : public RowCursor {
 public:
  explicit VectorCursor(std::vector<Row> rows) : rows_(std::move(rows)) {}
  Result<bool> Next(Row& row) override {
    if (next_ >= rows_.size()) return false;
    row = std::move(rows_[next_++]);
    return true;
  }

 private:
  std::vector<Row> rows_;
  size_t next_ = 0;
};

class SystemSource : public TableSource {
 public:
  SystemSource(store::Store& store, std::string ns, const Spec& spec)
      : store_(store), ns_(std::move(ns)), spec_(spec) {}

  std::string Describe() const override { return "store: " + spec_.what; }
  bool Narrows(int column) const override { return spec_.by_name && column == 0; }
  double EstimatedRows() const override { return 100; }

  Result<std::unique_ptr<RowCursor>> Open(const ScanRequest& request) const override {
    std::vector<Resource> items;
    std::optional<std::string> name;
    for (const ScanConstraint& c : request.constraints) {
      if (c.column == 0 && spec_.by_name) name = c.value;
    }
    if (name) {
      auto got = store_.Get({spec_.kind, ns_, *name});
      if (got.ok()) {
        items.push_back(std::move(got).value());
      } else if (got.status().code() != StatusCode::kNotFound) {
        return got.status();
      }
    } else {
      HOP_ASSIGN_OR_RETURN(auto listed, store_.List({spec_.kind, ns_, {}}));
      items = std::move(listed.items);
    }
    HOP_ASSIGN_OR_RETURN(std::vector<Row> rows, spec_.rows(store_, ns_, items));
    return std::unique_ptr<RowCursor>(std::make_unique<VectorCursor>(std::move(rows)));
  }

 private:
  store::Store& store_;
  std::string ns_;
  const Spec& spec_;
};

}  // namespace

Schema SystemSchema(store::Store& store, std::string namespace_name) {
  Schema s;
  s.name = std::string(kSystemSchema);
  s.adapter = Adapter::kSystem;
  for (const Spec& spec : Specs()) {
    Table t;
    t.name = spec.name;
    t.path = {s.name, spec.name};
    for (const auto& [column, type] : spec.columns) {
      auto parsed = ParseColumnType(type);
      t.row_type.columns.push_back({column, *parsed});
    }
    t.source = std::make_shared<SystemSource>(store, namespace_name, spec);
    s.tables.emplace(spec.name, std::move(t));
  }
  return s;
}

}  // namespace hop::catalog
