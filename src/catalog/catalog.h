// The catalog of a namespace: the schemas and tables hop can plan against, built from the
// namespace's Database resources (one schema each, or a catalog of schemas), the tables their
// adapters know (the demo databases) or that were declared with CREATE TABLE (Table resources),
// and the namespace's views (View resources).
//
// Naming (Hoptimator's): a Database registers schema `spec.schema`, or its upper-cased name; with
// `spec.catalog` the schema sits in catalog upper(`spec.catalog`), so its tables have 3-part
// names. Schema DEFAULT is the default schema, a local database of hop's own, and UTIL holds
// PRINT.
//
// Loading reads the store only, and only the namespace's Databases (and its Kafka topics and
// LogicalTables, when it has databases of those kinds): the tables and views of Table and View
// resources are fetched when a name reaches them, by the store's index keys (ViewKind::NameKey,
// TableKind::NameKey), so that a statement costs what it names and not what the namespace holds.
// Listings (Schemas, TablesOf) read them all. Adapters whose tables live in a server
// (PostgreSQL) find them when a statement touches them: a schema's TableDiscovery is asked on a
// miss and by listings, and a catalog's SchemaDiscovery when a name reaches one of its schemas.
//
// A loaded catalog is used by one thread at a time: lookups add what they fetch.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resource/json.h"
#include "sql/ast/data_type.h"
#include "sql/ast/identifier.h"
#include "store/store.h"

namespace hop::catalog {

struct Column {
  std::string name;
  sql::DataType type;  // nullability is part of the type
};

struct RowType {
  std::vector<Column> columns;
  // The index of the column named `name` (folded, exact), or -1.
  int Find(std::string_view name) const;
  friend bool operator==(const RowType& a, const RowType& b);
};

// Rows of a table whose data hop holds itself (the demo databases). NULL is nullopt.
using Row = std::vector<std::optional<std::string>>;

enum class ObjectKind { kTable, kView, kMaterializedView };

class TableSource;  // source.h

struct Table {
  std::string name;               // folded, e.g. PAGE_VIEWS
  std::vector<std::string> path;  // [catalog,] schema, table
  std::string database;           // the owning Database resource's name; "" if none
  ObjectKind kind = ObjectKind::kTable;
  RowType row_type;                              // tables; empty for views (the binder derives it)
  std::map<std::string, std::string> options;    // declared options (Table resources)
  std::shared_ptr<const std::vector<Row>> rows;  // data held by hop, if any
  // How the local engine reads the rows, when an adapter serves them (demo and system tables);
  // null for tables it reads natively (local) or cannot read (declared tables of other systems).
  std::shared_ptr<const TableSource> source;
  std::string sql;       // views: the query, in hop's SQL
  std::string resource;  // the Table or View resource it comes from, "" if none
  // A Kafka Database's table listed from a KafkaTopic resource (and no Table resource): that
  // KafkaTopic's name, which DROP TABLE deletes.
  std::string topic_resource;
  // The primary key the table's system keeps, when its adapter reads it (PostgreSQL tables): the
  // columns (hop's names, in key order) and the key's name there; empty otherwise.
  std::vector<std::string> primary_key;
  std::string primary_key_name;

