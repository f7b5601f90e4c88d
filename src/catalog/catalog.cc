// Building the catalog from the store, and name resolution.
#include "catalog/catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "catalog/demodb.h"
#include "catalog/local.h"
#include "catalog/postgres.h"
#include "catalog/system_tables.h"
#include "common/log.h"
#include "common/redact.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "sql/parser.h"
#include "sql/unparser.h"

namespace hop::catalog {

using resource::DatabaseKind;
using resource::kProvisioningAsync;
using resource::Resource;
using resource::TableKind;
using resource::ViewKind;

int RowType::Find(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool operator==(const RowType& a, const RowType& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (a.columns[i].name != b.columns[i].name || !(a.columns[i].type == b.columns[i].type)) {
      return false;
    }
  }
  return true;
}

std::string Table::QualifiedName() const {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += '.';
    out += path[i];
  }
  return out;
}

std::vector<std::string> Schema::Path() const {
  if (catalog.empty()) return {name};
  return {catalog, name};
}

Result<sql::DataType> ParseColumnType(std::string_view text) { return sql::ParseDataType(text); }

Result<Json> ColumnsJson(const RowType& row) {
  Json columns = Json::array();
  for (const Column& c : row.columns) {
    sql::DataType type = c.type;
    const bool nullable = type.nullability != sql::Nullability::kNotNull;
    type.nullability = sql::Nullability::kUnspecified;
    HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintType(type, {sql::Dialect::kAnsi}));
    Json col = {{"name", c.name}, {"type", text}};
    if (!nullable) col["nullable"] = false;
    columns.push_back(std::move(col));
  }
  return columns;
}

Result<RowType> RowTypeOfColumns(const Json& columns) {
  RowType row;
  if (!columns.is_array()) return Status::InvalidArgument("columns is not a list");
  for (size_t i = 0; i < columns.size(); ++i) {
    const Json& col = columns[i];
    if (!col.is_object() || !col.contains("name") || !col["name"].is_string() ||
        !col.contains("type") || !col["type"].is_string()) {
      return Status::InvalidArgument(
          fmt::format("column {} is not a {{name, type[, nullable]}} entry", i + 1));
    }
    const std::string name = col["name"].get<std::string>();
    auto type = ParseColumnType(col["type"].get<std::string>());
    if (!type.ok()) return type.status().WithContext(fmt::format("column {}: ", name));
    if (col.contains("nullable") && col["nullable"].is_boolean() && !col["nullable"].get<bool>()) {
      type->nullability = sql::Nullability::kNotNull;
    }
    row.columns.push_back({name, std::move(*type)});
  }
  return row;
}

