// The definitions of hop's kinds and of the external kinds hop can name, and the typed field
// handles that read and write them.
#include "resource/kinds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <nlohmann/json.hpp>

#include "common/digest.h"
#include "common/strings.h"
#include "resource/json_parse.h"
#include "resource/names.h"

namespace hop::resource {

// ---------------------------------------------------------------------------------------------
// Field<T>

namespace {

template <typename T>
constexpr Schema::Type SchemaTypeFor() {
  if constexpr (std::is_same_v<T, std::string>) return Schema::Type::kString;
  if constexpr (std::is_same_v<T, bool>) return Schema::Type::kBoolean;
  if constexpr (std::is_same_v<T, int64_t>) return Schema::Type::kInteger;
  if constexpr (std::is_same_v<T, StringList>) return Schema::Type::kArray;
  if constexpr (std::is_same_v<T, StringMap>) return Schema::Type::kObject;
  return Schema::Type::kObject;  // Json: free-form
}

const char* SectionName(Section s) { return s == Section::kSpec ? "spec" : "status"; }

const Json* SectionOf(const Resource& r, Section s) {
  return s == Section::kSpec ? r.spec() : r.status();
}

Json& MutableSectionOf(Resource& r, Section s) {
  return s == Section::kSpec ? r.mutable_spec() : r.mutable_status();
}

}  // namespace

template <typename T>
Field<T>::Field(Section section, std::string name, Schema schema, bool required)
    : section_(section), name_(std::move(name)), schema_(std::move(schema)), required_(required) {
  // A handle whose C++ type disagrees with its schema would read nothing: a definition bug.
  assert((std::is_same_v<T, Json> || schema_.type == SchemaTypeFor<T>()) &&
         "field type does not match its schema");
}

template <typename T>
std::string Field<T>::path() const {
  return std::string(SectionName(section_)) + "." + name_;
}

template <typename T>
std::optional<T> Field<T>::Get(const Resource& r) const {
  const Json* section = SectionOf(r, section_);
  if (!section) return std::nullopt;
  auto it = section->find(name_);
  if (it == section->end() || it->is_null()) return std::nullopt;
  const Json& v = *it;
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string()) return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v.is_boolean()) return v.get<bool>();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (v.is_number_integer()) return v.get<int64_t>();
  } else if constexpr (std::is_same_v<T, StringList>) {
    if (v.is_array()) {
      StringList out;
      for (const Json& e : v) {
        if (!e.is_string()) return std::nullopt;
        out.push_back(e.get<std::string>());
      }
      return out;
    }
  } else if constexpr (std::is_same_v<T, StringMap>) {
    if (v.is_object()) {
      StringMap out;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!it.value().is_string()) return std::nullopt;
        out[it.key()] = it.value().template get<std::string>();
      }
      return out;
    }
  } else {
    return v;
  }
  return std::nullopt;
}

template <typename T>
void Field<T>::Set(Resource& r, const T& value) const {
  MutableSectionOf(r, section_)[name_] = value;
}

template <typename T>
void Field<T>::Clear(Resource& r) const {
  const Json* section = SectionOf(r, section_);
  if (section && section->contains(name_)) MutableSectionOf(r, section_).erase(name_);
}

template class Field<std::string>;
template class Field<bool>;
template class Field<int64_t>;
template class Field<StringList>;
template class Field<StringMap>;
template class Field<Json>;

Schema KindInfo::ObjectFields() const {
  if (!top_level.properties.empty()) return top_level;
  return Schema::Object().Property("spec", spec).Property("status", status);
}

// ---------------------------------------------------------------------------------------------
// Kind definitions

namespace {

using S = Section;

Schema Str(std::string d) { return Schema::String(std::move(d)); }
Schema Bool(std::string d) { return Schema::Boolean(std::move(d)); }
Schema Strings(std::string d) { return Schema::ArrayOf(Schema::String(), std::move(d)); }
Schema StrMap(std::string d) { return Schema::MapOf(Schema::String(), std::move(d)); }
// A column of a Table, and of a TableProvisionJob that hop writes.
Schema ColumnList(std::string description) {
  return Schema::ArrayOf(Schema::Object("A column.")
                             .Property("name", Str("Column name."), true)
                             .Property("type", Str("Column type, in SQL."), true)
                             .Property("nullable", Bool("Whether the column may hold NULL.")),
                         std::move(description));
}

// Builds a KindInfo's spec and status schemas from its field handles.
class KindBuilder {
 public:
  KindBuilder(std::string kind, std::string plural, std::vector<std::string> short_names,
              std::string description) {
    info_.group = std::string(kHopGroup);
    info_.version = std::string(kHopVersion);
    info_.kind = std::move(kind);
    info_.plural = std::move(plural);
    info_.singular = AsciiToLower(info_.kind);
    info_.short_names = std::move(short_names);
    info_.description = std::move(description);
    info_.spec = Schema::Object(info_.kind + " spec.");
    info_.status = Schema::Object(info_.kind + " status.");
    info_.categories = {"all", "hoptimator"};
  }
  template <typename T>
  KindBuilder& Add(const Field<T>& f) {
    Schema& target = f.section() == S::kSpec ? info_.spec : info_.status;
    target.Property(f.name(), f.schema(), f.required());
    return *this;
  }
  KindBuilder& NoStatusSubresource() {
    info_.status_subresource = false;
    return *this;
  }
  // A status the kind does not define field by field.
  KindBuilder& FreeFormStatus() {
    info_.status = Schema::FreeForm(info_.kind + " status.");
    return *this;
  }
  KindBuilder& Column(std::string name, std::string type, std::string path, std::string description,
                      std::string format = {}) {
    info_.columns.push_back({std::move(name), std::move(type), std::move(path),
                             std::move(description), std::move(format)});
    return *this;
  }
  KindInfo Build() { return std::move(info_); }

 private:
  KindInfo info_;
};

}  // namespace

// Database
const Field<std::string> DatabaseKind::kUrl(S::kSpec, "url", Str("JDBC connection URL."), true);
const Field<std::string> DatabaseKind::kCatalog(S::kSpec, "catalog",
                                                Str("Catalog name; for catalog-style databases."));
const Field<std::string> DatabaseKind::kSchema(S::kSpec, "schema", Str("Schema name."));
const Field<std::string> DatabaseKind::kDialect(S::kSpec, "dialect",
                                                Schema::Enum({"ANSI", "MySQL", "Calcite"},
                                                             "SQL dialect of the database."));
const Field<std::string> DatabaseKind::kDriver(S::kSpec, "driver", Str("JDBC driver class."));
const Field<std::string> DatabaseKind::kProvisioning(
    S::kSpec, "provisioning",
    Schema::Enum({std::string(kProvisioningSync), std::string(kProvisioningAsync)},
                 "hop: how CREATE TABLE makes the tables of a database hop provisions exist: "
                 "inside the statement (sync, the default), or through a TableProvisionJob that "
                 "the operator reconciles (async)."));

const KindInfo& DatabaseKind::Info() {
  static const KindInfo info =
      KindBuilder("Database", "databases", {"db", "dbs"}, "A database hop reads and writes.")
          .Add(kUrl)
          .Add(kCatalog)
          .Add(kSchema)
          .Add(kDialect)
          .Add(kDriver)
          .Add(kProvisioning)
          .FreeFormStatus()
          .Column("CATALOG", "string", ".spec.catalog", "Catalog name.")
          .Column("SCHEMA", "string", ".spec.schema", "Schema name.")
          .Column("URL", "string", ".spec.url", "JDBC connection URL.")
          .Build();
  return info;
}

