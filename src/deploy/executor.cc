#include "deploy/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "binder/binder.h"
#include "catalog/catalog.h"
#include "common/cron.h"
#include "common/log.h"
#include "common/redact.h"
#include "common/strings.h"
#include "deploy/objects.h"
#include "deploy/render.h"
#include "planner/planner.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"
#include "sql/ast/create_database_statement.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/create_trigger_statement.h"
#include "sql/ast/create_view_statement.h"
#include "sql/ast/drop_statement.h"
#include "sql/ast/fire_statement.h"
#include "sql/ast/pause_statement.h"
#include "sql/ast/refresh_statement.h"
#include "sql/unparser.h"

namespace hop::deploy {

using resource::DatabaseKind;
using resource::PipelineKind;
using resource::Resource;
using resource::ViewKind;
using store::ObjectRef;
using store::Write;

std::vector<std::string> Path(const sql::QualifiedName& name) {
  std::vector<std::string> out;
  for (const auto& p : name.parts) out.push_back(p.name);
  return out;
}

std::string Dotted(const std::vector<std::string>& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) out += (i ? "." : "") + path[i];
  return out;
}

Resource NewObject(std::string_view kind, const std::string& name, const std::string& ns) {
  Resource r;
  r.set_api_version(resource::kHopApiVersion);
  r.set_kind(kind);
  r.set_name(name);
  r.set_namespace(ns);
  return r;
}

resource::OwnerReference OwnerByName(const Resource& owner) {
  resource::OwnerReference ref;
  ref.api_version = owner.api_version();
  ref.kind = owner.kind();
  ref.name = owner.name();
  ref.uid = owner.uid();  // empty for an owner written in the same batch: the store fills it
  return ref;
}

void SetDependencies(Resource& object, const std::vector<std::string>& sources,
                     const std::vector<std::string>* sinks) {
  auto joined = [](const std::vector<std::string>& ids) {
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + ids[i];
    return out;
  };
  for (const auto* ids : {&sources, sinks}) {
    if (ids == nullptr) continue;
    for (const std::string& id : *ids) {
      object.set_label(resource::DependencyLabelKey(id), resource::DependencyLabelValue(id));
    }
  }
  object.set_annotation(kSourcesAnnotation, joined(sources));
  if (sinks != nullptr) object.set_annotation(kSinksAnnotation, joined(*sinks));
}

namespace {

// Whether a comma-separated list of identifiers holds `id`.
bool Lists(std::string_view list, std::string_view id) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == id) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

Result<std::vector<std::string>> Dependents(store::Store& store, const std::string& ns,
                                            const std::string& id, std::string_view self_kind,
                                            std::string_view self_name) {
  HOP_ASSIGN_OR_RETURN(resource::LabelSelector selector,
                       resource::LabelSelector::Parse(resource::DependencyLabelKey(id)));
  std::vector<std::string> dependents;
  for (const resource::KindInfo* kind :
       {&PipelineKind::Info(), &resource::TableTriggerKind::Info()}) {
    HOP_ASSIGN_OR_RETURN(store::ListResult found, store.List({kind->group_kind(), ns, selector}));
    for (const Resource& r : found.items) {
      // The annotations say what an object depends on now; its labels may be stale.
      auto annotations = r.annotations();
      auto sources = annotations.find(std::string(kSourcesAnnotation));
      auto sinks = annotations.find(std::string(kSinksAnnotation));
      const bool annotated = sources != annotations.end() || sinks != annotations.end();
      if (annotated && !(sources != annotations.end() && Lists(sources->second, id)) &&
          !(sinks != annotations.end() && Lists(sinks->second, id))) {
        continue;
      }
      auto owners = r.owner_references();
      if (!self_kind.empty() &&
          std::any_of(owners.begin(), owners.end(), [&](const resource::OwnerReference& o) {
            return o.kind == self_kind && o.name == self_name;
          })) {
        continue;
      }
      std::string d =
          (r.kind() == "TableTrigger" ? "trigger" : AsciiToLower(r.kind())) + "/" + r.name();
      if (!owners.empty()) d += fmt::format(" (owned by {}/{})", owners[0].kind, owners[0].name);
      dependents.push_back(std::move(d));
    }
  }
  return dependents;
}

std::string ViewLabelValue(std::string_view name) { return resource::DependencyLabelValue(name); }

Status CheckKind(const catalog::Table& table, sql::ObjectKind expected,
                 std::string_view statement) {
  const catalog::ObjectKind kind = table.kind;
  const bool matches = expected == sql::ObjectKind::kView ? kind == catalog::ObjectKind::kView
                       : expected == sql::ObjectKind::kMaterializedView
                           ? kind == catalog::ObjectKind::kMaterializedView
                           : kind == catalog::ObjectKind::kTable;
  if (matches) return Status::OK();
  std::string_view what = kind == catalog::ObjectKind::kTable              ? "a table"
                          : kind == catalog::ObjectKind::kMaterializedView ? "a materialized view"
                                                                           : "a view";
  return Status::InvalidArgument(fmt::format("Element {} is {} and does not correspond to {} {}",
                                             table.name, what, statement,
                                             sql::ObjectKindText(expected)));
}

namespace {

// The SQL a View resource keeps: the query in the ANSI dialect, wrapped to apply a column list.
Result<std::string> ViewSql(const sql::Query& query, const std::vector<sql::Identifier>& columns) {
  HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintQuery(query, {sql::Dialect::kAnsi}));
  if (columns.empty()) return text;
  std::string names;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) names += ", ";
    names += sql::QuoteIdentifier(columns[i].name, sql::Dialect::kAnsi);
  }
  return fmt::format("SELECT * FROM ({}) AS \"_\" ({})", text, names);
}

