// The `hop` binary: subcommands and their flags. Each subcommand's work lives in its own file;
// this one only wires the command line to it.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <set>

#include "catalog/catalog.h"
#include "catalog/local.h"
#include "catalog/postgres.h"
#include "cli/check_command.h"
#include "cli/export_command.h"
#include "cli/follow.h"
#include "cli/graph_command.h"
#include "cli/logs_command.h"
#include "cli/manifests_command.h"
#include "cli/operator_command.h"
#include "cli/resource_commands.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "cli/shell.h"
#include "cli/wait_command.h"
#include "cli/watermark_command.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/strings.h"
#include "common/time.h"
#include "resource/names.h"
#include "runtime/refresh.h"
#include "session/control_plane.h"
#include "sql/dialect.h"
#include "store/kubeconfig.h"
#include "store/kubernetes_store.h"
#include "store/sqlite_store.h"

namespace {

constexpr const char* kVersion = HOP_VERSION;

// --request-report FILE: each kind of request a command made of the Kubernetes API (verb, API
// group, resource and subresource), one a line, tab-separated, sorted, written when the command
// ends: what the RBAC of whoever runs it must allow (docs/kubernetes.md, "RBAC").
class RequestReport {
 public:
  explicit RequestReport(std::string path) : path_(std::move(path)) {}
  ~RequestReport() {
    if (path_.empty()) return;
    std::ofstream out(path_, std::ios::trunc);
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& line : lines_) out << line << "\n";
    if (!out) std::cerr << "hop: cannot write " << hop::EscapeForTerminal(path_) << "\n";
  }
  bool on() const { return !path_.empty(); }
  void Record(std::string_view verb, std::string_view group, std::string_view resource,
              std::string_view subresource) {
    std::string line = fmt::format("{}\t{}\t{}{}{}", verb, group, resource,
                                   subresource.empty() ? "" : "/", subresource);
    std::lock_guard<std::mutex> lock(mu_);
    lines_.insert(std::move(line));
  }

 private:
  std::string path_;
  std::mutex mu_;
  std::set<std::string> lines_;
};

// Where a command keeps its resources: the state directory's SQLite store, or a Kubernetes API
// server (--kubeconfig, --in-cluster; docs/kubernetes.md).
struct StoreChoice {
  RequestReport* report = nullptr;  // --request-report
  double kube_qps = 100;            // --kube-qps, --kube-burst: the client's rate limit
  int kube_burst = 200;
  std::string state_dir;
  std::string kubeconfig;  // a path, or several joined by ':'
  std::string context;
  bool in_cluster = false;
  bool cluster() const { return in_cluster || !kubeconfig.empty(); }
};

// The kubeconfig a cluster command uses, or an error.
hop::Result<hop::store::KubeConfig> ClusterConfig(const StoreChoice& choice) {
  if (choice.in_cluster) return hop::store::InClusterConfig();
  return hop::store::LoadKubeconfig(choice.kubeconfig, choice.context);
}

std::unique_ptr<hop::store::Store> OpenStore(const StoreChoice& choice,
                                             hop::store::SqliteStoreOptions options = {}) {
  if (choice.cluster()) {
    auto config = ClusterConfig(choice);
    if (!config.ok()) {
      std::cerr << "hop: " << hop::EscapeForTerminal(config.status().ToString()) << "\n";
      return nullptr;
    }
    hop::store::KubernetesStoreOptions kube_options;
    kube_options.client.qps = choice.kube_qps;
    kube_options.client.burst = choice.kube_burst;
    if (choice.report != nullptr && choice.report->on()) {
      RequestReport* report = choice.report;
      kube_options.on_request = [report](std::string_view verb, std::string_view group,
                                         std::string_view resource, std::string_view sub) {
        report->Record(verb, group, resource, sub);
      };
    }
    auto store = hop::store::KubernetesStore::Open(std::move(config).value(), kube_options);
    if (!store.ok()) {
      std::cerr << "hop: " << hop::EscapeForTerminal(store.status().ToString()) << "\n";
      return nullptr;
    }
    return std::move(store).value();
  }
  auto store = hop::store::SqliteStore::Open(choice.state_dir, options);
  if (!store.ok()) {
    std::cerr << "hop: " << hop::EscapeForTerminal(store.status().ToString()) << "\n";
    return nullptr;
  }
  return std::move(store).value();
}

// Whether `path`, a file an option names for hop to read, can be read; when it cannot (missing,
// not readable, a directory), says so on standard error for `command`: a usage error, exit
// status 2 (docs/cli.md, "Exit status"), found before anything starts. Opening does not wait for
// a writer of a FIFO.
bool Readable(std::string_view command, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    std::cerr << command << ": cannot read " << hop::EscapeForTerminal(path) << ": "
              << std::strerror(errno) << "\n";
    return false;
  }
  struct stat st;
  const bool directory = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  ::close(fd);
  if (directory) {
    std::cerr << command << ": " << hop::EscapeForTerminal(path) << " is a directory\n";
    return false;
  }
  return true;
}

// This binary with the state directory, as a materialized view's refresh Job runs it; empty
// when the binary's path cannot be read (no view is refreshed then, and its status says so).
std::vector<std::string> RefreshCommand(const std::string& state_dir) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path dir = std::filesystem::absolute(state_dir, ec);
  if (ec) return {};
  return {self.string(), "--state", dir.string()};
}

int Main(int argc, char** argv);

// Defines a subcommand's options only when the command line names it. CLI11 runs a subcommand's
// pre-parse callback as it enters the subcommand, before it parses the subcommand's arguments, so
// a command builds its own options rather than every subcommand's: they were 13% of the CPU of
// `hop --version`, and the same at the start of every command.
void RefuseEmptyValues(CLI::App* app);
void Lazily(CLI::App* subcommand, std::function<void()> define) {
  subcommand->preparse_callback([subcommand, define = std::move(define)](std::size_t) {
    define();
    RefuseEmptyValues(subcommand);
  });
}

