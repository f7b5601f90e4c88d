// End-to-end SQL tests: each file under test/sql is a session against a fresh state directory.
// Directives:
//   apply [file=F]   YAML resources to create or replace, from the input or from file F under
//                    the source tree (prints what `hop apply` prints; the input is the file
//                    <state>/apply.yaml)
//   run              a script of statements and !commands; prints their output, and each
//                    error as `error: <message>`
//   get kind=K [name=N] [namespace=NS] [output=yaml]
//                    what `hop get` prints
//   status kind=K name=N
//                    sets the status of an object to the YAML of the input (what the operator
//                    would write)
//   delete kind=K name=N [force]   or   delete [force] with YAML documents as input
//                    what `hop delete` prints (deletions go through DROP's guards)
//   clock now=T      from here on, the session's time is T (RFC 3339), moving only when set
//   postgres         starts a PostgreSQL server of the file's own (test/lib/postgres_server.h);
//                    from here on `${PGHOST}` in inputs is its socket directory, and outputs
//                    show that directory as `${PGHOST}`
//   psql             runs the input on that server, outside hop; prints the last statement's
//                    rows, cells separated by `|`, NULL as `NULL`
// The session (settings included) lives for the whole file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catalog/local.h"
#include "catalog/postgres.h"
#include "cli/resource_commands.h"
#include "resource/kinds.h"
#include "resource/yaml.h"
#include "session/session.h"
#include "sql/script.h"
#include "store/sqlite_store.h"
#include "test/lib/datadriven.h"
#include "test/lib/postgres_server.h"

namespace hop {
namespace {

// `hop get` output without what the store stamps from the real clock and its counters: the AGE
// column, and metadata.uid (owners' too), resourceVersion, generation and creationTimestamp.
std::string WithoutStoreStamps(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  bool table = text.rfind("NAME ", 0) == 0;
  while (std::getline(in, line)) {
    if (table) {
      size_t end = line.find_last_not_of(' ');
      size_t cut = line.find_last_of(' ', end);
      line = line.substr(0, cut == std::string::npos ? 0 : cut);
      line.erase(line.find_last_not_of(' ') + 1);
    } else if (line.rfind("  uid: ", 0) == 0 || line.rfind("    uid: ", 0) == 0 || line.rfind("  resourceVersion: ", 0) == 0 ||
               line.rfind("  generation: ", 0) == 0 ||
               line.rfind("  creationTimestamp: ", 0) == 0) {
      continue;
    }
    out += line + "\n";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

void Replace(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

class SqlFile {
 public:
  SqlFile() {
    char tmpl[] = "/tmp/hop-sql-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_, opts)).value();
    session::Properties properties;
    properties.clock = &clock_;
    // Local tables live in the test's state directory, created by CREATE TABLE as in `hop`.
    properties.state_dir = dir_;
    local_ = std::make_unique<catalog::LocalProvisioner>(dir_);
    provisioners_.Register("local", local_.get());
    provisioners_.Register("postgresql", &postgres_tables_);
    properties.provisioners = &provisioners_;
    session_ = std::make_unique<session::Session>(*store_, properties);
  }
  ~SqlFile() {
    session_.reset();
    postgres_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string Run(const hop::testing::DataDrivenCase& c) {
    if (!postgres_) return RunDirective(c);
    hop::testing::DataDrivenCase with_host = c;
    Replace(with_host.input, "${PGHOST}", postgres_->socket_dir());
    std::string out = RunDirective(with_host);
    Replace(out, postgres_->socket_dir(), "${PGHOST}");
    return out;
  }

  std::string RunDirective(const hop::testing::DataDrivenCase& c) {
    if (c.directive == "postgres") {
      postgres_ = std::make_unique<hop::testing::PostgresServer>();
      Status started = postgres_->Start();
      if (!started.ok()) {
        // Never a skip: a machine without PostgreSQL fails here (./scripts/setup installs it).
        postgres_.reset();
        return "postgres: " + started.ToString();
      }
      return "";
    }
    if (c.directive == "psql") {
      if (!postgres_) return "psql: no server (run the postgres directive first)";
      auto rows = postgres_->Exec(c.input);
      if (!rows.ok()) return "error: " + rows.status().message();
      std::string out;
      for (const auto& row : rows->rows) {
        for (size_t i = 0; i < row.size(); ++i) {
          out += (i ? "|" : "") + (row[i] ? *row[i] : std::string("NULL"));
        }
        out += "\n";
      }
      if (!out.empty()) out.pop_back();
      return out;
    }
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
      // Errors name the file: the state directory's random name is not part of the output.
      std::string text = out.str() + err.str();
      for (size_t at = text.find(dir_); at != std::string::npos; at = text.find(dir_, at)) {
        text.replace(at, dir_.size(), "<state>");
      }
      return text;
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
    if (c.directive == "get") {
      cli::GetOptions opts;
      opts.kind = c.Arg("kind");
      opts.name = c.Arg("name");
      opts.namespace_name = c.Arg("namespace");
      opts.output = c.Arg("output");
      std::ostringstream out, err;
      cli::RunGet(opts, *store_, out, err);
      return WithoutStoreStamps(out.str() + err.str());
    }
    if (c.directive == "delete") {
      cli::DeleteOptions opts;
      opts.kind = c.Arg("kind");
      opts.name = c.Arg("name");
      opts.force = c.HasArg("force");
      if (opts.kind.empty()) {
        opts.file = dir_ + "/delete.yaml";
        FILE* f = fopen(opts.file.c_str(), "w");
        fwrite(c.input.data(), 1, c.input.size(), f);
        fclose(f);
      }
      std::ostringstream out, err;
      cli::RunDelete(opts, *store_, out, err);
      std::string text = out.str() + err.str();
      if (!text.empty() && text.back() == '\n') text.pop_back();
      return text;
    }
    if (c.directive == "status") {
      const resource::KindInfo* kind = resource::LookupKind(c.Arg("kind"));
      if (kind == nullptr) return "status: unknown kind " + c.Arg("kind");
      auto object = store_->Get({kind->group_kind(), "default", c.Arg("name")});
      if (!object.ok()) return object.status().ToString();
      auto status = ParseYamlDocuments(c.input, "status");
      if (!status.ok()) return status.status().ToString();
      object->set_status(status->at(0));
      auto written = store_->UpdateStatus(*object);
      return written.ok() ? "" : written.status().ToString();
    }
    if (c.directive == "clock") {
      auto t = ParseRfc3339(c.Arg("now"));
      if (!t) return "clock: now=" + c.Arg("now") + " is not an RFC 3339 time";
      clock_.now = *t;
      return "";
    }
    return "unknown directive " + c.directive;
  }

 private:
  struct FixedClock : Clock {
    SystemTime Now() const override { return now; }
    SystemTime now = *ParseRfc3339("2026-01-01T00:00:00Z");
  };

  std::string dir_;
  FixedClock clock_;
  std::unique_ptr<catalog::LocalProvisioner> local_;
  catalog::PostgresProvisioner postgres_tables_;
  catalog::Provisioners provisioners_;
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<session::Session> session_;
  std::unique_ptr<hop::testing::PostgresServer> postgres_;
};

TEST(SqlLogicTest, Files) {
  for (const auto& file : hop::testing::ListTestFiles("test/sql")) {
    SqlFile sql_file;
    hop::testing::RunDataDrivenFile(file, [&](const auto& c) { return sql_file.Run(c); });
  }
}

}  // namespace
}  // namespace hop
