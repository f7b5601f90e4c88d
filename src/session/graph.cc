#include "session/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/cron.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/selector.h"
#include "resource/yaml.h"

namespace hop::session {

namespace {

using resource::Resource;

constexpr std::string_view kSourcesAnnotation = "hoptimator.linkedin.com/depends-on-sources";
constexpr std::string_view kSinksAnnotation = "hoptimator.linkedin.com/depends-on-sinks";
constexpr std::string_view kNoPipelinesWarning =
    "%% WARNING: no pipelines reference this resource — the identifier may not exist or no "
    "pipelines have been deployed against it yet.";

std::string JoinDotted(const std::vector<std::string>& parts) { return Join(parts, "."); }

// The identifiers of a comma-separated depends-on annotation, in order, each once.
std::vector<std::string> AnnotationIdentifiers(const Resource& r, std::string_view key) {
  std::vector<std::string> out;
  auto annotations = r.annotations();
  auto it = annotations.find(std::string(key));
  if (it == annotations.end()) return out;
  std::string_view list = it->second;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string id(TrimWhitespace(list.substr(0, comma)));
    if (!id.empty() && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

bool Contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Whether `r` names `kind`/`name` (or the object of `uid`) among its owners.
bool OwnedBy(const Resource& r, std::string_view kind, const std::string& name,
             const std::string& uid) {
  for (const resource::OwnerReference& o : r.owner_references()) {
    if (o.kind != kind) continue;
    if ((!uid.empty() && o.uid == uid) || o.name == name) return true;
  }
  return false;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The value of the first top-level `kind:` line (of any document of a multi-document YAML text)
// whose value ends in `Job`, or "". Read line by line so that YAML a template left partly
// unrendered still says what it is.
std::string FirstJobKind(std::string_view yaml) {
  while (!yaml.empty()) {
    const size_t eol = yaml.find('\n');
    std::string_view line = yaml.substr(0, eol);
    yaml.remove_prefix(eol == std::string_view::npos ? yaml.size() : eol + 1);
    if (line.rfind("kind:", 0) != 0) continue;
    std::string_view value = TrimWhitespace(line.substr(5));
    if (!value.empty() && value.find(' ') == std::string_view::npos && EndsWith(value, "Job")) {
      return std::string(value);
    }
  }
  return "";
}

// The parsed documents of a YAML text; none when it does not parse.
std::vector<Json> Documents(std::string_view yaml) {
  if (yaml.empty()) return {};
  auto docs = ParseYamlDocuments(yaml, "yaml");
  return docs.ok() ? std::move(docs).value() : std::vector<Json>{};
}

std::string StringAt(const Json& doc, std::initializer_list<std::string_view> keys) {
  const Json* at = &doc;
  for (std::string_view k : keys) {
    if (!at->is_object()) return "";
    auto it = at->find(std::string(k));
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

// The engine of a job of kind `kind` whose YAML is `yaml`, guessed from the names as Hoptimator
// guesses it: Beam mentioned anywhere, Flink or Spark in the kind.
std::string InferEngine(std::string_view kind, std::string_view yaml) {
  if (kind.empty()) return "";
  const std::string k = AsciiToLower(kind);
  const bool beam =
      k.find("beam") != std::string::npos || AsciiToLower(yaml).find("beam") != std::string::npos;
  const bool flink = k.find("flink") != std::string::npos;
  if (beam) return flink ? "Flink Beam" : "Beam";
  if (flink) return "Flink";
  if (k.find("spark") != std::string::npos) return "Spark";
  return "";
}

// The first `containers` list met walking `doc` depth-first, keys in order: its first entry's
// name, or "".
std::string FirstContainer(const Json& doc) {
  if (doc.is_object()) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (it.key() == "containers" && it->is_array()) {
        if (!it->empty() && (*it)[0].is_object()) return StringAt((*it)[0], {"name"});
        return "";
      }
      if (std::string found = FirstContainer(*it); !found.empty()) return found;
    }
  } else if (doc.is_array()) {
    for (const Json& e : doc) {
      if (std::string found = FirstContainer(e); !found.empty()) return found;
    }
  }
  return "";
}

const char* KindName(GraphNodeKind k) {
  switch (k) {
    case GraphNodeKind::kPipeline: return "PIPELINE";
    case GraphNodeKind::kView: return "VIEW";
    case GraphNodeKind::kLogicalTable: return "LOGICAL_TABLE";
    case GraphNodeKind::kTrigger: return "TRIGGER";
    case GraphNodeKind::kExternal: return "EXTERNAL";
  }
  return "EXTERNAL";
}

const char* EdgeName(GraphEdgeKind k) {
  switch (k) {
    case GraphEdgeKind::kOwnerOf: return "OWNER_OF";
    case GraphEdgeKind::kDependsOnSource: return "DEPENDS_ON_SOURCE";
    case GraphEdgeKind::kDependsOnSink: return "DEPENDS_ON_SINK";
    case GraphEdgeKind::kTriggers: return "TRIGGERS";
  }
  return "DEPENDS_ON_SOURCE";
}

GraphNode ExternalNode(const std::string& database, std::vector<std::string> path) {
  GraphNode n;
  n.kind = GraphNodeKind::kExternal;
  n.database = database;
  n.path = std::move(path);
  n.name = JoinDotted(n.path);
  n.id = "external:" + database + "/" + n.name;
  return n;
}

// An identifier `<database>_<dotted path>` read back; one without '_' is all database.
GraphNode ExternalOfIdentifier(const std::string& identifier) {
  const size_t sep = identifier.find('_');
  if (sep == std::string::npos) return ExternalNode(identifier, {});
  std::vector<std::string> path;
  const std::string rest = identifier.substr(sep + 1);
  if (!rest.empty()) {
    size_t start = 0;
    for (;;) {
      size_t dot = rest.find('.', start);
      path.push_back(rest.substr(start, dot == std::string::npos ? dot : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  return ExternalNode(identifier.substr(0, sep), std::move(path));
}

GraphNode ResourceNode(GraphNodeKind kind, std::string_view prefix, const Resource& r) {
  GraphNode n;
  n.kind = kind;
  n.namespace_name = r.namespace_name();
  n.name = r.name();
  n.id = fmt::format("{}:{}/{}", prefix, n.namespace_name, n.name);
  return n;
}

GraphNode PipelineNode(const Resource& p) {
  GraphNode n = ResourceNode(GraphNodeKind::kPipeline, "pipeline", p);
  const std::string yaml = resource::PipelineKind::kYaml.Get(p).value_or("");
  n.job_kind = FirstJobKind(yaml);
  if (n.job_kind == "SqlJob") {
    // A SqlJob says its engine in its spec.
    for (const Json& doc : Documents(yaml)) {
      if (StringAt(doc, {"kind"}) != "SqlJob") continue;
      n.engine = StringAt(doc, {"spec", "dialect"});
      n.execution_mode = StringAt(doc, {"spec", "executionMode"});
      break;
    }
  } else {
    n.engine = InferEngine(n.job_kind, yaml);
  }
  return n;
}

GraphNode TriggerNode(const Resource& t) {
  GraphNode n = ResourceNode(GraphNodeKind::kTrigger, "trigger", t);
  n.schedule = resource::TableTriggerKind::kSchedule.Get(t).value_or("");
  n.paused = resource::TableTriggerKind::kPaused.Get(t).value_or(false);
  std::vector<Json> docs = Documents(resource::TableTriggerKind::kYaml.Get(t).value_or(""));
  if (!docs.empty()) {
    // The Job is named <trigger>-<template> (compatibility.md §2).
    const std::string job = StringAt(docs[0], {"metadata", "name"});
    const std::string prefix = n.name + "-";
    if (job.size() > prefix.size() && job.rfind(prefix, 0) == 0) {
      n.job_template = job.substr(prefix.size());
    }
    n.container = FirstContainer(docs[0]);
  }
  return n;
}

enum class Direction { kUpstream, kDownstream };

// The walk over the store that builds one graph.
class GraphWalk {
 public:
  GraphWalk(store::Store& store, std::string ns) : store_(store), ns_(std::move(ns)) {}

  size_t Add(GraphNode node) {
    auto it = index_.find(node.id);
    if (it != index_.end()) return it->second;
    graph_.nodes.push_back(std::move(node));
    index_.emplace(graph_.nodes.back().id, graph_.nodes.size() - 1);
    return graph_.nodes.size() - 1;
  }
  void Connect(size_t from, size_t to, GraphEdgeKind kind) {
    GraphEdge e{from, to, kind};
    if (std::find(graph_.edges.begin(), graph_.edges.end(), e) == graph_.edges.end()) {
      graph_.edges.push_back(e);
    }
  }
  Graph& graph() { return graph_; }
  const std::string& ns() const { return ns_; }

  // The node of the external that `identifier` names, when the graph has it.
  std::optional<size_t> FindExternal(const std::string& identifier) const {
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const GraphNode& n = graph_.nodes[i];
      if (n.kind == GraphNodeKind::kExternal &&
          resource::DependencyIdentifier(n.database, n.path) == identifier) {
        return i;
      }
    }
    return std::nullopt;
  }

  Result<std::optional<Resource>> Get(const resource::KindInfo& kind, const std::string& name) {
    return store_.Find({kind.group_kind(), ns_, name});
  }

  // The pipeline's node with an edge from each source and to each sink; nullopt when it was
  // added before.
  std::optional<size_t> AddPipeline(const Resource& p) {
    if (!expanded_pipelines_.insert(p.name()).second) return std::nullopt;
    const size_t node = Add(PipelineNode(p));
    for (const std::string& id : AnnotationIdentifiers(p, kSourcesAnnotation)) {
      Connect(Add(ExternalOfIdentifier(id)), node, GraphEdgeKind::kDependsOnSource);
    }
    for (const std::string& id : AnnotationIdentifiers(p, kSinksAnnotation)) {
      Connect(node, Add(ExternalOfIdentifier(id)), GraphEdgeKind::kDependsOnSink);
    }
    return node;
  }

  // AddPipeline, then on from its sources (upstream) or its sinks (downstream).
  Result<std::optional<size_t>> ExpandPipeline(const Resource& p, Direction direction,
                                               int remaining) {
    std::optional<size_t> node = AddPipeline(p);
    if (!node || remaining <= 0) return node;
    const auto ids = AnnotationIdentifiers(
        p, direction == Direction::kUpstream ? kSourcesAnnotation : kSinksAnnotation);
    for (const std::string& id : ids) {
      HOP_RETURN_IF_ERROR(ExpandResource(Add(ExternalOfIdentifier(id)), remaining - 1, direction));
    }
    return node;
  }

  // The pipelines and triggers that write the table of node `at` (upstream) or read it
  // (downstream), and on from theirs, `remaining` hops.
  Status ExpandResource(size_t at, int remaining, Direction direction) {
    const std::string database = graph_.nodes[at].database;
    const std::vector<std::string> path = graph_.nodes[at].path;
    const std::string key = (direction == Direction::kUpstream ? "up/" : "down/") + database +
                            "/" + JoinDotted(path);
    if (!expanded_resources_.insert(key).second || remaining <= 0) return Status::OK();
    const std::string id = resource::DependencyIdentifier(database, path);
    HOP_ASSIGN_OR_RETURN(resource::LabelSelector selector,
                         resource::LabelSelector::Parse(resource::DependencyLabelKey(id)));
    const bool up = direction == Direction::kUpstream;

    HOP_ASSIGN_OR_RETURN(store::ListResult pipelines,
                         store_.List({resource::PipelineKind::Info().group_kind(), ns_, selector}));
    for (const Resource& p : pipelines.items) {
      // The annotations say what a pipeline depends on now; a label may be stale.
      const auto ids = AnnotationIdentifiers(p, up ? kSinksAnnotation : kSourcesAnnotation);
      if (!Contains(ids, id)) continue;
      HOP_RETURN_IF_ERROR(ExpandPipeline(p, direction, remaining).status());
    }

    HOP_ASSIGN_OR_RETURN(
        store::ListResult triggers,
        store_.List({resource::TableTriggerKind::Info().group_kind(), ns_, selector}));
    for (const Resource& t : triggers.items) {
      const auto sources = AnnotationIdentifiers(t, kSourcesAnnotation);
      const auto sinks = AnnotationIdentifiers(t, kSinksAnnotation);
      const std::string source = sources.empty() ? "" : sources[0];
      const std::string sink = sinks.empty() ? "" : sinks[0];
      if ((up ? sink : source) != id) continue;
      const size_t node = Add(TriggerNode(t));
      if (up) {
        Connect(node, at, GraphEdgeKind::kTriggers);
        if (!source.empty()) {
          const size_t from = Add(ExternalOfIdentifier(source));
          Connect(from, node, GraphEdgeKind::kTriggers);
          HOP_RETURN_IF_ERROR(ExpandResource(from, remaining - 1, direction));
        }
      } else {
        Connect(at, node, GraphEdgeKind::kTriggers);
        if (!sink.empty()) {
          const size_t to = Add(ExternalOfIdentifier(sink));
          Connect(node, to, GraphEdgeKind::kTriggers);
          HOP_RETURN_IF_ERROR(ExpandResource(to, remaining - 1, direction));
        }
      }
    }
    return Status::OK();
  }

  // The dotted edges from a trigger's source and to its sink, for those the graph has.
  void ConnectTrigger(const Resource& t, size_t node) {
    const auto sources = AnnotationIdentifiers(t, kSourcesAnnotation);
    const auto sinks = AnnotationIdentifiers(t, kSinksAnnotation);
    if (!sources.empty()) {
      if (auto from = FindExternal(sources[0])) Connect(*from, node, GraphEdgeKind::kTriggers);
    }
    if (!sinks.empty()) {
      if (auto to = FindExternal(sinks[0])) Connect(node, *to, GraphEdgeKind::kTriggers);
    }
  }

 private:
  store::Store& store_;
  std::string ns_;
  Graph graph_;
  std::map<std::string, size_t> index_;
  std::set<std::string> expanded_resources_;
  std::set<std::string> expanded_pipelines_;
};

// A materialized view: the View as the root, owning the Pipeline of its name, with that
// pipeline's sources and sink. One hop: the tables' own pipelines are the tables' graphs.
Result<Graph> ViewGraph(store::Store& store, const std::string& ns, const std::string& name,
                        std::string_view identifier) {
  GraphWalk walk(store, ns);
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> view, walk.Get(resource::ViewKind::Info(), name));
  if (!view) {
    return Status::NotFound(fmt::format("Identifier {} names view {}, which is not in namespace {}",
                                        identifier, name, ns));
  }
  GraphNode root = ResourceNode(GraphNodeKind::kView, "view", *view);
  root.materialized = resource::ViewKind::kMaterialized.Get(*view).value_or(false);
  const size_t at = walk.Add(std::move(root));
  if (walk.graph().nodes[at].materialized) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> pipeline,
                         walk.Get(resource::PipelineKind::Info(), name));
    if (pipeline && OwnedBy(*pipeline, "View", name, view->uid())) {
      if (auto node = walk.AddPipeline(*pipeline)) {
        walk.Connect(at, *node, GraphEdgeKind::kOwnerOf);
      }
    }
  }
  return std::move(walk.graph());
}

// A logical table: its LogicalTable owning the pipelines between its tiers, the tier tables and
// its offline trigger.
Result<Graph> LogicalTableGraph(store::Store& store, const std::string& ns,
                                const std::string& name, std::string_view identifier) {
  GraphWalk walk(store, ns);
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> table,
                       walk.Get(resource::LogicalTableKind::Info(), name));
  if (!table) {
    return Status::NotFound(fmt::format(
        "Identifier {} is a logical table, but namespace {} has no LogicalTable {}", identifier,
        ns, name));
  }
  GraphNode root = ResourceNode(GraphNodeKind::kLogicalTable, "logicaltable", *table);
  if (auto tiers = resource::LogicalTableKind::kTiers.Get(*table); tiers && tiers->is_object()) {
    for (auto it = tiers->begin(); it != tiers->end(); ++it) {
      // A tier without a database cannot hold a table: left out.
      std::string database = StringAt(*it, {"database"});
      if (!database.empty()) root.tiers.emplace_back(it.key(), std::move(database));
    }
  }
  const std::vector<std::pair<std::string, std::string>> tiers = root.tiers;
  const size_t at = walk.Add(std::move(root));
  const std::string table_name = resource::LogicalTableKind::kTableName.Get(*table).value_or("");
  const std::string canonical = resource::Canonicalize(table_name);
  if (!table_name.empty()) {
    // The pipelines between tiers are named for the pair (compatibility.md §2); every pair is
    // looked for, so whichever the deployer made are found.
    for (const auto& [from, from_db] : tiers) {
      for (const auto& [to, to_db] : tiers) {
        if (from == to) continue;
        HOP_ASSIGN_OR_RETURN(
            std::optional<Resource> p,
            walk.Get(resource::PipelineKind::Info(),
                     fmt::format("logical-{}-{}-to-{}", canonical, from, to)));
        if (!p || !OwnedBy(*p, "LogicalTable", name, table->uid())) continue;
        if (auto node = walk.AddPipeline(*p)) walk.Connect(at, *node, GraphEdgeKind::kOwnerOf);
      }
    }
  }
  // The tables of the tiers belong inside it; other tables stay outside.
  for (size_t i = 0; i < walk.graph().nodes.size(); ++i) {
    const GraphNode& n = walk.graph().nodes[i];
    if (n.kind != GraphNodeKind::kExternal) continue;
    if (std::any_of(tiers.begin(), tiers.end(),
                    [&](const auto& tier) { return tier.second == n.database; })) {
      walk.Connect(at, i, GraphEdgeKind::kOwnerOf);
    }
  }
  if (!table_name.empty()) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> trigger,
                         walk.Get(resource::TableTriggerKind::Info(),
                                  fmt::format("logical-{}-offline-trigger", canonical)));
    if (trigger && OwnedBy(*trigger, "LogicalTable", name, table->uid())) {
      const size_t node = walk.Add(TriggerNode(*trigger));
      walk.Connect(at, node, GraphEdgeKind::kOwnerOf);
      walk.ConnectTrigger(*trigger, node);
    }
  }
  return std::move(walk.graph());
}

// A table: the pipelines and triggers around it, both ways, `depth` hops.
Result<Graph> ResourceGraph(store::Store& store, const std::string& ns,
                            const std::string& database, std::vector<std::string> path,
                            int depth) {
  GraphWalk walk(store, ns);
  const size_t root = walk.Add(ExternalNode(database, std::move(path)));
  HOP_RETURN_IF_ERROR(walk.ExpandResource(root, std::max(depth, 0), Direction::kUpstream));
  HOP_RETURN_IF_ERROR(walk.ExpandResource(root, std::max(depth, 0), Direction::kDownstream));
  return std::move(walk.graph());
}

// How one spelling of the identifier resolves: the table, or why not and how far it got.
struct Resolution {
  Status status;
  bool schema_found = false;
  const catalog::Table* table = nullptr;
  const catalog::Schema* schema = nullptr;
};

Resolution Resolve(const catalog::Catalog& cat, std::string_view identifier,
                   const std::vector<std::string>& path) {
  Resolution r;
  auto missing_segment = [&](const std::string& segment) {
    r.status = Status::CatalogNotFound(
        fmt::format("Identifier {} does not exist: schema segment '{}' not found in this "
                    "connection.",
                    identifier, segment));
    return r;
  };
  auto is_catalog = [&](const std::string& name) { return cat.IsCatalog(name); };
  const size_t n = path.size();
  std::vector<std::string> schema_path(path.begin(), path.end() - 1);
  if (n == 1) {
    schema_path = {cat.default_schema()};
  } else if (n == 2) {
    if (cat.FindSchema({path[0]}) == nullptr && !is_catalog(path[0])) return missing_segment(path[0]);
  } else {
    if (!is_catalog(path[0])) return missing_segment(path[0]);
    if (!cat.SchemaFor({path[0], path[1], path.back()}).ok()) return missing_segment(path[1]);
    if (n > 3) return missing_segment(path[2]);  // schemas do not nest deeper
  }
  r.schema_found = true;
  auto table = cat.Resolve(path);
  if (!table.ok()) {
    if (table.status().code() != StatusCode::kCatalogNotFound) {
      r.status = table.status();  // an unusable schema says why
      return r;
    }
    r.status = Status::CatalogNotFound(
        fmt::format("Identifier {} does not exist: table '{}' not found in schema {}.", identifier,
                    path.back(), JoinDotted(schema_path)));
    return r;
  }
  r.table = *table;
  auto schema = cat.SchemaFor(r.table->path);
  if (schema.ok()) r.schema = *schema;
  return r;
}

}  // namespace

Result<std::vector<std::string>> SplitGraphArguments(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i == text.size()) break;
    std::string word;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') {
      if (text[i] != '"') {
        word += text[i++];
        continue;
      }
      // A quoted run, kept with its quotes for SplitTableName to read.
      word += text[i++];
      bool closed = false;
      while (i < text.size()) {
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            word += "\"\"";
            i += 2;
            continue;
          }
          word += text[i++];
          closed = true;
          break;
        }
        word += text[i++];
      }
      if (!closed) {
        return Status::InvalidArgument(fmt::format("!graph: unclosed quote in {}", text));
      }
    }
    words.push_back(std::move(word));
  }
  return words;
}

