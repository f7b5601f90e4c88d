#include "cli/graph_command.h"

#include <vector>

#include "common/strings.h"
#include "session/graph.h"
#include "session/session.h"

namespace hop::cli {

int RunGraph(const GraphCommandOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err) {
  // The arguments as !graph has them, so that both read them, and fail, alike.
  std::vector<std::string> args = {options.identifier};
  if (options.depth) args.insert(args.end(), {"--depth", *options.depth});
  if (options.format) args.insert(args.end(), {"--format", *options.format});
  auto request = session::ParseGraphArguments(args);
  if (!request.ok()) {
    err << "hop graph: " << EscapeForTerminal(request.status().ToString()) << "\n";
    return 1;
  }
  session::Properties properties;
  properties.namespace_name = options.namespace_name;
  session::Session session(store, std::move(properties));
  auto text = session.GraphText(*request);
  if (!text.ok()) {
    err << "hop graph: " << EscapeForTerminal(text.status().ToString()) << "\n";
    return 1;
  }
  out << EscapeForTerminal(*text);
  return 0;
}

}  // namespace hop::cli