// An option written `--NAME=` with nothing after the `=` (`--kube-qps= 5`, `--workers=` as the
// last argument, what `--workers="$N"` gives when N is unset): CLI11 reads that as `--NAME`
// alone, so it takes the next argument as the value, or says `1 required INT missing`. Before
// the parse, MarkEmptyValues appends kNoValue to each such argument; every option of every
// command checks its values for it (RefuseEmptyValues), and one that was given the mark alone
// is a usage error naming the option: `--kube-qps: needs a value, and nothing follows its '='`
// (docs/cli.md). An argument that another option took whole as its value (`-e --x=`) gets its
// text back, and so does one CLI11 quotes in an error (an unknown `--bogus=`). A flag written
// `--NAME=` stays set, as CLI11 sets it.
constexpr std::string_view kNoValue = "\x1fhop: no value\x1f";

std::vector<std::string> MarkEmptyValues(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.find('=') == arg.size() - 1) {
      arg += kNoValue;
    }
    args.push_back(std::move(arg));
  }
  return args;
}

// `text` without the marks MarkEmptyValues added.
std::string WithoutMarks(std::string text) {
  for (size_t at; (at = text.find(kNoValue)) != std::string::npos;) text.erase(at, kNoValue.size());
  return text;
}

void RefuseEmptyValues(CLI::App* app) {
  for (CLI::Option* option : app->get_options()) {
    const bool flag = option->get_items_expected_max() == 0;
    // A transform runs before the option's other checks (WholeNumber, NumberOf).
    option->transform(CLI::Validator(
        [flag](std::string& value) -> std::string {
          if (value == kNoValue) {
            if (!flag) return "needs a value, and nothing follows its '='";
            value = "true";
          }
          value = WithoutMarks(std::move(value));
          return "";
        },
        ""));
  }
}

// The checks of numeric options, run before CLI11 converts the value: one that is not a number
// of the kind the option takes, or is out of its range, is refused saying so and what the
// option takes (CLI11 puts the option's name first: `--pg-idle-timeout: 'abc' is not a number
// of seconds (0 to 2147483.647)`), not with CLI11's `Could not convert` or `Value abc not in
// range`.
//
// A whole number, decimal digits with an optional sign; it is passed on in decimal (CLI11 would
// read `010` as octal).
CLI::Validator WholeNumber(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        const bool digits =
            !value.empty() &&
            value.find_first_not_of("0123456789", value[0] == '-' || value[0] == '+' ? 1 : 0) ==
                std::string::npos &&
            value.find_first_of("0123456789") != std::string::npos;
        errno = 0;
        const long long n = digits ? std::strtoll(value.c_str(), nullptr, 10) : 0;
        if (!digits) {
          return fmt::format("'{}' is not a whole number ({} to {})", hop::EscapeForTerminal(value),
                             min, max);
        }
        if (errno == ERANGE || n < min || n > max) {
          return fmt::format("{} is out of range: it takes a whole number from {} to {}",
                             hop::EscapeForTerminal(value), min, max);
        }
        value = std::to_string(n);
        return "";
      },
      "");
}

// A number (decimals allowed) of `unit`, from `min` to `max`; not NaN or infinite.
CLI::Validator NumberOf(std::string unit, double min, double max) {
  return CLI::Validator(
      [unit = std::move(unit), min, max](std::string& value) -> std::string {
        // Decimal only: strtod would also take hexadecimal (0x5) and words (infinity).
        char* end = nullptr;
        const bool decimal =
            !value.empty() && value.find_first_not_of("0123456789.eE+-") == std::string::npos;
        const double x = decimal ? std::strtod(value.c_str(), &end) : std::nan("");
        if (!std::isfinite(x) || end != value.c_str() + value.size()) {
          return fmt::format("'{}' is not a number of {} ({} to {})", hop::EscapeForTerminal(value),
                             unit, min, max);
        }
        if (x < min || x > max) {
          return fmt::format("{} is out of range: it takes a number of {} from {} to {}",
                             hop::EscapeForTerminal(value), unit, min, max);
        }
        return "";
      },
      "");
}

// Ends the process once Main has returned: Main's objects are gone by then (the operator
// stopped, the store closed), and what is left are static objects whose destructors only free
// memory, which the kernel frees at exit anyway (docs/architecture.md, "Start-up"). Sanitizer
// builds exit normally: their leak check runs at exit.
//
// A command whose output did not all reach standard output fails: `hop manifests > file` on a
// full disk must not exit 0 with half a file that a script then applies. A pipe whose reader has
// gone is not that: most commands end by SIGPIPE before they get here, and one that follows
// (`hop get -w | head -1`) stops there quietly (docs/resources.md).
[[noreturn]] void ExitNow(int code) {
  std::cout.flush();
  const bool lost = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout.good();
  pollfd out{STDOUT_FILENO, POLLOUT, 0};
  const bool reader_gone = ::poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0;
  if (lost && !reader_gone && code == 0) {
    std::cerr << "hop: cannot write to standard output\n";
    code = 1;
  }
  std::cerr.flush();
  std::fflush(nullptr);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  std::exit(code);
#else
  std::_Exit(code);
#endif
}

}  // namespace

// The one catch-all of the binary: running out of memory anywhere on the main thread (input is
// bounded by common/limits.h, so it takes a machine short of memory) is reported as an error
// instead of aborting with an uncaught exception.
int main(int argc, char** argv) {
  int code = 1;
  try {
    code = Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "hop: out of memory\n";
  }
  ExitNow(code);
}