namespace {

// Systems whose tables hop takes from CREATE TABLE declarations.
constexpr std::string_view kDeclaredSystems[] = {
    "kafka", "venice", "mysql-hoptimator", "logical", "iceberg", "openhouse",
    "pinot", "mysql",  "hive",             "trino",   "flink",
};

// "jdbc:kafka://..." -> "kafka"; "postgresql" for a libpq URI (postgresql://, postgres://); ""
// when the URL has no jdbc:<system>: prefix.
std::string SystemOf(std::string_view url) {
  if (IsPostgresUri(url)) return "postgresql";
  if (url.rfind("jdbc:", 0) != 0) return "";
  url.remove_prefix(5);
  size_t end = url.find(':');
  if (end == std::string_view::npos) return "";
  return AsciiToLower(url.substr(0, end));
}

std::string Key(const std::string& catalog, const std::string& schema) {
  return catalog.empty() ? schema : catalog + "." + schema;
}

// The tiers of a logical URL: `jdbc:logical://nearline=kafka-database;online=venice`.
Result<std::vector<std::pair<std::string, std::string>>> LogicalTiers(std::string_view url) {
  constexpr std::string_view kPrefix = "jdbc:logical://";
  std::vector<std::pair<std::string, std::string>> tiers;
  if (url.rfind(kPrefix, 0) != 0) {
    return Status::InvalidArgument(
        fmt::format("'{}' is not a logical URL (jdbc:logical://nearline=DB;online=DB;offline=DB)",
                    RedactSecrets(url)));
  }
  std::string_view rest = url.substr(kPrefix.size());
  while (!rest.empty()) {
    const size_t semicolon = rest.find(';');
    std::string_view entry = TrimWhitespace(rest.substr(0, semicolon));
    rest = semicolon == std::string_view::npos ? "" : rest.substr(semicolon + 1);
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    const std::string tier = AsciiToLower(TrimWhitespace(entry.substr(0, eq)));
    const std::string database =
        eq == std::string_view::npos ? "" : std::string(TrimWhitespace(entry.substr(eq + 1)));
    if (tier != "nearline" && tier != "online" && tier != "offline") {
      return Status::InvalidArgument(fmt::format(
          "logical tier '{}' is not one of nearline, online and offline", entry.substr(0, eq)));
    }
    if (database.empty()) {
      return Status::InvalidArgument(fmt::format("logical tier {} names no Database", tier));
    }
    for (const auto& [known, db] : tiers) {
      if (known == tier) {
        return Status::InvalidArgument(fmt::format("logical tier {} is given twice", tier));
      }
    }
    tiers.emplace_back(tier, database);
  }
  if (tiers.size() < 2) {
    return Status::InvalidArgument(fmt::format(
        "a logical database needs at least two tiers (nearline=, online=, offline=), and '{}' "
        "has {}",
        RedactSecrets(url), tiers.size()));
  }
  return tiers;
}

Schema SchemaForDatabase(const Resource& db) {
  Schema s;
  s.database = db.name();
  s.url = DatabaseKind::kUrl.Get(db).value_or("");
  s.name = DatabaseKind::kSchema.Get(db).value_or(Utf8ToUpper(db.name()));
  if (auto catalog = DatabaseKind::kCatalog.Get(db); catalog && !catalog->empty()) {
    s.catalog = Utf8ToUpper(*catalog);
  }
  s.system = SystemOf(s.url);
  s.provisions_async = DatabaseKind::kProvisioning.Get(db).value_or("") == kProvisioningAsync;
  if (s.system == "demodb") {
    s.adapter = Adapter::kDemo;
    const auto names = DemoSchemaNames(s.url);
    std::string demo;
    for (const auto& n : names) {
      if (n == s.name) demo = n;
    }
    if (demo.empty() && names.size() == 1) demo = names.front();
    if (demo.empty()) {
      s.status =
          Status::CatalogNotFound(fmt::format("Database {}: the demo database {} has no schema {}",
                                              db.name(), RedactSecrets(s.url), s.name));
      return s;
    }
    for (Table& t : DemoTables(demo, s.Path(), s.database)) {
      std::string name = t.name;
      s.tables.emplace(std::move(name), std::move(t));
    }
    return s;
  }
  if (s.system == "local") {
    // Tables come from Table resources; their rows are in a file of the state directory.
    s.adapter = Adapter::kLocal;
    auto file = LocalFileName(s.url);
    if (!file.ok()) {
      s.status = Status::InvalidArgument(
          fmt::format("Database {}: {}", db.name(), file.status().message()));
      return s;
    }
    s.local_file = std::move(file).value();
    return s;
  }
  if (s.system == "postgresql") {
    // Tables come from the server, found when a statement touches them; hop's own are also
    // Table resources.
    s.adapter = Adapter::kPostgres;
    if (Status st = ConfigurePostgresSchema(s); !st.ok()) {
      s.status = Status(st.code(), fmt::format("Database {}: {}", db.name(), st.message()));
    }
    return s;
  }
  if (s.system == "logical") {
    // Its tables are declared with CREATE TABLE; each tier holds a table of the same name.
    s.adapter = Adapter::kDeclared;
    auto tiers = LogicalTiers(s.url);
    if (!tiers.ok()) {
      s.status = Status::InvalidArgument(
          fmt::format("Database {}: {}", db.name(), tiers.status().message()));
      return s;
    }
    s.tiers = std::move(tiers).value();
    return s;
  }
  for (std::string_view known : kDeclaredSystems) {
    if (s.system == known) {
      s.adapter = Adapter::kDeclared;
      return s;
    }
  }
  s.status = Status::InvalidArgument(fmt::format(
      "Database {}: unknown URL '{}' (hop knows jdbc:demodb://, jdbc:local:, and the systems whose "
      "tables are "
      "declared with CREATE TABLE: jdbc:kafka://, jdbc:venice://, jdbc:mysql-hoptimator://, "
      "jdbc:logical://, ...)",
      db.name(), RedactSecrets(s.url)));
  return s;
}

// Kafka topics are the namespace's KafkaTopic resources (Strimzi's), as Hoptimator's Kafka
// adapter lists a cluster's topics: one table per topic, named by `spec.topicName` (else the
// resource's name), with the columns KEY VARCHAR and VALUE BINARY. A topic labelled with its
// Strimzi cluster (`strimzi.io/cluster: C`) belongs to the Kafka Databases whose bootstrap
// servers are that cluster's (`C-kafka-bootstrap...`), or that name no Strimzi cluster.
const store::GroupKind kKafkaTopicKind{"kafka.strimzi.io", "KafkaTopic"};

// The Strimzi cluster a Kafka URL's first bootstrap server names, or "".
std::string StrimziClusterOf(std::string_view url) {
  const size_t at = url.find("bootstrap.servers=");
  if (at == std::string_view::npos) return "";
  std::string_view host = url.substr(at + 18);
  host = host.substr(0, host.find_first_of(",;:/"));
  const size_t suffix = host.find("-kafka-bootstrap");
  return suffix == std::string_view::npos ? "" : std::string(host.substr(0, suffix));
}

// The schemas of a catalog-style Database of a system hop only plans for (MySQL: `catalog:
// MYSQL` and no `schema:`): those of its Table resources, which the catalog holds already. A
// schema with no table yet is made by CREATE TABLE (Catalog::SchemaForCreate), as the system
// would create it (compatibility.md §1.4).
class DeclaredSchemas : public SchemaDiscovery {
 public:
  Result<std::optional<Schema>> Find(std::string_view) const override {
    return std::optional<Schema>();
  }
  Result<std::vector<std::string>> Names() const override { return std::vector<std::string>{}; }
};

// Whether `db` is catalog-style: `spec.catalog` without `spec.schema`, so that its catalog holds
// every schema of its system.
bool CatalogStyle(const Resource& db) {
  auto catalog = DatabaseKind::kCatalog.Get(db);
  auto schema = DatabaseKind::kSchema.Get(db);
  return catalog && !catalog->empty() && (!schema || schema->empty());
}

void AddKafkaTopic(const Resource& topic, Schema& schema) {
  const auto labels = topic.labels();
  if (auto cluster = labels.find("strimzi.io/cluster"); cluster != labels.end()) {
    const std::string mine = StrimziClusterOf(schema.url);
    if (!mine.empty() && mine != cluster->second) return;
  }
  const Json* spec = topic.spec();
  std::string name = topic.name();
  if (spec && spec->contains("topicName") && (*spec)["topicName"].is_string() &&
      !(*spec)["topicName"].get<std::string>().empty()) {
    name = (*spec)["topicName"].get<std::string>();
  }
  if (schema.tables.count(name)) return;
  Table t;
  t.name = name;
  t.path = schema.Path();
  t.path.push_back(name);
  t.database = schema.database;
  t.topic_resource = topic.name();
  t.row_type.columns = {{"KEY", sql::DataType(sql::TypeName::kVarchar)},
                        {"VALUE", sql::DataType(sql::TypeName::kBinary)}};
  schema.tables.emplace(std::move(name), std::move(t));
}

}  // namespace

