// The emulated PostgreSQL catalog (pg_catalog.h): the snapshot of a hop catalog as namespaces
// and relations with OIDs, and the tables of PG_CATALOG and INFORMATION_SCHEMA computed from it.
// Each table is a list of columns and a function from the snapshot to its rows; what hop does not
// have (indexes, constraints, defaults, comments, inheritance) is a table with no rows.
#include "binder/pg_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "catalog/pg_types.h"
#include "catalog/source.h"
#include "common/strings.h"
#include "sql/parser.h"

namespace hop::binder {

namespace {

using catalog::Row;
using Cell = std::optional<std::string>;

Cell Num(int64_t v) { return std::to_string(v); }
Cell Bool(bool v) { return v ? "true" : "false"; }
Cell Text(std::string_view v) { return std::string(v); }
const Cell kNull = std::nullopt;

// What a table reads; its rows are computed from the snapshot when a query names it.
struct Spec {
  std::string_view schema;  // PG_CATALOG or INFORMATION_SCHEMA
  std::string_view name;
  std::vector<std::pair<std::string_view, std::string_view>> columns;  // name, type
  std::vector<Row> (*rows)(const PgCatalog&);
};

std::vector<Row> NoRows(const PgCatalog&) { return {}; }

std::vector<Row> NamespaceRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgNamespace& n : pg.namespaces()) {
    out.push_back({Num(n.oid), n.name, Num(kHopRoleOid), kNull});
  }
  return out;
}

std::vector<Row> ClassRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgRelation& r : pg.relations()) {
    const bool has_index = r.kind != 'i' && !r.key.empty();
    out.push_back({Num(r.oid),
                   r.name,
                   Num(r.namespace_oid),
                   Num(0),
                   Num(0),
                   Num(kHopRoleOid),
                   Num(0),
                   Num(0),
                   Num(0),
                   Bool(has_index),
                   Bool(false),
                   Text("p"),
                   Text(std::string(1, r.kind)),
                   Num(static_cast<int64_t>(r.columns.columns.size())),
                   Num(0),
                   Bool(false),
                   Bool(false),
                   Bool(false),
                   Bool(false),
                   Bool(false),
                   Text("n"),
                   kNull,
                   kNull,
                   kNull});
  }
  return out;
}

bool Nullable(const sql::DataType& t) { return t.nullability != sql::Nullability::kNotNull; }

std::vector<Row> AttributeRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgRelation& r : pg.relations()) {
    int16_t num = 0;
    for (const catalog::Column& c : r.columns.columns) {
      ++num;
      const catalog::PgType t = catalog::PgTypeOf(c.type);
      const bool collatable = t.oid == 25 || t.oid == 1042 || t.oid == 1043;
      const bool array = t.name.substr(0, 1) == "_";
      // PostgreSQL's storage of the type: fixed-length values plain, numeric main, the other
      // variable-length ones extended.
      const char* storage = t.length > 0 ? "p" : t.oid == 1700 ? "m" : "x";
      out.push_back({Num(r.oid), PgName(c.name), Num(t.oid), Num(t.length), Num(num),
                     Num(t.modifier), Num(array ? 1 : 0), Bool(!Nullable(c.type)), Bool(false),
                     Text(""), Text(""), Bool(false), Num(collatable ? 100 : 0), Text(storage),
                     Text(""), Num(-1), kNull});
    }
  }
  return out;
}

std::vector<Row> TypeRows(const PgCatalog&) {
  std::vector<Row> out;
  auto add = [&](uint32_t oid, std::string_view name, int64_t len, char category, uint32_t elem,
                 uint32_t array, uint32_t input, bool collatable) {
    const bool byval = len > 0 && len <= 8;
    out.push_back({Num(oid), Text(name), Num(kPgCatalogOid), Num(kHopRoleOid), Num(len),
                   Bool(byval), Text("b"), Text(std::string(1, category)), Text(","), Num(0),
                   Num(elem), Num(array), Num(input), Bool(false), Num(0), Num(-1),
                   Num(collatable ? 100 : 0)});
  };
  for (const catalog::PgScalarType& s : catalog::PgScalarTypes()) {
    add(s.type.oid, s.type.name, s.type.length, s.category, 0, s.array_oid, s.input_oid,
        s.collatable);
  }
  for (const catalog::PgScalarType& s : catalog::PgScalarTypes()) {
    if (s.array_oid == 0) continue;
    add(s.array_oid, s.array_name, -1, 'A', s.type.oid, 0, *PgProcOid("array_in"), s.collatable);
  }
  std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) {
    return std::stoll(*a[0]) < std::stoll(*b[0]);
  });
  return out;
}