// Engine
const Field<std::string> EngineKind::kUrl(S::kSpec, "url", Str("JDBC connection URL."), true);
const Field<std::string> EngineKind::kDialect(S::kSpec, "dialect",
                                              Schema::Enum({"ANSI", "Flink"},
                                                           "SQL dialect of the engine."));
const Field<std::string> EngineKind::kDriver(S::kSpec, "driver", Str("JDBC driver class."));
const Field<StringList> EngineKind::kDatabases(
    S::kSpec, "databases", Strings("Databases the engine serves; absent means all."));

const KindInfo& EngineKind::Info() {
  static const KindInfo info =
      KindBuilder("Engine", "engines", {"eng"}, "A query engine that can run hop's SQL.")
          .Add(kUrl)
          .Add(kDialect)
          .Add(kDriver)
          .Add(kDatabases)
          .FreeFormStatus()
          .Column("URL", "string", ".spec.url", "JDBC connection URL.")
          .Build();
  return info;
}

// View
const Field<std::string> ViewKind::kView(S::kSpec, "view", Str("View name."), true);
const Field<std::string> ViewKind::kSql(S::kSpec, "sql", Str("The view's query."), true);
const Field<std::string> ViewKind::kSchema(S::kSpec, "schema", Str("Schema name."));
const Field<std::string> ViewKind::kCatalog(S::kSpec, "catalog", Str("Catalog name."));
const Field<bool> ViewKind::kMaterialized(S::kSpec, "materialized",
                                          Bool("Whether a pipeline materialises the view."));
const Field<std::string> ViewKind::kSchedule(
    S::kSpec, "schedule",
    Str("Materialized views: cron schedule of refreshes (REFRESHED), in UTC."));
const Field<StringMap> ViewKind::kOptions(
    S::kSpec, "options", StrMap("Materialized views: the WITH options, hints of its pipeline."));
const Field<bool> ViewKind::kPaused(S::kSpec, "paused",
                                    Bool("Materialized views: whether refreshes are paused."));
const Field<std::string> ViewKind::kWatermark(
    S::kStatus, "watermark", Schema::DateTime("Time up to which the view's data is complete."));
const Field<std::string> ViewKind::kTimestamp(
    S::kStatus, "timestamp", Schema::DateTime("Time a refresh was last requested."));
const Field<StringList> ViewKind::kPendingFires(
    S::kStatus, "pendingFires",
    Schema::ArrayOf(Schema::DateTime(),
                    "hop: watermarks not yet recorded as fires on the view's triggers, oldest "
                    "first."));

std::string ViewKind::NameKey(std::string_view catalog, std::string_view schema,
                              std::string_view view) {
  return Json::array({"view", catalog, schema, view}).dump();
}

std::string ViewKind::SchemaKey(std::string_view catalog, std::string_view schema) {
  return Json::array({"view-schema", catalog, schema}).dump();
}

std::string ViewKind::CatalogKey(std::string_view catalog) {
  return Json::array({"view-catalog", catalog}).dump();
}

std::vector<std::string> ViewKind::Path(const Resource& view) {
  std::vector<std::string> path;
  if (auto c = kCatalog.Get(view); c && !c->empty()) path.push_back(*c);
  path.push_back(kSchema.Get(view).value_or("DEFAULT"));
  path.push_back(kView.Get(view).value_or(view.name()));
  return path;
}

namespace {

// Whether `r` may have work pending (kMayBeBusyKey): it has a status, or carries `marker` (a
// label or an annotation).
bool MayBeBusy(const Resource& r, std::string_view marker, bool annotation) {
  if (const Json* status = r.status();
      status != nullptr && status->is_object() && !status->empty()) {
    return true;
  }
  const auto marks = annotation ? r.annotations() : r.labels();
  return marks.count(std::string(marker)) != 0;
}

std::vector<std::string> ViewIndexKeys(const Resource& r) {
  const std::string catalog = ViewKind::kCatalog.Get(r).value_or("");
  const std::string schema = ViewKind::kSchema.Get(r).value_or("DEFAULT");
  std::vector<std::string> keys = {
      ViewKind::NameKey(catalog, schema, ViewKind::kView.Get(r).value_or(r.name())),
      ViewKind::SchemaKey(catalog, schema), ViewKind::CatalogKey(catalog)};
  if (MayBeBusy(r, kWatermarkPolicyLabel, /*annotation=*/false)) keys.emplace_back(kMayBeBusyKey);
  return keys;
}

}  // namespace

const KindInfo& ViewKind::Info() {
  static const KindInfo info = [] {
    KindInfo i = KindBuilder("View", "views", {}, "A SQL view, plain or materialised.")
                     .Add(kView)
                     .Add(kSql)
                     .Add(kSchema)
                     .Add(kCatalog)
                     .Add(kMaterialized)
                     .Add(kSchedule)
                     .Add(kOptions)
                     .Add(kPaused)
                     .Add(kWatermark)
                     .Add(kTimestamp)
                     .Add(kPendingFires)
                     .Column("CATALOG", "string", ".spec.catalog", "Catalog name.")
                     .Column("SCHEMA", "string", ".spec.schema", "Schema name.")
                     .Column("VIEW", "string", ".spec.view", "View name.")
                     .Column("WATERMARK", "string", ".status.watermark", "Completeness watermark.",
                             "date-time")
                     .Build();
    i.index_keys = &ViewIndexKeys;
    return i;
  }();
  return info;
}

// Pipeline
const Field<std::string> PipelineKind::kSql(S::kSpec, "sql", Str("The pipeline's SQL."));
const Field<std::string> PipelineKind::kYaml(S::kSpec, "yaml",
                                             Str("The pipeline's elements, as YAML documents."));
const Field<bool> PipelineKind::kReady(S::kStatus, "ready",
                                       Bool("Whether every element is ready."));
const Field<bool> PipelineKind::kFailed(S::kStatus, "failed",
                                        Bool("Whether an element has failed."));
const Field<std::string> PipelineKind::kMessage(S::kStatus, "message",
                                                Str("Human-readable status."));
const Field<Json> PipelineKind::kJobs(S::kStatus, "jobs", Schema::FreeForm("Element states."));

const KindInfo& PipelineKind::Info() {
  static const KindInfo info =
      KindBuilder("Pipeline", "pipelines", {"pip", "pips"}, "A deployed data pipeline.")
          .Add(kSql)
          .Add(kYaml)
          .Add(kReady)
          .Add(kFailed)
          .Add(kMessage)
          .Add(kJobs)
          .Column("SQL", "string", ".spec.sql", "Pipeline SQL.")
          .Column("STATUS", "string", ".status.message", "Current status.")
          .Build();
  return info;
}

// TableTemplate
const Field<std::string> TableTemplateKind::kYaml(S::kSpec, "yaml",
                                                  Str("Resources to create for a table."));
const Field<std::string> TableTemplateKind::kConnector(
    S::kSpec, "connector", Str("Connector configuration, as properties."));
const Field<StringList> TableTemplateKind::kDatabases(
    S::kSpec, "databases", Strings("Databases the template applies to; absent or empty: all."));