Catalog::Catalog() {
  // DEFAULT holds the tables and views made without a schema (compatibility.md §1.4): its tables
  // are local tables of hop's own, in a file no jdbc:local: URL can name.
  Schema def;
  def.name = kDefaultSchema;
  def.database = kDefaultSchema;
  def.url = "jdbc:local:_default";
  def.system = "local";
  def.adapter = Adapter::kLocal;
  def.local_file = "_default";
  schemas_.emplace(kDefaultSchema, std::move(def));
  Schema util;
  util.name = "UTIL";
  Table print;
  print.name = "PRINT";
  print.path = {"UTIL", "PRINT"};
  print.row_type.columns.push_back({"OUTPUT", sql::DataType(sql::TypeName::kVarchar)});
  util.tables.emplace("PRINT", std::move(print));
  schemas_.emplace("UTIL", std::move(util));
}
Catalog::~Catalog() = default;
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;

void Catalog::AddSchema(Schema schema) {
  std::string key = Key(schema.catalog, schema.name);
  schemas_[key] = std::move(schema);
}

void Catalog::AddCatalogDiscovery(Schema base, std::shared_ptr<const SchemaDiscovery> discovery) {
  std::string name = base.catalog;
  catalog_discovery_[std::move(name)] = {std::move(base), std::move(discovery)};
}

const Schema* Catalog::DiscoverSchema(const std::string& catalog, const std::string& name) const {
  auto lazy = catalog_discovery_.find(catalog);
  if (lazy == catalog_discovery_.end()) return nullptr;
  const std::string key = Key(catalog, name);
  std::lock_guard<std::mutex> lock(*discovered_mu_);
  auto known = discovered_.find(key);
  if (known != discovered_.end() && known->second.status.ok()) return &known->second;
  auto found = lazy->second.discovery->Find(name);
  if (found.ok() && !found->has_value()) {
    if (known == discovered_.end()) return nullptr;
    known->second.status = Status::CatalogNotFound(fmt::format(
        "Database {}: PostgreSQL has no schema {} (any more)", lazy->second.base.database, name));
    return &known->second;
  }
  Schema s;
  if (found.ok()) {
    s = std::move(**found);
  } else {
    // The schema is unknown until the server answers: its status says why.
    s = lazy->second.base;
    s.name = name;
    s.status = found.status();
  }
  if (known == discovered_.end()) return &discovered_.emplace(key, std::move(s)).first->second;
  // An earlier failure, found now: the same node, so that pointers handed out stay valid.
  known->second = std::move(s);
  return &known->second;
}

Result<std::vector<const Schema*>> Catalog::DiscoverSchemas() const {
  Consulted();
  LoadAll();
  std::vector<const Schema*> out;
  for (const auto& [catalog, lazy] : catalog_discovery_) {
    HOP_ASSIGN_OR_RETURN(std::vector<std::string> names, lazy.discovery->Names());
    for (const std::string& name : names) {
      if (schemas_.count(Key(catalog, name))) continue;  // declared by a Table resource
      if (const Schema* s = DiscoverSchema(catalog, name)) out.push_back(s);
    }
  }
  return out;
}