  // The dotted path, e.g. "ADS.PAGE_VIEWS".
  std::string QualifiedName() const;
};

// The adapters hop knows, by the database URL's scheme.
enum class Adapter {
  kNone,      // DEFAULT and UTIL
  kDemo,      // jdbc:demodb://: tables and rows built into hop
  kDeclared,  // systems hop cannot read a schema from: tables are declared with CREATE TABLE
  kLocal,     // jdbc:local:[NAME]: tables declared with CREATE TABLE, kept in a SQLite file of the
              // state directory (local.h)
  kSystem,    // the "k8s" schema: hop's resources as tables (system_tables.h)
  kPostgres,  // jdbc:postgresql://... or postgresql://...: the tables of a PostgreSQL schema,
              // found in the server when asked (postgres.h)
};

// The tables of a schema that an adapter finds in its system on demand. Implementations connect
// on first use, keep what they found for their lifetime (one catalog load), and are thread-safe.
class TableDiscovery {
 public:
  virtual ~TableDiscovery() = default;
  // The table `name` (as hop spells it: `WIDGETS`, or a quoted `MixedCase`), or null when the
  // system has none. Errors: the system cannot be reached or the table's columns cannot map,
  // naming the database and the table.
  virtual Result<const Table*> Find(std::string_view name) const = 0;
  // Every table of the schema, in name order; tables whose columns cannot map are left out.
  virtual Result<std::vector<const Table*>> List() const = 0;
};

struct Schema;

// The schemas of a catalog that an adapter finds on demand (a PostgreSQL database's schemas for
// a Database with `spec.catalog`). Thread-safe; connects on first use.
class SchemaDiscovery {
 public:
  virtual ~SchemaDiscovery() = default;
  // The schema `name` (as hop spells it), or nullopt when the system has none.
  virtual Result<std::optional<Schema>> Find(std::string_view name) const = 0;
  // Every schema's hop name, in order.
  virtual Result<std::vector<std::string>> Names() const = 0;
};

struct Schema {
  std::string name;      // e.g. ADS
  std::string catalog;   // e.g. ADS_CATALOG, or ""
  std::string database;  // the Database resource's name, or "" for DEFAULT and UTIL
  std::string url;
  std::string system;  // the URL's system, e.g. "demodb", "kafka"
  Adapter adapter = Adapter::kNone;
  // kLocal: the name of the file the tables are kept in (`default` for jdbc:local:).
  std::string local_file;
  // Not OK when the Database cannot be used (an unknown URL scheme); queries that reach the
  // schema fail with it.
  Status status;
  std::map<std::string, Table> tables;  // by folded name
  // kPostgres: the PostgreSQL schema (`public`, or the URL's currentSchema), and how the tables
  // hop has no Table resource for are found.
  std::string remote_schema;
  std::shared_ptr<const TableDiscovery> discovery;
  // A logical database (`jdbc:logical://nearline=DB;online=DB;offline=DB`): its tiers, in URL
  // order, each the tier's name and the Database that holds it (compatibility.md §5.9).
  std::vector<std::pair<std::string, std::string>> tiers;
  // One of the schemas of a catalog of schemas (a PostgreSQL database's, a catalog-style
  // Database's): table names are unique only within the schema.
  bool catalog_of_schemas = false;
  // The Database's `spec.provisioning` is `async`: CREATE TABLE leaves the creation of its
  // tables to a TableProvisionJob that the operator reconciles (docs/ddl.md#provisioning).
  bool provisions_async = false;

  std::vector<std::string> Path() const;  // [catalog,] name
};

// The schema one-part names are in, and the name of the database its tables are in: a
// Database resource cannot have it (names are lower case).
inline constexpr char kDefaultSchema[] = "DEFAULT";

// Whether hop itself writes and reads the tables of `schema` (local and PostgreSQL databases): a
// materialized view whose table is there is refreshed by hop (runtime/refresh.h), and a query of
// the view reads the rows its last refresh wrote.
bool HopWritesTables(const Schema& schema);

// Errors of name resolution carry Hoptimator's messages (`Schema for X not found.`, ...).
class Catalog {
 public:
  Catalog();
  ~Catalog();
  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;

  // Builds the catalog of `namespace_name` from the store. Fails only when the store does; a
  // Database that cannot be used becomes a schema whose status says why.
  static Result<Catalog> Load(store::Store& store, std::string_view namespace_name);