// hop's catalog is one database: the namespace's (current_database()).
std::vector<Row> DatabaseRows(const PgCatalog& pg) {
  return {{Num(PgOid("database", pg.database())), pg.database(), Num(kHopRoleOid), Num(6),
           Text("c"), Bool(false), Bool(true), Num(-1), Text("C"), Text("C"), kNull, kNull}};
}

std::vector<Row> RoleRows(const PgCatalog&) {
  return {{Num(kHopRoleOid), Text(kHopRole), Bool(true), Bool(true), Bool(true), Bool(true),
           Bool(true), Num(-1), kNull, Bool(false), Bool(false)}};
}

std::vector<Row> UserRows(const PgCatalog&) {
  return {{Text(kHopRole), Num(kHopRoleOid), Bool(true), Bool(true)}};
}

std::vector<Row> CollationRows(const PgCatalog&) {
  return {{Num(100), Text("default"), Num(kPgCatalogOid)}};
}

std::vector<Row> TablespaceRows(const PgCatalog&) {
  return {{Num(1663), Text("pg_default"), Num(kHopRoleOid)}};
}

std::vector<Row> SchemataRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgNamespace& n : pg.namespaces()) out.push_back({kNull, n.name, Text(kHopRole)});
  return out;
}

const PgNamespace* NamespaceOf(const PgCatalog& pg, uint32_t oid) {
  for (const PgNamespace& n : pg.namespaces()) {
    if (n.oid == oid) return &n;
  }
  return nullptr;
}

// `[1,3]`: an int2vector as the engine reads an array.
std::string KeyArray(const std::vector<int16_t>& key) {
  std::string out = "[";
  for (size_t i = 0; i < key.size(); ++i) out += (i ? "," : "") + std::to_string(key[i]);
  return out + "]";
}

// The primary keys the catalog knows (PostgreSQL tables'), each an index and a constraint.
std::vector<Row> IndexRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgRelation& r : pg.relations()) {
    if (r.kind != 'i') continue;
    out.push_back({Num(r.oid), Num(r.table_oid), Num(static_cast<int64_t>(r.key.size())),
                   Bool(true), Bool(true), Bool(false), Bool(true), Bool(false), KeyArray(r.key)});
  }
  return out;
}

std::vector<Row> ConstraintRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgRelation& r : pg.relations()) {
    if (r.kind != 'i') continue;
    out.push_back({Num(PgConstraintOid(r)), r.name, Num(r.namespace_oid), Text("p"), Bool(false),
                   Bool(false), Num(r.table_oid), Num(r.oid), KeyArray(r.key)});
  }
  return out;
}

// information_schema lists tables and views, not materialized views (as PostgreSQL does).
std::vector<Row> InfoTableRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgRelation& r : pg.relations()) {
    if (r.kind == 'm' || r.kind == 'i') continue;
    const PgNamespace* n = NamespaceOf(pg, r.namespace_oid);
    out.push_back({kNull, n ? Cell(n->name) : kNull, r.name,
                   Text(r.kind == 'v' ? "VIEW" : "BASE TABLE")});
  }
  return out;
}