Result<std::vector<const Table*>> Catalog::TablesOf(const Schema& schema) const {
  Consulted();
  LoadAll();
  std::vector<const Table*> out;
  for (const auto& [name, t] : schema.tables) out.push_back(&t);
  if (!schema.discovery) return out;
  HOP_ASSIGN_OR_RETURN(std::vector<const Table*> found, schema.discovery->List());
  for (const Table* t : found) {
    if (!schema.tables.count(t->name)) out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](const Table* a, const Table* b) { return a->name < b->name; });
  return out;
}

void Catalog::AddTableResource(const Resource& r) const {
  const std::string database = TableKind::kDatabase.Get(r).value_or("");
  if (hidden_databases_.count(database)) return;  // Retain hid its schema
  const Schema* schema = nullptr;
  std::string schema_key;
  for (auto& [key, s] : schemas_) {
    if (!database.empty() && s.database == database) {
      schema = &s;
      schema_key = key;
    }
  }
  if (!schema) {
    for (const auto& [name, lazy] : catalog_discovery_) {
      if (!database.empty() && lazy.base.database == database) schema = &lazy.base;
    }
  }
  const bool catalog_of_schemas =
      schema && catalog_discovery_.count(schema->catalog) &&
      catalog_discovery_.at(schema->catalog).base.database == schema->database;
  if (catalog_of_schemas) {
    // A catalog of schemas (PostgreSQL's, or a catalog-style Database's): the table is in the
    // schema its resource names.
    const std::string name = TableKind::kSchema.Get(r).value_or("");
    if (name.empty()) {
      log::Warn("Table {}: database {} is a catalog of schemas, and spec.schema names none",
                r.name(), database);
      return;
    }
    schema_key = Key(schema->catalog, name);
    auto it = schemas_.find(schema_key);
    if (it == schemas_.end()) {
      Schema declared = *schema;
      declared.name = name;
      declared.tables.clear();
      if (declared.adapter == Adapter::kPostgres) {
        declared.remote_schema = PostgresName(name);
        declared.discovery = PostgresTables(declared);
      }
      it = schemas_.emplace(schema_key, std::move(declared)).first;
    }
    schema = &it->second;
  }
  Schema* target = schema ? &schemas_[schema_key] : nullptr;
  if (!schema) {
    log::Warn("Table {}: its database {} is not in namespace {}", r.name(), database,
              r.namespace_name());
    return;
  }
  Table t;
  t.name = TableKind::kTable.Get(r).value_or(r.name());
  t.path = schema->Path();
  t.path.push_back(t.name);
  t.database = database;
  t.resource = r.name();
  t.options = TableKind::kOptions.Get(r).value_or(resource::StringMap{});
  if (auto columns = TableKind::kColumns.Get(r); columns && columns->is_array()) {
    auto row = RowTypeOfColumns(*columns);
    if (!row.ok()) {
      log::Warn("Table {}: {}", r.name(), row.status().ToString());
      return;
    }
    t.row_type = std::move(*row);
  }
  if (schema->adapter == Adapter::kPostgres && schema->status.ok()) {
    t.source = PostgresSource(*schema, t);
  }
  std::string name = t.name;
  index_[{"Table", r.name()}] = {schema_key, name};
  target->tables[name] = std::move(t);
}

void Catalog::AddLogicalTable(const Resource& lt) {
  const auto labels = lt.labels();
  auto db = labels.find("logical-database");
  if (db == labels.end()) return;
  Schema* schema = nullptr;
  for (auto& [key, s] : schemas_) {
    if (s.database == db->second && s.system == "logical") schema = &s;
  }
  const std::string name = resource::LogicalTableKind::kTableName.Get(lt).value_or("");
  if (schema == nullptr || name.empty() || Lookup(*schema, name) != nullptr) return;
  for (const auto& [tier, database] : schema->tiers) {
    const Schema* tier_schema = nullptr;
    for (const auto& [key, s] : schemas_) {
      if (s.database == database) tier_schema = &s;
    }
    if (tier_schema == nullptr) continue;
    const Table* found = Lookup(*tier_schema, name);
    if (found == nullptr || found->kind != ObjectKind::kTable) continue;
    Table t;
    t.name = name;
    t.path = schema->Path();
    t.path.push_back(name);
    t.database = schema->database;
    t.row_type = found->row_type;
    schema->tables.emplace(name, std::move(t));
    return;
  }
  log::Warn("LogicalTable {}: no tier of database {} has a table {}", lt.name(), db->second, name);
}

bool HopWritesTables(const Schema& schema) {
  return schema.adapter == Adapter::kLocal || schema.adapter == Adapter::kPostgres;
}