Result<GraphFormat> ParseGraphFormat(std::string_view name) {
  const std::string f = AsciiToLower(name);
  if (f == "mermaid") return GraphFormat::kMermaid;
  if (f == "json") return GraphFormat::kJson;
  return Status::InvalidArgument(fmt::format(
      "Unsupported graph format: '{}'. Available formats: [mermaid, json]", name));
}

Result<GraphRequest> ParseGraphArguments(const std::vector<std::string>& args) {
  GraphRequest request;
  bool named = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--depth") {
      if (i + 1 >= args.size()) return Status::InvalidArgument("--depth requires an integer value");
      const std::string& text = args[i + 1];
      int depth = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), depth);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        return Status::InvalidArgument("--depth requires an integer value");
      }
      if (depth < 0) {
        return Status::InvalidArgument(fmt::format("depth must be non-negative; got: {}", depth));
      }
      request.depth = depth;
      ++i;
    } else if (a == "--format") {
      if (i + 1 >= args.size()) {
        return Status::InvalidArgument(
            "Unsupported graph format: ''. Available formats: [mermaid, json]");
      }
      HOP_ASSIGN_OR_RETURN(request.format, ParseGraphFormat(args[i + 1]));
      ++i;
    } else if (!named && !(a.size() > 1 && a.rfind("--", 0) == 0)) {
      request.identifier = a;
      named = true;
    } else {
      return Status::InvalidArgument(fmt::format("Unknown argument to !graph: {}", a));
    }
  }
  if (!named) {
    return Status::InvalidArgument(
        "!graph needs a table or view: !graph <identifier> [--depth N] [--format mermaid|json]");
  }
  return request;
}

