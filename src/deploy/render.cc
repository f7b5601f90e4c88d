#include "deploy/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "binder/bound.h"
#include "common/log.h"
#include "common/properties.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"
#include "template/environment.h"
#include "template/template.h"

namespace hop::deploy {

using planner::Method;
using planner::Pipeline;
using planner::PipelineTable;
using resource::JobTemplateKind;
using resource::TableTemplateKind;

namespace {

constexpr std::string_view kFlinkConfigKey = "flink.config";
constexpr std::string_view kJobPropertiesPrefix = "job.properties";

// The variables only a trigger's job has: a JobTemplate that uses one is a trigger's, and is not
// expected to render for a pipeline or a table (docs/ddl.md, "Templates that render nothing").
bool UsesTriggerVariables(const std::string& text) {
  auto keys = tmpl::Placeholders(text);
  if (!keys.ok()) return false;
  for (const std::string& k : *keys) {
    if (k == "trigger" || k == "job" || k == "schedule" || k == "timestamp" || k == "watermark") {
      return true;
    }
  }
  return false;
}

// Renders one template's `yaml` and checks that it is YAML. Skipped templates give nullopt; those
// skipped for a missing variable are added to `skipped` (when not null) as skipped for `subject`.
Result<std::optional<Spec>> RenderOne(std::string_view kind, const resource::Resource& t,
                                      const std::string& text, const tmpl::Environment& env,
                                      const std::string& subject,
                                      std::vector<SkippedTemplate>* skipped) {
  tmpl::SkipReason why;
  auto rendered = tmpl::Render(text, env, &why);
  if (!rendered.ok()) {
    return rendered.status().WithContext(fmt::format("{} {}: ", kind, t.name()));
  }
  if (!*rendered) {
    log::Debug("{} {} skipped for {}: {}", kind, t.name(), subject, why.ToString());
    const bool chosen_away = why.cause == tmpl::SkipReason::Cause::kGuardFailed ||
                             (kind == "JobTemplate" && UsesTriggerVariables(text));
    if (skipped != nullptr && !chosen_away) {
      skipped->push_back({std::string(kind), t.name(), "yaml", subject, why, ""});
    }
    return std::optional<Spec>();
  }
  std::string yaml = std::move(**rendered);
  while (!yaml.empty() && (yaml.back() == '\n' || yaml.back() == ' ')) yaml.pop_back();
  auto docs = ParseYamlDocuments(yaml, fmt::format("{} {}", kind, t.name()));
  if (!docs.ok()) {
    return docs.status().WithContext(
        fmt::format("{} {} rendered text that is not YAML: ", kind, t.name()));
  }
  return std::optional<Spec>(
      Spec{std::string(kind), t.name(), std::move(yaml), std::move(*docs), false, {}});
}

// Says why a table variable has no value, for the templates `skipped` got since `before`.
void ExplainTableSkips(const PipelineTable& table, size_t before,
                       std::vector<SkippedTemplate>* skipped) {
  if (skipped == nullptr) return;
  for (size_t i = before; i < skipped->size(); ++i) {
    SkippedTemplate& s = (*skipped)[i];
    if (s.reason.key == "catalog" && table.path.size() < 3) {
      s.explanation =
          fmt::format("{} has no catalog; {{{{catalog:}}}} renders an empty value instead",
                      table.QualifiedName());
    }
  }
}

// Java's String.hashCode, over the UTF-16 code units of `s`.
int32_t JavaHash(std::string_view s) {
  uint32_t h = 0;
  auto add = [&](uint32_t unit) { h = 31 * h + unit; };
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) |
           (s[i + 3] & 0x3Fu);
      len = 4;
    } else if (c >= 0xE0 && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
      len = 3;
    } else if (c >= 0xC0 && i + 1 < s.size()) {
      cp = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
      len = 2;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

// The order a java.util.HashMap iterates keys inserted in this order: by bucket (the spread hash
// masked by the table size, which doubles past 3/4 full from 16), then by insertion.
std::vector<size_t> JavaHashMapOrder(const std::vector<std::string>& keys) {
  size_t capacity = 16;
  while (keys.size() > capacity * 3 / 4) capacity *= 2;
  std::vector<std::pair<size_t, size_t>> order;  // (bucket, insertion index)
  for (size_t i = 0; i < keys.size(); ++i) {
    uint32_t h = static_cast<uint32_t>(JavaHash(keys[i]));
    h ^= h >> 16;
    order.emplace_back(h & (capacity - 1), i);
  }
  std::stable_sort(order.begin(), order.end());
  std::vector<size_t> out;
  for (const auto& [bucket, index] : order) out.push_back(index);
  return out;
}

}  // namespace

Result<RenderContext> LoadRenderContext(store::Store& store, std::string_view namespace_name) {
  RenderContext ctx;
  const std::string ns(namespace_name);
  HOP_ASSIGN_OR_RETURN(store::ListResult tables,
                       store.List({TableTemplateKind::Info().group_kind(), ns, {}}));
  ctx.table_templates = std::move(tables.items);
  HOP_ASSIGN_OR_RETURN(store::ListResult jobs,
                       store.List({JobTemplateKind::Info().group_kind(), ns, {}}));
  ctx.job_templates = std::move(jobs.items);
  auto config = store.Get({{"", "ConfigMap"}, ns, "hoptimator-configmap"});
  if (config.ok()) {
    const Json& doc = config->json();
    if (auto data = doc.find("data"); data != doc.end() && data->is_object()) {
      for (const auto& [k, v] : data->items()) {
        if (v.is_string()) ctx.config.emplace_back(k, v.get<std::string>());
      }
    }
  } else if (config.status().code() != StatusCode::kNotFound) {
    return config.status();
  }
  return ctx;
}

RenderContextCache::RenderContextCache(store::Store& store, std::string namespace_name)
    : store_(store), namespace_(std::move(namespace_name)) {}

Result<const RenderContext*> RenderContextCache::Get() {
  HOP_ASSIGN_OR_RETURN(int64_t now, store_.Revision());
  if (context_ && revision_ < now) {
    HOP_ASSIGN_OR_RETURN(bool changed, store::ChangedSince(store_,
                                                           {TableTemplateKind::Info().group_kind(),
                                                            JobTemplateKind::Info().group_kind(),
                                                            {"", "ConfigMap"}},
                                                           namespace_, revision_));
    if (changed) context_.reset();
  }
  if (!context_) {
    HOP_ASSIGN_OR_RETURN(RenderContext loaded, LoadRenderContext(store_, namespace_));
    context_ = std::move(loaded);
  }
  revision_ = now;
  return &*context_;
}

Result<tmpl::Entries> FlinkConfig(const tmpl::Entries& config) {
  const std::string* text = FindProperty(config, kFlinkConfigKey);
  if (!text) return tmpl::Entries{};
  auto parsed = ParseProperties(*text);
  if (!parsed.ok()) {
    return parsed.status().WithContext("ConfigMap hoptimator-configmap, key flink.config: ");
  }
  return std::move(parsed).value();
}

Result<std::string> FieldMap(const Pipeline& pipeline) {
  const Status trivial_only = Status::InvalidArgument(
      "Field mapping is only supported for trivial queries with simple projections and "
      "aliasing.");
  const binder::Rel* rel = pipeline.query.get();
  const binder::Rel* project = nullptr;
  if (rel->kind == binder::RelKind::kProject) {
    project = rel;
    rel = rel->inputs[0].get();
  }
  if (rel->kind != binder::RelKind::kScan) return trivial_only;
  std::vector<std::string> keys, values;
  const auto& columns = pipeline.query->row_type.columns;
  for (size_t i = 0; i < columns.size(); ++i) {
    std::string source;
    if (!project) {
      source = rel->row_type.columns[i].name;
    } else {
      const binder::Scalar* e = project->exprs[i].get();
      std::string path;
      // A column, or fields of one: ITEM(col, 'x') and col.x.
      while (e->kind == binder::ScalarKind::kField ||
             (e->kind == binder::ScalarKind::kItem &&
              e->args[1]->kind == binder::ScalarKind::kLiteral &&
              e->args[1]->literal == sql::LiteralKind::kString)) {
        path = "." + (e->kind == binder::ScalarKind::kField ? e->text : e->args[1]->text) + path;
        e = e->args[0].get();
      }
      if (e->kind != binder::ScalarKind::kInputRef) return trivial_only;
      source = rel->row_type.columns[e->index].name + path;
    }
    keys.push_back(i < pipeline.target_columns.size() ? pipeline.target_columns[i]
                                                      : columns[i].name);
    values.push_back(std::move(source));
  }
  Json map = Json::object();
  for (size_t i : JavaHashMapOrder(keys)) map[keys[i]] = values[i];
  return EmitJson(map, -1);
}

Renderer::Renderer(RenderContext context) : context_(std::move(context)) {}

tmpl::Environment Renderer::TableEnvironment(const PipelineTable& table) const {
  // Variables, later layers winning (compatibility.md §3.1, departure 3): the ConfigMap's top-level
  // keys; the table's names; its options (which carry the hints and the pipeline name); and the
  // job.properties options as one map.
  tmpl::Environment env;
  env.SetAll(context_.config);
  const auto& path = table.path;
  env.Set("name", resource::Canonicalize(std::vector<std::string>{table.database, path.back()}));
  env.Set("database", table.database);
  if (path.size() >= 3) env.Set("catalog", path[path.size() - 3]);
  if (path.size() >= 2) env.Set("schema", path[path.size() - 2]);
  env.Set("table", path.back());
  env.Set("path", Join(path, "."));
  env.SetAll(table.options);
  tmpl::Entries job_properties;
  for (const auto& [k, v] : table.options) {
    if (k.compare(0, kJobPropertiesPrefix.size(), kJobPropertiesPrefix) == 0) {
      job_properties.emplace_back(k, v);
    }
  }
  env.SetMap("job.properties", std::move(job_properties));
  return env;
}

Result<std::vector<Spec>> Renderer::TableSpecs(const PipelineTable& table, Method method,
                                               std::vector<SkippedTemplate>* skipped) const {
  const tmpl::Environment env = TableEnvironment(table);
  std::vector<Spec> specs;
  const size_t before = skipped != nullptr ? skipped->size() : 0;
  for (const auto& t : context_.table_templates) {
    if (!planner::TemplateListMatches(TableTemplateKind::kDatabases.Get(t), table.database) ||
        !planner::TemplateListMatches(TableTemplateKind::kMethods.Get(t),
                                      planner::MethodName(method))) {
      continue;
    }
    auto yaml = TableTemplateKind::kYaml.Get(t);
    if (!yaml) continue;
    HOP_ASSIGN_OR_RETURN(
        std::optional<Spec> spec,
        RenderOne("TableTemplate", t, *yaml, env, "table " + table.QualifiedName(), skipped));
    if (spec) specs.push_back(std::move(*spec));
  }
  ExplainTableSkips(table, before, skipped);
  return specs;
}

Result<std::vector<Spec>> Renderer::JobSpecs(const Pipeline& p,
                                             std::vector<SkippedTemplate>* skipped) const {
  const PipelineTable& sink = p.sink;
  HOP_ASSIGN_OR_RETURN(tmpl::Entries flink_config, FlinkConfig(context_.config));

  tmpl::Environment env;
  env.SetAll(context_.config);
  env.Set("name", resource::Canonicalize(std::vector<std::string>{sink.database, p.job_name}));
  env.Set("database", sink.database);
  const auto& path = sink.path;
  if (path.size() >= 3) env.Set("catalog", path[path.size() - 3]);
  if (path.size() >= 2) env.Set("schema", path[path.size() - 2]);
  env.Set("table", path.back());
  std::vector<std::string> databases, catalogs, schemas, tables;
  for (const auto& s : p.sources) {
    databases.push_back(s.database);
    if (s.path.size() >= 3) catalogs.push_back(s.path[s.path.size() - 3]);
    schemas.push_back(s.path.size() >= 2 ? s.path[s.path.size() - 2] : "");
    tables.push_back(s.path.back());
  }
  env.Set("sourceDatabases", Join(databases, ","));
  env.Set("sourceCatalogs", Join(catalogs, ","));
  env.Set("sourceSchemas", Join(schemas, ","));
  env.Set("sourceTables", Join(tables, ","));
  // The SQL is missing when a table has no connector: SQL job templates are then skipped.
  if (p.complete) {
    env.Set("sql", p.sql);
    env.Set("flinksql", p.sql);
  } else {
    env.SetNull("sql");
    env.SetNull("flinksql");
  }
  // flinkconfigs: the flink.config properties with the sink's options over them, in the order
  // Hoptimator's HashMap gives them.
  tmpl::Entries configs = flink_config;
  for (const auto& [k, v] : sink.options) tmpl::SetEntry(configs, k, v);
  std::vector<std::string> config_keys;
  for (const auto& [k, v] : configs) config_keys.push_back(k);
  tmpl::Entries ordered;
  for (size_t i : JavaHashMapOrder(config_keys)) ordered.push_back(configs[i]);
  env.SetProperties("flinkconfigs", std::move(ordered));
  env.SetLazy("fieldMap", [&p]() -> Result<std::optional<tmpl::Value>> {
    HOP_ASSIGN_OR_RETURN(std::string map, FieldMap(p));
    return std::optional<tmpl::Value>(tmpl::Value::String("'" + map + "'"));
  });
  env.SetAll(flink_config);
  env.SetAll(sink.options);

  // Why the SQL is missing, for the templates it skips.
  std::string no_sql;
  if (!p.complete) {
    std::vector<std::string> unconfigured;
    for (const auto& s : p.sources) {
      if (s.connector.empty()) unconfigured.push_back(s.QualifiedName());
    }
    if (p.sink.connector.empty()) unconfigured.push_back(p.sink.QualifiedName());
    std::string names;
    for (size_t i = 0; i < unconfigured.size(); ++i) names += (i ? ", " : "") + unconfigured[i];
    no_sql = "the pipeline has no SQL: no TableTemplate gives a connector to " + names;
  }
  const std::string subject =
      "job " + resource::Canonicalize(std::vector<std::string>{sink.database, p.job_name});
  std::vector<Spec> specs;
  for (const auto& t : context_.job_templates) {
    if (JobTemplateKind::kProvisionsTables.Get(t).value_or(false)) continue;
    if (!planner::TemplateListMatches(JobTemplateKind::kDatabases.Get(t), sink.database)) continue;
    auto yaml = JobTemplateKind::kYaml.Get(t);
    if (!yaml) continue;
    const size_t before = skipped != nullptr ? skipped->size() : 0;
    HOP_ASSIGN_OR_RETURN(std::optional<Spec> spec,
                         RenderOne("JobTemplate", t, *yaml, env, subject, skipped));
    if (spec) {
      spec->job = true;
      specs.push_back(std::move(*spec));
    } else if (skipped != nullptr && skipped->size() > before) {
      const std::string& key = skipped->back().reason.key;
      if (!p.complete && (key == "sql" || key == "flinksql")) skipped->back().explanation = no_sql;
      ExplainTableSkips(sink, skipped->size() - 1, skipped);
    }
  }
  return specs;
}

namespace {

// The TableProvisionJob hop writes for a table of a Database with `provisioning: async`.
Result<Spec> HopProvisionSpec(const PipelineTable& table) {
  using resource::TableProvisionJobKind;
  const auto& path = table.path;
  Json doc = {
      {"apiVersion", std::string(resource::kHopApiVersion)},
      {"kind", "TableProvisionJob"},
      {"metadata",
       {{"name", resource::Canonicalize(std::vector<std::string>{table.database, path.back()})}}},
      {"spec", Json::object()}};
  HOP_ASSIGN_OR_RETURN(resource::Resource job, resource::Resource::FromJson(doc, "hop"));
  TableProvisionJobKind::kDatabase.Set(job, table.database);
  if (path.size() >= 3) TableProvisionJobKind::kCatalog.Set(job, path[path.size() - 3]);
  if (path.size() >= 2) TableProvisionJobKind::kSchema.Set(job, path[path.size() - 2]);
  TableProvisionJobKind::kTable.Set(job, path.back());
  if (!table.declared_options.empty()) {
    resource::StringMap options;
    for (const auto& [k, v] : table.declared_options) options[k] = v;
    TableProvisionJobKind::kOptions.Set(job, options);
  }
  HOP_ASSIGN_OR_RETURN(Json columns, catalog::ColumnsJson(table.row_type));
  TableProvisionJobKind::kColumns.Set(job, columns);
  Spec spec;
  spec.template_kind = "Database";
  spec.template_name = table.database;
  spec.yaml = EmitYaml(job.json());
  while (!spec.yaml.empty() && spec.yaml.back() == '\n') spec.yaml.pop_back();
  spec.docs.push_back(job.json());
  spec.queued =
      fmt::format("table {} queued for provisioning in {}", Join(path, "."), table.database);
  return spec;
}

}  // namespace

Result<std::vector<Spec>> Renderer::ProvisionSpecs(const PipelineTable& table,
                                                   std::vector<SkippedTemplate>* skipped) const {
  std::vector<Spec> specs;
  if (context_.provisioned_synchronously.count(table.database)) return specs;
  if (context_.provisioned_by_hop.count(table.database)) {
    HOP_ASSIGN_OR_RETURN(Spec spec, HopProvisionSpec(table));
    specs.push_back(std::move(spec));
    return specs;
  }
  const size_t before = skipped != nullptr ? skipped->size() : 0;
  tmpl::Environment env = TableEnvironment(table);
  env.SetMap("options", table.declared_options);
  for (const auto& t : context_.job_templates) {
    if (!JobTemplateKind::kProvisionsTables.Get(t).value_or(false)) continue;
    if (!planner::TemplateListMatches(JobTemplateKind::kDatabases.Get(t), table.database)) continue;
    auto yaml = JobTemplateKind::kYaml.Get(t);
    if (!yaml) continue;
    HOP_ASSIGN_OR_RETURN(
        std::optional<Spec> spec,
        RenderOne("JobTemplate", t, *yaml, env, "table " + table.QualifiedName(), skipped));
    if (spec) specs.push_back(std::move(*spec));
  }
  ExplainTableSkips(table, before, skipped);
  return specs;
}

Result<std::vector<Spec>> Renderer::PipelineSpecs(const Pipeline& p,
                                                  std::vector<SkippedTemplate>* skipped) const {
  std::vector<Spec> specs;
  auto add = [&](Result<std::vector<Spec>> more) -> Status {
    HOP_RETURN_IF_ERROR(more.status());
    for (auto& spec : *more) specs.push_back(std::move(spec));
    return Status::OK();
  };
  std::vector<SkippedTemplate> all;
  for (const auto& s : p.sources) {
    for (const auto& c : s.skipped_connectors) all.push_back(c);
    HOP_RETURN_IF_ERROR(add(TableSpecs(s, Method::kScan, &all)));
    HOP_RETURN_IF_ERROR(add(ProvisionSpecs(s, &all)));
  }
  for (const auto& c : p.sink.skipped_connectors) all.push_back(c);
  HOP_RETURN_IF_ERROR(add(TableSpecs(p.sink, Method::kModify, &all)));
  HOP_RETURN_IF_ERROR(add(ProvisionSpecs(p.sink, &all)));
  HOP_ASSIGN_OR_RETURN(auto job, JobSpecs(p, &all));
  for (auto& spec : job) specs.push_back(std::move(spec));
  // A table read twice renders the same resources twice; they are one resource.
  std::vector<Spec> unique;
  for (auto& spec : specs) {
    bool seen = std::any_of(unique.begin(), unique.end(),
                            [&](const Spec& u) { return u.yaml == spec.yaml; });
    if (!seen) unique.push_back(std::move(spec));
  }
  // A table read twice is skipped twice the same way; say it once.
  if (skipped != nullptr) {
    for (auto& s : all) {
      bool seen = std::any_of(skipped->begin(), skipped->end(), [&](const SkippedTemplate& k) {
        return k.ToString() == s.ToString() && k.subject == s.subject;
      });
      if (!seen) skipped->push_back(std::move(s));
    }
  }
  return unique;
}

void AddSkipWarnings(const std::vector<SkippedTemplate>& skipped, Issues& issues) {
  std::vector<std::pair<std::string, Issues*>> contexts;  // one per subject, in order
  for (const SkippedTemplate& s : skipped) {
    auto it = std::find_if(contexts.begin(), contexts.end(),
                           [&](const auto& c) { return c.first == s.subject; });
    if (it == contexts.end()) {
      contexts.emplace_back(s.subject, &issues.Child(s.subject));
      it = contexts.end() - 1;
    }
    it->second->Warning(s.ToString());
  }
}

}  // namespace hop::deploy