void Catalog::AddViewResource(const Resource& r) const {
  const std::string schema_name = ViewKind::kSchema.Get(r).value_or(kDefaultSchema);
  const std::string catalog = ViewKind::kCatalog.Get(r).value_or("");
  const std::string key = Key(catalog, schema_name);
  if (hidden_.count(key)) return;  // Retain hid its schema
  auto it = schemas_.find(key);
  if (it == schemas_.end()) {
    // A view may name a schema of its own; it then exists for the view alone (in a catalog of
    // schemas, as one of the catalog's).
    Schema s;
    auto lazy = catalog_discovery_.find(catalog);
    if (lazy != catalog_discovery_.end() && lazy->second.base.adapter == Adapter::kDeclared) {
      s = lazy->second.base;
      s.tables.clear();
    }
    s.name = schema_name;
    s.catalog = catalog;
    it = schemas_.emplace(key, std::move(s)).first;
  }
  Table t;
  t.name = ViewKind::kView.Get(r).value_or(r.name());
  t.path = it->second.Path();
  t.path.push_back(t.name);
  t.database = it->second.database;
  t.kind = ViewKind::kMaterialized.Get(r).value_or(false) ? ObjectKind::kMaterializedView
                                                          : ObjectKind::kView;
  t.sql = ViewKind::kSql.Get(r).value_or("");
  t.resource = r.name();
  std::string name = t.name;
  // A materialized view takes the name of the table it writes (a topic its pipeline made): the
  // table is the view's. A plain view over a table's name, stored before `hop apply` and the
  // Kubernetes API refused it (or written around them), would hide the table from every query:
  // the table keeps its name, and the view is not used (docs/ddl.md, "Views over a table's
  // name"). Not indexed, so that it is found again once the table is gone.
  if (Status physical = CheckViewName(it->second, name);
      t.kind == ObjectKind::kView && !physical.ok()) {
    log::Warn("View {} in namespace {} is not used, its table is read instead: {}", r.name(),
              r.namespace_name(), physical.message());
    return;
  }
  index_[{"View", r.name()}] = {key, name};
  it->second.tables[name] = std::move(t);
}

Status Catalog::CheckViewName(const Schema& schema, std::string_view name) const {
  auto it = schema.tables.find(std::string(name));
  if (it == schema.tables.end() || it->second.kind != ObjectKind::kTable) return Status::OK();
  return Status::InvalidArgument(
      fmt::format("Cannot overwrite physical table {} with a view.", name));
}

void Catalog::RemoveResource(const std::string& kind, const std::string& name) const {
  auto entry = index_.find({kind, name});
  if (entry == index_.end()) return;
  auto schema = schemas_.find(entry->second.first);
  if (schema != schemas_.end()) {
    auto table = schema->second.tables.find(entry->second.second);
    // Only if it still is this resource's: another may have taken the name since (a Table and a
    // View may have the same resource name).
    if (table != schema->second.tables.end() && table->second.resource == name &&
        (table->second.kind == ObjectKind::kTable) == (kind == "Table")) {
      schema->second.tables.erase(table);
    }
    // A schema that only existed for views goes with the last of them.
    const Schema& s = schema->second;
    if (s.database.empty() && s.tables.empty() && s.name != "UTIL") {
      schemas_.erase(schema);
    }
  }
  index_.erase(entry);
}

Result<Catalog> Catalog::Load(store::Store& store, std::string_view namespace_name) {
  Catalog c;
  const std::string ns(namespace_name);
  c.namespace_name_ = ns;
  HOP_ASSIGN_OR_RETURN(auto dbs, store.List({DatabaseKind::Info().group_kind(), ns, {}}));
  for (const Resource& db : dbs.items) {
    Schema s = SchemaForDatabase(db);
    if (s.adapter == Adapter::kPostgres && !s.catalog.empty() && s.status.ok()) {
      // Every schema of the database, found when a name reaches one; the Database's own entry
      // stays as the catalog's handle (its tables are found through the schemas).
      s.catalog_of_schemas = true;
      auto discovery = PostgresSchemas(s);
      c.AddCatalogDiscovery(std::move(s), std::move(discovery));
      continue;
    }
    if (s.adapter == Adapter::kDeclared && s.status.ok() && CatalogStyle(db)) {
      s.catalog_of_schemas = true;
      auto discovery = std::make_shared<DeclaredSchemas>();
      c.AddCatalogDiscovery(std::move(s), std::move(discovery));
      continue;
    }
    c.AddSchema(std::move(s));
  }
  // The system tables: the namespace's resources, read when a query scans them.
  c.AddSchema(SystemSchema(store, ns));
  // Tables and views are fetched when a name reaches them (Lookup).
  c.store_ = &store;
  int64_t revision = dbs.revision;
  // The topics of Kafka Databases, after the Table resources, which declare their columns.
  std::vector<Schema*> kafka;
  for (auto& [key, schema] : c.schemas_) {
    if (schema.system == "kafka" && schema.status.ok()) kafka.push_back(&schema);
  }
  if (!kafka.empty()) {
    HOP_ASSIGN_OR_RETURN(auto topics, store.List({kKafkaTopicKind, ns, {}}));
    for (const Resource& topic : topics.items) {
      for (Schema* schema : kafka) AddKafkaTopic(topic, *schema);
    }
    revision = std::min(revision, topics.revision);
  }
  // A Table resource of a topic's name declares its columns: fetched before the topic is used
  // (Lookup), it takes the topic's place, as AddTableResource replaces what a name held.
  // The tables of logical Databases that only a LogicalTable resource declares (Hoptimator's
  // way): with the columns of the first tier that has the table.
  std::vector<Schema*> logical;
  for (auto& [key, schema] : c.schemas_) {
    if (schema.system == "logical" && schema.status.ok()) logical.push_back(&schema);
  }
  if (!logical.empty()) {
    HOP_ASSIGN_OR_RETURN(auto declared,
                         store.List({resource::LogicalTableKind::Info().group_kind(), ns, {}}));
    for (const Resource& lt : declared.items) c.AddLogicalTable(lt);
    revision = std::min(revision, declared.revision);
  }
  c.revision_ = revision;
  return c;
}