Resource ViewResource(const std::string& name, const std::string& ns,
                      const std::vector<std::string>& path, std::string sql, bool materialized) {
  Resource view = NewObject("View", name, ns);
  ViewKind::kView.Set(view, path.back());
  ViewKind::kSchema.Set(view, path[path.size() - 2]);
  if (path.size() == 3) ViewKind::kCatalog.Set(view, path[0]);
  ViewKind::kSql.Set(view, sql);
  ViewKind::kMaterialized.Set(view, materialized);
  return view;
}

// `existing` with the desired object's content: spec and the other top-level fields from
// `desired`; labels and annotations merged with the desired ones winning (typed objects) or the
// existing ones winning (rendered ones); owner references added. The store keeps uid and the
// rest of metadata.
Resource Updated(const Resource& existing, const Resource& desired, bool desired_wins) {
  Resource out(desired.json());
  out.set_name(existing.name());
  out.set_namespace(existing.namespace_name());
  std::map<std::string, std::string> labels = existing.labels();
  std::map<std::string, std::string> annotations = existing.annotations();
  for (const auto& [k, v] : desired.labels()) {
    if (desired_wins || !labels.count(k)) labels[k] = v;
  }
  for (const auto& [k, v] : desired.annotations()) {
    if (desired_wins || !annotations.count(k)) annotations[k] = v;
  }
  for (const auto& [k, v] : labels) out.set_label(k, v);
  for (const auto& [k, v] : annotations) out.set_annotation(k, v);
  auto owners = existing.owner_references();
  for (const auto& o : desired.owner_references()) {
    bool known = std::any_of(owners.begin(), owners.end(), [&](const resource::OwnerReference& x) {
      return x.kind == o.kind && x.name == o.name && x.api_version == o.api_version;
    });
    if (!known) owners.push_back(o);
  }
  out.set_owner_references(owners);
  out.set_finalizers(existing.finalizers());
  // Status belongs to whoever reconciles the object.
  if (existing.status()) {
    out.set_status(*existing.status());
  } else {
    out.clear_status();
  }
  return out;
}

// The rendered elements of `owner` (a Pipeline, a Table). One that exists keeps its metadata
// and gains `owner` as one more owner, so that a table shared by partial views outlives any one
// of them.
template <typename Put>
Status PutElements(const std::vector<Spec>& specs, const Resource& owner, Put& put) {
  for (const Spec& spec : specs) {
    const std::string where = spec.template_kind + " " + spec.template_name;
    for (const Json& doc : spec.docs) {
      if (doc.is_null()) continue;
      HOP_ASSIGN_OR_RETURN(Resource element, Resource::FromJson(doc, where));
      if (element.namespace_name().empty()) element.set_namespace(owner.namespace_name());
      // Owner references never cross namespaces: an element a template puts in another
      // namespace is not owned, and outlives its owner.
      if (element.namespace_name() == owner.namespace_name()) {
        element.set_owner_references({OwnerByName(owner)});
      }
      HOP_RETURN_IF_ERROR(put(element, false));
    }
  }
  return Status::OK();
}

}  // namespace

std::string Outcome::Summary() const {
  std::string out = statement + ":";
  for (size_t i = 0; i < effects.size(); ++i) out += (i == 0 ? " " : ", ") + effects[i];
  if (!effects.empty()) out += objects.empty() ? "" : ";";
  if (objects.empty()) return effects.empty() ? out + " nothing to do" : out;
  // Consecutive objects with the same verb share it: `a, b created, c deleted`.
  for (size_t i = 0; i < objects.size(); ++i) {
    out += i == 0 ? " " : ", ";
    out += AsciiToLower(objects[i].kind()) + "/" + objects[i].name();
    if (i + 1 == objects.size() || verbs[i + 1] != verbs[i]) out += " " + verbs[i];
  }
  return out;
}

Executor::Executor(store::Store& store, ExecuteOptions options)
    : store_(store), options_(std::move(options)) {}

bool Executor::Executes(const sql::Statement& s) {
  switch (s.kind) {
    case sql::StatementKind::kCreateView:
    case sql::StatementKind::kCreateMaterializedView:
    case sql::StatementKind::kCreateTable:
    case sql::StatementKind::kCreateDatabase:
    case sql::StatementKind::kCreateTrigger:
    case sql::StatementKind::kFire:
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume:
    case sql::StatementKind::kRefresh: return true;
    case sql::StatementKind::kDrop: {
      auto object = s.As<sql::DropStatement>().object;
      return object == sql::ObjectKind::kView || object == sql::ObjectKind::kMaterializedView ||
             object == sql::ObjectKind::kTable || object == sql::ObjectKind::kTrigger ||
             object == sql::ObjectKind::kDatabase;
    }
    default: return false;
  }
}

