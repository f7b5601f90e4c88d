// PostgreSQL provisioning benchmark (issue 14), a bench command like engine_bench: the latency of
// CREATE TABLE as a user runs it (a `hop -e` process that binds, creates the table in PostgreSQL
// and writes its Table resource), paired in the same run with `psql -c 'CREATE TABLE ...'`
// against the same server, the two run in turn, each table new.
//
//   postgres_bench [--runs N]
//
// The server is one of the command's own (test/lib/postgres_server.h), reached by its socket.
// The note prints each side's median and the ratio; there is no time goal.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test/lib/postgres_server.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

// Runs `argv` with its output discarded; its exit status, and its wall time in `seconds`.
int Run(const std::vector<std::string>& argv, double& seconds) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const auto start = Clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  waitpid(pid, &status, 0);
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
  }
  hop::testing::PostgresServer pg;
  if (hop::Status st = pg.Start(); !st.ok()) {
    std::fprintf(stderr, "postgres_bench: %s\n", st.ToString().c_str());
    return 1;
  }
  char tmpl[] = "/tmp/hop-pg-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string state = dir + "/state";
  const std::string yaml = dir + "/db.yaml";
  std::ofstream(yaml)
      << "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\n"
         "metadata: {name: pg}\nspec:\n  schema: PG\n  url: postgresql:///postgres?host="
      << pg.socket_dir() << "&user=postgres\n";
  double t = 0;
  int failed = Run({HOP_BINARY, "--state", state, "apply", "-f", yaml}, t);
  std::vector<double> hop_times, psql_times;
  for (int i = 0; i < runs && failed == 0; ++i) {
    const std::string n = std::to_string(i);
    failed = Run(
        {HOP_BINARY, "--state", state, "-e",
         "CREATE TABLE pg.hop_" + n + " (id BIGINT NOT NULL, name VARCHAR(20), at TIMESTAMP(3))"},
        t);
    hop_times.push_back(t);
    if (failed != 0) break;
    failed =
        Run({"psql", "-X", "-q", "-h", pg.socket_dir(), "-U", "postgres", "-d", "postgres", "-c",
             "CREATE TABLE psql_" + n +
                 " (id bigint NOT NULL, name character varying(20), at timestamp(3))"},
            t);
    psql_times.push_back(t);
  }
  std::filesystem::remove_all(dir);
  if (failed != 0) {
    std::fprintf(stderr, "postgres_bench: a CREATE TABLE failed (exit %d)\n", failed);
    return 1;
  }
  const double h = Median(hop_times), p = Median(psql_times);
  std::printf("CREATE TABLE provisioning, %d runs each, median wall time of the process:\n", runs);
  std::printf("  hop -e 'CREATE TABLE pg...'   %8.2f ms\n", h * 1000);
  std::printf("  psql -c 'CREATE TABLE ...'    %8.2f ms\n", p * 1000);
  std::printf("  ratio                         %8.2fx\n", p > 0 ? h / p : 0);
  return 0;
}