namespace {

// The namespace a command with its own -n acts in. Without -n, a --namespace given before the
// command stands for it (`hop --namespace team get views`, as kubectl's); without either, on a
// cluster, the kubeconfig context's namespace is the default: in `*namespace_name`, or in
// `*default_namespace` when the command keeps the two apart (apply's -n is also enforced on the
// documents it reads; a default only fills in those that name none). False, having said why,
// when the namespace is not a DNS-1123 label.
bool SettleNamespace(const CLI::App& app, const CLI::App& command, hop::store::Store& store,
                     std::string* namespace_name, std::string* default_namespace = nullptr) {
  const bool given = command.get_option("--namespace")->count() > 0;
  if (!given && app.get_option("--namespace")->count() > 0) {
    *namespace_name = app.get_option("--namespace")->as<std::string>();
  } else if (!given) {
    if (const auto* kube = dynamic_cast<hop::store::KubernetesStore*>(&store);
        kube != nullptr && !kube->default_namespace().empty()) {
      *(default_namespace != nullptr ? default_namespace : namespace_name) =
          kube->default_namespace();
    }
  }
  for (const std::string* ns : {namespace_name, default_namespace}) {
    if (ns == nullptr || ns->empty()) continue;
    if (hop::Status valid = hop::resource::ValidateDnsLabel(*ns); !valid.ok()) {
      std::cerr << "hop " << command.get_name()
                << ": namespace: " << hop::EscapeForTerminal(valid.message()) << "\n";
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  CLI::App app{"hop: SQL control plane for multi-system data pipelines"};
  app.set_version_flag("--version", std::string("hop ") + kVersion);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str();
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "text, or json: one object per line (docs/metrics.md)")
      ->capture_default_str();
  std::string state_dir = hop::store::DefaultStateDir();
  app.add_option("--state", state_dir,
                 "state directory (default: $HOP_STATE_DIR, $XDG_STATE_HOME/hop or "
                 "~/.local/state/hop)")
      ->capture_default_str();
  StoreChoice where;
  app.add_option("--kubeconfig", where.kubeconfig,
                 "keep resources in the Kubernetes cluster this kubeconfig names, not in --state "
                 "(several files joined by ':', as $KUBECONFIG)");
  app.add_option("--context", where.context, "the kubeconfig's context (default: its current one)");
  app.add_flag("--in-cluster", where.in_cluster,
               "keep resources in the cluster this pod runs in, as its service account");
  app.add_option("--kube-qps", where.kube_qps,
                 "on a cluster, requests a second to its API at most, after a burst (0: no limit)")
      ->capture_default_str()
      ->check(NumberOf("requests a second", 0, 100000));
  app.add_option("--kube-burst", where.kube_burst, "the burst before --kube-qps holds")
      ->capture_default_str()
      ->transform(WholeNumber(1, 1000000));
  std::string request_report;
  app.add_option("--request-report", request_report,
                 "on a cluster, write the kinds of request made of its API to this file at the "
                 "end (what RBAC must allow)");
  app.require_subcommand(0, 1);
  app.footer(
      "Without a subcommand, -e or -f, hop opens an interactive SQL shell on the state directory "
      "(line editing, history, tab completion; !help inside lists the commands).");

  // hop -e STMT / -f FILE: statements and !commands in one session; neither: the shell.
  hop::cli::RunOptions run_opts;
  app.add_option("-e,--execute", run_opts.execute,
                 "run a statement or !command (repeatable, in order)");
  app.add_option("-f,--file", run_opts.file, "run a script file, or - for standard input");
  app.add_option("--namespace", run_opts.namespace_name, "namespace of the session")
      ->capture_default_str();
  app.add_option("--hint", run_opts.hints, "hint k=v merged over pipeline tables (repeatable)");
  app.add_option("--mode", run_opts.mode, "create or apply: how CREATE treats existing objects")
      ->capture_default_str();
  app.add_option("--format", run_opts.format, "query results as table, mysql, csv, tsv or json")
      ->capture_default_str();

  // hop check
  auto* check = app.add_subcommand("check", "Parse a SQL script and report every error");
  std::string check_file;
  std::string dialect_name = "ansi";
  bool check_print = false;
  bool check_bind = false;
  std::string check_namespace = "default";
  Lazily(check, [&] {
    check->add_option("file", check_file, "script to check, or - for standard input")->required();
    check->add_flag("--print", check_print, "print each statement in canonical form");
    check->add_option("--dialect", dialect_name, "ansi, flink, postgres or sqlite")
        ->capture_default_str();
    check->add_flag("--bind", check_bind,
                    "also bind queries against the catalog of --state (names, types, functions)");
    check->add_option("--namespace", check_namespace, "namespace whose catalog --bind uses")
        ->capture_default_str();
  });

  // hop apply
  auto* apply = app.add_subcommand("apply", "Create or update resources from YAML");
  hop::cli::ApplyOptions apply_opts;
  Lazily(apply, [&] {
    apply->add_option("-f,--filename", apply_opts.file, "file to apply, or - for standard input")
        ->required();
    apply->add_option("-n,--namespace", apply_opts.namespace_name, "namespace for the objects");
    apply->add_option("--validate", apply_opts.validate,
                      "fields hop does not know: strict (an error, the default), warn or ignore");
  });

  // hop get
  auto* get = app.add_subcommand("get", "Show resources");
  hop::cli::GetOptions get_opts;
  Lazily(get, [&] {
    get->add_option("kind", get_opts.kind, "kind: plural, singular or short name")->required();
    get->add_option("name", get_opts.name, "object name");
    get->add_option("-n,--namespace", get_opts.namespace_name, "namespace (default: default)");
    get->add_flag("-A,--all-namespaces", get_opts.all_namespaces, "list across namespaces");
    get->add_option("-l,--selector", get_opts.selector, "label selector, e.g. app=web,tier!=db");
    get->add_option("-o,--output", get_opts.output, "wide, yaml or json");
    get->add_flag("--show-secrets", get_opts.show_secrets,
                  "print passwords and tokens instead of <redacted>");
    get->add_flag("-w,--watch", get_opts.watch, "after the list, print each change (until Ctrl-C)");
    get->add_flag("--watch-only", get_opts.watch_only, "print only the changes, not the list");
    get->add_flag("--output-watch-events", get_opts.output_watch_events,
                  "say ADDED, MODIFIED or DELETED for each change");
  });

  // hop delete
  auto* del = app.add_subcommand("delete", "Delete resources");
  hop::cli::DeleteOptions delete_opts;
  Lazily(del, [&] {
    del->add_option("kind", delete_opts.kind, "kind");
    del->add_option("name", delete_opts.name, "object name");
    del->add_option("-f,--filename", delete_opts.file, "delete the objects described by a file");
    del->add_option("-n,--namespace", delete_opts.namespace_name, "namespace (default: default)");
    del->add_flag("--force", delete_opts.force,
                  "delete even what other objects depend on (they are left as they are)");
  });

  // hop watermark set
  auto* watermark = app.add_subcommand("watermark", "Advance the watermark of a table or view");
  auto* watermark_set =
      watermark->add_subcommand("set", "Set table/NAME's or view/NAME's watermark (default: now)");
  watermark->require_subcommand(1);
  hop::cli::WatermarkSetOptions watermark_opts;
  Lazily(watermark_set, [&] {
    watermark_set->add_option("target", watermark_opts.target, "table/NAME or view/NAME")
        ->required();
    watermark_set->add_option("time", watermark_opts.time, "RFC 3339 time (default: now)");
    watermark_set->add_option("-n,--namespace", watermark_opts.namespace_name,
                              "namespace (default: default)");
    watermark_set->add_flag("--force", watermark_opts.force,
                            "move the watermark back to an earlier time");
  });

  // hop graph
  auto* graph = app.add_subcommand(
      "graph", "Print the pipelines and triggers around a table or view (as !graph does)");
  hop::cli::GraphCommandOptions graph_opts;
  std::string graph_depth, graph_format;
  CLI::Option* graph_depth_opt = nullptr;
  CLI::Option* graph_format_opt = nullptr;
  Lazily(graph, [&] {
    graph->add_option("identifier", graph_opts.identifier, "table or view, e.g. ADS.PAGE_VIEWS")
        ->required();
    graph_depth_opt =
        graph->add_option("--depth", graph_depth, "hops up- and downstream (default 2)");
    graph_format_opt = graph->add_option("--format", graph_format, "mermaid (default) or json");
    graph->add_option("-n,--namespace", graph_opts.namespace_name, "namespace")
        ->capture_default_str();
  });

  // hop crds
  auto* crds = app.add_subcommand("crds", "Print the CustomResourceDefinitions of hop's kinds");

  // hop manifests, hop export, hop import: hop on a Kubernetes cluster (docs/kubernetes.md).
  auto* manifests = app.add_subcommand(
      "manifests", "Print what a Kubernetes cluster needs to run hop's operator (CRDs, RBAC, ...)");
  hop::cli::ManifestsOptions manifests_opts;
  manifests_opts.version = kVersion;
  Lazily(manifests, [&] {
    manifests->add_option("--namespace", manifests_opts.namespace_name, "the operator's namespace")
        ->capture_default_str();
    manifests->add_option("--watch-namespace", manifests_opts.watch_namespace,
                          "act in this namespace only (a Role instead of a ClusterRole)");
    manifests->add_option("--image", manifests_opts.image,
                          "the operator's image (default hop:VERSION)");
  });
  auto* export_cmd = app.add_subcommand("export", "Write the store's objects as YAML documents");
  hop::cli::ExportOptions export_opts;
  Lazily(export_cmd, [&] {
    export_cmd->add_option("-n,--namespace", export_opts.namespace_name,
                           "only this namespace (default: every namespace)");
    export_cmd->add_option("--kind", export_opts.kinds, "only this kind (repeatable)");
    export_cmd->add_option("-o,--output", export_opts.output, "write to this file (mode 0600)");
  });
  auto* import_cmd =
      app.add_subcommand("import", "Write the objects of hop export's YAML into the store");
  hop::cli::ImportOptions import_opts;
  Lazily(import_cmd, [&] {
    import_cmd
        ->add_option("-f,--filename", import_opts.file, "file to import, or - for standard input")
        ->required();
    import_cmd->add_flag("--overwrite", import_opts.overwrite,
                         "replace an existing object that differs (default: report it)");
  });

  // hop logs
  auto* logs = app.add_subcommand(
      "logs", "Print the output of a Job the local runtime ran, or of a trigger's runs");
  std::string logs_job;
  std::string logs_namespace = "default";
  bool logs_follow = false;
  Lazily(logs, [&] {
    logs->add_option("target", logs_job, "job/NAME or tabletrigger/NAME")->required();
    logs->add_option("-n,--namespace", logs_namespace, "namespace")->capture_default_str();
    logs->add_flag("-f,--follow", logs_follow,
                   "keep printing: a Job's log until it ends, a trigger's runs until Ctrl-C");
  });

  // hop serve, and the in-process control plane of the shell and -e/-f.
  bool no_local_jobs = false;
  app.add_flag("--no-local-jobs", no_local_jobs,
               "do not run batch/v1 Jobs on this machine (they run anyone's commands)");
  auto* serve =
      app.add_subcommand("serve", "Run the operator and the local Job runner until stopped");
  hop::cli::ServeOptions serve_opts;
  bool no_operator = false;
  int64_t store_history = 0;
  hop::server::PgServerOptions pg_opts;
  int pg_port = -1;
  std::string pg_auth = "trust";
  double pg_idle_seconds = 0;
  // The default of each connection's idle_in_transaction_session_timeout (docs/pgwire.md).
  double pg_idle_in_transaction_seconds =
      std::chrono::duration<double>(hop::server::PgServerOptions{}.idle_in_transaction_timeout)
          .count();
  hop::server::HttpServerOptions http_opts;
  int http_port = -1;
  Lazily(serve, [&] {
    // Every numeric option says so of a value that is not a number of its kind (WholeNumber,
    // NumberOf).
    constexpr int64_t kInt = std::numeric_limits<int>::max();
    serve->add_option("--workers", serve_opts.workers, "reconcile workers")
        ->transform(WholeNumber(0, kInt))
        ->capture_default_str();
    serve->add_flag("--no-operator", no_operator,
                    "serve and run Jobs, but do not reconcile: a stand-in for a Kubernetes cluster "
                    "that `hop operator` reconciles");
    serve
        ->add_option("--store-history", store_history,
                     "events the store keeps for watches (default 100000); an older watch gets "
                     "410 Gone and lists again")
        ->transform(WholeNumber(0, std::numeric_limits<int64_t>::max()));
    serve
        ->add_option("--max-jobs", serve_opts.max_running_jobs,
                     "Job processes at once (0: twice the CPUs, at least 4)")
        ->transform(WholeNumber(0, kInt))
        ->capture_default_str();
    // The PostgreSQL wire protocol (docs/pgwire.md).
    serve->add_option("--pg-port", pg_port, "serve the PostgreSQL protocol on this port")
        ->transform(WholeNumber(0, 65535));
    serve->add_option("--pg-listen", pg_opts.listen, "address to listen on (loopback by default)")
        ->capture_default_str();
    serve->add_option("--pg-auth", pg_auth, "trust, password, md5 or scram-sha-256")
        ->capture_default_str();
    serve->add_option("--pg-users", pg_opts.users_file,
                      "users file of password verifiers (hop pg-user add writes it)");
    serve->add_option("--pg-cert", pg_opts.tls_cert, "TLS certificate (PEM) for SSLRequest");
    serve->add_option("--pg-key", pg_opts.tls_key, "the certificate's private key (PEM)");
    serve->add_option("--pg-max-connections", pg_opts.max_connections, "clients at once")
        ->transform(WholeNumber(1, kInt))
        ->capture_default_str();
    serve
        ->add_option("--pg-max-message-bytes", pg_opts.max_message_bytes,
                     "largest message a client may send")
        ->transform(WholeNumber(0, std::numeric_limits<uint32_t>::max()))
        ->capture_default_str();
    // Seconds up to PostgreSQL's largest timeout (2147483647 ms).
    serve
        ->add_option("--pg-idle-timeout", pg_idle_seconds,
                     "seconds an idle client stays connected (0: no limit)")
        ->check(NumberOf("seconds", 0, 2147483.647))
        ->capture_default_str();
    serve
        ->add_option("--pg-idle-in-transaction-timeout", pg_idle_in_transaction_seconds,
                     "seconds a client idle in a transaction, or holding a portal, stays "
                     "connected (0: no limit); a connection may SET "
                     "idle_in_transaction_session_timeout")
        ->check(NumberOf("seconds", 0, 2147483.647))
        ->capture_default_str();

    // The Kubernetes API, metrics and health over HTTP (docs/kubernetes-api.md).
    serve
        ->add_option("--http-port", http_port,
                     "serve the Kubernetes API, /metrics and health checks on this port")
        ->transform(WholeNumber(0, 65535));
    serve
        ->add_option("--http-listen", http_opts.listen,
                     "address to listen on (loopback by default; others need TLS and a token)")
        ->capture_default_str();
    serve->add_option("--http-tls-cert", http_opts.tls_cert, "TLS certificate (PEM) for HTTPS");
    serve->add_option("--http-tls-key", http_opts.tls_key, "the certificate's private key (PEM)");
    serve->add_option("--http-token-file", http_opts.token_file,
                      "file holding the bearer token every API request must carry");
    serve
        ->add_option("--http-max-body-bytes", http_opts.max_body_bytes,
                     "largest request body accepted")
        ->transform(WholeNumber(0, std::numeric_limits<int64_t>::max()))
        ->capture_default_str();
    serve->add_option("--kubeconfig-out", serve_opts.kubeconfig_out,
                      "write a kubeconfig pointing kubectl at the server to this file");
  });
  // hop operator: the reconcilers against a cluster, with leader election (docs/kubernetes.md).
  auto* oper = app.add_subcommand(
      "operator", "Reconcile a Kubernetes cluster (--kubeconfig or --in-cluster) until stopped");
  hop::cli::OperatorOptions operator_opts;
  std::string lease_namespace;
  double lease_seconds = 15, renew_seconds = 10, retry_seconds = 2;
  operator_opts.job_image = std::string("hop:") + kVersion;
  operator_opts.job_service_account = "hop";
  std::string job_kubeconfig;
  int operator_http_port = -1;
  hop::server::HttpServerOptions operator_http;
  Lazily(oper, [&] {
    oper->add_option("--lease-namespace", lease_namespace,
                     "namespace of the leader election's Lease (default: $POD_NAMESPACE, the "
                     "service account's or the kubeconfig context's namespace, else default)");
    oper->add_option("--lease-name", operator_opts.election.name, "the Lease's name")
        ->capture_default_str();
    oper->add_option("--identity", operator_opts.election.identity,
                     "this replica's name in the election (default: $POD_NAME or the host, and the "
                     "process id)");
    oper->add_option("--lease-duration", lease_seconds,
                     "seconds a leader that stopped renewing keeps the lease")
        ->check(NumberOf("seconds", 0, 3600))
        ->capture_default_str();
    oper->add_option("--renew-deadline", renew_seconds,
                     "seconds a leader that cannot renew keeps reconciling")
        ->check(NumberOf("seconds", 0, 3600))
        ->capture_default_str();
    oper->add_option("--retry-period", retry_seconds, "seconds between renewals and tries")
        ->check(NumberOf("seconds", 0, 3600))
        ->capture_default_str();
    oper->add_option("--watch-namespace", operator_opts.watch_namespace,
                     "reconcile only this namespace (default: every namespace)");
    oper->add_option("--workers", operator_opts.workers, "reconcile workers")
        ->transform(WholeNumber(0, std::numeric_limits<int>::max()))
        ->capture_default_str();
    oper->add_option("--job-image", operator_opts.job_image,
                     "the image of refresh Jobs' containers (hop's)")
        ->capture_default_str();
    oper->add_option("--job-service-account", operator_opts.job_service_account,
                     "the service account refresh Jobs run as")
        ->capture_default_str();
    oper->add_option(
        "--job-kubeconfig", job_kubeconfig,
        "refresh Jobs run this machine's hop with this kubeconfig instead of the "
        "image's as the service account (for a cluster whose Jobs run on this machine, "
        "as hop serve --no-operator's do)");
    oper->add_option("--http-port", operator_http_port, "serve /metrics and health checks here");
    oper->add_option("--http-listen", operator_http.listen, "the address to listen on")
        ->capture_default_str();
  });

  // hop pg-user add NAME: a users file entry, the password read from standard input.
  auto* pg_user = app.add_subcommand("pg-user", "Manage the users of hop serve --pg-users");
  auto* pg_user_add =
      pg_user->add_subcommand("add", "Add or replace a user; the password is read from stdin");
  std::string pg_user_name;
  std::string pg_users_file;
  Lazily(pg_user_add, [&] {
    pg_user_add->add_option("name", pg_user_name, "user name")->required();
    pg_user_add->add_option("--pg-users", pg_users_file, "users file")->required();
  });
  pg_user->require_subcommand(1);

  // hop refresh
  auto* refresh = app.add_subcommand(
      "refresh", "Refresh a materialized view on the local engine now (what its refresh Job runs)");
  hop::runtime::RefreshOptions refresh_opts;
  refresh_opts.namespace_name = "default";
  Lazily(refresh, [&] {
    refresh
        ->add_option("view", refresh_opts.view,
                     "view/NAME or its SQL name (SCHEMA.VIEW); table/NAME fills a table made "
                     "by CREATE TABLE ... AS")
        ->required();
    refresh->add_option("-n,--namespace", refresh_opts.namespace_name, "namespace")
        ->capture_default_str();
  });

  // hop wait
  auto* wait = app.add_subcommand(
      "wait", "Wait until the state directory has no fire, run or Job left to do");
  hop::cli::WaitCommandOptions wait_opts;
  Lazily(wait, [&] {
    wait->add_option("--timeout", wait_opts.timeout_seconds, "seconds to wait at most (0 to 86400)")
        ->check(NumberOf("seconds", 0, 86400))
        ->capture_default_str();
  });

  RefuseEmptyValues(&app);
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    return WithoutMarks(CLI::FailureMessage::simple(failed, e));
  });
  try {
    // As CLI11's parse(argc, argv): the program's name from argv[0], the arguments read from
    // the back of the list.
    if (argc > 0) app.name(argv[0]);
    std::vector<std::string> args = MarkEmptyValues(argc, argv);
    std::reverse(args.begin(), args.end());
    app.parse(std::move(args));
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with 0. Every other case is a usage error, whose status is 2
    // (docs/resources.md), not one of CLI11's own numbers for each kind of mistake.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (state_dir.empty()) {
    // (an unset variable in `--state "$DIR"`: the store would otherwise land in the working
    // directory)
    std::cerr << "hop: --state names no directory\n";
    return 2;
  }

