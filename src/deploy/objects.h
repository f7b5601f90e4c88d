// What the deployers share: building hop's objects, and the dependency metadata of
// compatibility.md §5.8. Internal to src/deploy.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "resource/resource.h"
#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"
#include "store/store.h"
#include "template/template.h"

namespace hop::deploy {

inline constexpr std::string_view kSourcesAnnotation = "hoptimator.linkedin.com/depends-on-sources";
inline constexpr std::string_view kSinksAnnotation = "hoptimator.linkedin.com/depends-on-sinks";
// The label a trigger carries naming the view (or table) it listens to, by canonical path.
inline constexpr std::string_view kViewLabel = "view";

// A new object of one of hop's kinds.
resource::Resource NewObject(std::string_view kind, const std::string& name, const std::string& ns);
// A reference to `owner` by name; its uid when it is stored, else the store fills it in.
resource::OwnerReference OwnerByName(const resource::Resource& owner);

// The value of a trigger's `view` label for the table or view of canonical name `name`.
std::string ViewLabelValue(std::string_view name);

// Sets the depends-on label of each identifier and the sources annotation, and the sinks one
// unless `sinks` is null.
void SetDependencies(resource::Resource& object, const std::vector<std::string>& sources,
                     const std::vector<std::string>* sinks);

// Sets, over what `env` holds (a CREATE TRIGGER's options), what a trigger's JobTemplate is
// rendered with when the trigger is created: the trigger's and template's names, `name` for the
// Job (the two joined, as Hoptimator names it: `testsimple-my-app`), and its target table's
// path, schema and catalog. What only a fire knows (timestamp, watermark, job
// properties) is left for the fire (trigger_fires.h).
void SetTriggerCreationVariables(tmpl::Environment& env, const std::string& trigger,
                                 const std::string& job_template, const catalog::Schema& schema,
                                 const std::vector<std::string>& path);

// The Pipelines and TableTriggers of `ns` that depend on the table `identifier` (compatibility.md
// §5.8), named `pipeline/x (owned by View/x)`, leaving out those owned by `self_kind/self_name`.
Result<std::vector<std::string>> Dependents(store::Store& store, const std::string& ns,
                                            const std::string& identifier,
                                            std::string_view self_kind = {},
                                            std::string_view self_name = {});

// Whether hop may drop, on its own initiative (DROP MATERIALIZED VIEW's table, a new view's
// left-over table: docs/ddl.md, "Provisioning"), a table of `schema`, the schema of Database
// `database` in `ns`: only in a local database whose file no other Database, in any namespace,
// keeps its tables in (another Database's tables there may be that table). Never elsewhere: a
// PostgreSQL table may be named by Databases whose URLs differ and reach the same server.
Result<bool> HopMayDropOnItsOwn(store::Store& store, const std::string& ns,
                                const std::string& database, const catalog::Schema& schema);

}  // namespace hop::deploy