std::vector<Row> InfoColumnRows(const PgCatalog& pg) {
  std::vector<Row> out;
  for (const PgRelation& r : pg.relations()) {
    if (r.kind == 'm' || r.kind == 'i') continue;
    const PgNamespace* n = NamespaceOf(pg, r.namespace_oid);
    int64_t position = 0;
    for (const catalog::Column& c : r.columns.columns) {
      const catalog::PgType t = catalog::PgTypeOf(c.type);
      const bool array = t.name.substr(0, 1) == "_";
      Cell length, precision, scale;
      if ((t.oid == 1043 || t.oid == 1042) && t.modifier >= 4) length = Num(t.modifier - 4);
      if (t.oid == 1700 && t.modifier >= 4) {
        precision = Num((t.modifier - 4) >> 16);
        scale = Num((t.modifier - 4) & 0xFFFF);
      }
      std::string data_type = array ? "ARRAY" : catalog::FormatPgType(t.oid, -1);
      out.push_back({kNull, n ? Cell(n->name) : kNull, r.name, PgName(c.name), Num(++position),
                     kNull, Text(Nullable(c.type) ? "YES" : "NO"), data_type, length, precision,
                     scale, Text(t.name)});
    }
  }
  return out;
}

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = {
      {kPgCatalogSchema,
       "PG_NAMESPACE",
       {{"OID", "BIGINT NOT NULL"},
        {"NSPNAME", "VARCHAR NOT NULL"},
        {"NSPOWNER", "BIGINT NOT NULL"},
        {"NSPACL", "VARCHAR ARRAY"}},
       NamespaceRows},
      {kPgCatalogSchema,
       "PG_CLASS",
       {{"OID", "BIGINT NOT NULL"},
        {"RELNAME", "VARCHAR NOT NULL"},
        {"RELNAMESPACE", "BIGINT NOT NULL"},
        {"RELTYPE", "BIGINT NOT NULL"},
        {"RELOFTYPE", "BIGINT NOT NULL"},
        {"RELOWNER", "BIGINT NOT NULL"},
        {"RELAM", "BIGINT NOT NULL"},
        {"RELTABLESPACE", "BIGINT NOT NULL"},
        {"RELTOASTRELID", "BIGINT NOT NULL"},
        {"RELHASINDEX", "BOOLEAN NOT NULL"},
        {"RELISSHARED", "BOOLEAN NOT NULL"},
        {"RELPERSISTENCE", "VARCHAR NOT NULL"},
        {"RELKIND", "VARCHAR NOT NULL"},
        {"RELNATTS", "SMALLINT NOT NULL"},
        {"RELCHECKS", "SMALLINT NOT NULL"},
        {"RELHASRULES", "BOOLEAN NOT NULL"},
        {"RELHASTRIGGERS", "BOOLEAN NOT NULL"},
        {"RELROWSECURITY", "BOOLEAN NOT NULL"},
        {"RELFORCEROWSECURITY", "BOOLEAN NOT NULL"},
        {"RELISPARTITION", "BOOLEAN NOT NULL"},
        {"RELREPLIDENT", "VARCHAR NOT NULL"},
        {"RELACL", "VARCHAR ARRAY"},
        {"RELOPTIONS", "VARCHAR ARRAY"},
        {"RELPARTBOUND", "VARCHAR"}},
       ClassRows},
      {kPgCatalogSchema,
       "PG_ATTRIBUTE",
       {{"ATTRELID", "BIGINT NOT NULL"},
        {"ATTNAME", "VARCHAR NOT NULL"},
        {"ATTTYPID", "BIGINT NOT NULL"},
        {"ATTLEN", "SMALLINT NOT NULL"},
        {"ATTNUM", "SMALLINT NOT NULL"},
        {"ATTTYPMOD", "INTEGER NOT NULL"},
        {"ATTNDIMS", "SMALLINT NOT NULL"},
        {"ATTNOTNULL", "BOOLEAN NOT NULL"},
        {"ATTHASDEF", "BOOLEAN NOT NULL"},
        {"ATTIDENTITY", "VARCHAR NOT NULL"},
        {"ATTGENERATED", "VARCHAR NOT NULL"},
        {"ATTISDROPPED", "BOOLEAN NOT NULL"},
        {"ATTCOLLATION", "BIGINT NOT NULL"},
        {"ATTSTORAGE", "VARCHAR NOT NULL"},
        {"ATTCOMPRESSION", "VARCHAR NOT NULL"},
        {"ATTSTATTARGET", "INTEGER NOT NULL"},
        {"ATTACL", "VARCHAR ARRAY"}},
       AttributeRows},
      {kPgCatalogSchema,
       "PG_TYPE",
       {{"OID", "BIGINT NOT NULL"},
        {"TYPNAME", "VARCHAR NOT NULL"},
        {"TYPNAMESPACE", "BIGINT NOT NULL"},
        {"TYPOWNER", "BIGINT NOT NULL"},
        {"TYPLEN", "SMALLINT NOT NULL"},
        {"TYPBYVAL", "BOOLEAN NOT NULL"},
        {"TYPTYPE", "VARCHAR NOT NULL"},
        {"TYPCATEGORY", "VARCHAR NOT NULL"},
        {"TYPDELIM", "VARCHAR NOT NULL"},
        {"TYPRELID", "BIGINT NOT NULL"},
        {"TYPELEM", "BIGINT NOT NULL"},
        {"TYPARRAY", "BIGINT NOT NULL"},
        {"TYPINPUT", "BIGINT NOT NULL"},
        {"TYPNOTNULL", "BOOLEAN NOT NULL"},
        {"TYPBASETYPE", "BIGINT NOT NULL"},
        {"TYPTYPMOD", "INTEGER NOT NULL"},
        {"TYPCOLLATION", "BIGINT NOT NULL"}},
       TypeRows},
      {kPgCatalogSchema,
       "PG_DATABASE",
       {{"OID", "BIGINT NOT NULL"},
        {"DATNAME", "VARCHAR NOT NULL"},
        {"DATDBA", "BIGINT NOT NULL"},
        {"ENCODING", "INTEGER NOT NULL"},
        {"DATLOCPROVIDER", "VARCHAR NOT NULL"},
        {"DATISTEMPLATE", "BOOLEAN NOT NULL"},
        {"DATALLOWCONN", "BOOLEAN NOT NULL"},
        {"DATCONNLIMIT", "INTEGER NOT NULL"},
        {"DATCOLLATE", "VARCHAR NOT NULL"},
        {"DATCTYPE", "VARCHAR NOT NULL"},
        {"DATICULOCALE", "VARCHAR"},
        {"DATACL", "VARCHAR ARRAY"}},
       DatabaseRows},
      {kPgCatalogSchema,
       "PG_ROLES",
       {{"OID", "BIGINT NOT NULL"},
        {"ROLNAME", "VARCHAR NOT NULL"},
        {"ROLSUPER", "BOOLEAN NOT NULL"},
        {"ROLINHERIT", "BOOLEAN NOT NULL"},
        {"ROLCREATEROLE", "BOOLEAN NOT NULL"},
        {"ROLCREATEDB", "BOOLEAN NOT NULL"},
        {"ROLCANLOGIN", "BOOLEAN NOT NULL"},
        {"ROLCONNLIMIT", "INTEGER NOT NULL"},
        {"ROLVALIDUNTIL", "TIMESTAMP WITH LOCAL TIME ZONE"},
        {"ROLREPLICATION", "BOOLEAN NOT NULL"},
        {"ROLBYPASSRLS", "BOOLEAN NOT NULL"}},
       RoleRows},
      {kPgCatalogSchema,
       "PG_AUTH_MEMBERS",
       {{"ROLEID", "BIGINT NOT NULL"},
        {"MEMBER", "BIGINT NOT NULL"},
        {"GRANTOR", "BIGINT NOT NULL"},
        {"ADMIN_OPTION", "BOOLEAN NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_USER",
       {{"USENAME", "VARCHAR NOT NULL"},
        {"USESYSID", "BIGINT NOT NULL"},
        {"USECREATEDB", "BOOLEAN NOT NULL"},
        {"USESUPER", "BOOLEAN NOT NULL"}},
       UserRows},
      {kPgCatalogSchema,
       "PG_AM",
       {{"OID", "BIGINT NOT NULL"}, {"AMNAME", "VARCHAR NOT NULL"}, {"AMTYPE", "VARCHAR NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_INDEX",
       {{"INDEXRELID", "BIGINT NOT NULL"},
        {"INDRELID", "BIGINT NOT NULL"},
        {"INDNATTS", "SMALLINT NOT NULL"},
        {"INDISUNIQUE", "BOOLEAN NOT NULL"},
        {"INDISPRIMARY", "BOOLEAN NOT NULL"},
        {"INDISCLUSTERED", "BOOLEAN NOT NULL"},
        {"INDISVALID", "BOOLEAN NOT NULL"},
        {"INDISREPLIDENT", "BOOLEAN NOT NULL"},
        {"INDKEY", "SMALLINT ARRAY NOT NULL"}},
       IndexRows},
      {kPgCatalogSchema,
       "PG_CONSTRAINT",
       {{"OID", "BIGINT NOT NULL"},
        {"CONNAME", "VARCHAR NOT NULL"},
        {"CONNAMESPACE", "BIGINT NOT NULL"},
        {"CONTYPE", "VARCHAR NOT NULL"},
        {"CONDEFERRABLE", "BOOLEAN NOT NULL"},
        {"CONDEFERRED", "BOOLEAN NOT NULL"},
        {"CONRELID", "BIGINT NOT NULL"},
        {"CONINDID", "BIGINT NOT NULL"},
        {"CONKEY", "SMALLINT ARRAY"}},
       ConstraintRows},
      {kPgCatalogSchema,
       "PG_DESCRIPTION",
       {{"OBJOID", "BIGINT NOT NULL"},
        {"CLASSOID", "BIGINT NOT NULL"},
        {"OBJSUBID", "INTEGER NOT NULL"},
        {"DESCRIPTION", "VARCHAR NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_ATTRDEF",
       {{"OID", "BIGINT NOT NULL"},
        {"ADRELID", "BIGINT NOT NULL"},
        {"ADNUM", "SMALLINT NOT NULL"},
        {"ADBIN", "VARCHAR NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_INHERITS",
       {{"INHRELID", "BIGINT NOT NULL"},
        {"INHPARENT", "BIGINT NOT NULL"},
        {"INHSEQNO", "INTEGER NOT NULL"},
        {"INHDETACHPENDING", "BOOLEAN NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_COLLATION",
       {{"OID", "BIGINT NOT NULL"},
        {"COLLNAME", "VARCHAR NOT NULL"},
        {"COLLNAMESPACE", "BIGINT NOT NULL"}},
       CollationRows},
      {kPgCatalogSchema,
       "PG_TABLESPACE",
       {{"OID", "BIGINT NOT NULL"},
        {"SPCNAME", "VARCHAR NOT NULL"},
        {"SPCOWNER", "BIGINT NOT NULL"}},
       TablespaceRows},
      {kPgCatalogSchema,
       "PG_POLICY",
       {{"OID", "BIGINT NOT NULL"},
        {"POLNAME", "VARCHAR NOT NULL"},
        {"POLRELID", "BIGINT NOT NULL"},
        {"POLCMD", "VARCHAR NOT NULL"},
        {"POLPERMISSIVE", "BOOLEAN NOT NULL"},
        {"POLROLES", "BIGINT ARRAY NOT NULL"},
        {"POLQUAL", "VARCHAR"},
        {"POLWITHCHECK", "VARCHAR"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_STATISTIC_EXT",
       {{"OID", "BIGINT NOT NULL"},
        {"STXRELID", "BIGINT NOT NULL"},
        {"STXNAME", "VARCHAR NOT NULL"},
        {"STXNAMESPACE", "BIGINT NOT NULL"},
        {"STXOWNER", "BIGINT NOT NULL"},
        {"STXSTATTARGET", "INTEGER NOT NULL"},
        {"STXKEYS", "SMALLINT ARRAY NOT NULL"},
        {"STXKIND", "VARCHAR ARRAY NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_PUBLICATION",
       {{"OID", "BIGINT NOT NULL"},
        {"PUBNAME", "VARCHAR NOT NULL"},
        {"PUBOWNER", "BIGINT NOT NULL"},
        {"PUBALLTABLES", "BOOLEAN NOT NULL"},
        {"PUBINSERT", "BOOLEAN NOT NULL"},
        {"PUBUPDATE", "BOOLEAN NOT NULL"},
        {"PUBDELETE", "BOOLEAN NOT NULL"},
        {"PUBTRUNCATE", "BOOLEAN NOT NULL"},
        {"PUBVIAROOT", "BOOLEAN NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_PUBLICATION_REL",
       {{"OID", "BIGINT NOT NULL"},
        {"PRPUBID", "BIGINT NOT NULL"},
        {"PRRELID", "BIGINT NOT NULL"},
        {"PRQUAL", "VARCHAR"},
        {"PRATTRS", "SMALLINT ARRAY"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_PUBLICATION_NAMESPACE",
       {{"OID", "BIGINT NOT NULL"}, {"PNPUBID", "BIGINT NOT NULL"}, {"PNNSPID", "BIGINT NOT NULL"}},
       NoRows},
      {kPgCatalogSchema,
       "PG_REWRITE",
       {{"OID", "BIGINT NOT NULL"},
        {"RULENAME", "VARCHAR NOT NULL"},
        {"EV_CLASS", "BIGINT NOT NULL"},
        {"EV_TYPE", "VARCHAR NOT NULL"},
        {"EV_ENABLED", "VARCHAR NOT NULL"},
        {"IS_INSTEAD", "BOOLEAN NOT NULL"},
        {"EV_QUAL", "VARCHAR NOT NULL"},
        {"EV_ACTION", "VARCHAR NOT NULL"}},
       NoRows},
      {kInformationSchema,
       "SCHEMATA",
       {{"CATALOG_NAME", "VARCHAR"},
        {"SCHEMA_NAME", "VARCHAR NOT NULL"},
        {"SCHEMA_OWNER", "VARCHAR"}},
       SchemataRows},
      {kInformationSchema,
       "TABLES",
       {{"TABLE_CATALOG", "VARCHAR"},
        {"TABLE_SCHEMA", "VARCHAR"},
        {"TABLE_NAME", "VARCHAR NOT NULL"},
        {"TABLE_TYPE", "VARCHAR NOT NULL"}},
       InfoTableRows},
      {kInformationSchema,
       "COLUMNS",
       {{"TABLE_CATALOG", "VARCHAR"},
        {"TABLE_SCHEMA", "VARCHAR"},
        {"TABLE_NAME", "VARCHAR NOT NULL"},
        {"COLUMN_NAME", "VARCHAR NOT NULL"},
        {"ORDINAL_POSITION", "INTEGER NOT NULL"},
        {"COLUMN_DEFAULT", "VARCHAR"},
        {"IS_NULLABLE", "VARCHAR NOT NULL"},
        {"DATA_TYPE", "VARCHAR NOT NULL"},
        {"CHARACTER_MAXIMUM_LENGTH", "INTEGER"},
        {"NUMERIC_PRECISION", "INTEGER"},
        {"NUMERIC_SCALE", "INTEGER"},
        {"UDT_NAME", "VARCHAR NOT NULL"}},
       InfoColumnRows},
  };
  return specs;
}

const Spec* FindSpec(std::string_view schema, std::string_view name) {
  for (const Spec& s : Specs()) {
    if (s.schema == schema && s.name == name) return &s;
  }
  return nullptr;
}

catalog::RowType SpecRowType(const Spec& spec) {
  catalog::RowType out;
  for (const auto& [name, type] : spec.columns) {
    auto parsed = sql::ParseDataType(type);
    // The column types above are constants that parse.
    out.columns.push_back({std::string(name), parsed.ok() ? *parsed : sql::DataType()});
  }
  return out;
}

std::string Qualified(const std::vector<std::string>& path) { return hop::Join(path, "."); }

// A client's dotted name, each part folded as hop folds it (unquoted: upper case).
std::vector<std::string> ClientNameParts(std::string_view text) {
  std::vector<std::string> parts;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = was_quoted = true;
    } else if (c == '.') {
      parts.push_back(was_quoted ? cur : Utf8ToUpper(cur));
      cur.clear();
      was_quoted = false;
    } else if (c != ' ') {
      cur += c;
    }
  }
  parts.push_back(was_quoted ? cur : Utf8ToUpper(cur));
  return parts;
}

}  // namespace

uint32_t PgConstraintOid(const PgRelation& index) {
  return PgOid("constraint", std::to_string(index.oid));
}

uint32_t PgOid(std::string_view kind, std::string_view qualified_name) {
  uint32_t h = 2166136261u;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 16777619u;
    }
  };
  mix(kind);
  mix(std::string_view("\0", 1));
  mix(qualified_name);
  constexpr uint32_t kFirst = 16384, kEnd = 2147483648u;
  return kFirst + h % (kEnd - kFirst);
}

std::string PgName(std::string_view hop_name) {
  for (char c : hop_name) {
    if (c >= 'a' && c <= 'z') return std::string(hop_name);
  }
  const std::string lower = Utf8ToLower(hop_name);
  // Only a name whose lower case folds back to it is shown in lower case.
  return Utf8ToUpper(lower) == hop_name ? lower : std::string(hop_name);
}

std::optional<uint32_t> PgProcOid(std::string_view name) {
  if (name.substr(0, 11) == "pg_catalog.") name.remove_prefix(11);
  if (name == "array_in") return 750;
  for (const catalog::PgScalarType& s : catalog::PgScalarTypes()) {
    if (s.input == name) return s.input_oid;
  }
  return std::nullopt;
}

std::optional<std::string_view> PgProcName(uint32_t oid) {
  if (oid == 750) return "array_in";
  for (const catalog::PgScalarType& s : catalog::PgScalarTypes()) {
    if (s.input_oid == oid) return s.input;
  }
  return std::nullopt;
}

bool PgCatalog::IsSchema(std::string_view schema) {
  return schema == kPgCatalogSchema || schema == kInformationSchema;
}

bool PgCatalog::HasPgCatalogTable(std::string_view name) {
  return FindSpec(kPgCatalogSchema, name) != nullptr;
}

std::unique_ptr<PgCatalog> PgCatalog::Build(const catalog::Catalog& cat, ViewColumns columns) {
  auto pg = std::make_unique<PgCatalog>();
  pg->default_schema_ = PgName(cat.default_schema());
  pg->database_ = cat.namespace_name().empty() ? "default" : cat.namespace_name();
  auto add_namespace = [&](std::string hop_name, const catalog::Schema* schema) -> uint32_t {
    PgNamespace n;
    n.oid = hop_name == kPgCatalogSchema ? kPgCatalogOid : PgOid("namespace", hop_name);
    n.name = PgName(hop_name);
    n.hop_name = std::move(hop_name);
    n.schema = schema;
    pg->namespaces_.push_back(n);
    return n.oid;
  };
  for (std::string_view system : {kPgCatalogSchema, kInformationSchema}) {
    const uint32_t ns = add_namespace(std::string(system), nullptr);
    for (const Spec& spec : Specs()) {
      if (spec.schema != system) continue;
      PgRelation r;
      r.hop_name = std::string(spec.name);
      r.oid = PgOid("relation", std::string(system) + "." + r.hop_name);
      r.namespace_oid = ns;
      r.name = PgName(spec.name);
      r.kind = system == kPgCatalogSchema ? 'r' : 'v';
      r.columns = SpecRowType(spec);
      pg->relations_.push_back(std::move(r));
    }
  }
  for (const catalog::Schema* schema : cat.Schemas()) {
    const std::string key = Qualified(schema->Path());
    const uint32_t ns = add_namespace(key, schema);
    auto listed = cat.TablesOf(*schema);
    std::vector<const catalog::Table*> tables;
    if (listed.ok()) {
      tables = *listed;
    } else {
      for (const auto& [name, t] : schema->tables) tables.push_back(&t);
    }
    for (const catalog::Table* t : tables) {
      PgRelation r;
      r.hop_name = t->name;
      r.oid = PgOid("relation", t->QualifiedName());
      r.namespace_oid = ns;
      r.name = PgName(t->name);
      r.kind = t->kind == catalog::ObjectKind::kTable  ? 'r'
               : t->kind == catalog::ObjectKind::kView ? 'v'
                                                        : 'm';
      r.columns = t->row_type;
      if (t->kind != catalog::ObjectKind::kTable) r.definition = t->sql;
      if (t->kind != catalog::ObjectKind::kTable && !t->sql.empty()) {
        auto bound = columns(*t);
        if (bound.ok()) {
          r.columns = *bound;
        } else {
          r.columns_known = false;
        }
      }
      AddPrimaryKey(*t, r, *pg);
      pg->relations_.push_back(std::move(r));
    }
  }
  return pg;
}

void PgCatalog::AddPrimaryKey(const catalog::Table& t, PgRelation& table, PgCatalog& pg) {
  if (t.primary_key.empty() || t.primary_key_name.empty()) return;
  PgRelation index;
  for (const std::string& column : t.primary_key) {
    const int at = table.columns.Find(column);
    if (at < 0) return;  // a key the columns do not have: none shown
    table.key.push_back(static_cast<int16_t>(at + 1));
    index.columns.columns.push_back(table.columns.columns[at]);
  }
  index.oid = PgOid("index", t.QualifiedName());
  index.name = t.primary_key_name;
  index.hop_name =
      PgName(Utf8ToUpper(index.name)) == index.name ? Utf8ToUpper(index.name) : index.name;
  index.namespace_oid = table.namespace_oid;
  index.kind = 'i';
  index.key = table.key;
  index.table_oid = table.oid;
  table.index_oid = index.oid;
  pg.relations_.push_back(std::move(index));
}

std::shared_ptr<const catalog::Table> PgCatalog::Table(std::string_view schema,
                                                       std::string_view name) const {
  const std::string key = fmt::format("{}.{}", schema, name);
  if (auto it = tables_.find(key); it != tables_.end()) return it->second;
  const Spec* spec = FindSpec(schema, name);
  if (spec == nullptr) return nullptr;
  auto t = std::make_shared<catalog::Table>();
  t->name = std::string(name);
  t->path = {std::string(schema), std::string(name)};
  t->row_type = SpecRowType(*spec);
  auto rows = std::make_shared<const std::vector<Row>>(spec->rows(*this));
  t->rows = rows;
  t->source = catalog::RowsSource(rows, fmt::format("hop's catalog as PostgreSQL's {}",
                                                    AsciiToLower(key)));
  tables_.emplace(key, t);
  return t;
}

std::vector<std::string> PgCatalog::SearchPath(bool include_implicit) const {
  std::vector<std::string> out;
  if (include_implicit) out.push_back("pg_catalog");
  out.push_back(default_schema_);
  for (const PgNamespace& n : namespaces_) {
    if (n.schema == nullptr || n.name == default_schema_) continue;
    out.push_back(n.name);
  }
  return out;
}

const std::vector<uint32_t>& PgCatalog::VisibleRelations() const {
  if (visible_) return *visible_;
  std::vector<uint32_t>& out = visible_.emplace();
  std::set<std::string> seen;
  for (const std::string& schema : SearchPath(true)) {
    const PgNamespace* ns = nullptr;
    for (const PgNamespace& n : namespaces_) {
      if (n.name == schema) ns = &n;
    }
    if (ns == nullptr) continue;
    for (const PgRelation& r : relations_) {
      if (r.namespace_oid != ns->oid) continue;
      if (!seen.insert(r.name).second) continue;
      out.push_back(r.oid);
    }
  }
  return out;
}

const PgNamespace* PgCatalog::FindNamespaceByOid(uint32_t oid) const {
  return NamespaceOf(*this, oid);
}

const PgNamespace* PgCatalog::FindNamespace(std::string_view text) const {
  const std::string hop_name = Qualified(ClientNameParts(text));
  for (const PgNamespace& n : namespaces_) {
    if (n.hop_name == hop_name) return &n;
  }
  return nullptr;
}

const PgRelation* PgCatalog::FindRelation(std::string_view text) const {
  std::vector<std::string> parts = ClientNameParts(text);
  const std::string table = parts.back();
  parts.pop_back();
  std::vector<const PgNamespace*> search;
  if (parts.empty()) {
    for (const std::string& s : SearchPath(true)) {
      for (const PgNamespace& n : namespaces_) {
        if (n.name == s) search.push_back(&n);
      }
    }
  } else {
    const std::string hop_ns = Qualified(parts);
    for (const PgNamespace& n : namespaces_) {
      if (n.hop_name == hop_ns) search.push_back(&n);
    }
  }
  for (const PgNamespace* n : search) {
    for (const PgRelation& r : relations_) {
      if (r.namespace_oid == n->oid && r.hop_name == table) return &r;
    }
  }
  return nullptr;
}

std::string PgCatalog::RelationDisplayName(const PgRelation& r) const {
  const std::vector<uint32_t>& visible = VisibleRelations();
  if (std::find(visible.begin(), visible.end(), r.oid) != visible.end()) return r.name;
  const PgNamespace* n = NamespaceOf(*this, r.namespace_oid);
  return n ? n->name + "." + r.name : r.name;
}

}  // namespace hop::binder