  hop::log::Level level;
  if (!hop::log::ParseLevel(log_level, &level)) {
    std::cerr << "hop: unknown log level '" << hop::EscapeForTerminal(log_level) << "'\n";
    return 2;
  }
  hop::log::SetLevel(level);
  hop::log::Format format;
  if (!hop::log::ParseFormat(log_format, &format)) {
    std::cerr << "hop: unknown log format '" << hop::EscapeForTerminal(log_format) << "'\n";
    return 2;
  }
  hop::log::SetFormat(format);
  if (hop::Status limits = hop::LoadLimitsFromEnvironment(); !limits.ok()) {
    std::cerr << "hop: " << hop::EscapeForTerminal(limits.ToString()) << "\n";
    return 2;
  }

  // The files options name for hop to read (the input files of -f, check, apply, delete and
  // import are read, and judged so, by their commands).
  for (size_t start = 0; start < where.kubeconfig.size();) {
    const size_t end = std::min(where.kubeconfig.find(':', start), where.kubeconfig.size());
    if (end > start && !Readable("hop", where.kubeconfig.substr(start, end - start))) return 2;
    start = end + 1;
  }
  if (serve->parsed()) {
    for (const std::string* file :
         {&pg_opts.users_file, &pg_opts.tls_cert, &pg_opts.tls_key, &http_opts.tls_cert,
          &http_opts.tls_key, &http_opts.token_file}) {
      if (!file->empty() && !Readable("hop serve", *file)) return 2;
    }
  }