const Field<StringList> TableTemplateKind::kMethods(
    S::kSpec, "methods",
    Schema::ArrayOf(Schema::Enum({"Scan", "Modify"}),
                    "Access methods the template applies to; absent or empty: all."));

const KindInfo& TableTemplateKind::Info() {
  static const KindInfo info = KindBuilder("TableTemplate", "tabletemplates", {"tabt"},
                                           "Resources and connector configuration for tables.")
                                   .Add(kYaml)
                                   .Add(kConnector)
                                   .Add(kDatabases)
                                   .Add(kMethods)
                                   .NoStatusSubresource()
                                   .FreeFormStatus()
                                   .Build();
  return info;
}

// JobTemplate
const Field<std::string> JobTemplateKind::kYaml(S::kSpec, "yaml",
                                                Str("Resources to create for a job."));
const Field<StringList> JobTemplateKind::kDatabases(
    S::kSpec, "databases",
    Strings("Sink databases the template applies to; absent or empty: all."));
const Field<bool> JobTemplateKind::kProvisionsTables(
    S::kSpec, "provisionsTables",
    Bool("hop: the template provisions tables. It renders for CREATE TABLE and for each source "
         "and sink of a materialized view in its databases, and never for a pipeline's job."));

const KindInfo& JobTemplateKind::Info() {
  static const KindInfo info =
      KindBuilder("JobTemplate", "jobtemplates", {"jobt"}, "Resources to create for jobs.")
          .Add(kYaml)
          .Add(kDatabases)
          .Add(kProvisionsTables)
          .NoStatusSubresource()
          .FreeFormStatus()
          .Build();
  return info;
}

// TableTrigger
const Field<std::string> TableTriggerKind::kCatalog(S::kSpec, "catalog", Str("Catalog name."));
const Field<std::string> TableTriggerKind::kSchema(S::kSpec, "schema",
                                                   Str("Schema of the table, e.g. KAFKA."), true);
const Field<std::string> TableTriggerKind::kTable(S::kSpec, "table", Str("Table (or view) name."),
                                                  true);
const Field<std::string> TableTriggerKind::kYaml(S::kSpec, "yaml",
                                                 Str("The Job to create when the trigger fires."));
const Field<StringMap> TableTriggerKind::kJobProperties(
    S::kSpec, "jobProperties", StrMap("Properties passed to the job's template."));
const Field<std::string> TableTriggerKind::kSchedule(S::kSpec, "schedule",
                                                     Str("Cron schedule, in UTC."));
const Field<bool> TableTriggerKind::kPaused(S::kSpec, "paused", Bool("Whether firing is paused."));
const Field<std::string> TableTriggerKind::kTimestamp(
    S::kStatus, "timestamp", Schema::DateTime("Time the trigger last fired."));
const Field<std::string> TableTriggerKind::kWatermark(
    S::kStatus, "watermark", Schema::DateTime("Fire time covered by the last successful run."));
const Field<std::string> TableTriggerKind::kFirePolicy(
    S::kSpec, "firePolicy",
    Schema::Enum({"Coalesce", "Each"},
                 "hop: fires that arrive during a run are coalesced into the next run "
                 "(Coalesce, the default) or each get their own run, in order (Each)."));
const Field<Json> TableTriggerKind::kJobs(
    S::kStatus, "jobs",
    Schema::ArrayOf(Schema::Object()
                        .Property("name", Str("The run's Job."))
                        .Property("namespace", Str("The Job's namespace."))
                        .Property("from", Schema::DateTime("Start of the window (exclusive)."))
                        .Property("to", Schema::DateTime("End of the window: the fire it runs."))
                        .Property("started", Schema::DateTime("When the run started."))
                        .Property("finished", Schema::DateTime("When it finished."))
                        .Property("outcome", Schema::Enum({"Succeeded", "Failed"}, "How."))
                        .Property("message", Str("Why it failed."))
                        .Property("retry", Schema::Integer("Which retry of its window it is.")),
                    "hop: recent runs, newest last, and the window each consumed."));
const Field<StringList> TableTriggerKind::kPending(
    S::kStatus, "pending", Strings("hop: fires not run yet (firePolicy Each), oldest first."));
const Field<std::string> TableTriggerKind::kLastSchedule(
    S::kStatus, "lastSchedule", Schema::DateTime("hop: the latest cron tick accounted for."));
const Field<std::string> TableTriggerKind::kMessage(S::kStatus, "message",
                                                    Str("hop: why the last run failed."));
const Field<std::string> TableTriggerKind::kRetry(
    S::kStatus, "retry",
    Schema::DateTime("hop: the end of the failed window asked to run again (FIRE TRIGGER ... "
                     "RETRY)."));
const Field<std::string> TableTriggerKind::kLastRun(S::kStatus, "lastRun",
                                                    Schema::Enum({"Running", "Succeeded", "Failed"},
                                                                 "hop: how the newest run is."));
const Field<StringList> TableTriggerKind::kOutputs(
    S::kSpec, "outputs",
    Schema::ArrayOf(Str("table/NAME or view/NAME."),
                    "hop: the Tables and Views its Job materialises; their watermarks advance to "
                    "the end of a run's window when the run succeeds."));

const KindInfo& TableTriggerKind::Info() {
  static const KindInfo info =
      KindBuilder("TableTrigger", "tabletriggers", {},
                  "Runs a job when a table or view advances, or on a schedule.")
          .Add(kCatalog)
          .Add(kSchema)
          .Add(kTable)
          .Add(kYaml)
          .Add(kJobProperties)
          .Add(kSchedule)
          .Add(kPaused)
          .Add(kTimestamp)
          .Add(kWatermark)
          .Add(kJobs)
          .Add(kFirePolicy)
          .Add(kPending)
          .Add(kLastSchedule)
          .Add(kMessage)
          .Add(kRetry)
          .Add(kLastRun)
          .Add(kOutputs)
          .Column("PAUSED", "boolean", ".spec.paused", "Whether firing is paused.")
          .Column("CATALOG", "string", ".spec.catalog", "Catalog name.")
          .Column("SCHEMA", "string", ".spec.schema", "Schema name.")
          .Column("TABLE", "string", ".spec.table", "Table name.")
          .Column("SCHEDULE", "string", ".spec.schedule", "Cron schedule.")
          .Column("TIMESTAMP", "string", ".status.timestamp", "Time last fired.", "date-time")
          .Column("WATERMARK", "string", ".status.watermark", "Last successful fire time.",
                  "date-time")
          .Column("LAST RUN", "string", ".status.lastRun", "How the newest run is.")
          .Build();
  return info;
}

// Subscription
const Field<std::string> SubscriptionKind::kSql(S::kSpec, "sql", Str("A single SQL query."), true);
const Field<std::string> SubscriptionKind::kDatabase(S::kSpec, "database",
                                                     Str("Database to write to."), true);
const Field<StringMap> SubscriptionKind::kHints(S::kSpec, "hints", StrMap("Planner hints."));
const Field<bool> SubscriptionKind::kReady(S::kStatus, "ready", Bool("Whether it is ready."));
const Field<bool> SubscriptionKind::kFailed(S::kStatus, "failed", Bool("Whether it has failed."));
const Field<std::string> SubscriptionKind::kMessage(S::kStatus, "message",
                                                    Str("Human-readable status."));
const Field<std::string> SubscriptionKind::kStatusSql(S::kStatus, "sql",
                                                      Str("The SQL being implemented."));