bool Catalog::Apply(const store::Event& event) {
  const Resource& r = event.object;
  const resource::GroupKind gk = r.group_kind();
  if (gk == DatabaseKind::Info().group_kind()) return false;
  const bool table = gk == TableKind::Info().group_kind();
  // A topic, or a table of a Kafka Database (which may hide or uncover a topic): loaded again.
  if (gk == kKafkaTopicKind || gk == resource::LogicalTableKind::Info().group_kind()) {
    return false;
  }
  if (table) {
    const std::string database = TableKind::kDatabase.Get(r).value_or("");
    for (const auto& [key, s] : schemas_) {
      if (s.database == database && s.system == "kafka") return false;
    }
  }
  if (table || gk == ViewKind::Info().group_kind()) {
    const std::string kind = table ? "Table" : "View";
    // What the resource held is forgotten, and looked up again when asked for (another resource
    // may give the name).
    if (auto held = index_.find({kind, r.name()}); held != index_.end()) {
      fetched_.erase(held->second);
    }
    RemoveResource(kind, r.name());
    if (event.type != store::EventType::kDeleted) {
      if (table) {
        AddTableResource(r);
      } else {
        AddViewResource(r);
      }
    }
  }
  revision_ = std::max(revision_, event.revision);
  return true;
}

CatalogCache::CatalogCache(store::Store& store, std::string namespace_name)
    : store_(store), namespace_(std::move(namespace_name)) {}

Result<const Catalog*> CatalogCache::Get() {
  HOP_ASSIGN_OR_RETURN(int64_t now, store_.Revision());
  if (catalog_ && catalog_->revision() >= now) return &*catalog_;
  if (catalog_ && CatchUp()) {
    catalog_->revision_ = std::max(catalog_->revision_, now);
    return &*catalog_;
  }
  HOP_ASSIGN_OR_RETURN(Catalog loaded, Catalog::Load(store_, namespace_));
  catalog_ = std::move(loaded);
  return &*catalog_;
}

bool CatalogCache::CatchUp() {
  // Without the changes at hand, the catalog is loaded again (it reads only the Databases).
  if (!store_.ReplaysHistoryAtOnce()) return false;
  // One watch per kind, so that only the changes of these kinds are read.
  const int64_t from = catalog_->revision();
  std::vector<store::GroupKind> kinds = {DatabaseKind::Info().group_kind(),
                                         TableKind::Info().group_kind(),
                                         ViewKind::Info().group_kind()};
  bool kafka = false, logical = false;
  for (const auto& [key, s] : catalog_->schemas_) {
    kafka |= s.system == "kafka";
    logical |= s.system == "logical";
  }
  if (kafka) kinds.push_back(kKafkaTopicKind);
  if (logical) kinds.push_back(resource::LogicalTableKind::Info().group_kind());
  // Every watch is started before any is read: watches at the same revision share one read of
  // the store's log (docs/store.md, "Watches").
  std::vector<std::unique_ptr<store::Watch>> watches;
  for (const store::GroupKind& kind : kinds) {
    watches.push_back(store_.StartWatch({kind, namespace_, from}));
  }
  for (const auto& watch : watches) {
    store::Event event;
    for (;;) {
      const auto outcome = watch->Next(std::chrono::milliseconds(0), &event);
      if (outcome == store::Watch::Outcome::kTimeout) break;
      // History too old or a Database changed: load again.
      if (outcome != store::Watch::Outcome::kEvent || !catalog_->Apply(event)) return false;
    }
  }
  return true;
}

bool Catalog::InCatalogOfSchemas(const Schema& schema) const {
  auto lazy = catalog_discovery_.find(schema.catalog);
  return lazy != catalog_discovery_.end() && lazy->second.base.database == schema.database;
}