namespace {

// The statement as it is named in summaries: `CREATE MATERIALIZED VIEW ADS.AUDIENCE`.
std::string StatementLabel(const sql::Statement& s) {
  switch (s.kind) {
    case sql::StatementKind::kCreateView:
      return "CREATE VIEW " + Dotted(Path(s.As<sql::CreateViewStatement>().name));
    case sql::StatementKind::kCreateMaterializedView:
      return "CREATE MATERIALIZED VIEW " +
             Dotted(Path(s.As<sql::CreateMaterializedViewStatement>().name));
    case sql::StatementKind::kCreateDatabase:
      return "CREATE DATABASE " + Dotted(Path(s.As<sql::CreateDatabaseStatement>().name));
    case sql::StatementKind::kCreateTable:
      return "CREATE TABLE " + Dotted(Path(s.As<sql::CreateTableStatement>().name));
    case sql::StatementKind::kCreateTrigger:
      return "CREATE TRIGGER " + Dotted(Path(s.As<sql::CreateTriggerStatement>().name));
    case sql::StatementKind::kDrop: {
      const auto& d = s.As<sql::DropStatement>();
      return fmt::format("DROP {} {}", sql::ObjectKindText(d.object), Dotted(Path(d.name)));
    }
    case sql::StatementKind::kFire: {
      const auto& f = s.As<sql::FireStatement>();
      return fmt::format("FIRE {} {}", sql::ObjectKindText(f.object), Dotted(Path(f.name)));
    }
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume: {
      const auto& p = s.As<sql::PauseStatement>();
      return fmt::format("{} {} {}", s.kind == sql::StatementKind::kPause ? "PAUSE" : "RESUME",
                         sql::ObjectKindText(p.object), Dotted(Path(p.name)));
    }
    case sql::StatementKind::kRefresh:
      return "REFRESH MATERIALIZED VIEW " + Dotted(Path(s.As<sql::RefreshStatement>().name));
    default: return "STATEMENT";
  }
}

}  // namespace

Status Executor::Put(std::vector<Change>& changes, const Resource& desired, bool desired_wins,
                     bool must_create) {
  if (must_create) {
    changes.push_back({Write::Create(desired), ""});
    return Status::OK();
  }
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(store::RefOf(desired)));
  if (!existing) {
    changes.push_back({Write::Create(desired), ""});
  } else {
    changes.push_back(
        {Write::Update(Updated(*existing, desired, desired_wins)), existing->resource_version()});
  }
  return Status::OK();
}

Result<RenderContext> Executor::LoadRender(const catalog::Catalog& cat) {
  RenderContext render;
  if (options_.render != nullptr) {
    render = *options_.render;
  } else {
    HOP_ASSIGN_OR_RETURN(render, LoadRenderContext(store_, options_.namespace_name));
  }
  if (options_.provisioners != nullptr) {
    for (const catalog::Schema* schema : cat.Schemas()) {
      if (options_.provisioners->For(*schema) != nullptr) {
        render.provisioned_synchronously.insert(schema->database);
      }
    }
  }
  return render;
}

void Executor::AddEffect(bool create, const catalog::Schema& schema,
                         const catalog::TableDefinition& table) {
  if (options_.provisioners == nullptr || schema.database.empty()) return;
  catalog::Provisioner* provisioner = options_.provisioners->For(schema);
  if (provisioner == nullptr) return;
  for (const Effect& e : effects_) {
    if (e.create == create && e.table.database == table.database && e.table.path == table.path) {
      return;  // a table read twice, or read and written
    }
  }
  Effect effect;
  effect.create = create;
  effect.provisioner = provisioner;
  effect.schema = schema;
  effect.schema.tables.clear();
  effect.table = table;
  effects_.push_back(std::move(effect));
}

Status Executor::RunEffects(std::vector<std::string>& done) {
  made_.clear();
  for (const Effect& e : effects_) {
    const std::string name = Dotted(e.table.path);
    auto exists = e.provisioner->Exists(e.schema, e.table);
    Status st = exists.status();
    // Creating a table that exists, or dropping one that does not, is nothing to do.
    if (st.ok() && *exists != e.create) {
      st = e.create ? e.provisioner->Create(e.schema, e.table)
                    : e.provisioner->Drop(e.schema, e.table);
      if (st.ok()) {
        made_.push_back(&e);
        done.push_back(fmt::format("table {} {} in {}", name, e.create ? "created" : "dropped",
                                   e.table.database));
      }
    }
    if (!st.ok()) {
      UndoEffects();
      return Status(st.code(), fmt::format("Cannot {} table {} in database {}: {}",
                                           e.create ? "create" : "drop", name, e.table.database,
                                           st.message()));
    }
  }
  return Status::OK();
}

void Executor::UndoEffects() {
  // Tables this statement created are dropped again; a dropped table cannot be brought back,
  // which is why drops run last (see Execute).
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    const Effect& e = **it;
    if (!e.create) continue;
    Status st = e.provisioner->Drop(e.schema, e.table);
    if (!st.ok()) {
      log::Warn("could not drop table {} in {} to undo a failed statement: {}",
                Dotted(e.table.path), e.table.database, st.ToString());
    }
  }
  made_.clear();
}

