// `hop graph <identifier> [--depth N] [--format mermaid|json] [-n NS]`: prints what `!graph`
// prints (session/graph.h), for scripts and tools that have no shell open.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "store/store.h"

namespace hop::cli {

struct GraphCommandOptions {
  std::string identifier;            // a table or view, as typed to !graph
  std::optional<std::string> depth;  // --depth, as given: read as !graph reads it
  std::optional<std::string> format;  // --format
  std::string namespace_name = "default";
};

// 0 with the graph on `out`; 1 with the error on `err` (an unknown table, a bad argument, the
// store's failure).
int RunGraph(const GraphCommandOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err);

}  // namespace hop::cli
