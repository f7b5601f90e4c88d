// The PostgreSQL catalog hop shows PostgreSQL clients (docs/pg_catalog.md): schemas PG_CATALOG
// and INFORMATION_SCHEMA whose tables (pg_class, pg_attribute, information_schema.columns, ...)
// describe the catalog a query is bound against, with stable OIDs. It is built by the binder,
// the first stage that knows a view's columns, once per Binder, from that Binder's catalog: a
// query sees one consistent snapshot.
//
// Names are shown as a PostgreSQL client would write them: a hop name that an unquoted name
// folds to (no lower-case letters: ORDERS, ADS) is shown in lower case (orders, ads), so that
// what a client reads back and writes unquoted names the same object; any other name (k8s,
// "MixedCase") is shown as it is.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"

namespace hop::binder {

inline constexpr std::string_view kPgCatalogSchema = "PG_CATALOG";
inline constexpr std::string_view kInformationSchema = "INFORMATION_SCHEMA";
inline constexpr uint32_t kPgCatalogOid = 11;  // PostgreSQL's own OID for pg_catalog
inline constexpr uint32_t kHopRoleOid = 10;    // the one role, `hop`, owner of everything
inline constexpr std::string_view kHopRole = "hop";

// The OID of an object of hop's catalog: FNV-1a (32 bits) of `kind` and its qualified hop name,
// mapped into [16384, 2^31): stable across processes and catalog loads, independent of the
// order objects were created in. `kind` is "namespace" or "relation".
uint32_t PgOid(std::string_view kind, std::string_view qualified_name);

// A hop name as PostgreSQL clients see it (above).
std::string PgName(std::string_view hop_name);

// The OID and name of PostgreSQL's function `name` (pg_catalog.array_in, a type's input
// function), as pg_type.typinput names them; nullopt for any other.
std::optional<uint32_t> PgProcOid(std::string_view name);
std::optional<std::string_view> PgProcName(uint32_t oid);

struct PgNamespace {
  uint32_t oid = 0;
  std::string hop_name;  // ADS, CAT.ADS, PG_CATALOG
  std::string name;  // as shown: ads, pg_catalog, k8s
  const catalog::Schema* schema = nullptr;  // null for PG_CATALOG and INFORMATION_SCHEMA
};

struct PgRelation {
  uint32_t oid = 0;
  std::string hop_name;  // the table's own name: ORDERS
  uint32_t namespace_oid = 0;
  std::string name;  // as shown
  char kind = 'r';   // pg_class.relkind: r (table), v (view), m (materialized view), i (index)
  catalog::RowType columns;
  bool columns_known = true;  // false when a view's query does not bind (it is listed without)
  std::string definition;     // a view's or materialized view's query, as hop keeps it
  // A table's primary key, as its columns' numbers; for an index (the key's own relation), the
  // table's columns it is on.
  std::vector<int16_t> key;
  uint32_t table_oid = 0;  // an index: its table's OID
  uint32_t index_oid = 0;  // a table with a primary key: its index's OID
};

// The OID of the primary-key constraint whose index is `index`.
uint32_t PgConstraintOid(const PgRelation& index);

class PgCatalog {
 public:
  // The columns of a view or materialized view (the binder binds its query).
  using ViewColumns = std::function<Result<catalog::RowType>(const catalog::Table&)>;

  // The snapshot of `catalog`. Tables of schemas found on demand (PostgreSQL) are listed as far
  // as their discovery answers; a discovery that fails leaves that schema with the tables the
  // catalog holds.
  static std::unique_ptr<PgCatalog> Build(const catalog::Catalog& catalog, ViewColumns columns);

  // Whether `schema` (folded) is PG_CATALOG or INFORMATION_SCHEMA.
  static bool IsSchema(std::string_view schema);
  // Whether PG_CATALOG has a table `name` (folded), for unqualified names.
  static bool HasPgCatalogTable(std::string_view name);

  // The table `name` of PG_CATALOG or INFORMATION_SCHEMA (folded names), its rows computed now;
  // null when there is none. The table is owned by the returned pointer (and the snapshot).
  std::shared_ptr<const catalog::Table> Table(std::string_view schema, std::string_view name) const;

  const std::vector<PgNamespace>& namespaces() const { return namespaces_; }
  const std::vector<PgRelation>& relations() const { return relations_; }
  // current_database(): the namespace's name, `default` for a catalog of no namespace.
  const std::string& database() const { return database_; }
  // The schemas a client's unqualified names search, as shown: pg_catalog, the default schema,
  // then every other schema of the namespace in name order (docs/pg_catalog.md).
  std::vector<std::string> SearchPath(bool include_implicit) const;
  // The OIDs of the relations pg_table_is_visible calls visible: those no schema earlier on the
  // search path has a relation of the same name for.
  const std::vector<uint32_t>& VisibleRelations() const;
  // The relation a client's name (`orders`, `ads.orders`, `"Mixed"`, `pg_catalog.pg_class`)
  // names, looked up on the search path; nullptr when none.
  const PgRelation* FindRelation(std::string_view text) const;
  const PgNamespace* FindNamespace(std::string_view text) const;
  const PgNamespace* FindNamespaceByOid(uint32_t oid) const;
  // The name PostgreSQL prints for relation `r`: qualified unless it is visible.
  std::string RelationDisplayName(const PgRelation& r) const;

 private:
  // Adds the index of `t`'s primary key (a PostgreSQL table's), after `table` is numbered.
  static void AddPrimaryKey(const catalog::Table& t, PgRelation& table, PgCatalog& pg);

  std::vector<PgNamespace> namespaces_;
  std::vector<PgRelation> relations_;
  std::string default_schema_;  // as shown
  std::string database_;        // the namespace's name
  mutable std::map<std::string, std::shared_ptr<const catalog::Table>, std::less<>> tables_;
  mutable std::optional<std::vector<uint32_t>> visible_;  // VisibleRelations, once computed
};

}  // namespace hop::binder