  if (crds->parsed()) return hop::cli::RunCrds(std::cout);
  if (manifests->parsed()) return hop::cli::RunManifests(manifests_opts, std::cout, std::cerr);
  where.state_dir = state_dir;
  RequestReport report(request_report);
  where.report = &report;
  if (!where.kubeconfig.empty() && where.in_cluster) {
    std::cerr << "hop: --kubeconfig and --in-cluster name two ways to one cluster: give one\n";
    return 2;
  }
  // On a cluster nothing of a session is kept on this machine: local tables (which live in a state
  // directory) are refused, and the shell's history is all --state is used for.
  const std::string local_dir = where.cluster() ? std::string() : state_dir;
  // What makes tables exist in their systems, the same for every command that needs it: local
  // tables in the state directory, PostgreSQL tables in their servers; inside the statement, or
  // by the operator's TableProvisionJob reconciler (`hop serve` too); dropped by DROP TABLE and
  // `hop delete table/...`.
  hop::catalog::LocalProvisioner local_tables(local_dir);
  hop::catalog::PostgresProvisioner postgres_tables;
  hop::catalog::Provisioners provisioners;
  provisioners.Register("local", &local_tables);
  provisioners.Register("postgresql", &postgres_tables);
  if (watermark_set->parsed()) {
    auto store = OpenStore(where);
    if (!store) return 1;
    if (!SettleNamespace(app, *watermark_set, *store, &watermark_opts.namespace_name)) return 2;
    return hop::cli::RunWatermarkSet(watermark_opts, *store, std::cout, std::cerr);
  }
  if (export_cmd->parsed() || import_cmd->parsed()) {
    auto store = OpenStore(where);
    if (!store) return 1;
    if (export_cmd->parsed()) return hop::cli::RunExport(export_opts, *store, std::cout, std::cerr);
    return hop::cli::RunImport(import_opts, *store, std::cout, std::cerr);
  }
  if (apply->parsed() || get->parsed() || del->parsed()) {
    auto store = OpenStore(where);
    if (!store) return 1;
    const bool settled =
        apply->parsed() ? SettleNamespace(app, *apply, *store, &apply_opts.namespace_name,
                                          &apply_opts.default_namespace)
        : get->parsed() ? SettleNamespace(app, *get, *store, &get_opts.namespace_name,
                                          &get_opts.default_namespace)
                        : SettleNamespace(app, *del, *store, &delete_opts.namespace_name,
                                          &delete_opts.default_namespace);
    if (!settled) return 2;
    if (apply->parsed()) return hop::cli::RunApply(apply_opts, *store, std::cout, std::cerr);
    if (get->parsed()) {
      if (get->get_option("name")->count() > 0 && get_opts.name.empty()) {
        // Not "every object": a name that expanded to nothing is a mistake (as kubectl says).
        std::cerr << "hop get: the object name is empty; leave it out to list every object\n";
        return 2;
      }
      if (get_opts.watch || get_opts.watch_only) hop::cli::StopOnSignals();
      return hop::cli::RunGet(get_opts, *store, std::cout, std::cerr, hop::cli::StopRequested);
    }
    delete_opts.provisioners = &provisioners;
    return hop::cli::RunDelete(delete_opts, *store, std::cout, std::cerr);
  }