Result<Graph> BuildGraph(store::Store& store, const catalog::Catalog& catalog,
                         std::string_view identifier, std::vector<std::string> path,
                         bool fold_fallback, int depth) {
  if (path.empty() || std::any_of(path.begin(), path.end(),
                                  [](const std::string& p) { return p.empty(); })) {
    return Status::InvalidArgument(fmt::format("!graph: '{}' is not a table name", identifier));
  }
  Resolution r = Resolve(catalog, identifier, path);
  if (!r.table && fold_fallback) {
    // In upper case: the whole name, then the schema's parts only (`ads.PAGE_VIEWS$x`).
    std::vector<std::string> upper;
    for (const std::string& p : path) upper.push_back(Utf8ToUpper(p));
    Resolution folded = Resolve(catalog, identifier, upper);
    if (!folded.table && upper.back() != path.back()) {
      std::vector<std::string> schema_only = upper;
      schema_only.back() = path.back();
      Resolution leaf_as_typed = Resolve(catalog, identifier, schema_only);
      if (leaf_as_typed.table) folded = leaf_as_typed;
    }
    // The folded spelling's answer, unless the name as typed got as far.
    if (folded.table || (folded.schema_found && !r.schema_found)) r = folded;
  }
  if (!r.table) return r.status;
  const catalog::Table& table = *r.table;
  const std::string& ns = catalog.namespace_name();
  if (table.kind == catalog::ObjectKind::kMaterializedView && !table.resource.empty()) {
    return ViewGraph(store, ns, table.resource, identifier);
  }
  const std::string database =
      !table.database.empty() ? table.database : (r.schema ? r.schema->database : "");
  if (database.empty()) {
    return Status::CatalogNotFound(fmt::format(
        "Identifier {} does not resolve to a database in this connection.", identifier));
  }
  if (r.schema && r.schema->system == "logical") {
    return LogicalTableGraph(store, ns, resource::Canonicalize(table.path), identifier);
  }
  return ResourceGraph(store, ns, database, table.path, depth);
}

