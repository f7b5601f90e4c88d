#include "cli/run_command.h"

#include <fmt/format.h>

#include "cli/resource_commands.h"
#include "common/strings.h"
#include "sql/script.h"

namespace hop::cli {

Result<session::Properties> SessionProperties(const RunOptions& options) {
  session::Properties p;
  p.namespace_name = options.namespace_name;
  if (EqualsIgnoreCase(options.mode, "apply")) {
    p.mode = session::Mode::kApply;
  } else if (!EqualsIgnoreCase(options.mode, "create")) {
    return Status::InvalidArgument(
        fmt::format("--mode must be create or apply, not '{}'", options.mode));
  }
  for (const auto& h : options.hints) {
    auto parsed = session::ParseHints(h);
    if (!parsed.ok()) return parsed.status().WithContext("--hint: ");
    for (auto& [k, v] : *parsed) tmpl::SetEntry(p.hints, k, std::move(v));
  }
  return p;
}

int RunSql(const RunOptions& options, store::Store& store, std::ostream& out, std::ostream& err) {
  auto props = SessionProperties(options);
  if (!props.ok()) {
    err << "hop: " << EscapeForTerminal(props.status().ToString()) << "\n";
    return 2;
  }
  session::Session session(store, std::move(props).value());
  session.set_control_plane_starter(options.start_control_plane);
  int failed = 0;
  bool printed = false;
  // Item by item, so that output and errors interleave as they happen.
  auto run = [&](std::string_view script, std::string_view name) {
    for (const sql::ScriptItem& item : sql::SplitScript(script)) {
      std::string o;
      Status st = session.Execute(item.text, item.kind == sql::ScriptItem::Kind::kCommand, o,
                                  {item.loc.line, item.loc.column, item.line_prefix});
      // A blank line between the outputs of successive items keeps them apart.
      if (!o.empty() && printed) out << '\n';
      printed |= !o.empty();
      out << EscapeForTerminal(o) << std::flush;
      if (!st.ok()) {
        ++failed;
        // A script's errors name the script; a statement given with -e is its own context.
        if (!name.empty()) err << EscapeForTerminal(name) << ": ";
        err << EscapeForTerminal(st.ToString()) << "\n" << std::flush;
      }
    }
  };
  for (const auto& script : options.execute) run(script, "");
  if (!options.file.empty()) {
    std::string text;
    if (Status read = ReadInput(options.file, &text); !read.ok()) {
      err << "hop: " << EscapeForTerminal(read.message()) << "\n";
      return 2;
    }
    run(text, options.file == "-" ? "<stdin>" : options.file);
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace hop::cli