Status Executor::CreateTable(const sql::CreateTableStatement& ct, std::vector<Change>& changes) {
  const std::string& ns = options_.namespace_name;
  auto put = [&](const Resource& desired, bool desired_wins, bool must_create = false) {
    return Put(changes, desired, desired_wins, must_create);
  };
  if (ct.as_query) {
    return Status::InvalidArgument("Populating new tables is not currently supported.");
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
  const catalog::Catalog& cat = *catalog;
  std::vector<std::string> path = Path(ct.name);
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(path));
  HOP_RETURN_IF_ERROR(schema->status);
  path = schema->Path();
  path.push_back(ct.name.back().name);
  const std::string& leaf = path.back();
  if (schema->database.empty()) {
    return Status::InvalidArgument(fmt::format(
        "{} is not a physical database: tables are created in a Database's schema", schema->name));
  }
  // The columns: declared, or those of the LIKE table.
  catalog::RowType row;
  if (ct.like) {
    HOP_ASSIGN_OR_RETURN(const catalog::Table* source, cat.Resolve(Path(ct.like->source)));
    row = source->row_type;
    if (source->kind != catalog::ObjectKind::kTable) {
      binder::Binder binder(cat);
      HOP_ASSIGN_OR_RETURN(binder::RelPtr rel, binder.BindView(*source));
      row = rel->row_type;
    }
  } else {
    for (const auto& c : ct.columns) {
      if (!c.type) {
        return Status::InvalidArgument(
            fmt::format("Column {} of table {} has no type", c.name.name, leaf));
      }
      if (c.value_kind != sql::ColumnValueKind::kNone) {
        return Status::InvalidArgument(fmt::format(
            "Unsupported column declaration: {} (defaults and generated columns)", c.name.name));
      }
      row.columns.push_back({c.name.name, *c.type});
    }
    for (const auto& k : ct.constraints) {
      if (k.kind == sql::ConstraintKind::kCheck) {
        return Status::InvalidArgument("Unsupported column declaration: CHECK constraints");
      }
    }
  }
  if (row.columns.empty()) return Status::InvalidArgument("No columns provided.");

  std::string name = resource::Canonicalize(std::vector<std::string>{schema->database, leaf});
  const bool update = ct.or_replace || options_.apply_mode;
  if (auto t = schema->tables.find(leaf); t != schema->tables.end()) {
    if (t->second.kind != catalog::ObjectKind::kTable) {
      return Status::InvalidArgument(
          fmt::format("{} is a view; drop it before creating a table of that name", leaf));
    }
    if (!update) {
      if (ct.if_not_exists) return Status::OK();
      return Status::AlreadyExists(
          fmt::format("Table {} already exists. Use CREATE OR REPLACE to update.", leaf));
    }
    if (t->second.resource.empty()) {
      return Status::InvalidArgument(
          fmt::format("Table {} comes from database {} ({}); hop cannot change it",
                      t->second.QualifiedName(), schema->database, RedactSecrets(schema->url)));
    }
    name = t->second.resource;
  }

  resource::StringMap options;
  for (const auto& o : ct.options.items) options[o.key] = o.value;
  const catalog::TableDefinition definition{schema->database, path, row, options};
  Subject subject(ValidationPoint::kTable);
  subject.schema = schema;
  subject.table = &definition;
  subject.created = true;
  if (auto t = schema->tables.find(leaf); t != schema->tables.end()) subject.existing = &t->second;
  HOP_RETURN_IF_ERROR(Check(std::move(subject)));

  Resource table = NewObject("Table", name, ns);
  resource::TableKind::kDatabase.Set(table, schema->database);
  if (!schema->catalog.empty()) resource::TableKind::kCatalog.Set(table, schema->catalog);
  resource::TableKind::kSchema.Set(table, schema->name);
  resource::TableKind::kTable.Set(table, leaf);
  Json columns = Json::array();
  for (const auto& c : row.columns) {
    sql::DataType type = c.type;
    const bool nullable = type.nullability != sql::Nullability::kNotNull;
    type.nullability = sql::Nullability::kUnspecified;
    HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintType(type, {sql::Dialect::kAnsi}));
    Json col = {{"name", c.name}, {"type", text}};
    if (!nullable) col["nullable"] = false;
    columns.push_back(std::move(col));
  }
  resource::TableKind::kColumns.Set(table, columns);
  if (!options.empty()) resource::TableKind::kOptions.Set(table, options);
  // A CREATE that found no table creates one: if another writer made it meanwhile, the batch
  // fails and the statement is planned again (Execute), instead of overwriting it.
  HOP_RETURN_IF_ERROR(put(table, true, /*must_create=*/!update));

  // The resources its TableTemplates render for it (a Kafka topic, ...), and what provisions it:
  // its system's provisioner, in this statement, or the TableProvisionJobs of the JobTemplates
  // that opt in. All owned by the Table.
  HOP_ASSIGN_OR_RETURN(RenderContext render, LoadRender(cat));
  planner::PipelineTable source;
  source.database = schema->database;
  source.path = path;
  source.row_type = row;
  for (const auto& [k, v] : options) source.options.emplace_back(k, v);
  source.declared_options = source.options;
  for (const auto& [k, v] : options_.hints) tmpl::SetEntry(source.options, k, v);
  Renderer renderer(std::move(render));
  std::vector<SkippedTemplate> skipped;
  HOP_ASSIGN_OR_RETURN(std::vector<Spec> specs,
                       renderer.TableSpecs(source, planner::Method::kScan, &skipped));
  HOP_ASSIGN_OR_RETURN(std::vector<Spec> provision, renderer.ProvisionSpecs(source, &skipped));
  AddSkipWarnings(skipped, issues_);
  for (auto& spec : provision) specs.push_back(std::move(spec));
  AddEffect(true, *schema, definition);
  return PutElements(specs, table, put);
}

Status Executor::DropTable(const catalog::Table& table, std::vector<Change>& changes) {
  const std::string& ns = options_.namespace_name;
  if (table.resource.empty()) {
    return Status::InvalidArgument(
        fmt::format("Table {} comes from database {}; hop cannot drop it", table.QualifiedName(),
                    table.database));
  }
  // The pre-delete guard (compatibility.md §5.8): pipelines and triggers that depend on the table.
  Subject pending(ValidationPoint::kPendingDelete);
  pending.deleted = {resource::TableKind::Info().group_kind(), ns, table.resource};
  pending.identifier = resource::DependencyIdentifier(table.database, table.path);
  if (!force_) HOP_RETURN_IF_ERROR(Check(std::move(pending)));
  // Deleting the Table deletes, by ownership, the resources rendered for it; its system's
  // provisioner, if it has one, drops it there.
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
  const catalog::Catalog& cat = *catalog;
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(table.path));
  AddEffect(false, *schema, {table.database, table.path, table.row_type, table.options});
  changes.push_back(
      {Write::Delete({resource::TableKind::Info().group_kind(), ns, table.resource}), ""});
  return Status::OK();
}

