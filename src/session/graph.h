// `!graph`: the graph of what moves data to and from a table or view, built from the store's
// resources (Views, Pipelines, TableTriggers, LogicalTables and their dependency metadata,
// compatibility.md §5.8) and rendered as Hoptimator's Mermaid flowchart or as JSON
// (docs/pipelines.md#graphs). The shell's `!graph`, `hop graph` and the SQL form `GRAPH` all
// come here through Session.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "store/store.h"

namespace hop::session {

enum class GraphNodeKind { kPipeline, kView, kLogicalTable, kTrigger, kExternal };

// OWNER_OF places a node inside its owner (a View's Pipeline, a LogicalTable's pipelines, tier
// tables and trigger); the others are the arrows data flows along.
enum class GraphEdgeKind { kOwnerOf, kDependsOnSource, kDependsOnSink, kTriggers };

struct GraphNode {
  GraphNodeKind kind = GraphNodeKind::kExternal;
  // Unique in its graph: `pipeline:<namespace>/<name>`, `view:...`, `trigger:...`,
  // `logicaltable:...`, or `external:<database>/<dotted path>`.
  std::string id;
  std::string namespace_name;  // of the resource; "" for externals
  std::string name;            // the resource's name; for externals the dotted path
  // Externals: the Database resource and the table's path ([catalog,] schema, table).
  std::string database;
  std::vector<std::string> path;
  bool materialized = false;  // views
  // Pipelines: the kind of the first document of its YAML whose kind ends in `Job`, and the
  // engine that runs it ("" when unknown).
  std::string job_kind, engine, execution_mode;
  // Triggers: the cron schedule as written ("" for none), the JobTemplate and first container
  // its Job was rendered from ("" when its YAML does not say), and whether it is paused.
  std::string schedule, job_template, container;
  bool paused = false;
  // LogicalTables: each tier and its Database, in the resource's order.
  std::vector<std::pair<std::string, std::string>> tiers;
};

struct GraphEdge {
  size_t from = 0, to = 0;  // indexes into Graph::nodes
  GraphEdgeKind kind = GraphEdgeKind::kDependsOnSource;
  friend bool operator==(const GraphEdge&, const GraphEdge&) = default;
};

// Nodes in the order they were found (the Mermaid ids n0, n1, ... follow it), edges likewise,
// each at most once.
struct Graph {
  size_t root = 0;
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
};

enum class GraphFormat { kMermaid, kJson };

// What `!graph <identifier> [--depth N] [--format mermaid|json]` asks for.
struct GraphRequest {
  std::string identifier;  // as typed: split like the other commands' table names
  int depth = 2;
  GraphFormat format = GraphFormat::kMermaid;
};

// The words of a `!graph` line after the command word: split at blanks, a double-quoted run
// (with "" for a quote) staying inside its word. Errors: an unclosed quote.
Result<std::vector<std::string>> SplitGraphArguments(std::string_view text);
// Reads the arguments of `!graph` or `hop graph`: one identifier, `--depth N` (N >= 0) and
// `--format F` in any order. Errors, as Hoptimator words them: `--depth requires an integer
// value`, `Unsupported graph format: 'F'. Available formats: [mermaid, json]`, `Unknown argument
// to !graph: X`; also a missing identifier and a negative depth.
Result<GraphRequest> ParseGraphArguments(const std::vector<std::string>& args);
// The format named `name` (any case). Errors: the Unsupported graph format message.
Result<GraphFormat> ParseGraphFormat(std::string_view name);

// Builds the graph of `path` (the identifier's parts), resolved against `catalog` as Hoptimator
// resolves `!graph`'s identifier; `identifier` is how errors name it. With `fold_fallback`, an
// unquoted name that does not resolve is tried in upper case (compatibility.md §1.1).
//   - unknown schema: `Identifier X does not exist: schema segment 'S' not found in this
//     connection.`; unknown table: `Identifier X does not exist: table 'T' not found in schema
//     S.`; a schema without a Database: `Identifier X does not resolve to a database in this
//     connection.` (all CatalogNotFound);
//   - a materialized view: its View, the Pipeline it owns and that pipeline's tables;
//   - a table of a logical database (jdbc:logical:): its LogicalTable, the tier tables, the
//     pipelines between tiers and the offline trigger (NotFound without a LogicalTable);
//   - any other table or view: the pipelines and triggers that read or write it, then those of
//     the tables they read or write, `depth` hops up- and downstream.
// Reads the store only. Other errors: the store's.
Result<Graph> BuildGraph(store::Store& store, const catalog::Catalog& catalog,
                         std::string_view identifier, std::vector<std::string> path,
                         bool fold_fallback, int depth);

// Hoptimator's Mermaid flowchart: `flowchart LR` (TD for a logical table), a node per line
// (ids n0, n1, ... in node order, two spaces of indentation per level, `"` as `&quot;`), owners
// as subgraphs, then the arrows (`-->`, `-.->` for triggers). A graph of a table and nothing
// else ends with the `%% WARNING: no pipelines reference this resource ...` comment. Each line
// ends with a newline.
std::string RenderMermaid(const Graph& graph);
// One line of JSON: {"root", "orientation": "LR" | "TD", "nodes": [{"id", "kind",
// "displayName", ...}], "edges": [{"from", "to", "type"}]}; docs/pipelines.md#graphs lists the
// fields.
std::string RenderJson(const Graph& graph);
std::string RenderGraph(const Graph& graph, GraphFormat format);

// A cron schedule in words as trigger nodes show it (`0 * * * *` is `every hour`); an
// expression of a shape without words, or that does not parse, as written.
std::string HumanizeCron(std::string_view schedule);

}  // namespace hop::session