void Catalog::AddFetched(const Result<store::ListResult>& listed, bool tables) const {
  if (!listed.ok()) {
    log::Warn("catalog: reading {}s: {}", tables ? "table" : "view", listed.status().ToString());
    if (fetch_status_.ok()) fetch_status_ = listed.status();
    return;
  }
  for (const Resource& r : listed->items) {
    // One held already stays as it is: tables and views handed out must stay valid, and the
    // catalog follows changes through Apply.
    if (index_.count({tables ? "Table" : "View", r.name()})) continue;
    if (tables) {
      AddTableResource(r);
    } else {
      AddViewResource(r);
    }
  }
}

void Catalog::Fetch(const Schema& schema, const std::string& name) const {
  // Tables first, then views, as Load used to add them: a view takes a table's name.
  if (!schema.database.empty()) {
    const std::string key =
        TableKind::NameKey(schema.database, InCatalogOfSchemas(schema) ? schema.name : "", name);
    store::ListOptions list{TableKind::Info().group_kind(), namespace_name_, {}};
    list.index_key = key;
    AddFetched(store_->List(list), /*tables=*/true);
  }
  store::ListOptions list{ViewKind::Info().group_kind(), namespace_name_, {}};
  list.index_key = ViewKind::NameKey(schema.catalog, schema.name, name);
  AddFetched(store_->List(list), /*tables=*/false);
}

void Catalog::FetchSchema(const std::string& catalog, const std::string& name) const {
  // The schemas Table resources make in a catalog of schemas, and those views name.
  if (auto lazy = catalog_discovery_.find(catalog); lazy != catalog_discovery_.end()) {
    store::ListOptions list{TableKind::Info().group_kind(), namespace_name_, {}};
    list.index_key = TableKind::SchemaKey(lazy->second.base.database, name);
    AddFetched(store_->List(list), /*tables=*/true);
  }
  store::ListOptions list{ViewKind::Info().group_kind(), namespace_name_, {}};
  list.index_key = ViewKind::SchemaKey(catalog, name);
  AddFetched(store_->List(list), /*tables=*/false);
}

const Table* Catalog::Lookup(const Schema& schema, std::string_view name) const {
  Consulted();
  const std::string leaf(name);
  if (store_ != nullptr && !loaded_all_ &&
      fetched_.emplace(Key(schema.catalog, schema.name), leaf).second) {
    Fetch(schema, leaf);
  }
  auto it = schema.tables.find(leaf);
  return it == schema.tables.end() ? nullptr : &it->second;
}

void Catalog::LoadAll() const {
  if (store_ == nullptr || loaded_all_) return;
  loaded_all_ = true;
  AddFetched(store_->List({TableKind::Info().group_kind(), namespace_name_, {}}), true);
  AddFetched(store_->List({ViewKind::Info().group_kind(), namespace_name_, {}}), false);
}

std::vector<const Schema*> Catalog::DatabaseSchemas() const {
  Consulted();
  std::vector<const Schema*> out;
  for (const auto& [key, s] : schemas_) {
    if (!s.database.empty() && !InCatalogOfSchemas(s)) out.push_back(&s);
  }
  for (const auto& [name, lazy] : catalog_discovery_) out.push_back(&lazy.base);
  return out;
}

bool Catalog::IsCatalog(std::string_view name) const {
  Consulted();
  if (catalog_discovery_.count(std::string(name))) return true;
  for (const auto& [key, s] : schemas_) {
    if (s.catalog == name) return true;
  }
  return false;
}

void Catalog::Retain(const std::function<bool(const Schema&)>& keep) {
  for (auto it = schemas_.begin(); it != schemas_.end();) {
    if (keep(it->second)) {
      ++it;
      continue;
    }
    hidden_.insert(it->first);
    if (!it->second.database.empty()) hidden_databases_.insert(it->second.database);
    it = schemas_.erase(it);
  }
  for (auto it = catalog_discovery_.begin(); it != catalog_discovery_.end();) {
    if (keep(it->second.base)) {
      ++it;
      continue;
    }
    hidden_databases_.insert(it->second.base.database);
    it = catalog_discovery_.erase(it);
  }
  std::lock_guard<std::mutex> lock(*discovered_mu_);
  for (auto it = discovered_.begin(); it != discovered_.end();) {
    it = keep(it->second) ? std::next(it) : discovered_.erase(it);
  }
}

Catalog Catalog::Clone() const {
  Catalog c;
  c.schemas_ = schemas_;
  c.store_ = store_;
  c.loaded_all_ = loaded_all_;
  c.fetched_ = fetched_;
  c.fetched_schemas_ = fetched_schemas_;
  c.hidden_ = hidden_;
  c.hidden_databases_ = hidden_databases_;
  c.fetch_status_ = fetch_status_;
  c.catalog_discovery_ = catalog_discovery_;
  {
    std::lock_guard<std::mutex> lock(*discovered_mu_);
    c.discovered_ = discovered_;
    c.made_ = made_;
  }
  c.default_schema_ = default_schema_;
  c.namespace_name_ = namespace_name_;
  c.index_ = index_;
  c.revision_ = revision_;
  return c;
}