void Executor::WarnWithoutJob(const planner::Pipeline& pipeline, const std::vector<Spec>& specs,
                              const std::vector<SkippedTemplate>& skipped) {
  if (std::any_of(specs.begin(), specs.end(), [](const Spec& s) { return s.job; })) return;
  // Nothing of hop's moves rows into the view: say so, and where the reasons are.
  const bool explained = std::any_of(skipped.begin(), skipped.end(), [](const SkippedTemplate& s) {
    return s.template_kind == "JobTemplate" && s.subject.rfind("job ", 0) == 0;
  });
  issues_.Child("view " + Dotted(pipeline.view_path))
      .Warning(
          fmt::format("The pipeline has no job: no JobTemplate renders one for database {}{}",
                      pipeline.sink.database,
                      explained ? " (the templates skipped for its job are listed above)" : ""));
}

Result<const catalog::Catalog*> Executor::NamespaceCatalog() {
  if (options_.catalog != nullptr) return options_.catalog;
  if (!loaded_catalog_) {
    HOP_ASSIGN_OR_RETURN(catalog::Catalog loaded,
                         catalog::Catalog::Load(store_, options_.namespace_name));
    loaded_catalog_ = std::move(loaded);
  }
  return &*loaded_catalog_;
}

Status Executor::CheckObject(const Resource& object) {
  Subject subject(ValidationPoint::kObject);
  subject.object = &object;
  return Check(std::move(subject));
}

Status Executor::Check(Subject subject) {
  subject.statement = statement_;
  ValidationContext context{store_, options_.namespace_name};
  Issues& issues = issues_.Child(SubjectContext(subject));
  for (const Validator* v : DefaultValidators()) v->Validate(subject, context, issues);
  return issues_.ToStatus(StatusCode::kValidation, "Failed validation:");
}

Result<std::vector<Executor::Change>> Executor::Plan(const sql::Statement& statement) {
  statement_ = &statement;
  issues_ = Issues();
  effects_.clear();
  HOP_RETURN_IF_ERROR(Check(Subject(ValidationPoint::kStatement)));
  HOP_ASSIGN_OR_RETURN(std::vector<Change> changes, Changes(statement));
  std::vector<Resource> elements;
  for (const Change& c : changes) {
    if (c.write.op != Write::Op::kDelete && !c.quiet) elements.push_back(c.write.object);
  }
  Subject written(ValidationPoint::kElements);
  written.elements = &elements;
  HOP_RETURN_IF_ERROR(Check(std::move(written)));
  return changes;
}

Status Executor::DropDatabase(const sql::Statement& statement, std::vector<Change>& changes) {
  const auto& drop = statement.As<sql::DropStatement>();
  const std::string& ns = options_.namespace_name;
  if (drop.name.size() != 1) {
    return Status::InvalidArgument("Database names cannot be compound identifiers.");
  }
  const store::ObjectRef ref{DatabaseKind::Info().group_kind(), ns,
                             resource::Canonicalize(drop.name.back().name)};
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(ref));
  if (!existing) {
    if (drop.if_exists) return Status::OK();
    return Status::NotFound(fmt::format("Database {} not found.", drop.name.back().name));
  }
  return DropDatabase(ref, changes);
}

Status Executor::DropDatabase(const store::ObjectRef& ref, std::vector<Change>& changes) {
  // Nothing may be left in it: the tables declared in it and the views of its schema.
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, NamespaceCatalog());
  std::vector<std::string> dependents;
  if (const catalog::Schema* schema = cat->SchemaOfDatabase(ref.name)) {
    for (const auto& [name, t] : schema->tables) {
      if (t.resource.empty()) continue;  // the database's own tables go with it
      dependents.push_back((t.kind == catalog::ObjectKind::kTable ? "table/" : "view/") +
                           t.resource);
    }
  }
  if (!dependents.empty() && !force_) {
    std::string list;
    for (size_t i = 0; i < dependents.size(); ++i) list += (i ? ", " : "") + dependents[i];
    return Status::ValidationError(
        fmt::format("Cannot delete database {} \u2014 {} active dependent(s): {}", ref.name,
                    dependents.size(), list));
  }
  changes.push_back({Write::Delete(ref), ""});
  return Status::OK();
}

Status Executor::DropView(const catalog::Table& view, std::vector<Change>& changes) {
  const std::string& ns = options_.namespace_name;
  // Triggers listening to the view, and pipelines reading a materialized view's table (other
  // than its own).
  Subject pending(ValidationPoint::kPendingDelete);
  pending.deleted = {ViewKind::Info().group_kind(), ns, view.resource};
  pending.trigger_selector =
      fmt::format("{}={}", kViewLabel, ViewLabelValue(resource::Canonicalize(view.path)));
  if (view.kind == catalog::ObjectKind::kMaterializedView && !view.database.empty()) {
    pending.identifier = resource::DependencyIdentifier(view.database, view.path);
    pending.self_kind = "View";
    pending.self_name = view.resource;
  }
  if (!force_) HOP_RETURN_IF_ERROR(Check(std::move(pending)));
  // Deleting the View deletes, by ownership, its Pipeline and the elements it alone owns.
  changes.push_back({Write::Delete({ViewKind::Info().group_kind(), ns, view.resource}), ""});
  return Status::OK();
}

