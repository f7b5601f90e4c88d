#include "cli/run_command.h"

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <optional>
#include <string>
#include <utility>

#include "cli/resource_commands.h"
#include "common/strings.h"
#include "engine/output.h"
#include "resource/names.h"
#include "sql/script.h"

namespace hop::cli {

namespace {

// The signal that asked a script to stop, 0 while none has; and the session's cancel, which
// stops a query or a `!wait` under way, so that the script waits for nothing long.
std::atomic<int> g_stop_signal{0};
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

void OnStopSignal(int signal) {
  g_stop_signal.store(signal);
  g_cancel.store(true);
  ::signal(signal, SIG_DFL);  // a second one stops hop at once
}

// Sets OnStopSignal for SIGINT and SIGTERM while it lives, when asked to; the dispositions before
// come back after.
class ScriptSignals {
 public:
  explicit ScriptSignals(bool install) : installed_(install) {
    if (!installed_) return;
    struct sigaction on_stop = {};
    on_stop.sa_handler = OnStopSignal;
    sigemptyset(&on_stop.sa_mask);
    on_stop.sa_flags = SA_RESTART;  // a statement under way goes on: it is one atomic batch
    // A signal the process was started to ignore (SIGINT in a shell's background job) stays
    // ignored.
    sigaction(SIGINT, nullptr, &previous_int_);
    sigaction(SIGTERM, nullptr, &previous_term_);
    if (previous_int_.sa_handler != SIG_IGN) sigaction(SIGINT, &on_stop, nullptr);
    if (previous_term_.sa_handler != SIG_IGN) sigaction(SIGTERM, &on_stop, nullptr);
  }
  ~ScriptSignals() {
    if (!installed_) return;
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  ScriptSignals(const ScriptSignals&) = delete;
  ScriptSignals& operator=(const ScriptSignals&) = delete;

  int stopped_by() const { return installed_ ? g_stop_signal.load() : 0; }

 private:
  bool installed_;
  struct sigaction previous_int_ = {};
  struct sigaction previous_term_ = {};
};

// The first line of `text`, cut at 60 characters, for a message that names an item.
std::string Opening(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  if (line.size() <= 60) return std::string(line);
  return std::string(line.substr(0, 60)) + "...";
}

// Whether a `!` command is `!quit` or `!exit`, by its first word, as the shell reads it.
bool IsQuit(std::string_view command) {
  command = TrimWhitespace(command);
  if (!command.empty() && command.front() == '!') command.remove_prefix(1);
  const std::string_view word = command.substr(0, command.find_first_of(" \t\r\n"));
  return EqualsIgnoreCase(word, "quit") || EqualsIgnoreCase(word, "exit");
}

}  // namespace

Result<session::Properties> SessionProperties(const RunOptions& options) {
  session::Properties p;
  if (Status valid = resource::ValidateDnsLabel(options.namespace_name); !valid.ok()) {
    return valid.WithContext("--namespace: ");
  }
  p.namespace_name = options.namespace_name;
  if (EqualsIgnoreCase(options.mode, "apply")) {
    p.mode = session::Mode::kApply;
  } else if (!EqualsIgnoreCase(options.mode, "create")) {
    return Status::InvalidArgument(
        fmt::format("--mode must be create or apply, not '{}'", options.mode));
  }
  if (!engine::ParseOutputFormat(options.format, &p.output_format)) {
    return Status::InvalidArgument(
        fmt::format("--format must be table, mysql, csv, tsv or json, not '{}'", options.format));
  }
  p.state_dir = options.state_dir;
  p.provisioners = options.provisioners;
  for (const auto& h : options.hints) {
    auto parsed = session::ParseHints(h);
    if (!parsed.ok()) return parsed.status().WithContext("--hint: ");
    for (auto& [k, v] : *parsed) tmpl::SetEntry(p.hints, k, std::move(v));
  }
  return p;
}

bool RunsWhileOutputWaits(const sql::ScriptItem& item) {
  if (item.kind != sql::ScriptItem::Kind::kStatement) return false;
  std::string_view text = item.text;
  for (;;) {
    const size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return false;
    text.remove_prefix(start);
    if (text.starts_with("--")) {
      const size_t end = text.find('\n');
      if (end == std::string_view::npos) return false;
      text.remove_prefix(end);
    } else if (text.starts_with("/*")) {
      const size_t end = text.find("*/");
      if (end == std::string_view::npos) return false;
      text.remove_prefix(end + 2);
    } else {
      break;
    }
  }
  const std::string word = AsciiToUpper(text.substr(0, text.find_first_of(" \t\r\n(;")));
  return word == "CREATE" || word == "DROP" || word == "ALTER" || word == "FIRE" ||
         word == "PAUSE" || word == "RESUME";
}

int RunSql(const RunOptions& options, store::Store& store, std::ostream& out, std::ostream& err) {
  auto props = SessionProperties(options);
  if (!props.ok()) {
    err << "hop: " << EscapeForTerminal(props.status().ToString()) << "\n";
    return 2;
  }
  if (options.stop_on_signals) {
    g_stop_signal.store(0);
    g_cancel.store(false);
    props->budget.cancel = &g_cancel;
  }
  session::Session session(store, std::move(props).value());
  session.set_control_plane_starter(options.start_control_plane);
  // A statement's output waits for its batch to be durable while the next item runs
  // (docs/store.md, "Writing and syncing"): its planning overlaps the last one's fsync, and
  // statements written meanwhile share it.
  session.set_report_when_written(true);
  int failed = 0;
  bool printed = false;       // by an earlier item
  bool item_printed = false;  // by the item running
  // Output is written as it comes, so that a long result streams: a blank line between the
  // outputs of successive items keeps them apart.
  auto write = [&](std::string& o) {
    if (o.empty()) return;
    if (!item_printed && printed) out << '\n';
    item_printed = true;
    out << EscapeForTerminal(o);
    o.clear();
  };
  auto report_error = [&](const Status& st, std::string_view name) {
    ++failed;
    // A script's errors name the script; a statement given with -e is its own context.
    if (!name.empty()) err << EscapeForTerminal(name) << ": ";
    err << EscapeForTerminal(st.ToString()) << "\n" << std::flush;
  };
  // The item whose output waits for its batch to be durable, if any.
  struct Held {
    std::string output;
    std::string name;
    int64_t durable_mark = 0;
  };
  std::optional<Held> held;
  // Shows the held item's output once its batch is durable, or the error that it is not.
  auto release = [&] {
    if (!held) return;
    Held h = std::move(*held);
    held.reset();
    const bool running_printed = item_printed;
    item_printed = false;
    if (Status durable = store.WaitDurable(h.durable_mark); !durable.ok()) {
      report_error(durable, h.name);
    } else {
      write(h.output);
      printed |= item_printed;
      out << std::flush;
    }
    item_printed = running_printed;
  };
  session.set_output_flush([&](std::string& o) {
    release();
    write(o);
  });
  // Ctrl-C (or SIGTERM) stops the script before its next item, after the items that ran are
  // reported: a statement written then is shown with its result, never left out.
  std::optional<ScriptSignals> signals;
  signals.emplace(options.stop_on_signals);
  int stopped_by = 0;
  bool quit = false;  // a `!quit` or `!exit` was read
  auto stop_here = [&](const sql::ScriptItem& item, std::string_view name) {
    stopped_by = signals->stopped_by();
    if (stopped_by == 0) return false;
    release();
    err << "hop: " << (stopped_by == SIGINT ? "interrupted" : "stopped by SIGTERM")
        << ": the script stopped before ";
    if (name.empty()) {
      err << "the -e item " << EscapeForTerminal(Opening(item.text));
    } else {
      err << "line " << item.loc.line << " of " << EscapeForTerminal(name);
    }
    err << ", which did not run, nor did anything after it\n" << std::flush;
    return true;
  };
  // Item by item, so that output and errors interleave as they happen.
  auto run = [&](std::string_view script, std::string_view name) {
    for (const sql::ScriptItem& item : sql::SplitScript(script)) {
      if (stop_here(item, name)) return false;
      if (item.kind == sql::ScriptItem::Kind::kCommand && IsQuit(item.text)) {
        quit = true;  // as in the shell: nothing after it runs (docs/shell.md)
        return true;
      }
      if (!RunsWhileOutputWaits(item)) release();
      std::string o;
      item_printed = false;
      Status st = session.Execute(item.text, item.kind == sql::ScriptItem::Kind::kCommand, o,
                                  {item.loc.line, item.loc.column, item.line_prefix});
      const int64_t durable_mark = session.TakeDurableMark();
      release();
      if (st.ok() && durable_mark != 0 && !item_printed) {
        held = Held{std::move(o), std::string(name), durable_mark};
        continue;
      }
      // (An item that failed after a batch it wrote, or that streamed, waits for it here.)
      Status durable = store.WaitDurable(durable_mark);
      if (durable.ok() || !st.ok()) write(o);
      printed |= item_printed;
      out << std::flush;
      if (!st.ok()) {
        report_error(st, name);
      } else if (!durable.ok()) {
        report_error(durable, name);
      }
    }
    return true;
  };
  for (const auto& script : options.execute) {
    if (!run(script, "")) return 128 + stopped_by;
    if (quit) break;
  }
  if (!options.file.empty() && !quit) {
    std::string text;
    // Reading standard input keeps the signals' own action: Ctrl-C there stops hop at once.
    signals.reset();
    Status read = ReadInput(options.file, &text);
    signals.emplace(options.stop_on_signals);
    if (!read.ok()) {
      release();
      err << "hop: " << EscapeForTerminal(read.message()) << "\n";
      return 2;
    }
    if (!run(text, options.file == "-" ? "<stdin>" : options.file)) return 128 + stopped_by;
  }
  release();
  return failed > 0 ? 1 : 0;
}

}  // namespace hop::cli