const Field<StringMap> SubscriptionKind::kStatusHints(S::kStatus, "hints",
                                                      StrMap("Hints being applied."));
const Field<StringMap> SubscriptionKind::kAttributes(S::kStatus, "attributes",
                                                     StrMap("Derived attributes."));
const Field<StringList> SubscriptionKind::kResources(S::kStatus, "resources",
                                                     Strings("Resources implementing it."));
const Field<StringList> SubscriptionKind::kJobResources(S::kStatus, "jobResources",
                                                        Strings("Job resources."));
const Field<StringList> SubscriptionKind::kDownstreamResources(S::kStatus, "downstreamResources",
                                                               Strings("Downstream resources."));

const KindInfo& SubscriptionKind::Info() {
  static const KindInfo info = KindBuilder("Subscription", "subscriptions", {"sub", "subs"},
                                           "A query whose results are kept in a database.")
                                   .Add(kSql)
                                   .Add(kDatabase)
                                   .Add(kHints)
                                   .Add(kReady)
                                   .Add(kFailed)
                                   .Add(kMessage)
                                   .Add(kStatusSql)
                                   .Add(kStatusHints)
                                   .Add(kAttributes)
                                   .Add(kResources)
                                   .Add(kJobResources)
                                   .Add(kDownstreamResources)
                                   .Column("STATUS", "string", ".status.message", "Current status.")
                                   .Column("DB", "string", ".spec.database", "Database.")
                                   .Column("SQL", "string", ".spec.sql", "Query.")
                                   .Build();
  return info;
}

// LogicalTable
const Field<std::string> LogicalTableKind::kTableName(S::kSpec, "tableName",
                                                      Str("The logical table's name."));
const Field<Json> LogicalTableKind::kTiers(
    S::kSpec, "tiers",
    Schema::MapOf(Schema::Object("A tier.").Property("database", Str("Database of the tier."),
                                                     true),
                  "Tiers by name (nearline, online, offline)."));

const KindInfo& LogicalTableKind::Info() {
  static const KindInfo info = KindBuilder("LogicalTable", "logicaltables", {"lt"},
                                           "A table kept in several tiers by pipelines.")
                                   .Add(kTableName)
                                   .Add(kTiers)
                                   .FreeFormStatus()
                                   .Build();
  return info;
}

// SqlJob
const Field<StringList> SqlJobKind::kSql(S::kSpec, "sql", Strings("SQL statements to run."), true);
const Field<std::string> SqlJobKind::kDialect(
    S::kSpec, "dialect",
    Schema::Enum({"Flink", "FlinkBeam", "Spark"}, "SQL dialect.").Default("Flink"));
const Field<std::string> SqlJobKind::kExecutionMode(
    S::kSpec, "executionMode",
    Schema::Enum({"Streaming", "Batch"}, "Execution mode.").Default("Streaming"));
const Field<StringMap> SqlJobKind::kConfigs(S::kSpec, "configs", StrMap("Engine configuration."));
const Field<bool> SqlJobKind::kReady(S::kStatus, "ready", Bool("Whether it is running."));
const Field<bool> SqlJobKind::kFailed(S::kStatus, "failed", Bool("Whether it has failed."));
const Field<std::string> SqlJobKind::kMessage(S::kStatus, "message", Str("Human-readable status."));
const Field<std::string> SqlJobKind::kStatusSql(S::kStatus, "sql", Str("The SQL being run."));
const Field<StringMap> SqlJobKind::kStatusConfigs(S::kStatus, "configs",
                                                  StrMap("Configuration in effect."));
const Field<int64_t> SqlJobKind::kLastDeployedAt(
    S::kStatus, "lastDeployedAt", Schema::Integer("Last deployment time, epoch milliseconds."));

const KindInfo& SqlJobKind::Info() {
  static const KindInfo info =
      KindBuilder("SqlJob", "sqljobs", {"sql", "sj"}, "A job defined by SQL statements.")
          .Add(kSql)
          .Add(kDialect)
          .Add(kExecutionMode)
          .Add(kConfigs)
          .Add(kReady)
          .Add(kFailed)
          .Add(kMessage)
          .Add(kStatusSql)
          .Add(kStatusConfigs)
          .Add(kLastDeployedAt)
          .Column("DIALECT", "string", ".spec.dialect", "SQL dialect.")
          .Column("MODE", "string", ".spec.executionMode", "Execution mode.")
          .Column("STATUS", "string", ".status.message", "Current status.")
          .Build();
  return info;
}

// Table
const Field<std::string> TableKind::kCatalog(S::kSpec, "catalog", Str("Catalog name."));
const Field<std::string> TableKind::kSchema(S::kSpec, "schema", Str("Schema name."));
const Field<std::string> TableKind::kTable(S::kSpec, "table", Str("Table name."), true);
const Field<std::string> TableKind::kDatabase(
    S::kSpec, "database", Str("Database (its Database resource's name) holding the table."), true);
const Field<Json> TableKind::kColumns(S::kSpec, "columns", ColumnList("Column definitions."));
const Field<StringMap> TableKind::kOptions(S::kSpec, "options", StrMap("Connector options."));
const Field<bool> TableKind::kReady(S::kStatus, "ready", Bool("Whether the table is ready."));
const Field<std::string> TableKind::kMessage(S::kStatus, "message", Str("Status message."));
const Field<std::string> TableKind::kWatermark(
    S::kStatus, "watermark",
    Schema::DateTime("hop: time up to which the table's data is complete."));
const Field<StringList> TableKind::kPendingFires(
    S::kStatus, "pendingFires",
    Schema::ArrayOf(Schema::DateTime(),
                    "hop: watermarks not yet recorded as fires on the table's triggers, oldest "
                    "first."));

std::string TableKind::NameKey(std::string_view database, std::string_view schema,
                               std::string_view table) {
  return Json::array({"table", database, schema, table}).dump();
}

std::string TableKind::SchemaKey(std::string_view database, std::string_view schema) {
  return Json::array({"table-schema", database, schema}).dump();
}

std::string TableKind::DatabaseKey(std::string_view database) {
  return Json::array({"table-database", database}).dump();
}

namespace {

std::vector<std::string> TableIndexKeys(const Resource& r) {
  const std::string database = TableKind::kDatabase.Get(r).value_or("");
  const std::string table = TableKind::kTable.Get(r).value_or(r.name());
  std::vector<std::string> keys = {TableKind::NameKey(database, "", table),
                                   TableKind::DatabaseKey(database)};
  if (auto schema = TableKind::kSchema.Get(r); schema && !schema->empty()) {
    keys.push_back(TableKind::NameKey(database, *schema, table));
    keys.push_back(TableKind::SchemaKey(database, *schema));
  }
  if (MayBeBusy(r, kFillAnnotation, /*annotation=*/true)) keys.emplace_back(kMayBeBusyKey);
  return keys;
}

}  // namespace

const KindInfo& TableKind::Info() {
  static const KindInfo info = [] {
    KindInfo i = KindBuilder("Table", "tables", {}, "A SQL table with connector configuration.")
                     .Add(kCatalog)
                     .Add(kSchema)
                     .Add(kTable)
                     .Add(kDatabase)
                     .Add(kColumns)
                     .Add(kOptions)
                     .Add(kReady)
                     .Add(kMessage)
                     .Add(kWatermark)
                     .Add(kPendingFires)
                     .Column("CATALOG", "string", ".spec.catalog", "Catalog name.")
                     .Column("SCHEMA", "string", ".spec.schema", "Schema name.")
                     .Column("TABLE", "string", ".spec.table", "Table name.")
                     .Column("DATABASE", "string", ".spec.database", "Database name.")
                     .Column("READY", "boolean", ".status.ready", "Whether the table is ready.")
                     .Build();
    i.index_keys = &TableIndexKeys;
    return i;
  }();
  return info;
}

