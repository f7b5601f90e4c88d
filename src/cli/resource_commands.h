// kubectl-style resource commands: `hop apply`, `hop get`, `hop delete` and `hop crds`. Each takes
// its parsed options, the store and the output streams, and returns the process exit status, so
// tests can run them without a process.
#pragma once

#include <ostream>
#include <string>

#include "catalog/provisioner.h"
#include "cli/follow.h"
#include "resource/resource.h"
#include "common/status.h"
#include "store/store.h"

namespace hop::cli {

struct ApplyOptions {
  std::string file;            // path, or "-" for standard input
  std::string namespace_name;  // -n: namespace for documents without one, and theirs must be it
  // --validate: what a field hop's kinds do not declare is (kubectl's field validation):
  // "strict" an error, "warn" a warning, "ignore" kept silently.
  std::string validate = "strict";
  // Without -n: the namespace of documents without one (the kubeconfig context's); a document
  // naming another keeps it.
  std::string default_namespace = "";
};

// Reads every document of the file, validates all of them, and writes nothing if any is invalid
// (each error names its document, field and rule; a document holding <redacted>, as
// `hop get` prints a secret, is invalid). Otherwise creates or updates every object in
// one atomic batch and prints "kind/name created|configured|unchanged" per document. Exit 0; 2
// when the file cannot be read (a usage error) or `validate` is not one of its words; else 1 on
// any error.
int RunApply(const ApplyOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err);

struct GetOptions {
  std::string kind;             // plural, singular, short name or Kind, optionally `.group`
  std::string name;             // empty: list
  std::string namespace_name;   // -n; else default_namespace; else "default"
  bool all_namespaces = false;  // -A
  std::string selector;         // -l
  std::string output;           // "", "wide", "yaml", "json"
  bool show_secrets = false;    // --show-secrets: print secrets rather than <redacted>
  bool watch = false;           // -w: after the list, print each change
  bool watch_only = false;      // --watch-only: only the changes
  bool output_watch_events = false;  // --output-watch-events: say ADDED, MODIFIED or DELETED
  std::string default_namespace = "";  // the kubeconfig context's namespace, when it names one
};

// Prints one object or a list: a table with the kind's printer columns, or YAML / JSON. Secrets
// (passwords in database URLs and connector configurations, common/redact.h) print as
// <redacted>, in YAML and JSON too unless `show_secrets`.
//
// With `watch` or `watch_only`, then follows the store from the list's revision, as kubectl
// does: each creation, change or deletion of a selected object is one more table row in the
// first batch's columns (no header again), or one more YAML (after `---`) or JSON document,
// flushed at once. An object that comes into a label selector's selection is added, one that
// leaves it deleted. When the store no longer has the history to follow, it lists again and
// prints what changed meanwhile. Runs until `stop` says stop, or the output fails (a closed
// pipe): 0 then.
int RunGet(const GetOptions& options, store::Store& store, std::ostream& out, std::ostream& err,
           const StopFunction& stop = {});

struct DeleteOptions {
  std::string kind;
  std::string name;
  std::string file;  // -f: delete every object the file describes
  std::string namespace_name;  // -n, as GetOptions' and (with -f) ApplyOptions'
  bool force = false;  // --force: delete even what others depend on, leaving them as they are
  // Systems whose tables a deleted Table resource is dropped from (as DROP TABLE); null: none.
  const catalog::Provisioners* provisioners = nullptr;
  std::string default_namespace = "";  // without -n: the kubeconfig context's namespace
};

// Deletes the named object, or every object of the file, one by one, each as the DROP of its
// kind does: a Database, a Table or a View is refused while something depends on it (naming
// the dependents), unless `force`. Prints "kind/name deleted" per object deleted; exit 1 if any
// was refused or failed, 2 on a usage error (a file that cannot be read among them).
int RunDelete(const DeleteOptions& options, store::Store& store, std::ostream& out,
              std::ostream& err);

// The name an object a user names is stored under: `name` itself when such an object exists,
// else the object its SQL name means — a view's or table's path (`ads.audience`,
// `kafka."page-events"`: the View or Table resource the catalog made it from), a trigger's or
// database's name (`count_t` is stored as `countt`). `name` when none exists.
std::string StoredName(store::Store& store, const resource::GroupKind& kind, const std::string& ns,
                       const std::string& name);

// Prints the CustomResourceDefinitions of every hop kind as YAML documents.
int RunCrds(std::ostream& out);

// Reads a file, or standard input for "-", whole into `*text`, stopping one byte past the
// request limit (common/limits.h) instead of reading all of a larger input. Fails, with a message
// naming the file ("<stdin>" for "-"), with InvalidArgument when it is a directory or larger than
// the limit, and Unavailable when it cannot be opened or read. A UTF-8 byte-order mark at the
// start is dropped.
Status ReadInput(const std::string& path, std::string* text);

}  // namespace hop::cli