namespace {

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"') {
      out += "&quot;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string MermaidNode(const Graph& g, size_t i) {
  const GraphNode& n = g.nodes[i];
  const std::string id = "n" + std::to_string(i);
  switch (n.kind) {
    case GraphNodeKind::kExternal: return id + "[(\"" + Escape(n.name) + "\")]";
    case GraphNodeKind::kPipeline: {
      std::string label = n.name;
      if (!n.job_kind.empty()) label += "<br/>kind: " + n.job_kind;
      if (!n.engine.empty()) label += "<br/>engine: " + n.engine;
      return id + "[/\"" + Escape(label) + "\"/]";
    }
    case GraphNodeKind::kTrigger: {
      std::string label = n.name;
      if (!n.schedule.empty()) label += "<br/>cron: " + HumanizeCron(n.schedule);
      if (!n.job_template.empty()) label += "<br/>template: " + n.job_template;
      if (!n.container.empty()) label += "<br/>container: " + n.container;
      if (n.paused) label += "<br/>(paused)";
      return id + "{\"" + Escape(label) + "\"}";
    }
    case GraphNodeKind::kView:
    case GraphNodeKind::kLogicalTable: return id + "[\"" + Escape(n.name) + "\"]";
  }
  return id;
}

// "s_" and the tier's name, every byte but ASCII letters and digits as '_'.
std::string TierId(std::string_view tier) {
  std::string out = "s_";
  for (char c : tier) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += alnum ? c : '_';
  }
  return out;
}

}  // namespace