// TableProvisionJob
const Field<std::string> TableProvisionJobKind::kDatabase(
    S::kSpec, "database", Str("Database (its Database resource's name) holding the table."), true);
const Field<std::string> TableProvisionJobKind::kCatalog(S::kSpec, "catalog", Str("Catalog name."));
const Field<std::string> TableProvisionJobKind::kSchema(S::kSpec, "schema", Str("Schema name."));
const Field<std::string> TableProvisionJobKind::kTable(S::kSpec, "table", Str("Table name."), true);
const Field<StringMap> TableProvisionJobKind::kOptions(S::kSpec, "options",
                                                       StrMap("Table options."));
const Field<Json> TableProvisionJobKind::kColumns(
    S::kSpec, "columns",
    ColumnList("hop: the table's columns, as a Table's, in the jobs hop writes for a Database "
               "with provisioning: async; absent, the columns of the Table resource of the name."));
const Field<bool> TableProvisionJobKind::kReady(S::kStatus, "ready",
                                                Bool("Whether the table exists."));
const Field<bool> TableProvisionJobKind::kFailed(S::kStatus, "failed",
                                                 Bool("Whether provisioning failed."));
const Field<std::string> TableProvisionJobKind::kMessage(S::kStatus, "message",
                                                         Str("Human-readable status."));
const Field<int64_t> TableProvisionJobKind::kObservedGeneration(
    S::kStatus, "observedGeneration", Schema::Integer("Generation the status describes."));
const Field<bool> TableProvisionJobKind::kRetrying(
    S::kStatus, "retrying",
    Bool("hop: the system could not be reached; the operator tries again, with backoff."));

const KindInfo& TableProvisionJobKind::Info() {
  static const KindInfo info =
      KindBuilder("TableProvisionJob", "tableprovisionjobs", {"tpj"},
                  "Makes a table exist in its database, asynchronously.")
          .Add(kDatabase)
          .Add(kCatalog)
          .Add(kSchema)
          .Add(kTable)
          .Add(kOptions)
          .Add(kColumns)
          .Add(kReady)
          .Add(kFailed)
          .Add(kMessage)
          .Add(kObservedGeneration)
          .Add(kRetrying)
          .Column("DATABASE", "string", ".spec.database", "Database.")
          .Column("TABLE", "string", ".spec.table", "Table.")
          .Column("READY", "boolean", ".status.ready", "Whether the table exists.")
          .Column("STATUS", "string", ".status.message", "Current status.")
          .Build();
  return info;
}

// ---------------------------------------------------------------------------------------------
// Registry

const std::vector<const KindInfo*>& HopKinds() {
  static const std::vector<const KindInfo*> kinds = {
      &DatabaseKind::Info(),     &EngineKind::Info(),        &ViewKind::Info(),
      &PipelineKind::Info(),     &TableTemplateKind::Info(), &JobTemplateKind::Info(),
      &TableTriggerKind::Info(), &SubscriptionKind::Info(),  &LogicalTableKind::Info(),
      &SqlJobKind::Info(),       &TableKind::Info(),         &TableProvisionJobKind::Info(),
  };
  return kinds;
}

namespace {

KindInfo External(std::string group, std::string version, std::string kind, std::string plural,
                  std::vector<std::string> short_names, bool status_subresource,
                  bool namespaced = true) {
  KindInfo info;
  info.group = std::move(group);
  info.version = std::move(version);
  info.kind = std::move(kind);
  info.plural = std::move(plural);
  info.singular = AsciiToLower(info.kind);
  info.short_names = std::move(short_names);
  info.status_subresource = status_subresource;
  info.namespaced = namespaced;
  info.spec = Schema::FreeForm();
  info.status = Schema::FreeForm();
  return info;
}

}  // namespace