  if (check->parsed()) {
    hop::cli::CheckOptions options;
    options.print = check_print;
    if (!hop::sql::ParseDialect(dialect_name, &options.dialect)) {
      std::cerr << "hop check: unknown dialect '" << hop::EscapeForTerminal(dialect_name)
                << "' (expected ansi, flink, postgres or sqlite)\n";
      return 2;
    }
    // Binding goes through a session on the state directory, as executing would.
    std::unique_ptr<hop::store::Store> store;
    std::optional<hop::session::Session> session;
    if (check_bind) {
      store = OpenStore(where);
      if (!store) return 1;
      hop::session::Properties properties;
      properties.namespace_name = check_namespace;
      session.emplace(*store, std::move(properties));
      options.bind = &*session;
    }
    std::string text;
    if (hop::Status read = hop::cli::ReadInput(check_file, &text); !read.ok()) {
      std::cerr << "hop check: " << hop::EscapeForTerminal(read.message()) << "\n";
      return 2;
    }
    const std::string name = hop::EscapeForTerminal(check_file == "-" ? "<stdin>" : check_file);
    auto summary = hop::cli::CheckScript(name, text, options, std::cout, std::cerr);
    if (summary.errors > 0) {
      std::cerr << name << ": " << summary.errors << " of " << summary.statements
                << " statement(s) failed\n";
      return 1;
    }
    if (!check_print) {
      std::cout << name << ": " << summary.statements << " statement(s) OK\n";
    }
    return 0;
  }