  // Every schema, in name order (catalog schemas as CATALOG.SCHEMA), with every table and view
  // of the store in them (which reads them all).
  std::vector<const Schema*> Schemas() const;
  // The schemas of the namespace's Database resources (a catalog of schemas by its Database's
  // own entry), without reading any table or view.
  std::vector<const Schema*> DatabaseSchemas() const;
  // Whether `name` is a catalog: of a Database, or of a schema the catalog holds.
  bool IsCatalog(std::string_view name) const;
  // The table or view `name` (as the catalog holds it: PAGE_VIEWS, a quoted `MixedCase`) of
  // `schema`, one of this catalog's schemas, or null when it has none. Fetched from the store the
  // first time it is asked for; tables a TableDiscovery finds in their system are Resolve's.
  const Table* Lookup(const Schema& schema, std::string_view name) const;
  // Whether a view may be named `name` in `schema`: not when a physical table (a Database's
  // table, a Table resource's) is, which the view would hide. InvalidArgument `Cannot overwrite
  // physical table NAME with a view.` then, the words of CREATE VIEW, `hop apply` and the
  // Kubernetes API alike. Looks only at what the schema holds: call Lookup first.
  Status CheckViewName(const Schema& schema, std::string_view name) const;
  // Reads every table and view of the store into the catalog (once): for listings.
  void LoadAll() const;
  // Keeps only the schemas `keep` accepts; the tables and views of those it refused stay hidden
  // from later lookups and listings.
  void Retain(const std::function<bool(const Schema&)>& keep);
  // A catalog that holds what this one holds and fetches from the same store.
  Catalog Clone() const;
  // The schema at `path` (1 part: a schema; 2 parts: catalog, schema), or null.
  const Schema* FindSchema(const std::vector<std::string>& path) const;
  // The schema of a Database resource, or null.
  const Schema* SchemaOfDatabase(std::string_view database) const;
  // The tables of `schema`: those the catalog holds and, when the schema has a discovery, those
  // its system has (which connects to it). Errors: the discovery's.
  Result<std::vector<const Table*>> TablesOf(const Schema& schema) const;
  // The schemas of every catalog whose schemas are found on demand, found now (which connects
  // to their systems); the ones already found are in Schemas(). Errors: the discovery's.
  Result<std::vector<const Schema*>> DiscoverSchemas() const;

  // Resolves a table or view name of 1 to 3 parts: `t` in the default schema, `s.t`,
  // `c.s.t`. Errors: CatalogNotFound `Schema for <NAME> not found.` /
  // `Catalog for <NAME> not found.` / `Object '<T>' not found within '<S>'`; the schema's own
  // status when it is unusable.
  Result<const Table*> Resolve(const std::vector<std::string>& name) const;
  // The schema a table name of 1 to 3 parts belongs in, whether or not the table exists (for
  // statements that create it); the same errors as Resolve for a missing schema or catalog.
  Result<const Schema*> SchemaFor(const std::vector<std::string>& name) const;
  // The table a query of `table` reads: for a table of a logical database, its first tier that
  // has a table of its name (compatibility.md §5.9); else `table` itself.
  const Table* ReadTable(const Table& table) const;
  // SchemaFor for CREATE TABLE: in a catalog-style Database of a declared system (MySQL's shape),
  // a schema that has no table yet is made for the table, as the system makes it.
  Result<const Schema*> SchemaForCreate(const std::vector<std::string>& name) const;

  const std::string& default_schema() const { return default_schema_; }
  // The namespace the catalog was loaded for ("" for a catalog built by hand).
  const std::string& namespace_name() const { return namespace_name_; }

  // Adds (or replaces) a schema; for tests and for adapters loaded by later layers.
  void AddSchema(Schema schema);
  // Declares the catalog of `base` (a Database's schema with `catalog` set), whose schemas
  // `discovery` finds when a name reaches them.
  void AddCatalogDiscovery(Schema base, std::shared_ptr<const SchemaDiscovery> discovery);

  // The store revision the catalog reflects.
  int64_t revision() const { return revision_; }
  // Whether a lookup above (every method that reads schemas or tables) ran since the last
  // ForgetConsulted: a statement that looked nothing up (SELECT 1) gives the same result on any
  // revision, so it need not ask the store whether the catalog is current (CatalogCache::Peek).
  bool consulted() const { return consulted_->load(std::memory_order_relaxed); }
  void ForgetConsulted() const { consulted_->store(false, std::memory_order_relaxed); }
  // Brings the catalog up to date with one change of the store. False when it cannot (a
  // Database changed): the catalog must be loaded again.
  bool Apply(const store::Event& event);

