// hop's resource kinds: group hoptimator.linkedin.com, version v1alpha1. Each kind is described
// once, by typed field handles; the same handles build the kind's schema (validation and CRD) and
// serve as its typed view, so code and CRD cannot drift apart.
//
//   std::string url = DatabaseKind::kUrl.Get(resource).value_or("");
//   TableTriggerKind::kPaused.Set(resource, true);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/time.h"
#include "resource/json.h"
#include "resource/resource.h"
#include "resource/schema.h"

namespace hop::resource {

inline constexpr std::string_view kHopGroup = "hoptimator.linkedin.com";
inline constexpr std::string_view kHopVersion = "v1alpha1";
inline constexpr std::string_view kHopApiVersion = "hoptimator.linkedin.com/v1alpha1";
// The group and kind of CustomResourceDefinitions (resource/crd.h).
inline constexpr std::string_view kApiextensionsGroup = "apiextensions.k8s.io";
inline constexpr std::string_view kCustomResourceDefinitionKind = "CustomResourceDefinition";

enum class Section : uint8_t { kSpec, kStatus };

using StringList = std::vector<std::string>;
using StringMap = std::map<std::string, std::string>;

// A typed handle on one top-level field of spec or status. T is std::string, bool, int64_t,
// std::vector<std::string>, std::map<std::string, std::string> or Json (free-form).
template <typename T>
class Field {
 public:
  Field(Section section, std::string name, Schema schema, bool required = false);

  Section section() const { return section_; }
  const std::string& name() const { return name_; }
  const Schema& schema() const { return schema_; }
  bool required() const { return required_; }
  // "spec.url"
  std::string path() const;

  // The value, or nullopt when absent, null or of another type.
  std::optional<T> Get(const Resource& r) const;
  void Set(Resource& r, const T& value) const;
  void Clear(Resource& r) const;

