// `hop -e STMT ...` and `hop -f FILE`: run statements and `!` commands in one session against the
// state directory, in order, printing what they print. The exit status is 1 when any failed, and
// 128 + the signal's number when SIGINT or SIGTERM stopped the script (docs/shell.md, "Scripts").
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "session/session.h"
#include "sql/script.h"
#include "store/store.h"

namespace hop::cli {

struct RunOptions {
  std::vector<std::string> execute;  // -e, each a script of one or more items, in order
  std::string file;                  // -f; "-" for standard input; run after the -e scripts
  std::vector<std::string> hints;    // --hint k=v, in order
  std::string namespace_name = "default";
  std::string mode = "create";
  std::string format = "table";  // --format: how query results print
  std::string state_dir;         // --state, where local tables keep their files
  // The provisioners DDL uses (the local database's, registered by main); null: none.
  const catalog::Provisioners* provisioners = nullptr;
  // Makes (once) the control plane of this process, runs it when asked, and returns it; null
  // when it cannot run.
  session::ControlPlaneStarter start_control_plane;
  // SIGINT and SIGTERM stop the script between items, once what ran is reported (the process's
  // handlers, set while items run: for hop's own -e and -f, not for a test calling RunSql).
  bool stop_on_signals = false;
};

// Builds the session properties from the flags; errors name the bad flag.
Result<session::Properties> SessionProperties(const RunOptions& options);

// Runs the -e scripts, then the -f file, item by item. A DDL statement's output is shown once its
// batch is durable, while the next item runs if RunsWhileOutputWaits (docs/shell.md, "Scripts").
int RunSql(const RunOptions& options, store::Store& store, std::ostream& out, std::ostream& err);

// Whether `item` is a DDL statement (CREATE, DROP, ALTER, FIRE, PAUSE, RESUME), which runs while
// the last one's output waits for its batch to be durable. Anything else (a query, a command such
// as `!wait`) may take long, so the held output is shown before it runs. Decided by the first
// word; comments before it are skipped.
bool RunsWhileOutputWaits(const sql::ScriptItem& item);

}  // namespace hop::cli