Result<std::vector<Executor::Change>> Executor::Changes(const sql::Statement& statement) {
  const std::string& ns = options_.namespace_name;
  std::vector<Change> changes;
  auto put = [&](const Resource& desired, bool desired_wins, bool must_create = false) {
    return Put(changes, desired, desired_wins, must_create);
  };

  switch (statement.kind) {
    case sql::StatementKind::kCreateView:
    case sql::StatementKind::kCreateMaterializedView: {
      const bool materialized = statement.kind == sql::StatementKind::kCreateMaterializedView;
      const sql::QualifiedName& qname =
          materialized ? statement.As<sql::CreateMaterializedViewStatement>().name
                       : statement.As<sql::CreateViewStatement>().name;
      const bool or_replace = materialized
                                  ? statement.As<sql::CreateMaterializedViewStatement>().or_replace
                                  : statement.As<sql::CreateViewStatement>().or_replace;
      const bool if_not_exists =
          materialized ? statement.As<sql::CreateMaterializedViewStatement>().if_not_exists
                       : statement.As<sql::CreateViewStatement>().if_not_exists;
      const sql::Query& query = materialized
                                    ? *statement.As<sql::CreateMaterializedViewStatement>().query
                                    : *statement.As<sql::CreateViewStatement>().query;
      const auto& columns = materialized
                                ? statement.As<sql::CreateMaterializedViewStatement>().columns
                                : statement.As<sql::CreateViewStatement>().columns;

      HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
      const catalog::Catalog& cat = *catalog;
      std::vector<std::string> path = Path(qname);
      HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(path));
      HOP_RETURN_IF_ERROR(schema->status);
      // One-part names go to the default schema; the View says which.
      path = schema->Path();
      path.push_back(qname.back().name);
      const std::string& leaf = path.back();
      if (auto t = schema->tables.find(leaf);
          t != schema->tables.end() && t->second.kind == catalog::ObjectKind::kTable) {
        return Status::InvalidArgument(
            fmt::format("Cannot overwrite physical table {} with a view.", leaf));
      }
      const std::string name = resource::Canonicalize(path);
      HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing,
                           store_.Find({ViewKind::Info().group_kind(), ns, name}));
      const bool update = or_replace || options_.apply_mode;
      if (existing && !update) {
        if (if_not_exists) return changes;  // nothing to do
        return Status::AlreadyExists(
            fmt::format("View {} already exists. Use CREATE OR REPLACE to update.", leaf));
      }
      HOP_ASSIGN_OR_RETURN(std::string sql, ViewSql(query, columns));
      Resource view = ViewResource(name, ns, path, sql, materialized);

      // The query must bind, and must not reach the view it defines (a cycle through OR
      // REPLACE): the binder is told which view that is.
      binder::Binder binder(cat);
      binder.SetStatement(&statement);
      binder.SetDefinedView(path);
      HOP_RETURN_IF_ERROR(binder.BindQuery(query, columns).status());
      if (!materialized) {
        // The view keeps no pipeline.
        HOP_RETURN_IF_ERROR(CheckObject(view));
        HOP_RETURN_IF_ERROR(put(view, true, /*must_create=*/!existing));
        // A materialized view replaced by a plain one loses its pipeline (and, through
        // ownership, the pipeline's elements).
        if (existing && ViewKind::kMaterialized.Get(*existing).value_or(false)) {
          ObjectRef pipeline{PipelineKind::Info().group_kind(), ns, name};
          HOP_ASSIGN_OR_RETURN(std::optional<Resource> old, store_.Find(pipeline));
          if (old) changes.push_back({Write::Delete(pipeline), ""});
        }
        return changes;
      }

      // A materialized view: its refresh schedule and options, kept on the View; the options
      // are hints of its pipeline, over the session's.
      const auto& mv = statement.As<sql::CreateMaterializedViewStatement>();
      if (mv.refresh_schedule) {
        auto cron = CronSchedule::Parse(*mv.refresh_schedule);
        if (!cron.ok()) {
          return Status::InvalidArgument(
              fmt::format("View {}: REFRESHED: {}", leaf, cron.status().message()));
        }
        ViewKind::kSchedule.Set(view, *mv.refresh_schedule);
        issues_.Child("view " + Dotted(path))
            .Warning(fmt::format("REFRESHED '{}' is recorded in spec.schedule, but nothing in "
                                 "this control plane refreshes materialized views yet",
                                 *mv.refresh_schedule));
      }
      tmpl::Entries hints = options_.hints;
      if (!mv.options.empty()) {
        resource::StringMap options;
        for (const auto& o : mv.options.items) {
          options[o.key] = o.value;
          tmpl::SetEntry(hints, o.key, o.value);
        }
        ViewKind::kOptions.Set(view, options);
      }
      if (existing) {
        if (auto paused = ViewKind::kPaused.Get(*existing)) ViewKind::kPaused.Set(view, *paused);
      }

      // Plan it and render its elements.
      HOP_ASSIGN_OR_RETURN(RenderContext render, LoadRender(cat));
      planner::PlanContext plan_ctx;
      plan_ctx.catalog = &cat;
      plan_ctx.hints = hints;
      plan_ctx.table_templates = render.table_templates;
      plan_ctx.config = render.config;
      planner::Planner planner(std::move(plan_ctx));
      HOP_ASSIGN_OR_RETURN(planner::Pipeline p, planner.Plan(statement, /*replace=*/true));
      Renderer renderer(std::move(render));
      std::vector<SkippedTemplate> skipped;
      HOP_ASSIGN_OR_RETURN(std::vector<Spec> specs, renderer.PipelineSpecs(p, &skipped));
      AddSkipWarnings(skipped, issues_);
      WarnWithoutJob(p, specs, skipped);
      // Every source and the sink must exist in their systems (compatibility.md §12).
      std::vector<const planner::PipelineTable*> tables;
      for (const auto& source : p.sources) tables.push_back(&source);
      tables.push_back(&p.sink);
      for (const planner::PipelineTable* t : tables) {
        if (t->database.empty()) continue;
        auto table_schema = cat.SchemaFor(t->path);
        if (!table_schema.ok()) continue;
        catalog::TableDefinition def{t->database, t->path, t->row_type, {}};
        for (const auto& [k, v] : t->declared_options) def.options[k] = v;
        Subject subject(ValidationPoint::kTable);
        subject.schema = *table_schema;
        subject.table = &def;
        HOP_RETURN_IF_ERROR(Check(std::move(subject)));
        AddEffect(true, **table_schema, def);
      }

      Resource pipeline = NewObject("Pipeline", name, ns);
      pipeline.set_owner_references({OwnerByName(view)});
      PipelineKind::kSql.Set(pipeline, p.complete ? p.sql : "");
      std::string yaml;
      for (size_t i = 0; i < specs.size(); ++i) yaml += (i ? "\n---\n" : "") + specs[i].yaml;
      PipelineKind::kYaml.Set(pipeline, yaml);
      // Dependency labels and annotations (compatibility.md §5.8).
      std::vector<std::string> sources, sinks;
      auto depend = [&](const planner::PipelineTable& t, std::vector<std::string>& into) {
        if (t.database.empty()) return;
        std::string id = resource::DependencyIdentifier(t.database, t.path);
        if (std::find(into.begin(), into.end(), id) == into.end()) into.push_back(id);
      };
      for (const auto& s : p.sources) depend(s, sources);
      depend(p.sink, sinks);
      SetDependencies(pipeline, sources, &sinks);

      HOP_RETURN_IF_ERROR(CheckObject(view));
      HOP_RETURN_IF_ERROR(put(view, true, /*must_create=*/!existing));
      HOP_RETURN_IF_ERROR(put(pipeline, true));
      HOP_RETURN_IF_ERROR(PutElements(specs, pipeline, put));
      return changes;
    }

    case sql::StatementKind::kCreateTable: {
      HOP_RETURN_IF_ERROR(CreateTable(statement.As<sql::CreateTableStatement>(), changes));
      return changes;
    }

    case sql::StatementKind::kCreateDatabase: {
      const auto& db = statement.As<sql::CreateDatabaseStatement>();
      if (db.name.size() != 1) {
        return Status::InvalidArgument("Database names cannot be compound identifiers.");
      }
      const std::string& leaf = db.name.back().name;
      // Options are looked up without regard to case.
      std::map<std::string, std::string> options;
      for (const auto& o : db.options.items) options[AsciiToLower(o.key)] = o.value;
      auto url = options.find("url");
      if (url == options.end()) {
        return Status::InvalidArgument(fmt::format("Database {} requires a 'url' option.", leaf));
      }
      Resource r = NewObject("Database", resource::Canonicalize(leaf), ns);
      DatabaseKind::kUrl.Set(r, url->second);
      if (auto it = options.find("driver"); it != options.end()) {
        DatabaseKind::kDriver.Set(r, it->second);
      }
      if (auto it = options.find("schema"); it != options.end()) {
        DatabaseKind::kSchema.Set(r, it->second);
      }
      if (auto it = options.find("catalog"); it != options.end()) {
        DatabaseKind::kCatalog.Set(r, it->second);
      }
      if (auto it = options.find("dialect"); it != options.end()) {
        static const std::set<std::string> kDialects = {"ANSI", "MySQL", "Calcite"};
        if (!kDialects.count(it->second)) {
          return Status::InvalidArgument(fmt::format(
              "Database {}: dialect must be ANSI, MySQL or Calcite, not '{}'", leaf, it->second));
        }
        DatabaseKind::kDialect.Set(r, it->second);
      }
      HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(store::RefOf(r)));
      if (existing && !(db.or_replace || options_.apply_mode)) {
        if (db.if_not_exists) return changes;
        return Status::AlreadyExists(
            fmt::format("Database {} already exists. Use CREATE OR REPLACE to update.", leaf));
      }
      HOP_RETURN_IF_ERROR(CheckObject(r));
      HOP_RETURN_IF_ERROR(put(r, true, /*must_create=*/!existing));
      return changes;
    }

    case sql::StatementKind::kDrop: {
      const auto& drop = statement.As<sql::DropStatement>();
      if (drop.object == sql::ObjectKind::kTrigger) {
        HOP_RETURN_IF_ERROR(DropTrigger(statement, changes));
        return changes;
      }
      if (drop.object == sql::ObjectKind::kDatabase) {
        HOP_RETURN_IF_ERROR(DropDatabase(statement, changes));
        return changes;
      }
      HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
      const catalog::Catalog& cat = *catalog;
      auto table = Element(cat, drop.name, drop.object, "DROP");
      if (!table.ok()) {
        if (table.status().code() == StatusCode::kNotFound && drop.if_exists) return changes;
        return table.status();
      }
      if (drop.object == sql::ObjectKind::kTable) {
        HOP_RETURN_IF_ERROR(DropTable(**table, changes));
      } else {
        HOP_RETURN_IF_ERROR(DropView(**table, changes));
      }
      return changes;
    }

    case sql::StatementKind::kCreateTrigger:
      HOP_RETURN_IF_ERROR(CreateTrigger(statement, changes));
      return changes;
    case sql::StatementKind::kFire: HOP_RETURN_IF_ERROR(Fire(statement, changes)); return changes;
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume: {
      HOP_RETURN_IF_ERROR(Pause(statement, changes));
      const auto& pause = statement.As<sql::PauseStatement>();
      if (pause.object == sql::ObjectKind::kMaterializedView) {
        issues_.Child("view " + Dotted(Path(pause.name)))
            .Warning(
                "Recorded in spec.paused, but nothing in this control plane refreshes "
                "materialized views yet, so there is no refresh to hold or release");
      }
      return changes;
    }
    case sql::StatementKind::kRefresh:
      HOP_RETURN_IF_ERROR(Refresh(statement, changes));
      return changes;

    default:
      return Status::InvalidArgument(fmt::format(
          "{} statements are not executed by this version of hop", StatementLabel(statement)));
  }
}