  if (graph->parsed()) {
    auto store = OpenStore(where);
    if (!store) return 1;
    if (!SettleNamespace(app, *graph, *store, &graph_opts.namespace_name)) return 2;
    if (graph_depth_opt->count() > 0) graph_opts.depth = graph_depth;
    if (graph_format_opt->count() > 0) graph_opts.format = graph_format;
    return hop::cli::RunGraph(graph_opts, *store, std::cout, std::cerr);
  }
  if (logs->parsed()) {
    if (where.cluster()) {
      std::cerr << "hop logs: reads what the local runtime kept; on a cluster the Jobs' pods keep "
                   "their output: kubectl logs job/NAME\n";
      return 2;
    }
    auto store = OpenStore(where);
    if (!store) return 1;
    if (!SettleNamespace(app, *logs, *store, &logs_namespace)) return 2;
    if (logs_follow) hop::cli::StopOnSignals();
    return hop::cli::RunLogs({logs_job, logs_namespace, logs_follow}, state_dir, *store, std::cout,
                             std::cerr, hop::cli::StopRequested);
  }
  if (refresh->parsed()) {
    auto store = OpenStore(where);
    if (!store) return 1;
    if (!SettleNamespace(app, *refresh, *store, &refresh_opts.namespace_name)) return 2;
    refresh_opts.state_dir = local_dir;
    // Run as a refresh or fill Job, it is that Job's (docs/ddl.md, CREATE TABLE ... AS).
    if (const char* job = std::getenv("HOP_JOB"); job != nullptr) refresh_opts.job = job;
    if (refresh_opts.view.rfind("view/", 0) == 0) refresh_opts.view.erase(0, 5);
    auto outcome = hop::runtime::RefreshView(*store, refresh_opts);
    if (!outcome.ok()) {
      std::cerr << "hop refresh: " << hop::EscapeForTerminal(outcome.status().ToString()) << "\n";
      return 1;
    }
    // Where the watermark comes from (docs/runtime.md, "Refreshes"), and whether it moved.
    const std::string earned = hop::FormatRfc3339(outcome->earned, 3);
    const std::string from =
        outcome->earned_from.empty()
            ? std::string("the refresh's start")
            : fmt::format("the watermark of its input {}", outcome->earned_from);
    const std::string watermark =
        outcome->moved_back
            ? fmt::format("watermark {} ({}), moved back from {}: {}", earned, from,
                          hop::FormatRfc3339(*outcome->moved_back, 3),
                          outcome->fill ? "the fill replaced every row, its writers' too"
                                        : "the refresh rewrote every row its query gives")
            : fmt::format("watermark {} ({})", earned, from);
    std::cout << hop::EscapeForTerminal(fmt::format("{} refreshed: {} rows {}; {}", outcome->view,
                                                    outcome->rows, outcome->how, watermark))
              << "\n";
    return 0;
  }
  if (oper->parsed()) {
    if (!where.cluster()) {
      std::cerr << "hop operator: reconciles a Kubernetes cluster: give --kubeconfig FILE or "
                   "--in-cluster (hop serve reconciles a state directory)\n";
      return 2;
    }
    for (double s : {lease_seconds, renew_seconds, retry_seconds}) {
      if (!(s > 0 && s <= 3600)) {
        std::cerr << "hop operator: lease durations are seconds between 0 and 3600\n";
        return 2;
      }
    }
    if (!(retry_seconds < renew_seconds && renew_seconds < lease_seconds)) {
      std::cerr << "hop operator: --retry-period < --renew-deadline < --lease-duration, so that a "
                   "leader stops before another may start\n";
      return 2;
    }
    auto ms = [](double seconds) {
      return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    };
    operator_opts.election.lease_duration = ms(lease_seconds);
    operator_opts.election.renew_deadline = ms(renew_seconds);
    operator_opts.election.retry_period = ms(retry_seconds);
    if (operator_opts.election.identity.empty()) {
      operator_opts.election.identity = hop::op::DefaultIdentity();
    }
    if (operator_http_port >= 0) {
      operator_http.port = operator_http_port;
      operator_http.kube_api = false;
      operator_opts.http = operator_http;
    }
    hop::cli::BlockStopSignals();
    auto store = OpenStore(where);
    if (!store) return 1;
    const auto* kube = dynamic_cast<hop::store::KubernetesStore*>(store.get());
    if (lease_namespace.empty()) {
      const char* pod_ns = std::getenv("POD_NAMESPACE");
      if (pod_ns != nullptr && *pod_ns != '\0') {
        lease_namespace = pod_ns;
      } else if (kube != nullptr && !kube->default_namespace().empty()) {
        lease_namespace = kube->default_namespace();
      } else {
        lease_namespace = "default";
      }
    }
    operator_opts.election.namespace_name = lease_namespace;
    if (!job_kubeconfig.empty()) {
      std::vector<std::string> command = RefreshCommand(state_dir);
      if (command.empty()) {
        std::cerr << "hop operator: cannot tell where this hop binary is for --job-kubeconfig\n";
        return 1;
      }
      std::error_code ec;
      operator_opts.refresh_command = {command[0], "--kubeconfig",
                                       std::filesystem::absolute(job_kubeconfig, ec).string()};
      operator_opts.job_image.clear();
      operator_opts.job_service_account.clear();
    } else {
      operator_opts.refresh_command = {"hop", "--in-cluster"};
    }
    operator_opts.provisioners = &provisioners;
    return hop::cli::RunOperator(operator_opts, *store, std::cout, std::cerr);
  }
  if (pg_user_add->parsed()) {
    std::string password;
    std::getline(std::cin, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
    if (password.empty()) {
      std::cerr << "hop pg-user add: give the password on standard input\n";
      return 1;
    }
    hop::Status st = hop::server::AddPgUser(pg_users_file, pg_user_name, password);
    if (!st.ok()) {
      std::cerr << "hop pg-user add: " << hop::EscapeForTerminal(st.ToString()) << "\n";
      return 1;
    }
    std::cout << "user " << pg_user_name << " written to " << pg_users_file << "\n";
    return 0;
  }
  if (serve->parsed()) {
    if (pg_port >= 0) {
      auto method = hop::server::ParseAuthMethod(pg_auth);
      if (!method.ok()) {
        std::cerr << "hop serve: " << method.status().ToString() << "\n";
        return 1;
      }
      pg_opts.auth = *method;
      pg_opts.port = pg_port;
      // To the millisecond; a limit under one is one, never none (0).
      auto millis = [](double seconds) {
        const int64_t ms = std::llround(seconds * 1000);
        return std::chrono::milliseconds(seconds > 0 && ms == 0 ? 1 : ms);
      };
      pg_opts.idle_timeout = millis(pg_idle_seconds);
      pg_opts.idle_in_transaction_timeout = millis(pg_idle_in_transaction_seconds);
      serve_opts.pg = pg_opts;
    }
    if (http_port >= 0) {
      http_opts.port = http_port;
      http_opts.api.provisioners = &provisioners;
      if (hop::Status checked = hop::server::CheckHttpServerOptions(http_opts); !checked.ok()) {
        std::cerr << "hop serve: " << hop::EscapeForTerminal(checked.ToString()) << "\n";
        return 1;
      }
      serve_opts.http = http_opts;
    } else if (!serve_opts.kubeconfig_out.empty()) {
      std::cerr << "hop serve: --kubeconfig-out needs --http-port\n";
      return 2;
    }
    hop::cli::BlockStopSignals();
    hop::store::SqliteStoreOptions store_options = hop::session::ControlPlane::StoreOptions();
    if (store_history < 0) {
      std::cerr << "hop serve: --store-history must not be negative\n";
      return 2;
    }
    if (store_history > 0) {
      store_options.retained_events = store_history;
      // The API's window of recent events is history too.
      if (serve_opts.http) {
        serve_opts.http->api.watch_cache_events = std::min<size_t>(
            serve_opts.http->api.watch_cache_events, static_cast<size_t>(store_history));
      }
    }
    if (where.cluster() && serve_opts.http) {
      // On a cluster, hop serve is a front end (the PostgreSQL protocol): the Kubernetes API is
      // the cluster's own, and /metrics and the health checks are all --http-port serves.
      serve_opts.http->kube_api = false;
    }
    auto store = OpenStore(where, store_options);
    if (!store) return 1;
    serve_opts.cluster = where.cluster();
    serve_opts.state_dir = local_dir;
    serve_opts.local_jobs = !no_local_jobs;
    serve_opts.reconcile = !no_operator;
    serve_opts.refresh_command = RefreshCommand(state_dir);
    serve_opts.provisioners = &provisioners;
    return hop::cli::RunServe(serve_opts, *store, std::cout, std::cerr);
  }

  // A session's watches (its operator's, !wait's) hear of other processes' writes by polling
  // for their first 200 ms and by the wake listener after: a command that ends sooner never
  // opens the listener, whose teardown at exit can cost more than the whole command
  // (docs/store.md, "Watches across processes").
  hop::store::SqliteStoreOptions session_store;
  session_store.listen_after = std::chrono::milliseconds(200);
  auto store = OpenStore(where, session_store);
  if (!store) return 1;
  run_opts.state_dir = local_dir;
  run_opts.provisioners = &provisioners;
  if (where.cluster() && app.get_option("--namespace")->count() == 0) {
    // The kubeconfig context's namespace, as kubectl takes it.
    const auto* kube = dynamic_cast<hop::store::KubernetesStore*>(store.get());
    if (kube != nullptr && !kube->default_namespace().empty()) {
      run_opts.namespace_name = kube->default_namespace();
    }
  }
  // Statements run here also reconcile here, unless another process holds the state directory.
  // The control plane starts when a session first needs it (the shell at once; -e and -f at
  // their first DDL statement; !wait and hop wait only when there is work for it), so that a
  // command that only reads starts nothing.
  std::unique_ptr<hop::session::ControlPlane> control_plane;
  run_opts.start_control_plane =
      [&](hop::session::ControlPlaneNeed need) -> hop::session::ControlPlane* {
    // On a cluster, `hop operator` reconciles: a session runs none of its own.
    if (where.cluster()) return nullptr;
    if (!control_plane) {
      hop::session::ControlPlaneOptions cpo;
      cpo.state_dir = state_dir;
      cpo.local_jobs = !no_local_jobs;
      cpo.provisioners = &provisioners;
      cpo.refresh_command = RefreshCommand(state_dir);
      control_plane = hop::session::ControlPlane::Create(*store, cpo);
    }
    if (need == hop::session::ControlPlaneNeed::kRun && !control_plane->ran()) {
      if (hop::Status run = control_plane->Run(); !run.ok()) {
        std::cerr << "hop: the operator does not run: " << hop::EscapeForTerminal(run.ToString())
                  << "\n";
        control_plane.reset();
        return nullptr;
      }
    }
    return control_plane.get();
  };
  if (wait->parsed()) {
    return hop::cli::RunWait(wait_opts, *store, run_opts.start_control_plane, std::cout, std::cerr);
  }
  if (!run_opts.execute.empty() || !run_opts.file.empty()) {
    run_opts.stop_on_signals = true;
    return hop::cli::RunSql(run_opts, *store, std::cout, std::cerr);
  }
  return hop::cli::RunShell(run_opts, state_dir, *store);
}

}  // namespace
