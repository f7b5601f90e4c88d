// End-to-end SQL tests: each file under test/sql is a session against a fresh state directory.
// Directives:
//   apply [file=F]   YAML resources to create or replace, from the input or from file F under
//                    the source tree (prints what `hop apply` prints)
//   run              a script of statements and !commands; prints their output, and each
//                    error as `error: <message>`
// The session (settings included) lives for the whole file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "cli/resource_commands.h"
#include "session/session.h"
#include "sql/script.h"
#include "store/sqlite_store.h"
#include "test/lib/datadriven.h"

namespace hop {
namespace {

class SqlFile {
 public:
  SqlFile() {
    char tmpl[] = "/tmp/hop-sql-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_, opts)).value();
    session_ = std::make_unique<session::Session>(*store_, session::Properties{});
  }
  ~SqlFile() {
    session_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string Run(const hop::testing::DataDrivenCase& c) {
    if (c.directive == "apply") {
      // `apply file=<path under the source tree>`, or the YAML as input.
      std::string path = dir_ + "/apply.yaml";
      if (c.HasArg("file")) {
        path = hop::testing::SourcePath(c.Arg("file"));
      } else {
        FILE* f = fopen(path.c_str(), "w");
        fwrite(c.input.data(), 1, c.input.size(), f);
        fclose(f);
      }
      cli::ApplyOptions opts;
      opts.file = path;
      std::ostringstream out, err;
      cli::RunApply(opts, *store_, out, err);
      return out.str() + err.str();
    }
    if (c.directive == "run") {
      std::string out;
      for (const sql::ScriptItem& item : sql::SplitScript(c.input)) {
        Status st = session_->Execute(item.text, item.kind == sql::ScriptItem::Kind::kCommand, out,
                                      {item.loc.line, item.loc.column, item.line_prefix});
        if (!st.ok()) out += "error: " + st.ToString() + "\n";
      }
      if (!out.empty() && out.back() == '\n') out.pop_back();
      return out;
    }
    return "unknown directive " + c.directive;
  }

 private:
  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<session::Session> session_;
};

TEST(SqlLogicTest, Files) {
  for (const auto& file : hop::testing::ListTestFiles("test/sql")) {
    SqlFile sql_file;
    hop::testing::RunDataDrivenFile(file, [&](const auto& c) { return sql_file.Run(c); });
  }
}

}  // namespace
}  // namespace hop