Result<Outcome> Executor::Execute(const sql::Statement& statement) {
  // A statement whose batch lost a race with another writer (an object it read changed, or one
  // it found absent was created, before it wrote) is planned again on what the store holds then,
  // from a catalog read anew: the session's may be older than the winner's write. CREATE OR
  // REPLACE is then an update; a plain CREATE finds the object and says it exists.
  constexpr int kAttempts = 50;
  static thread_local std::minstd_rand random(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    lost_race_ = false;
    auto outcome = ExecuteOnce(statement);
    if (outcome.ok() || !lost_race_ || attempt == kAttempts) return outcome;
    options_.catalog = nullptr;
    options_.render = nullptr;
    loaded_catalog_.reset();
    const int ceiling = std::min(50, 2 << std::min(attempt, 5));
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + random() % ceiling));
  }
}

Result<Outcome> Executor::ExecuteOnce(const sql::Statement& statement) {
  HOP_ASSIGN_OR_RETURN(std::vector<Change> changes, Plan(statement));
  return Apply(StatementLabel(statement), std::move(changes));
}

Result<Outcome> Executor::Apply(std::string label, std::vector<Change> changes) {
  Outcome outcome;
  outcome.statement = std::move(label);
  if (issues_.HasWarnings()) outcome.warnings = issues_.Render();
  HOP_RETURN_IF_ERROR(RunEffects(outcome.effects));
  if (changes.empty()) return outcome;
  std::vector<Write> writes;
  for (const auto& c : changes) writes.push_back(c.write);
  auto committed = store_.Commit(std::move(writes));
  if (!committed.ok()) {
    lost_race_ = committed.status().code() == StatusCode::kConflict ||
                 committed.status().code() == StatusCode::kAlreadyExists;
    // A dropped table stays dropped: say so, so that running the DROP again finishes it.
    std::string dropped;
    for (const std::string& e : outcome.effects) {
      if (e.find(" dropped in ") != std::string::npos) dropped += (dropped.empty() ? "" : ", ") + e;
    }
    UndoEffects();
    if (!dropped.empty()) {
      return committed.status().WithContext(
          fmt::format("{} (its resources were not deleted; run the statement again): ", dropped));
    }
    return committed.status();
  }
  std::vector<Resource> written = std::move(committed).value();
  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    if (c.quiet) continue;
    switch (c.write.op) {
      case Write::Op::kCreate: outcome.verbs.push_back("created"); break;
      case Write::Op::kDelete: outcome.verbs.push_back("deleted"); break;
      case Write::Op::kUpdateStatus: outcome.verbs.push_back(c.verb); break;
      default:
        outcome.verbs.push_back(written[i].resource_version() == c.prior_version ? "unchanged"
                                : c.verb.empty()                                 ? "configured"
                                                                                 : c.verb);
    }
    outcome.objects.push_back(std::move(written[i]));
  }
  return outcome;
}