 private:
  Section section_;
  std::string name_;
  Schema schema_;
  bool required_;
};

struct PrinterColumn {
  std::string name;
  std::string type;  // string, boolean, integer, date
  std::string json_path;
  std::string description;
  std::string format;
  // A column no one field holds (a batch/v1 Job's STATUS, COMPLETIONS, DURATION): its text for
  // `object` at `now`, "" when the object records nothing for it; `json_path` is then empty.
  // Only kinds hop does not define have them, since a CRD's columns are JSON paths.
  std::string (*compute)(const Json& object, SystemTime now) = nullptr;
};

// Everything hop knows about a kind: names, scope, schema, printer columns.
struct KindInfo {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::string description;
  bool namespaced = true;
  bool status_subresource = true;
  Schema spec;
  Schema status;
  // The fields of a kind whose content sits at the top level of its objects instead of in spec
  // and status (a ConfigMap's data, a Role's rules, a RoleBinding's subjects and roleRef, a
  // Lease's spec without a status), as the properties of an object schema. Without properties,
  // the kind's fields are spec and status. Either way ObjectFields() gives them.
  Schema top_level;
  // The categories the kind belongs to (`kubectl get all` lists the kinds in "all").
  std::vector<std::string> categories;
  // The openAPIV3Schema of an installed CustomResourceDefinition that describes the kind
  // (resource/crd.h), which the OpenAPI documents then publish; null for the kinds as hop
  // defines them.
  std::shared_ptr<const Json> open_api_schema;
  std::vector<PrinterColumn> columns;
  // The index keys of an object of this kind: strings the store indexes, so that a list can ask
  // for the objects that have one (store::ListOptions::index_key) without reading the others.
  // Null: the kind has none.
  std::vector<std::string> (*index_keys)(const Resource& object) = nullptr;
  // What the kind's API server changes in an object as it stores it (a Secret's stringData goes
  // into its data), which a store that stands for that server does too. Null: nothing.
  void (*prepare_for_write)(Json& object) = nullptr;
  // The rule for the names of the kind's objects when it is not the DNS-1123 subdomain's
  // (resource/names.h ValidateObjectName): a Namespace's name is a DNS-1123 label, as the
  // namespace an object names must be. Null: the subdomain rule.
  Status (*validate_name)(std::string_view name) = nullptr;
  // What the kind's API server refuses in an object (as prepare_for_write left it) beyond the
  // types of its fields: one field error each, as `data[a b]: invalid data key ...`. Null:
  // nothing.
  void (*check_object)(const Json& object, std::vector<std::string>* errors) = nullptr;
  // What the kind's API server refuses in an update of `stored` to `next` (`next` as
  // prepare_for_write left it), beside what validation of `next` alone refuses: one field error
  // each, as `data: Forbidden: field is immutable when `immutable` is set`. Null: nothing.
  void (*check_update)(const Json& stored, const Json& next,
                       std::vector<std::string>* errors) = nullptr;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  GroupKind group_kind() const { return {group, kind}; }
  // The fields of the kind's objects besides apiVersion, kind and metadata, as an object
  // schema: top_level when it has properties, else spec and status.
  Schema ObjectFields() const;
};

// The kinds hop defines CRDs for, in a fixed order.
const std::vector<const KindInfo*>& HopKinds();

// Well-known kinds of other systems that hop stores and serves but does not define: Kubernetes'
// own (batch/v1 Job, ConfigMap, Secret, Service, ServiceAccount, coordination.k8s.io/v1 Lease,
// the RBAC kinds, CustomResourceDefinition, ...) and those of the systems hop's templates render
// (FlinkDeployment, FlinkSessionJob, KafkaTopic). Kinds whose fields are simple (a Lease's spec,
// a Role's rules) declare them; the others' spec and status are free-form.
const std::vector<const KindInfo*>& ExternalKinds();

// The kind named by `name` as a user types it: plural, singular, short name or Kind (any case),
// optionally qualified by group (`jobs.batch`). Hop kinds first, then external ones.
const KindInfo* LookupKind(std::string_view name);
// The hop or external kind with this group and kind, or null.
const KindInfo* FindKind(const GroupKind& gk);

// The errors KindInfo::check_object of the kind of `r` gives it (after prepare_for_write of a
// copy of `r`); empty when it is allowed or the kind has no such check.
std::vector<std::string> ObjectErrors(const Resource& r);

// The errors the API server of `next`'s kind gives an update of `stored` to `next`: for every
// kind, a finalizer added to an object being deleted (`metadata.finalizers: Forbidden: no new
// finalizers can be added if the object is being deleted, ...`), and what KindInfo::check_update
// of the kind says (after prepare_for_write of a copy of `next`); empty when it is allowed.
std::vector<std::string> UpdateErrors(const Resource& stored, const Resource& next);

// The value a printer column's JSON path (`.spec.url`, `.status.watermark`) selects in `doc`,
// or null when a step is missing.
const Json* PrinterColumnValue(const Json& doc, std::string_view json_path);

#define HOP_FIELD(type, name) static const Field<type> name

struct DatabaseKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kUrl);
  HOP_FIELD(std::string, kCatalog);
  HOP_FIELD(std::string, kSchema);
  HOP_FIELD(std::string, kDialect);
  HOP_FIELD(std::string, kDriver);
  HOP_FIELD(std::string, kProvisioning);  // hop: "sync" (the default) or "async"
};

// The values of DatabaseKind::kProvisioning.
inline constexpr std::string_view kProvisioningSync = "sync";
inline constexpr std::string_view kProvisioningAsync = "async";

struct EngineKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kUrl);
  HOP_FIELD(std::string, kDialect);
  HOP_FIELD(std::string, kDriver);
  HOP_FIELD(StringList, kDatabases);
};

struct ViewKind {
  static const KindInfo& Info();
  // The index keys of a View (KindInfo::index_keys): NameKey of its catalog, schema and name as
  // the catalog reads them (spec.view, else the resource's name; spec.schema, else DEFAULT), and
  // SchemaKey of its catalog and schema, and CatalogKey of its catalog.
  static std::string NameKey(std::string_view catalog, std::string_view schema,
                             std::string_view view);
  static std::string SchemaKey(std::string_view catalog, std::string_view schema);
  static std::string CatalogKey(std::string_view catalog);
  // The view's catalog path as the catalog reads it: [spec.catalog,] spec.schema (else DEFAULT),
  // spec.view (else the resource's name).
  static std::vector<std::string> Path(const Resource& view);
  HOP_FIELD(std::string, kView);
  HOP_FIELD(std::string, kSql);
  HOP_FIELD(std::string, kSchema);
  HOP_FIELD(std::string, kCatalog);
  HOP_FIELD(bool, kMaterialized);
  HOP_FIELD(std::string, kSchedule);     // REFRESHED 'cron'
  HOP_FIELD(StringMap, kOptions);        // WITH (...)
  HOP_FIELD(bool, kPaused);              // PAUSE / RESUME MATERIALIZED VIEW
  HOP_FIELD(std::string, kWatermark);    // status
  HOP_FIELD(std::string, kTimestamp);    // status: REFRESH MATERIALIZED VIEW
  HOP_FIELD(StringList, kPendingFires);  // status (hop): watermarks its triggers have not had
};

