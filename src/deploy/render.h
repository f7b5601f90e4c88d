// Rendering the resources a pipeline is made of (compatibility.md §3.1, §5.3): the `yaml` of every
// TableTemplate that matches a source or the sink (a Kafka topic, a trigger, ...), and the `yaml`
// of every JobTemplate that matches the sink's database (the Flink job that runs the pipeline
// SQL). Templates whose variables are missing are skipped, and listed for the user
// (planner::SkippedTemplate); a template that fails, or renders text that is not YAML, is an
// error naming it.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/issues.h"
#include "common/status.h"
#include "planner/planner.h"
#include "resource/json.h"
#include "resource/resource.h"
#include "store/store.h"
#include "template/environment.h"
#include "template/value.h"

namespace hop::deploy {

// One rendered resource and the template it came from.
struct Spec {
  std::string template_kind;  // "TableTemplate" or "JobTemplate"
  std::string template_name;
  std::string yaml;        // as rendered, without a trailing newline
  std::vector<Json> docs;  // the YAML documents of `yaml`, parsed
  bool job = false;        // rendered for the pipeline's job (JobSpecs)
  // A TableProvisionJob of hop's own: what the statement's summary says when it is created
  // (`table PG.T queued for provisioning in pg`).
  std::string queued;
};

using planner::SkippedTemplate;

// Adds a warning for each skipped template to `issues`, under a context naming what it was
// rendered for ("table ADS.PAGE_VIEWS:", "job ads-database-audience:").
void AddSkipWarnings(const std::vector<SkippedTemplate>& skipped, Issues& issues);

struct RenderContext {
  std::vector<resource::Resource> table_templates;  // of the namespace, in list order
  std::vector<resource::Resource> job_templates;
  // Top-level keys of the `hoptimator-configmap` ConfigMap: the lowest layer of variables.
  tmpl::Entries config;
  // Databases whose tables a Provisioner creates inside the statement: no TableProvisionJob is
  // rendered for them.
  std::set<std::string> provisioned_synchronously;
  // Databases with `provisioning: async` whose system has a Provisioner: each of their tables
  // gets a TableProvisionJob of hop's own (columns included), which the operator hands to that
  // provisioner, instead of what the JobTemplates render.
  std::set<std::string> provisioned_by_hop;
};

// Reads the TableTemplates and JobTemplates of a namespace and the top-level keys of its
// `hoptimator-configmap` ConfigMap (which may be absent).
Result<RenderContext> LoadRenderContext(store::Store& store, std::string_view namespace_name);

// The render context of a namespace kept across statements: loaded again only when a
// TableTemplate, JobTemplate or ConfigMap of the namespace changed. Not thread-safe.
class RenderContextCache {
 public:
  RenderContextCache(store::Store& store, std::string namespace_name);
  // The context as of the store's latest revision; valid until the next call.
  Result<const RenderContext*> Get();
  const std::string& namespace_name() const { return namespace_; }

 private:
  store::Store& store_;
  std::string namespace_;
  std::optional<RenderContext> context_;
  int64_t revision_ = 0;
};

// The properties of the ConfigMap's `flink.config` key (empty when absent). Errors name the key.
Result<tmpl::Entries> FlinkConfig(const tmpl::Entries& config);

class Renderer {
 public:
  explicit Renderer(RenderContext context);

  // Each method below adds the matching templates it skipped for a missing variable to
  // `skipped` when it is not null. JobTemplates that use a trigger's variables (`trigger`, `job`,
  // `schedule`, `timestamp`, `watermark`) are trigger jobs, never meant to render here: skipping
  // them is not reported, nor is a guard that does not hold (`{{flink.app.type==SQL}}`).

  // The TableTemplate `yaml` specs of one table, read (kScan) or written (kModify).
  Result<std::vector<Spec>> TableSpecs(const planner::PipelineTable& table, planner::Method method,
                                       std::vector<SkippedTemplate>* skipped = nullptr) const;

  // The specs of the JobTemplates that provision tables (`provisionsTables: true`) for one table
  // of their databases: TableProvisionJobs, usually. Variables are those of TableSpecs, plus
  // `options` (the table's declared options, as a map). None for a database provisioned
  // synchronously; for one provisioned by hop, its own TableProvisionJob: named as a Table
  // (`<database>-<table>`), with the table's database, catalog, schema, table, declared options
  // and columns.
  Result<std::vector<Spec>> ProvisionSpecs(const planner::PipelineTable& table,
                                           std::vector<SkippedTemplate>* skipped = nullptr) const;

  // The JobTemplate `yaml` specs of a pipeline's job (templates that provision tables excluded).
  Result<std::vector<Spec>> JobSpecs(const planner::Pipeline& pipeline,
                                     std::vector<SkippedTemplate>* skipped = nullptr) const;

  // Every element of a pipeline, in deploy order: each source's table and provisioning specs, the
  // sink's, the job's. `skipped` also gets the connector templates the planner skipped.
  Result<std::vector<Spec>> PipelineSpecs(const planner::Pipeline& pipeline,
                                          std::vector<SkippedTemplate>* skipped = nullptr) const;

 private:
  tmpl::Environment TableEnvironment(const planner::PipelineTable& table) const;

  RenderContext context_;
};

// `{"OUT":"in", ...}` for a query that only scans one table and renames or picks its columns
// (or ROW fields): each output column and the source column it comes from, in the iteration order
// of a Java HashMap, as Hoptimator prints it. Errors (InvalidArgument) for any other query:
// `Field mapping is only supported for trivial queries with simple projections and aliasing.`
Result<std::string> FieldMap(const planner::Pipeline& pipeline);

}  // namespace hop::deploy