std::string RenderMermaid(const Graph& g) {
  const bool logical = g.nodes[g.root].kind == GraphNodeKind::kLogicalTable;
  std::string out = logical ? "flowchart TD\n" : "flowchart LR\n";
  std::map<size_t, std::vector<size_t>> children;  // owner -> owned, in edge order
  std::vector<bool> owned(g.nodes.size(), false);
  for (const GraphEdge& e : g.edges) {
    if (e.kind != GraphEdgeKind::kOwnerOf) continue;
    children[e.from].push_back(e.to);
    owned[e.to] = true;
  }
  std::vector<bool> done(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (done[i] || owned[i]) continue;
    const GraphNode& n = g.nodes[i];
    done[i] = true;
    auto kids = children.find(i);
    if (n.kind == GraphNodeKind::kLogicalTable) {
      out += fmt::format("  subgraph n{}[\"{}\"]\n", i, Escape("LogicalTable " + n.name));
      out += "    direction LR\n";
      std::vector<size_t> in_tiers, rest;
      std::map<std::string, std::vector<size_t>> by_tier;
      if (kids != children.end()) {
        for (size_t c : kids->second) {
          const GraphNode& child = g.nodes[c];
          auto tier = std::find_if(n.tiers.begin(), n.tiers.end(), [&](const auto& t) {
            return child.kind == GraphNodeKind::kExternal && t.second == child.database;
          });
          if (tier == n.tiers.end()) {
            rest.push_back(c);
          } else {
            by_tier[tier->first].push_back(c);
          }
        }
      }
      for (const auto& [tier, database] : n.tiers) {
        auto members = by_tier.find(tier);
        if (members == by_tier.end()) continue;
        out += fmt::format("    subgraph {}[\"{}\"]\n", TierId(tier), Escape(tier));
        for (size_t c : members->second) {
          out += "      " + MermaidNode(g, c) + "\n";
          done[c] = true;
        }
        out += "    end\n";
        by_tier.erase(members);  // a tier named twice lists its tables once
      }
      for (size_t c : rest) {
        out += "    " + MermaidNode(g, c) + "\n";
        done[c] = true;
      }
      out += "  end\n";
    } else if (kids != children.end()) {
      const std::string title =
          n.kind == GraphNodeKind::kView ? (n.materialized ? "Materialized View" : "View") : n.name;
      out += fmt::format("  subgraph n{}[\"{}\"]\n", i, Escape(title));
      for (size_t c : kids->second) {
        out += "    " + MermaidNode(g, c) + "\n";
        done[c] = true;
      }
      out += "  end\n";
    } else {
      out += "  " + MermaidNode(g, i) + "\n";
    }
  }
  for (const GraphEdge& e : g.edges) {
    if (e.kind == GraphEdgeKind::kOwnerOf) continue;
    out += fmt::format("  n{}{}n{}\n", e.from,
                       e.kind == GraphEdgeKind::kTriggers ? " -.-> " : " --> ", e.to);
  }
  if (g.nodes.size() == 1 && g.nodes[g.root].kind == GraphNodeKind::kExternal) {
    out += std::string(kNoPipelinesWarning) + "\n";
  }
  return out;
}

