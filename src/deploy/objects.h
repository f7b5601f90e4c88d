// What the parts of the DDL executor share: building hop's objects, reading the store, and the
// dependency metadata of compatibility.md §5.8. Internal to src/deploy.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "deploy/executor.h"
#include "resource/resource.h"
#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"
#include "store/store.h"

namespace hop::deploy {

// One write of a statement, and how the statement's summary names it.
struct Executor::Change {
  Change(store::Write w, std::string prior = {}, std::string v = {}, bool q = false)
      : write(std::move(w)), prior_version(std::move(prior)), verb(std::move(v)), quiet(q) {}

  store::Write write;
  std::string prior_version;  // updates: the resourceVersion before, to tell "unchanged"
  std::string verb;           // what to call it instead of created/configured/deleted
  bool quiet = false;         // a second write of an object already listed
};

inline constexpr std::string_view kSourcesAnnotation = "hoptimator.linkedin.com/depends-on-sources";
inline constexpr std::string_view kSinksAnnotation = "hoptimator.linkedin.com/depends-on-sinks";
// The label a trigger carries naming the view (or table) it listens to, by canonical path.
inline constexpr std::string_view kViewLabel = "view";

std::vector<std::string> Path(const sql::QualifiedName& name);
std::string Dotted(const std::vector<std::string>& path);

// A new object of one of hop's kinds.
resource::Resource NewObject(std::string_view kind, const std::string& name, const std::string& ns);
// A reference to `owner` by name; its uid when it is stored, else the store fills it in.
resource::OwnerReference OwnerByName(const resource::Resource& owner);

// The value of a trigger's `view` label for the table or view of canonical name `name`.
std::string ViewLabelValue(std::string_view name);

// `Element AUDIENCE is a materialized view and does not correspond to DROP VIEW` unless `table`
// is of the kind `expected`.
Status CheckKind(const catalog::Table& table, sql::ObjectKind expected, std::string_view statement);

// Sets the depends-on label of each identifier and the sources annotation, and the sinks one
// unless `sinks` is null.
void SetDependencies(resource::Resource& object, const std::vector<std::string>& sources,
                     const std::vector<std::string>* sinks);

// The Pipelines and TableTriggers of `ns` that depend on the table `identifier` (compatibility.md
// §5.8), named `pipeline/x (owned by View/x)`, leaving out those owned by `self_kind/self_name`.
Result<std::vector<std::string>> Dependents(store::Store& store, const std::string& ns,
                                            const std::string& identifier,
                                            std::string_view self_kind = {},
                                            std::string_view self_name = {});

}  // namespace hop::deploy