struct PipelineKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kSql);
  HOP_FIELD(std::string, kYaml);
  HOP_FIELD(bool, kReady);           // status
  HOP_FIELD(bool, kFailed);          // status
  HOP_FIELD(std::string, kMessage);  // status
  HOP_FIELD(Json, kJobs);            // status
};

struct TableTemplateKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kYaml);
  HOP_FIELD(std::string, kConnector);
  HOP_FIELD(StringList, kDatabases);
  HOP_FIELD(StringList, kMethods);
};

struct JobTemplateKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kYaml);
  HOP_FIELD(StringList, kDatabases);
  HOP_FIELD(bool, kProvisionsTables);  // opts in to table provisioning (hop)
};

struct TableTriggerKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kCatalog);
  HOP_FIELD(std::string, kSchema);
  HOP_FIELD(std::string, kTable);
  HOP_FIELD(std::string, kYaml);
  HOP_FIELD(StringMap, kJobProperties);
  HOP_FIELD(std::string, kSchedule);
  HOP_FIELD(bool, kPaused);
  HOP_FIELD(std::string, kTimestamp);     // status
  HOP_FIELD(std::string, kWatermark);     // status
  HOP_FIELD(Json, kJobs);                 // status
  HOP_FIELD(std::string, kFirePolicy);    // hop: Coalesce | Each
  HOP_FIELD(StringList, kPending);        // status (hop)
  HOP_FIELD(std::string, kLastSchedule);  // status (hop)
  HOP_FIELD(std::string, kMessage);       // status (hop)
  HOP_FIELD(std::string, kRetry);         // status (hop): FIRE TRIGGER ... RETRY
  HOP_FIELD(std::string, kLastRun);       // status (hop): Running | Succeeded | Failed
  HOP_FIELD(StringList, kOutputs);        // hop: table/NAME, view/NAME its Job materialises
};

struct SubscriptionKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kSql);
  HOP_FIELD(std::string, kDatabase);
  HOP_FIELD(StringMap, kHints);
  HOP_FIELD(bool, kReady);                      // status
  HOP_FIELD(bool, kFailed);                     // status
  HOP_FIELD(std::string, kMessage);             // status
  HOP_FIELD(std::string, kStatusSql);           // status.sql
  HOP_FIELD(StringMap, kStatusHints);           // status.hints
  HOP_FIELD(StringMap, kAttributes);            // status
  HOP_FIELD(StringList, kResources);            // status
  HOP_FIELD(StringList, kJobResources);         // status
  HOP_FIELD(StringList, kDownstreamResources);  // status
};

struct LogicalTableKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kTableName);
  HOP_FIELD(Json, kTiers);  // map tier -> {database}
};

struct SqlJobKind {
  static const KindInfo& Info();
  HOP_FIELD(StringList, kSql);
  HOP_FIELD(std::string, kDialect);
  HOP_FIELD(std::string, kExecutionMode);
  HOP_FIELD(StringMap, kConfigs);
  HOP_FIELD(bool, kReady);               // status
  HOP_FIELD(bool, kFailed);              // status
  HOP_FIELD(std::string, kMessage);      // status
  HOP_FIELD(std::string, kStatusSql);    // status.sql
  HOP_FIELD(StringMap, kStatusConfigs);  // status.configs
  HOP_FIELD(int64_t, kLastDeployedAt);   // status, epoch milliseconds
};