std::string RenderJson(const Graph& g) {
  Json nodes = Json::array();
  for (const GraphNode& n : g.nodes) {
    Json j = Json::object();
    j["id"] = n.id;
    j["kind"] = KindName(n.kind);
    j["displayName"] = n.name;
    auto set = [&](const char* key, const std::string& value) {
      if (!value.empty()) j[key] = value;
    };
    switch (n.kind) {
      case GraphNodeKind::kExternal:
        j["database"] = n.database;
        j["path"] = n.path;
        break;
      case GraphNodeKind::kView:
        j["namespace"] = n.namespace_name;
        j["materialized"] = n.materialized;
        break;
      case GraphNodeKind::kPipeline:
        j["namespace"] = n.namespace_name;
        set("jobKind", n.job_kind);
        set("engine", n.engine);
        set("executionMode", n.execution_mode);
        break;
      case GraphNodeKind::kTrigger:
        j["namespace"] = n.namespace_name;
        set("schedule", n.schedule);
        if (!n.schedule.empty()) j["cron"] = HumanizeCron(n.schedule);
        set("jobTemplate", n.job_template);
        set("container", n.container);
        j["paused"] = n.paused;
        break;
      case GraphNodeKind::kLogicalTable: {
        j["namespace"] = n.namespace_name;
        Json tiers = Json::object();
        for (const auto& [tier, database] : n.tiers) tiers[tier] = database;
        j["tiers"] = std::move(tiers);
        break;
      }
    }
    nodes.push_back(std::move(j));
  }
  Json edges = Json::array();
  for (const GraphEdge& e : g.edges) {
    Json j = Json::object();
    j["from"] = g.nodes[e.from].id;
    j["to"] = g.nodes[e.to].id;
    j["type"] = EdgeName(e.kind);
    edges.push_back(std::move(j));
  }
  Json doc = Json::object();
  doc["root"] = g.nodes[g.root].id;
  doc["orientation"] = g.nodes[g.root].kind == GraphNodeKind::kLogicalTable ? "TD" : "LR";
  doc["nodes"] = std::move(nodes);
  doc["edges"] = std::move(edges);
  return EmitJson(doc, -1) + "\n";
}

std::string RenderGraph(const Graph& graph, GraphFormat format) {
  return format == GraphFormat::kJson ? RenderJson(graph) : RenderMermaid(graph);
}

std::string HumanizeCron(std::string_view schedule) {
  auto parsed = CronSchedule::Parse(schedule);
  if (!parsed.ok()) return std::string(TrimWhitespace(schedule));
  std::string words = parsed->Describe();
  // Describe spells a shape it has no words for as "cron <fields>": the expression is clearer.
  if (words.rfind("cron ", 0) == 0) return parsed->text();
  return words;
}

}  // namespace hop::session