Result<Outcome> Executor::Delete(const store::ObjectRef& ref, bool force) {
  force_ = force;
  for (int attempt = 1;; ++attempt) {
    lost_race_ = false;
    issues_ = Issues();
    effects_.clear();
    statement_ = nullptr;
    std::vector<Change> changes;
    Status planned = DeleteChanges(ref, changes);
    auto outcome = planned.ok() ? Apply("delete " + AsciiToLower(ref.kind.kind) + "/" + ref.name,
                                        std::move(changes))
                                : Result<Outcome>(planned);
    if (outcome.ok() || !lost_race_ || attempt == 50) {
      force_ = false;
      return outcome;
    }
    loaded_catalog_.reset();
    options_.catalog = nullptr;
  }
}

Status Executor::DeleteChanges(const store::ObjectRef& ref, std::vector<Change>& changes) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(ref));
  if (!existing) return store_.Get(ref).status();  // its own Not Found
  const bool table = ref.kind == resource::TableKind::Info().group_kind();
  const bool view = ref.kind == ViewKind::Info().group_kind();
  if (ref.kind == DatabaseKind::Info().group_kind()) return DropDatabase(ref, changes);
  if (table || view) {
    // The table or view the catalog made of it, if it made one.
    HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, NamespaceCatalog());
    for (const catalog::Schema* schema : cat->Schemas()) {
      for (const auto& [name, t] : schema->tables) {
        if (t.resource != ref.name || (t.kind == catalog::ObjectKind::kTable) != table) continue;
        return table ? DropTable(t, changes) : DropView(t, changes);
      }
    }
  }
  changes.push_back({Write::Delete(ref), ""});
  return Status::OK();
}

Result<std::vector<Resource>> Executor::Specify(const sql::Statement& statement,
                                                std::string* warnings) {
  HOP_ASSIGN_OR_RETURN(std::vector<Change> changes, Plan(statement));
  if (warnings != nullptr) *warnings = issues_.HasWarnings() ? issues_.Render() : "";
  std::vector<Resource> out;
  for (auto& c : changes) {
    if (c.write.op == Write::Op::kDelete || c.quiet) continue;
    Resource r = std::move(c.write.object);
    // What the user would write: without what the store assigns.
    Json& md = r.mutable_json()["metadata"];
    for (const char* key : {"uid", "resourceVersion", "generation", "creationTimestamp"}) {
      md.erase(key);
    }
    auto owners = r.owner_references();
    for (auto& o : owners) o.uid.clear();
    r.set_owner_references(owners);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace hop::deploy