namespace {

// The columns of a batch/v1 Job, as kubectl prints them, from what the Job's status records
// (docs/runtime.md, "Status"): what the local runner writes is what Kubernetes' Job controller
// writes, so a Job of a cluster reads the same.

const Json* JobMember(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

int64_t JobCount(const Json& object, std::initializer_list<const char*> path, int64_t absent) {
  const Json* v = JobMember(object, path);
  return v != nullptr && v->is_number_integer() ? v->get<int64_t>() : absent;
}

std::optional<SystemTime> JobTime(const Json* v) {
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return ParseRfc3339(v->get<std::string>());
}

// The condition `type` of the Job's status when its status is "True".
const Json* JobCondition(const Json& object, std::string_view type) {
  const Json* conditions = JobMember(object, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const Json& c : *conditions) {
    if (c.is_object() && c.value("type", "") == type && c.value("status", "") == "True") return &c;
  }
  return nullptr;
}

// Complete or Failed once the Job has finished; Terminating while it is being deleted;
// Suspended; Running once an attempt has started (also between attempts, while retries are
// left); Pending while nothing has started one (waiting for a free slot, or no runner).
std::string JobStatusCell(const Json& object, SystemTime /*now*/) {
  if (JobCondition(object, "Complete")) return "Complete";
  if (JobCondition(object, "Failed")) return "Failed";
  if (JobMember(object, {"metadata", "deletionTimestamp"})) return "Terminating";
  const Json* suspend = JobMember(object, {"spec", "suspend"});
  if (JobCondition(object, "Suspended") ||
      (suspend && suspend->is_boolean() && suspend->get<bool>())) {
    return "Suspended";
  }
  if (JobCount(object, {"status", "active"}, 0) > 0 || JobMember(object, {"status", "startTime"})) {
    return "Running";
  }
  return "Pending";
}

// Attempts that succeeded of those the Job needs: "0/1", "1/1".
std::string JobCompletionsCell(const Json& object, SystemTime /*now*/) {
  return std::to_string(JobCount(object, {"status", "succeeded"}, 0)) + "/" +
         std::to_string(JobCount(object, {"spec", "completions"}, 1));
}

// From the start of its first attempt to its completion, to when it failed, or, while it runs,
// to now; "" before it has started.
std::string JobDurationCell(const Json& object, SystemTime now) {
  const std::optional<SystemTime> start = JobTime(JobMember(object, {"status", "startTime"}));
  if (!start) return "";
  std::optional<SystemTime> end = JobTime(JobMember(object, {"status", "completionTime"}));
  if (!end) {
    if (const Json* failed = JobCondition(object, "Failed")) {
      end = JobTime(JobMember(*failed, {"lastTransitionTime"}));
      if (!end) return "";  // finished, but when is not recorded
    }
  }
  return HumanDuration(
      std::chrono::duration_cast<std::chrono::seconds>(end.value_or(now) - *start));
}

// What the Job was made for: its owner (a TableTrigger's run, a View's refresh), the controlling
// one first, as "kind/name"; else the trigger a run in another namespace than its trigger's
// records in its annotations (owner references never cross namespaces), as "tabletrigger/name
// in namespace"; "" for neither.
std::string JobOwnerCell(const Json& object, SystemTime /*now*/) {
  const Json* owners = JobMember(object, {"metadata", "ownerReferences"});
  if (owners != nullptr && owners->is_array()) {
    const Json* chosen = nullptr;
    for (const Json& o : *owners) {
      if (!o.is_object()) continue;
      if (chosen == nullptr ||
          (o.value("controller", false) && !chosen->value("controller", false))) {
        chosen = &o;
      }
    }
    if (chosen != nullptr) {
      return AsciiToLower(chosen->value("kind", "")) + "/" + chosen->value("name", "");
    }
  }
  const Json* trigger = JobMember(object, {"metadata", "annotations", "trigger"});
  const Json* trigger_ns =
      JobMember(object, {"metadata", "annotations", "hop.dev/trigger-namespace"});
  if (trigger != nullptr && trigger->is_string() && trigger_ns != nullptr &&
      trigger_ns->is_string()) {
    return "tabletrigger/" + trigger->get<std::string>() + " in " + trigger_ns->get<std::string>();
  }
  return "";
}

KindInfo BatchJob() {
  KindInfo info = External("batch", "v1", "Job", "jobs", {}, true);
  info.columns = {
      {"STATUS", "string", "", "Complete, Failed, Terminating, Suspended, Running or Pending.", "",
       &JobStatusCell},
      {"COMPLETIONS", "string", "", "Attempts that succeeded of those the Job needs.", "",
       &JobCompletionsCell},
      {"DURATION", "string", "", "From the first attempt's start to the end, or to now.", "",
       &JobDurationCell},
      {"OWNER", "string", "", "The trigger or view the Job runs for.", "", &JobOwnerCell},
  };
  return info;
}

std::vector<std::string> JobIndexKeys(const Resource& r) {
  if (BatchJobFinished(r)) return {};
  return {std::string(kUnfinishedJobKey)};
}

KindInfo WithKeys(KindInfo info, std::vector<std::string> (*keys)(const Resource&)) {
  info.index_keys = keys;
  return info;
}

// A kind `kubectl get all` lists, as Kubernetes puts its workloads and services in "all".
KindInfo InAll(KindInfo info) {
  info.categories = {"all"};
  return info;
}

// An int32 field, as Kubernetes' own types declare their counts and durations.
Schema Int32(std::string description) {
  Schema s = Schema::Integer(std::move(description));
  s.format = "int32";
  return s;
}

// A map of base64 strings (a ConfigMap's binaryData, a Secret's data).
Schema BytesMap(std::string description) {
  Schema bytes = Schema::String();
  bytes.format = "byte";
  return Schema::MapOf(std::move(bytes), std::move(description));
}

// A top-level field of `doc` as an update compares it: absent, null and empty are alike.
Json FieldOrNull(const Json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || it->empty()) return Json();
  return *it;
}

bool IsImmutable(const Json& doc) {
  auto it = doc.find("immutable");
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

// As Kubernetes refuses an update of a ConfigMap or Secret stored with `immutable: true`: its
// `fields` cannot change and `immutable` cannot be unset (docs/kubernetes-api.md "Kinds and
// discovery").
void CheckImmutable(const Json& stored, const Json& next, std::initializer_list<const char*> fields,
                    std::vector<std::string>* errors) {
  if (!IsImmutable(stored)) return;
  constexpr std::string_view kForbidden = "Forbidden: field is immutable when `immutable` is set";
  for (const char* field : fields) {
    if (FieldOrNull(stored, field) != FieldOrNull(next, field)) {
      errors->push_back(fmt::format("{}: {}", field, kForbidden));
    }
  }
  if (!IsImmutable(next)) errors->push_back(fmt::format("immutable: {}", kForbidden));
}

void CheckConfigMapUpdate(const Json& stored, const Json& next, std::vector<std::string>* errors) {
  CheckImmutable(stored, next, {"data", "binaryData"}, errors);
}

// A Secret's type never changes (an unset one is Opaque, as Kubernetes defaults it); its data
// is immutable as a ConfigMap's (its stringData is in its data by now).
void CheckSecretUpdate(const Json& stored, const Json& next, std::vector<std::string>* errors) {
  auto type = [](const Json& doc) {
    auto it = doc.find("type");
    return it == doc.end() || it->is_null() || (it->is_string() && it->empty()) ? Json("Opaque")
                                                                                : *it;
  };
  if (type(stored) != type(next)) {
    errors->push_back(
        fmt::format("type: Invalid value: {}: field is immutable", type(next).dump()));
  }
  CheckImmutable(stored, next, {"data"}, errors);
}

// The keys of the map `field` of `object`, as a ConfigMap's or Secret's API server checks them
// (resource/names.h ValidateDataKey).
void CheckDataKeys(const Json& object, const char* field, std::vector<std::string>* errors) {
  auto map = object.find(field);
  if (map == object.end() || !map->is_object()) return;
  for (const auto& [key, value] : map->items()) {
    if (Status s = ValidateDataKey(key); !s.ok()) {
      errors->push_back(fmt::format("{}[{}]: {}", field, key, s.message()));
    }
  }
}

// A ConfigMap's keys, and no key in both its data and its binaryData.
void CheckConfigMap(const Json& object, std::vector<std::string>* errors) {
  CheckDataKeys(object, "data", errors);
  CheckDataKeys(object, "binaryData", errors);
  auto data = object.find("data");
  auto binary = object.find("binaryData");
  if (data == object.end() || binary == object.end() || !data->is_object() ||
      !binary->is_object()) {
    return;
  }
  for (const auto& [key, value] : data->items()) {
    if (!binary->contains(key)) continue;
    errors->push_back(
        fmt::format("data[{}]: Invalid value: {}: duplicate of key present in "
                    "binaryData",
                    key, Json(key).dump()));
  }
}

// The keys a Secret of a built-in type must hold, as its API server requires them: a TLS
// Secret's certificate and key, a basic-auth Secret's username or password (either may be
// empty), an SSH Secret's private key (not empty), a Docker Secret's configuration, which must
// be JSON of an object.
void CheckSecretType(const Json& object, std::vector<std::string>* errors) {
  auto type = object.find("type");
  if (type == object.end() || !type->is_string()) return;
  const std::string& t = type->get_ref<const std::string&>();
  static const Json kNone = Json::object();
  auto data_it = object.find("data");
  const Json& data = data_it != object.end() && data_it->is_object() ? *data_it : kNone;
  auto required = [&](std::string_view key) {
    errors->push_back(fmt::format("data[{}]: Required value", key));
  };
  // A value's bytes; none when it is absent, or not base64 (which its field's type names).
  auto bytes = [&](const char* key) -> std::optional<std::string> {
    auto it = data.find(key);
    if (it == data.end() || !it->is_string()) return std::nullopt;
    return Base64Decode(it->get_ref<const std::string&>());
  };
  if (t == "kubernetes.io/tls") {
    for (const char* key : {"tls.crt", "tls.key"}) {
      if (!data.contains(key)) required(key);
    }
  } else if (t == "kubernetes.io/basic-auth") {
    if (!data.contains("username") && !data.contains("password")) {
      required("username");
      required("password");
    }
  } else if (t == "kubernetes.io/ssh-auth") {
    if (!data.contains("ssh-privatekey") || bytes("ssh-privatekey") == std::string()) {
      required("ssh-privatekey");
    }
  } else if (t == "kubernetes.io/dockercfg" || t == "kubernetes.io/dockerconfigjson") {
    const char* key = t == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
    if (!data.contains(key)) {
      required(key);
      return;
    }
    const std::optional<std::string> text = bytes(key);
    if (!text) return;
    // null reads as an empty configuration, as the API server reads it.
    const Json config = ParseJsonOrDiscarded(*text);
    if (!config.is_object() && !config.is_null()) {
      errors->push_back(fmt::format(
          "data[{}]: Invalid value: \"<secret contents redacted>\": must be JSON of an object",
          key));
    }
  }
}

// A Secret's keys: its data's, with its stringData in it by now (a stringData that could not
// go into data is checked under its own name); and those its type requires.
void CheckSecret(const Json& object, std::vector<std::string>* errors) {
  CheckDataKeys(object, "data", errors);
  CheckDataKeys(object, "stringData", errors);
  CheckSecretType(object, errors);
}

KindInfo ConfigMap() {
  KindInfo info = External("", "v1", "ConfigMap", "configmaps", {"cm"}, false);
  info.description = "Configuration values, as strings and bytes.";
  info.top_level = Schema::Object()
                       .Property("binaryData", BytesMap("Binary values, base64-encoded."))
                       .Property("data", StrMap("The configuration values."))
                       .Property("immutable", Bool("If true, the data cannot change."));
  info.check_object = CheckConfigMap;
  info.check_update = CheckConfigMapUpdate;
  return info;
}

// As Kubernetes stores a Secret: each stringData value goes into data, base64-encoded (replacing
// a data value of the same key), and stringData itself is not kept: it is write-only, never
// read back in plain text. A stringData that is not a map of strings is left for validation to
// refuse.
void MergeStringData(Json& secret) {
  auto found = secret.find("stringData");
  if (found == secret.end() || !found->is_object()) return;
  for (const auto& [key, value] : found->items()) {
    if (!value.is_string()) return;
  }
  auto data = secret.find("data");
  if (data != secret.end() && !data->is_object() && !data->is_null()) return;
  // (Taken out first: adding "data" to the object may move its other members.)
  const Json string_data = std::move(*found);
  secret.erase("stringData");
  Json& merged = secret["data"];
  if (merged.is_null()) merged = Json::object();
  for (const auto& [key, value] : string_data.items()) {
    merged[key] = Base64Encode(value.get_ref<const std::string&>());
  }
}

KindInfo Secret() {
  KindInfo info = External("", "v1", "Secret", "secrets", {}, false);
  info.prepare_for_write = MergeStringData;
  info.check_object = CheckSecret;
  info.check_update = CheckSecretUpdate;
  info.description = "Secret values.";
  info.top_level =
      Schema::Object()
          .Property("data", BytesMap("The secret values, base64-encoded."))
          .Property("immutable", Bool("If true, the data cannot change."))
          .Property("stringData", StrMap("Secret values as plain text, merged into data on write."))
          .Property("type", Str("The kind of secret, e.g. Opaque."));
  return info;
}

// A v1 Namespace, whose name is a DNS-1123 label (the namespace of every object in it).
KindInfo Namespace() {
  KindInfo info = External("", "v1", "Namespace", "namespaces", {"ns"}, true, /*namespaced=*/false);
  info.validate_name = ValidateDnsLabel;
  return info;
}

// A v1 ServiceAccount: the identity a pod runs as; its fields are top-level.
KindInfo ServiceAccount() {
  KindInfo info = External("", "v1", "ServiceAccount", "serviceaccounts", {"sa"}, false);
  info.description = "An identity for processes that run in a pod.";
  Schema reference =
      Schema::Object("A reference to an object.")
          .Property("apiVersion", Str("API version of the referent."))
          .Property("fieldPath", Str("A piece of the object, when the reference is to one."))
          .Property("kind", Str("Kind of the referent."))
          .Property("name", Str("Name of the referent."))
          .Property("namespace", Str("Namespace of the referent."))
          .Property("resourceVersion", Str("The referent's resourceVersion."))
          .Property("uid", Str("UID of the referent."));
  info.top_level =
      Schema::Object()
          .Property("automountServiceAccountToken",
                    Bool("Whether pods running as this account get its token mounted."))
          .Property("imagePullSecrets",
                    Schema::ArrayOf(Schema::Object("A Secret in the same namespace.")
                                        .Property("name", Str("Name of the Secret.")),
                                    "Secrets used to pull the images of the account's pods."))
          .Property("secrets",
                    Schema::ArrayOf(std::move(reference), "Secrets the account's pods may use."));
  return info;
}

// A LabelSelector of metav1, as RBAC's aggregation rules hold it.
Schema LabelSelectorSchema(std::string description) {
  return Schema::Object(std::move(description))
      .Property(
          "matchExpressions",
          Schema::ArrayOf(Schema::Object("A requirement on one label.")
                              .Property("key", Str("The label key."), true)
                              .Property("operator", Str("In, NotIn, Exists or DoesNotExist."), true)
                              .Property("values", Strings("The values the operator uses.")),
                          "Requirements on labels, all of which must hold."))
      .Property("matchLabels", StrMap("Labels the objects must have, with these values."));
}

// rbac.authorization.k8s.io/v1 Role and ClusterRole: the rules are top-level.
KindInfo RbacRole(std::string kind, std::string plural, bool namespaced) {
  KindInfo info =
      External("rbac.authorization.k8s.io", "v1", kind, std::move(plural), {}, false, namespaced);
  info.description =
      namespaced ? "Permissions within a namespace." : "Permissions across the cluster.";
  Schema rule =
      Schema::Object("What may be done to which resources.")
          .Property("apiGroups", Strings("The API groups of the resources; \"\" is the core one."))
          .Property("nonResourceURLs", Strings("URLs that are not resources (ClusterRoles only)."))
          .Property("resourceNames", Strings("The names of the objects; all when empty."))
          .Property("resources", Strings("The resources (plural names, with /subresource)."))
          .Property("verbs", Strings("The verbs allowed (get, list, watch, create, ...)."), true);
  info.top_level = Schema::Object().Property(
      "rules", Schema::ArrayOf(std::move(rule), "The rules of the role."));
  if (!namespaced) {
    info.top_level.Property(
        "aggregationRule",
        Schema::Object("The ClusterRoles whose rules this one aggregates.")
            .Property("clusterRoleSelectors",
                      Schema::ArrayOf(LabelSelectorSchema("Selects ClusterRoles by label."),
                                      "Selectors of the ClusterRoles to aggregate.")));
  }
  return info;
}

// rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding: subjects and roleRef are
// top-level.
KindInfo RbacBinding(std::string kind, std::string plural, bool namespaced) {
  KindInfo info =
      External("rbac.authorization.k8s.io", "v1", kind, std::move(plural), {}, false, namespaced);
  info.description = "Grants a role's permissions to subjects.";
  Schema subject = Schema::Object("Who is granted the role.")
                       .Property("apiGroup", Str("The API group of the subject's kind."))
                       .Property("kind", Str("User, Group or ServiceAccount."), true)
                       .Property("name", Str("The subject's name."), true)
                       .Property("namespace", Str("The namespace of a ServiceAccount."));
  Schema role_ref = Schema::Object("The role granted.")
                        .Property("apiGroup", Str("The API group of the role."), true)
                        .Property("kind", Str("Role or ClusterRole."), true)
                        .Property("name", Str("The role's name."), true);
  info.top_level = Schema::Object()
                       .Property("roleRef", std::move(role_ref), true)
                       .Property("subjects", Schema::ArrayOf(std::move(subject), "The subjects."));
  return info;
}

// coordination.k8s.io/v1 Lease: a lock with a holder and a duration, what leader election
// takes (ARCHITECTURE.md §4.5). Its one field is spec; it has no status.
KindInfo Lease() {
  KindInfo info = External("coordination.k8s.io", "v1", "Lease", "leases", {}, false);
  info.description = "A lease: who holds a lock, since when and for how long.";
  info.top_level = Schema::Object().Property(
      "spec",
      Schema::Object("Who holds the lease, and its timing.")
          .Property("acquireTime",
                    Schema::DateTime("When the current holder acquired the lease (MicroTime)."))
          .Property("holderIdentity", Str("The identity of the holder."))
          .Property("leaseDurationSeconds",
                    Int32("How long candidates wait after the last renewal before they may "
                          "take the lease."))
          .Property("leaseTransitions", Int32("How many times the lease changed holders."))
          .Property("preferredHolder",
                    Str("The identity of the holder a coordinated election prefers."))
          .Property("renewTime",
                    Schema::DateTime("When the holder last renewed the lease (MicroTime)."))
          .Property("strategy", Str("The strategy of a coordinated leader election.")));
  return info;
}

}  // namespace

bool RefreshesOnSourceChange(const Resource& view) {
  const auto options = ViewKind::kOptions.Get(view);
  if (!options) return false;
  auto mode = options->find("refresh");
  return mode != options->end() && mode->second == kRefreshOnChange;
}

std::string QueryDigest(std::string_view sql) {
  return digest::Hex(digest::Of<digest::Sha256>(sql)).substr(0, 16);
}

bool BatchJobConditionTrue(const Resource& job, std::string_view type) {
  const Json* status = job.status();
  if (status == nullptr || !status->is_object()) return false;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return false;
  auto is = [](const Json& c, const char* key, std::string_view want) {
    auto it = c.find(key);
    return it != c.end() && it->is_string() && it->get<std::string>() == want;
  };
  return std::any_of(conditions->begin(), conditions->end(), [&](const Json& c) {
    return c.is_object() && is(c, "type", type) && is(c, "status", "True");
  });
}

bool BatchJobFinished(const Resource& job) {
  return BatchJobConditionTrue(job, "Complete") || BatchJobConditionTrue(job, "Failed");
}

const std::vector<const KindInfo*>& ExternalKinds() {
  static const std::vector<KindInfo> storage = {
      WithKeys(InAll(BatchJob()), &JobIndexKeys),
      ConfigMap(),
      Secret(),
      Namespace(),
      InAll(External("apps", "v1", "Deployment", "deployments", {"deploy"}, true)),
      External("flink.apache.org", "v1beta1", "FlinkDeployment", "flinkdeployments", {"flinkdep"},
               true),
      External("flink.apache.org", "v1beta1", "FlinkSessionJob", "flinksessionjobs", {}, true),
      External("kafka.strimzi.io", "v1beta2", "KafkaTopic", "kafkatopics", {"kt"}, true),
      Lease(),
      ServiceAccount(),
      InAll(External("", "v1", "Service", "services", {"svc"}, true)),
      RbacRole("Role", "roles", /*namespaced=*/true),
      RbacRole("ClusterRole", "clusterroles", /*namespaced=*/false),
      RbacBinding("RoleBinding", "rolebindings", /*namespaced=*/true),
      RbacBinding("ClusterRoleBinding", "clusterrolebindings", /*namespaced=*/false),
      // The API reads installed CRDs itself (resource/crd.h); their spec is checked there.
      External(std::string(kApiextensionsGroup), "v1", "CustomResourceDefinition",
               "customresourcedefinitions", {"crd", "crds"}, true, /*namespaced=*/false),
  };
  static const std::vector<const KindInfo*> kinds = [] {
    std::vector<const KindInfo*> out;
    for (const auto& k : storage) out.push_back(&k);
    return out;
  }();
  return kinds;
}

namespace {

bool Names(const KindInfo& k, std::string_view name) {
  if (EqualsIgnoreCase(k.kind, name) || EqualsIgnoreCase(k.plural, name) ||
      EqualsIgnoreCase(k.singular, name)) {
    return true;
  }
  for (const auto& s : k.short_names) {
    if (EqualsIgnoreCase(s, name)) return true;
  }
  return false;
}

}  // namespace

const KindInfo* LookupKind(std::string_view name) {
  std::string_view base = name;
  std::string_view group;
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    base = name.substr(0, dot);
    group = name.substr(dot + 1);
  }
  for (const auto* list : {&HopKinds(), &ExternalKinds()}) {
    for (const KindInfo* k : *list) {
      if (!Names(*k, base)) continue;
      if (dot != std::string_view::npos && !EqualsIgnoreCase(k->group, group)) continue;
      return k;
    }
  }
  return nullptr;
}