// On a Table made by CREATE TABLE ... AS query: the query (hop's SQL) that fills it once.
inline constexpr std::string_view kFillAnnotation = "hop.dev/fill";
// The label of a view whose watermark is derived from its inputs', naming the policy
// (deploy/trigger_fires.h).
inline constexpr std::string_view kWatermarkPolicyLabel = "hop.dev/watermark";
// The label of a materialized view refreshed when one of its inputs advances (WITH ('refresh'
// 'on-source-change')), with that value: how the operator finds the views an input's change
// concerns, from any process, without having reconciled them first (operator/view_reconciler.h).
inline constexpr std::string_view kRefreshOnChangeLabel = "hop.dev/refresh";
inline constexpr std::string_view kRefreshOnChange = "on-source-change";
// Whether `view`'s options ask for a refresh when one of its inputs advances.
bool RefreshesOnSourceChange(const Resource& view);
// The status field in which `hop refresh` records which query the view's rows are: the
// QueryDigest of its spec.sql when the refresh read it (docs/runtime.md, "Refreshes").
inline constexpr const char* kRefreshedQueryStatus = "refreshedQuery";
// A short digest of a view's query (16 hex digits of its SHA-256): equal for the same text.
std::string QueryDigest(std::string_view sql);
// The index key of the Views and Tables that may have work pending: those with a status, a
// watermark policy (kWatermarkPolicyLabel) or a fill query (kFillAnnotation). The others are
// plain declarations with nothing to wait for, which a look for pending work can skip.
inline constexpr std::string_view kMayBeBusyKey = R"(["may-be-busy"])";
// The index key of a batch/v1 Job that has not finished (BatchJobFinished is false): the
// runner and a look for pending work read those, not every finished Job the store keeps.
inline constexpr std::string_view kUnfinishedJobKey = R"(["unfinished-job"])";
// Whether a batch/v1 Job's status has the condition `type` with status True.
bool BatchJobConditionTrue(const Resource& job, std::string_view type);
// Whether a batch/v1 Job has finished: its Complete or Failed condition is True.
bool BatchJobFinished(const Resource& job);

// A table declared with CREATE TABLE in a database hop cannot read a schema from (Kafka, Venice,
// an Iceberg catalog, ...): its columns, so that planning works offline.
struct TableKind {
  static const KindInfo& Info();
  // The index keys of a Table (KindInfo::index_keys): NameKey(database, "", table) and, when
  // spec.schema is set, NameKey(database, schema, table) and SchemaKey(database, schema), the
  // table's name being spec.table, else the resource's name; and DatabaseKey(database).
  static std::string NameKey(std::string_view database, std::string_view schema,
                             std::string_view table);
  static std::string SchemaKey(std::string_view database, std::string_view schema);
  static std::string DatabaseKey(std::string_view database);
  HOP_FIELD(std::string, kCatalog);
  HOP_FIELD(std::string, kSchema);
  HOP_FIELD(std::string, kTable);
  HOP_FIELD(std::string, kDatabase);
  HOP_FIELD(Json, kColumns);  // [{name, type, nullable}]
  HOP_FIELD(StringMap, kOptions);
  HOP_FIELD(bool, kReady);               // status
  HOP_FIELD(std::string, kMessage);      // status
  HOP_FIELD(std::string, kWatermark);    // status (hop): time up to which the table is complete
  HOP_FIELD(StringList, kPendingFires);  // status (hop): watermarks its triggers have not had
};

struct TableProvisionJobKind {
  static const KindInfo& Info();
  HOP_FIELD(std::string, kDatabase);
  HOP_FIELD(std::string, kCatalog);
  HOP_FIELD(std::string, kSchema);
  HOP_FIELD(std::string, kTable);
  HOP_FIELD(StringMap, kOptions);
  HOP_FIELD(Json, kColumns);                // hop: [{name, type, nullable}], as a Table's
  HOP_FIELD(bool, kReady);                  // status
  HOP_FIELD(bool, kFailed);                 // status
  HOP_FIELD(std::string, kMessage);         // status
  HOP_FIELD(int64_t, kObservedGeneration);  // status
  HOP_FIELD(bool, kRetrying);               // status (hop): the system could not be reached
};

#undef HOP_FIELD

}  // namespace hop::resource