 private:
  friend class CatalogCache;
  void AddTableResource(const resource::Resource& r) const;
  void AddViewResource(const resource::Resource& r) const;
  void AddLogicalTable(const resource::Resource& lt);
  void RemoveResource(const std::string& kind, const std::string& name) const;
  // Lazy loading: the resources of one name of a schema, of one schema, or all.
  void Fetch(const Schema& schema, const std::string& name) const;
  void FetchSchema(const std::string& catalog, const std::string& name) const;
  // The schema key of the schema a Table resource's table belongs in (AddTableResource).
  bool InCatalogOfSchemas(const Schema& schema) const;
  // Adds the resources a lazy read listed; a failed read is logged and remembered.
  void AddFetched(const Result<store::ListResult>& listed, bool tables) const;

  // The schema `name` of catalog `catalog`, found by its discovery (kept once found), or null.
  // Errors become a schema whose status says why (kept until a later call finds it).
  const Schema* DiscoverSchema(const std::string& catalog, const std::string& name) const;

  // Lookups add what they fetch: schemas_ and index_ change under const methods.
  mutable std::map<std::string, Schema> schemas_;  // by "CATALOG.SCHEMA" or "SCHEMA"
  // Where tables and views not loaded yet are fetched from; null for a catalog built by hand,
  // which holds everything it has.
  store::Store* store_ = nullptr;
  mutable bool loaded_all_ = false;
  // What lookups have asked the store for: (schema key, name) and schema keys.
  mutable std::set<std::pair<std::string, std::string>> fetched_;
  mutable std::set<std::string> fetched_schemas_;
  std::set<std::string> hidden_;            // schema keys Retain refused
  std::set<std::string> hidden_databases_;  // and the Databases of those schemas
  mutable Status fetch_status_;             // the first failed read of a lookup; Resolve reports it
  // Catalogs whose schemas are found on demand, and the schemas found so far (by the key of
  // schemas_; node-stable, so pointers stay valid). Guarded by discovered_mu_.
  struct LazyCatalog {
    Schema base;  // the Database's schema, which found schemas are made from
    std::shared_ptr<const SchemaDiscovery> discovery;
  };
  std::map<std::string, LazyCatalog> catalog_discovery_;  // by catalog name
  mutable std::map<std::string, Schema> discovered_;
  // Schemas SchemaForCreate made, by key; not listed, and not found by lookups.
  mutable std::map<std::string, Schema> made_;
  std::unique_ptr<std::mutex> discovered_mu_ = std::make_unique<std::mutex>();
  std::string default_schema_ = kDefaultSchema;
  std::string namespace_name_;
  // Where each Table and View resource is: (kind, name) -> (schema key, table name).
  mutable std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> index_;
  int64_t revision_ = 0;
  std::unique_ptr<std::atomic<bool>> consulted_ = std::make_unique<std::atomic<bool>>(false);
  void Consulted() const { consulted_->store(true, std::memory_order_relaxed); }
};

// The catalog of one namespace, kept current across statements: loaded once, then brought up to
// date from the store's changes since (a reload when a Database changed or the history is gone),
// so that a statement does not read every view of the namespace. Not thread-safe.
class CatalogCache {
 public:
  CatalogCache(store::Store& store, std::string namespace_name);
  // The catalog as of the store's latest revision; valid until the next call.
  Result<const Catalog*> Get();
  // The catalog as the last Get left it, without asking the store (null before the first Get):
  // for a statement that may look nothing up, which calls Get if it did (Catalog::consulted).
  const Catalog* Peek() const { return catalog_ ? &*catalog_ : nullptr; }
  const std::string& namespace_name() const { return namespace_; }

 private:
  // Applies the changes since the catalog's revision; false when it must be loaded again.
  bool CatchUp();

  store::Store& store_;
  std::string namespace_;
  std::optional<Catalog> catalog_;
};

// Parses a column type written in a Table resource ("VARCHAR", "BIGINT NOT NULL", ...).
Result<sql::DataType> ParseColumnType(std::string_view text);

// The `columns` of a Table resource, and of a TableProvisionJob hop writes, for `row`: each
// column's name, its type in ANSI SQL without its nullability, and `nullable: false` for NOT
// NULL. Errors: a type the SQL writer cannot print.
Result<Json> ColumnsJson(const RowType& row);
// The row type such `columns` describe. Errors (InvalidArgument) name the entry that is not a
// column, or the column whose type does not parse.
Result<RowType> RowTypeOfColumns(const Json& columns);

}  // namespace hop::catalog