const KindInfo* FindKind(const GroupKind& gk) {
  for (const auto* list : {&HopKinds(), &ExternalKinds()}) {
    for (const KindInfo* k : *list) {
      if (k->group == gk.group && k->kind == gk.kind) return k;
    }
  }
  return nullptr;
}

std::vector<std::string> ObjectErrors(const Resource& r) {
  std::vector<std::string> errors;
  const KindInfo* kind = FindKind(r.group_kind());
  if (kind == nullptr || kind->check_object == nullptr) return errors;
  Json prepared = r.json();
  if (kind->prepare_for_write != nullptr) kind->prepare_for_write(prepared);
  kind->check_object(prepared, &errors);
  return errors;
}

namespace {

// As the API server of every kind refuses it: a finalizer added to an object being deleted (one
// with a deletionTimestamp), which would hold it after its deletion was asked for. Removing
// finalizers is how the deletion ends, and stays allowed.
void CheckNoNewFinalizers(const Resource& stored, const Resource& next,
                          std::vector<std::string>* errors) {
  if (!stored.deletion_timestamp()) return;
  const std::vector<std::string> kept = stored.finalizers();
  std::vector<std::string> added;
  for (const std::string& f : next.finalizers()) {
    if (std::find(kept.begin(), kept.end(), f) != kept.end()) continue;
    added.push_back(Json(f).dump());
  }
  if (added.empty()) return;
  std::sort(added.begin(), added.end());
  added.erase(std::unique(added.begin(), added.end()), added.end());
  errors->push_back(
      fmt::format("metadata.finalizers: Forbidden: no new finalizers can be added if the object "
                  "is being deleted, found new finalizers []string{{{}}}",
                  Join(added, ", ")));
}

}  // namespace

std::vector<std::string> UpdateErrors(const Resource& stored, const Resource& next) {
  std::vector<std::string> errors;
  CheckNoNewFinalizers(stored, next, &errors);
  const KindInfo* kind = FindKind(next.group_kind());
  if (kind == nullptr || kind->check_update == nullptr) return errors;
  Json prepared = next.json();
  if (kind->prepare_for_write != nullptr) kind->prepare_for_write(prepared);
  kind->check_update(stored.json(), prepared, &errors);
  return errors;
}

const Json* PrinterColumnValue(const Json& doc, std::string_view path) {
  const Json* cur = &doc;
  size_t pos = 1;
  while (pos <= path.size()) {
    const size_t dot = path.find('.', pos);
    const std::string key(
        path.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos));
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return cur;
}

}  // namespace hop::resource