std::vector<const Schema*> Catalog::Schemas() const {
  Consulted();
  LoadAll();
  std::vector<const Schema*> out;
  for (const auto& [key, s] : schemas_) out.push_back(&s);
  // Schemas of catalogs found on demand, those found so far (nothing here connects).
  std::lock_guard<std::mutex> lock(*discovered_mu_);
  for (const auto& [key, s] : discovered_) {
    if (s.status.ok() && !schemas_.count(key)) out.push_back(&s);
  }
  std::sort(out.begin(), out.end(), [](const Schema* a, const Schema* b) {
    return Key(a->catalog, a->name) < Key(b->catalog, b->name);
  });
  return out;
}

const Schema* Catalog::FindSchema(const std::vector<std::string>& path) const {
  Consulted();
  if (path.empty() || path.size() > 2) return nullptr;
  const std::string key = path.size() == 1 ? path[0] : Key(path[0], path[1]);
  auto it = schemas_.find(key);
  if (it != schemas_.end()) return &it->second;
  // A schema only views name, or one Table resources make in a catalog of schemas.
  if (store_ != nullptr && !loaded_all_ && !hidden_.count(key) &&
      fetched_schemas_.insert(key).second) {
    FetchSchema(path.size() == 1 ? "" : path[0], path.back());
    it = schemas_.find(key);
    if (it != schemas_.end()) return &it->second;
  }
  if (path.size() == 2) return DiscoverSchema(path[0], path[1]);
  return nullptr;
}

const Schema* Catalog::SchemaOfDatabase(std::string_view database) const {
  Consulted();
  for (const auto& [key, s] : schemas_) {
    if (!database.empty() && s.database == database) return &s;
  }
  for (const auto& [name, lazy] : catalog_discovery_) {
    if (!database.empty() && lazy.base.database == database) return &lazy.base;
  }
  return nullptr;
}

Result<const Schema*> Catalog::SchemaFor(const std::vector<std::string>& name) const {
  Consulted();
  if (name.empty() || name.size() > 3) {
    return Status::CatalogNotFound(fmt::format("'{}' is not a table name", fmt::join(name, ".")));
  }
  std::vector<std::string> schema_path(name.begin(), name.end() - 1);
  if (schema_path.empty()) schema_path = {default_schema_};
  const std::string full = fmt::format("{}", fmt::join(name, "."));
  if (schema_path.size() == 2 && !FindSchema({schema_path[0], schema_path[1]})) {
    if (!IsCatalog(schema_path[0])) {
      return Status::CatalogNotFound(fmt::format("Catalog for {} not found.", full));
    }
  }
  const Schema* schema = FindSchema(schema_path);
  if (!schema) return Status::CatalogNotFound(fmt::format("Schema for {} not found.", full));
  return schema;
}

const Table* Catalog::ReadTable(const Table& table) const {
  if (table.kind != ObjectKind::kTable || table.path.size() < 2) return &table;
  const std::vector<std::string> schema_path(table.path.begin(), table.path.end() - 1);
  const Schema* schema = FindSchema(schema_path);
  if (schema == nullptr || schema->system != "logical") return &table;
  for (const auto& [tier, database] : schema->tiers) {
    const Schema* tier_schema = SchemaOfDatabase(database);
    if (tier_schema == nullptr || !tier_schema->status.ok()) continue;
    const Table* found = Lookup(*tier_schema, table.name);
    if (found != nullptr && found->kind == ObjectKind::kTable) return found;
  }
  return &table;
}

Result<const Schema*> Catalog::SchemaForCreate(const std::vector<std::string>& name) const {
  auto found = SchemaFor(name);
  if (found.ok() || name.size() != 3) return found;
  auto lazy = catalog_discovery_.find(name[0]);
  if (lazy == catalog_discovery_.end() || lazy->second.base.adapter != Adapter::kDeclared) {
    return found;
  }
  std::lock_guard<std::mutex> lock(*discovered_mu_);
  auto made = made_.find(Key(name[0], name[1]));
  if (made == made_.end()) {
    Schema s = lazy->second.base;
    s.name = name[1];
    s.tables.clear();
    made = made_.emplace(Key(name[0], name[1]), std::move(s)).first;
  }
  return &made->second;
}

Result<const Table*> Catalog::Resolve(const std::vector<std::string>& name) const {
  Consulted();
  HOP_ASSIGN_OR_RETURN(const Schema* schema, SchemaFor(name));
  if (!schema->status.ok()) return schema->status;
  const Table* held = Lookup(*schema, name.back());
  if (!fetch_status_.ok()) return fetch_status_;
  if (held == nullptr && schema->discovery) {
    HOP_ASSIGN_OR_RETURN(const Table* found, schema->discovery->Find(name.back()));
    if (found) return found;
  }
  if (held == nullptr) {
    return Status::CatalogNotFound(fmt::format("Object '{}' not found within '{}'", name.back(),
                                               fmt::join(schema->Path(), ".")));
  }
  return held;
}

}  // namespace hop::catalog
