// Implementation of the resource commands.
#include "cli/resource_commands.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "catalog/catalog.h"
#include "common/issues.h"
#include "common/limits.h"
#include "common/redact.h"
#include "common/strings.h"
#include "common/time.h"
#include "deploy/executor.h"
#include "deploy/validate.h"
#include "resource/crd.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/secrets.h"
#include "resource/selector.h"
#include "resource/validation.h"
#include "resource/yaml.h"
#include "session/session.h"

namespace hop::cli {

using resource::GroupKind;
using resource::KindInfo;
using resource::Resource;
using store::ObjectRef;
using store::Write;

Status ReadInput(const std::string& path, std::string* text) {
  const bool stdin_input = path == "-";
  const std::string name = stdin_input ? "<stdin>" : path;
  const int fd = stdin_input ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Unavailable(fmt::format("cannot read {}: {}", name, strerror(errno)));
  const auto close_fd = [&] {
    if (!stdin_input) ::close(fd);
  };
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close_fd();
    return Status::InvalidArgument(fmt::format("{} is a directory", name));
  }
  const size_t limit = CurrentLimits().max_request_bytes;
  text->clear();
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    text->reserve(std::min(static_cast<size_t>(st.st_size), limit) + 1);
  }
  char buffer[64 * 1024];
  while (text->size() <= limit) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, limit + 1 - text->size()));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      close_fd();
      return Status::Unavailable(fmt::format("cannot read {}: {}", name, strerror(error)));
    }
    text->append(buffer, static_cast<size_t>(n));
  }
  close_fd();
  if (text->size() > limit) {
    text->clear();
    return Status::InvalidArgument(
        fmt::format("{} is larger than {}, the most hop reads from one input "
                    "(HOP_MAX_REQUEST_BYTES)",
                    name, FormatByteSize(limit)));
  }
  DropByteOrderMark(*text);
  return Status::OK();
}

namespace {

// How kubectl names an object in its messages: "database.hoptimator.linkedin.com/ads",
// "configmap/settings".
std::string DisplayName(const Resource& r) {
  std::string kind = AsciiToLower(r.kind());
  const std::string group = r.group();
  if (!group.empty()) kind += "." + group;
  return EscapeForTerminal(kind + "/" + r.name());
}

// The namespace a get or delete by name acts in: -n's, else the kubeconfig context's, else
// "default".
template <typename Options>
std::string NamespaceOf(const Options& options) {
  if (!options.namespace_name.empty()) return options.namespace_name;
  if (!options.default_namespace.empty()) return options.default_namespace;
  return std::string(resource::kDefaultNamespace);
}

// Parses and validates every document of `path` for `command` ("hop apply") as `validation`
// says. Returns 0 when all are valid; otherwise prints every problem and returns the exit
// status: 2 when the file named on the command line cannot be read (a usage error, as
// docs/resources.md says), 1 for what it holds. Nothing is written either way.
// `namespace_name` (-n) goes to documents without a namespace, and the others must name it;
// without it `default_namespace`, when set, goes to documents without one. `store`, when not
// null, is what the documents are checked against as the DDL checks its objects
// (deploy::CheckWrittenObject).
int LoadDocuments(std::string_view command, const std::string& path,
                  const std::string& namespace_name, const std::string& default_namespace,
                  std::vector<Resource>* out, std::ostream& err,
                  const resource::ValidationOptions& validation = {},
                  store::Store* store = nullptr) {
  std::string text;
  if (Status read = ReadInput(path, &text); !read.ok()) {
    err << command << ": " << EscapeForTerminal(read.message()) << "\n";
    return 2;
  }
  const std::string source = path == "-" ? "<stdin>" : path;
  auto docs = ParseYamlDocuments(text, source);
  if (!docs.ok()) {
    err << EscapeForTerminal(docs.status().ToString()) << "\n";
    return 1;
  }
  Issues issues;
  // Each object once: the documents are written in one batch, where a second document for the
  // same object could only fail ("already exists") or silently win.
  std::map<std::string, size_t> first_document;
  for (size_t i = 0; i < docs->size(); ++i) {
    const std::string where = fmt::format("document {}", i + 1);
    auto r = Resource::FromJson(std::move((*docs)[i]), where);
    if (!r.ok()) {
      issues.Error(r.status().message());
      continue;
    }
    Issues& doc = issues.Child(fmt::format("{} ({})", where, r->Describe()));
    const KindInfo* kind = resource::FindKind(r->group_kind());
    const bool namespaced = kind == nullptr || kind->namespaced;
    const std::string& given = namespace_name.empty() ? default_namespace : namespace_name;
    if (!given.empty()) {
      if (namespaced && r->namespace_name().empty()) {
        r->set_namespace(given);
      } else if (namespaced && !namespace_name.empty() && r->namespace_name() != namespace_name) {
        doc.Error(
            fmt::format("metadata.namespace: {} does not match the namespace given with -n "
                        "({})",
                        r->namespace_name(), namespace_name));
      }
    }
    resource::ValidateResource(*r, &doc, validation);
    resource::RefuseRedacted(r->json(), "", doc);
    if (store != nullptr && !doc.HasErrors()) deploy::CheckWrittenObject(*store, *r, doc);
    ObjectRef ref = store::RefOf(*r);
    if (namespaced && ref.namespace_name.empty()) ref.namespace_name = resource::kDefaultNamespace;
    if (auto [at, added] = first_document.emplace(ref.ToString(), i + 1); !added) {
      doc.Error(
          fmt::format("the same object as document {}: a file names each object once", at->second));
    }
    out->push_back(std::move(r).value());
  }
  if (docs->empty()) {
    err << command << ": " << EscapeForTerminal(source) << " holds no object\n";
    return 1;
  }
  Status s =
      issues.ToStatus(StatusCode::kValidation, fmt::format("{}: nothing was applied:", source));
  if (!s.ok()) {
    err << EscapeForTerminal(s.ToString()) << "\n";
    return 1;
  }
  if (issues.HasWarnings()) {
    err << "Warning: " << EscapeForTerminal(source) << ":\n" << EscapeForTerminal(issues.Render()) << "\n";
  }
  return 0;
}

// Evaluates a printer column's path (`.spec.url`) against an object.
std::string ColumnValue(const Json& doc, const std::string& path) {
  const Json* cur = resource::PrinterColumnValue(doc, path);
  if (cur == nullptr) return "";
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_null()) return "";
  return cur->dump();
}

std::string Age(const std::string& created) {
  auto t = ParseRfc3339(created);
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(SystemClock().Now() - *t));
}

// One-line cells: printer columns can hold SQL with newlines, and any cell text a user wrote,
// control characters included (escaped, so that they cannot drive the terminal).
std::string Cell(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  s = EscapeForTerminal(s);
  constexpr size_t kMax = 60;
  if (s.size() > kMax) {
    // Cut at a character boundary, so that the cell stays UTF-8.
    size_t cut = kMax - 3;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  return s;
}

// Resolves a kind the way a user names it: hop's kinds and well-known ones by any of their
// names, then kinds found in the store by Kind name.
Result<GroupKind> ResolveKind(const std::string& name, store::Store& store, const KindInfo** info) {
  *info = resource::LookupKind(name);
  if (*info) return (*info)->group_kind();
  auto all = store.List({});
  if (all.ok()) {
    for (const auto& r : all->items) {
      const std::string lower = AsciiToLower(r.kind());
      if (EqualsIgnoreCase(r.kind(), name) || lower + "s" == AsciiToLower(name)) {
        return r.group_kind();
      }
    }
  }
  // Say what a user can name instead: hop's kinds, the well-known ones, and others stored.
  std::vector<std::string> known;
  for (const auto* kinds : {&resource::HopKinds(), &resource::ExternalKinds()}) {
    for (const KindInfo* k : *kinds) known.push_back(k->plural);
  }
  if (all.ok()) {
    for (const auto& r : all->items) {
      if (resource::FindKind(r.group_kind()) != nullptr) continue;
      const std::string plural = AsciiToLower(r.kind()) + "s";
      if (std::find(known.begin(), known.end(), plural) == known.end()) known.push_back(plural);
    }
  }
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return Status::NotFound(
      fmt::format("the store has no resource type \"{}\" (known: {})", name, list));
}

}  // namespace

namespace {

// Whether a failed batch lost a race with another writer, and is worth planning again.
bool LostARace(const Status& s) {
  return s.code() == StatusCode::kConflict || s.code() == StatusCode::kAlreadyExists;
}

// A short pause before trying again after a lost race, longer after each, with jitter so that
// writers that collided do not collide again.
void BackOff(int attempt) {
  static thread_local std::minstd_rand random(std::random_device{}());
  const int ceiling = std::min(50, 2 << std::min(attempt, 5));
  std::this_thread::sleep_for(std::chrono::milliseconds(1 + random() % ceiling));
}

}  // namespace

std::string StoredName(store::Store& store, const GroupKind& kind, const std::string& ns,
                       const std::string& name) {
  auto exists = [&](const std::string& candidate) {
    return !candidate.empty() && store.Get({kind, ns, candidate}).ok();
  };
  if (exists(name)) return name;
  // A view or table by its SQL name: the resource the catalog made it from.
  if (kind == resource::ViewKind::Info().group_kind() ||
      kind == resource::TableKind::Info().group_kind()) {
    auto path = session::SplitTableName(name);
    auto cat =
        path.ok() ? catalog::Catalog::Load(store, ns) : Result<catalog::Catalog>(path.status());
    if (cat.ok()) {
      // As typed; else folded to upper case as SQL folds unquoted names, the schema alone
      // (`kafka.page-events`) or every part.
      auto table = cat->Resolve(*path);
      for (bool all : {false, true}) {
        if (table.ok()) break;
        std::vector<std::string> folded = *path;
        for (size_t i = 0; i < folded.size(); ++i) {
          if (all || i + 1 < folded.size()) folded[i] = Utf8ToUpper(folded[i]);
        }
        table = cat->Resolve(folded);
      }
      if (table.ok() && exists((*table)->resource)) return (*table)->resource;
    }
  }
  // A trigger's or database's SQL name (`count_t` is `countt`), or a dotted path.
  if (std::string canonical = resource::Canonicalize(name); exists(canonical)) return canonical;
  if (auto path = session::SplitTableName(name); path.ok() && path->size() > 1) {
    if (std::string canonical = resource::Canonicalize(*path); exists(canonical)) return canonical;
  }
  return name;
}

int RunApply(const ApplyOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err) {
  resource::UnknownFields unknown_fields;
  if (options.validate == "strict" || options.validate == "true") {
    unknown_fields = resource::UnknownFields::kReject;
  } else if (options.validate == "warn") {
    unknown_fields = resource::UnknownFields::kWarn;
  } else if (options.validate == "ignore" || options.validate == "false") {
    unknown_fields = resource::UnknownFields::kAllow;
  } else {
    err << "hop apply: --validate must be strict, warn or ignore, not \"" << options.validate
        << "\"\n";
    return 2;
  }
  std::vector<Resource> docs;
  if (int rc = LoadDocuments(
          "hop apply", options.file, options.namespace_name, options.default_namespace, &docs, err,
          // The fields of kinds hop does not define are checked too (a ConfigMap's data holds
          // strings), as the Kubernetes API checks them (kube_api.cc): `hop apply` and `kubectl
          // apply` against `hop serve` take the same files.
          {.unknown_fields = unknown_fields, .external_fields = true}, &store);
      rc != 0) {
    return rc;
  }
  // Read what exists, then write everything in one batch; each update carries the version it
  // was computed from, so a concurrent change makes the batch fail instead of being overwritten.
  // Apply is an upsert: a batch that lost a race with another writer is computed again from
  // what the store holds then, as kubectl apply does. A document that names a resourceVersion
  // asks for exactly that version, and a conflict on it is the user's to see.
  constexpr int kAttempts = 50;
  for (int attempt = 1;; ++attempt) {
    std::vector<Write> writes;
    std::vector<std::string> existing_versions;
    bool pinned = false;
    for (const Resource& given : docs) {
      Resource doc = given;
      auto existing = store.Get(store::RefOf(doc));
      if (!existing.ok() && existing.status().code() != StatusCode::kNotFound) {
        err << EscapeForTerminal(existing.status().ToString()) << "\n";
        return 1;
      }
      if (!existing.ok()) {
        existing_versions.emplace_back();
        writes.push_back(Write::Create(std::move(doc)));
        continue;
      }
      existing_versions.push_back(existing->resource_version());
      if (doc.resource_version().empty()) {
        doc.set_resource_version(existing->resource_version());
      } else {
        pinned = true;
      }
      // A document without status leaves the stored status alone.
      if (doc.status() == nullptr && existing->status() != nullptr) {
        doc.set_status(*existing->status());
      }
      writes.push_back(Write::Update(std::move(doc)));
    }
    auto results = store.Commit(std::move(writes));
    if (!results.ok()) {
      if (!pinned && attempt < kAttempts && LostARace(results.status())) {
        BackOff(attempt);
        continue;
      }
      err << EscapeForTerminal(results.status().ToString()) << "\n";
      return 1;
    }
    for (size_t i = 0; i < results->size(); ++i) {
      const Resource& r = (*results)[i];
      const char* verb = existing_versions[i].empty()                   ? "created"
                         : existing_versions[i] == r.resource_version() ? "unchanged"
                                                                        : "configured";
      out << DisplayName(r) << " " << verb << "\n";
    }
    return 0;
  }
}

namespace {

// What `hop get` selects, resolved once from its options, for the list and for the watch.
struct Selection {
  GroupKind kind;
  const KindInfo* info = nullptr;  // null: a kind hop does not know (no printer columns)
  bool namespaced = true;
  std::string ns;    // "" for every namespace (-A, or a cluster-scoped kind)
  std::string name;  // the stored name of the one object asked for; "" for a list
  resource::LabelSelector selector;

  // Whether the watch's event about `r` concerns this selection (the namespace is the watch's).
  bool Selects(const Resource& r) const {
    return name.empty() ? selector.Matches(r.labels()) : r.name() == name;
  }
};

// Resolves `options` into `*selection`. 0, or the exit status after saying what is wrong.
int Select(const GetOptions& options, store::Store& store, std::ostream& err,
           Selection* selection) {
  auto gk = ResolveKind(options.kind, store, &selection->info);
  if (!gk.ok()) {
    err << EscapeForTerminal(gk.status().ToString()) << "\n";
    return 1;
  }
  selection->kind = *gk;
  selection->namespaced = selection->info == nullptr || selection->info->namespaced;
  std::string ns = NamespaceOf(options);
  if (!selection->namespaced || options.all_namespaces) ns.clear();
  if (options.output != "" && options.output != "wide" && options.output != "yaml" &&
      options.output != "json") {
    err << "hop get: unknown output format \"" << options.output
        << "\" (expected wide, yaml or json)\n";
    return 2;
  }
  if (!options.name.empty()) {
    if (!options.selector.empty()) {
      err << "hop get: a name and a label selector cannot be combined\n";
      return 2;
    }
    // One object is always looked for in one namespace.
    if (ns.empty() && selection->namespaced) ns = std::string(resource::kDefaultNamespace);
    selection->ns = ns;
    selection->name = StoredName(store, *gk, ns, options.name);
    return 0;
  }
  auto selector = resource::LabelSelector::Parse(options.selector);
  if (!selector.ok()) {
    err << EscapeForTerminal(selector.status().ToString()) << "\n";
    return 2;
  }
  selection->ns = ns;
  selection->selector = std::move(selector).value();
  return 0;
}

// The selected objects and the store's revision they are as of: a watch from that revision
// misses no later change and repeats none before it.
Status ListSelection(const Selection& selection, store::Store& store, std::vector<Resource>* items,
                     int64_t* revision) {
  items->clear();
  if (!selection.name.empty()) {
    // The revision first: a change between it and the Get is seen again by the watch, and
    // skipped there as already shown (its resourceVersion is not newer).
    auto now = store.Revision();
    if (!now.ok()) return now.status();
    auto r = store.Get({selection.kind, selection.ns, selection.name});
    if (!r.ok()) return r.status();
    *revision = *now;
    items->push_back(std::move(r).value());
    return Status::OK();
  }
  auto list = store.List({selection.kind, selection.ns, selection.selector});
  if (!list.ok()) return list.status();
  *revision = list->revision;
  *items = std::move(list->items);
  return Status::OK();
}

// Prints what `hop get` shows, and, when it watches, each event after it in the same form.
class GetPrinter {
 public:
  GetPrinter(const GetOptions& options, const Selection& selection, std::ostream& out)
      : options_(options),
        selection_(selection),
        out_(out),
        documents_(options.output == "yaml" || options.output == "json"),
        all_namespaces_(options.all_namespaces && selection.namespaced) {}

  bool documents() const { return documents_; }

  // The list, or the one object: a table (header and rows), or one YAML or JSON document.
  void PrintList(const std::vector<Resource>& items) {
    if (documents_) {
      Json doc;
      if (!selection_.name.empty()) {
        doc = items.front().Ordered();
      } else {
        doc = Json::object();
        doc["apiVersion"] = "v1";
        doc["kind"] = "List";
        doc["items"] = Json::array();
        for (const auto& r : items) doc["items"].push_back(r.Ordered());
      }
      PrintDocument(std::move(doc));
      return;
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : items) rows.push_back(Row(store::EventType::kAdded, r));
    PrintRows(rows);
  }

  // A table row of an object listed (not watched).
  std::vector<std::string> ListedRow(const Resource& r) const {
    return Row(store::EventType::kAdded, r);
  }

  // One event of the watch: a row in the columns of the first batch, or a document.
  void PrintEvent(store::EventType type, const Resource& r) {
    if (documents_) {
      Json doc = r.Ordered();
      if (options_.output_watch_events) {
        doc = Json{{"type", std::string(store::EventTypeName(type))}, {"object", std::move(doc)}};
      }
      // YAML documents after the first are separated, JSON ones follow each other.
      if (options_.output == "yaml" && printed_) out_ << "---\n";
      PrintDocument(std::move(doc));
      return;
    }
    PrintRows({Row(type, r)});
  }

 private:
  void PrintDocument(Json doc) {
    if (!options_.show_secrets) resource::RedactSecretsIn(doc);
    out_ << (options_.output == "yaml" ? EmitYaml(doc) : EmitJson(doc, 2) + "\n");
    printed_ = true;
  }

  std::vector<std::string> Header() const {
    std::vector<std::string> header;
    if (options_.output_watch_events) header.push_back("EVENT");
    if (all_namespaces_) header.push_back("NAMESPACE");
    header.push_back("NAME");
    if (selection_.info) {
      for (const auto& c : selection_.info->columns) header.push_back(c.name);
    }
    header.push_back("AGE");
    if (options_.output == "wide") header.push_back("LABELS");
    return header;
  }

  std::vector<std::string> Row(store::EventType type, const Resource& r) const {
    std::vector<std::string> row;
    if (options_.output_watch_events) row.emplace_back(store::EventTypeName(type));
    if (all_namespaces_) row.push_back(Cell(r.namespace_name()));
    row.push_back(Cell(r.name()));
    if (selection_.info) {
      for (const auto& c : selection_.info->columns) {
        const std::string value = c.compute != nullptr ? c.compute(r.json(), SystemClock().Now())
                                                       : ColumnValue(r.json(), c.json_path);
        row.push_back(Cell(RedactSecrets(value)));
      }
    }
    row.push_back(Age(r.creation_timestamp()));
    if (options_.output == "wide") {
      std::string labels;
      for (const auto& [k, v] : r.labels()) labels += (labels.empty() ? "" : ",") + k + "=" + v;
      row.push_back(labels.empty() ? "<none>" : EscapeForTerminal(labels));
    }
    return row;
  }

  // The first rows printed set the widths of the columns, with the header above them; later
  // rows keep those widths (a longer cell only pushes the rest of its row), as kubectl's watch.
 public:
  void PrintRows(const std::vector<std::vector<std::string>>& rows) {
    const bool first = widths_.empty();
    if (first) {
      const std::vector<std::string> header = Header();
      widths_.resize(header.size());
      for (size_t i = 0; i < header.size(); ++i) widths_[i] = header[i].size();
      for (const auto& row : rows) {
        for (size_t i = 0; i < row.size(); ++i) widths_[i] = std::max(widths_[i], row[i].size());
      }
      PrintRow(header);
    }
    for (const auto& row : rows) PrintRow(row);
  }

 private:
  void PrintRow(const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line += std::string(widths_[i] > row[i].size() ? widths_[i] - row[i].size() + 3 : 3, ' ');
      }
    }
    out_ << line << "\n";
  }

  const GetOptions& options_;
  const Selection& selection_;
  std::ostream& out_;
  const bool documents_;
  const bool all_namespaces_;
  std::vector<size_t> widths_;  // empty until the header is printed
  bool printed_ = false;        // whether a document was printed
};

// An object's place in the watch's bookkeeping.
std::string KeyOf(const Resource& r) { return r.namespace_name() + "/" + r.name(); }

int64_t RevisionOf(const Resource& r) {
  int64_t revision = 0;
  const std::string& v = r.resource_version();
  std::from_chars(v.data(), v.data() + v.size(), revision);
  return revision;
}

// Follows the selection from `revision`, printing each event of it. `shown` holds every
// selected object as last printed, keyed by KeyOf.
int FollowSelection(const Selection& selection, int64_t revision,
                    std::map<std::string, Resource> shown, GetPrinter& printer, store::Store& store,
                    std::ostream& out, std::ostream& err, const StopFunction& stop) {
  auto watch = store.StartWatch({selection.kind, selection.ns, revision});
  while (!ShouldStop(stop)) {
    store::Event event;
    switch (watch->Next(kFollowPoll, &event)) {
      case store::Watch::Outcome::kTimeout:
        continue;
      case store::Watch::Outcome::kClosed:
        err << "hop get: the store closed the watch\n";
        return 1;
      case store::Watch::Outcome::kTooOld: {
        // The history since `revision` is gone: what changed meanwhile is the difference
        // between what was shown and what the store holds now.
        std::vector<Resource> items;
        Status listed = ListSelection(selection, store, &items, &revision);
        if (!listed.ok() && listed.code() != StatusCode::kNotFound) {
          err << EscapeForTerminal(listed.ToString()) << "\n";
          return 1;
        }
        if (!listed.ok()) {
          auto now = store.Revision();
          if (!now.ok()) {
            err << EscapeForTerminal(now.status().ToString()) << "\n";
            return 1;
          }
          revision = *now;
        }
        std::map<std::string, Resource> now_shown;
        for (Resource& r : items) {
          auto it = shown.find(KeyOf(r));
          if (it == shown.end()) {
            printer.PrintEvent(store::EventType::kAdded, r);
          } else if (RevisionOf(it->second) != RevisionOf(r)) {
            printer.PrintEvent(store::EventType::kModified, r);
          }
          now_shown.emplace(KeyOf(r), std::move(r));
        }
        for (const auto& [key, last] : shown) {
          if (!now_shown.count(key)) printer.PrintEvent(store::EventType::kDeleted, last);
        }
        shown = std::move(now_shown);
        watch = store.StartWatch({selection.kind, selection.ns, revision});
        break;
      }
      case store::Watch::Outcome::kEvent: {
        const Resource& r = event.object;
        const std::string key = KeyOf(r);
        auto it = shown.find(key);
        if (event.type == store::EventType::kDeleted) {
          if (it == shown.end()) continue;
          shown.erase(it);
          printer.PrintEvent(store::EventType::kDeleted, r);
        } else if (it != shown.end() && event.revision <= RevisionOf(it->second)) {
          continue;  // already shown by the list
        } else if (selection.Selects(r)) {
          // An object that comes into the selection is new to whoever watches it.
          printer.PrintEvent(it == shown.end() ? store::EventType::kAdded
                                               : store::EventType::kModified,
                             r);
          shown.insert_or_assign(key, r);
        } else if (it != shown.end()) {
          // It left the label selector's selection: gone from what is watched.
          shown.erase(it);
          printer.PrintEvent(store::EventType::kDeleted, r);
        } else {
          continue;
        }
        break;
      }
    }
    out.flush();
    if (!out) return 0;  // the reader went away (EPIPE): nothing left to do
  }
  return 0;
}

void NoResources(const Selection& selection, std::ostream& err) {
  if (selection.ns.empty()) {
    err << "No resources found\n";
  } else {
    err << "No resources found in " << selection.ns << " namespace.\n";
  }
}

}  // namespace

int RunGet(const GetOptions& options, store::Store& store, std::ostream& out, std::ostream& err,
           const StopFunction& stop) {
  Selection selection;
  if (int rc = Select(options, store, err, &selection); rc != 0) return rc;
  GetPrinter printer(options, selection, out);
  if (!options.watch && !options.watch_only && !printer.documents() && selection.name.empty()) {
    // A table and nothing after it: each object is turned into its row as it is read, so a long
    // list holds rows, not objects.
    std::vector<std::vector<std::string>> rows;
    auto listed = store.ListEach({selection.kind, selection.ns, selection.selector},
                                 [&](Resource r) { rows.push_back(printer.ListedRow(r)); });
    if (!listed.ok()) {
      err << EscapeForTerminal(listed.status().ToString()) << "\n";
      return 1;
    }
    if (rows.empty()) {
      NoResources(selection, err);
    } else {
      printer.PrintRows(rows);
    }
    return 0;
  }
  std::vector<Resource> items;
  int64_t revision = 0;
  if (Status listed = ListSelection(selection, store, &items, &revision); !listed.ok()) {
    err << EscapeForTerminal(listed.ToString()) << "\n";
    return 1;
  }
  if (!options.watch_only) {
    if (items.empty() && !printer.documents()) {
      NoResources(selection, err);
    } else {
      printer.PrintList(items);
    }
  }
  if (!options.watch && !options.watch_only) return 0;
  out.flush();
  if (!out) return 0;
  std::map<std::string, Resource> shown;
  for (Resource& r : items) shown.emplace(KeyOf(r), std::move(r));
  return FollowSelection(selection, revision, std::move(shown), printer, store, out, err, stop);
}

int RunDelete(const DeleteOptions& options, store::Store& store, std::ostream& out,
              std::ostream& err) {
  std::vector<ObjectRef> refs;
  if (!options.file.empty()) {
    std::vector<Resource> docs;
    if (int rc = LoadDocuments("hop delete", options.file, options.namespace_name,
                               options.default_namespace, &docs, err);
        rc != 0) {
      return rc;
    }
    // Last first: a file declares what an object needs before the object (a Database before
    // its tables), so its dependents go before it.
    for (auto d = docs.rbegin(); d != docs.rend(); ++d) refs.push_back(store::RefOf(*d));
  } else {
    if (options.kind.empty() || options.name.empty()) {
      err << "hop delete: give KIND NAME, or -f FILE\n";
      return 2;
    }
    const KindInfo* info = nullptr;
    auto gk = ResolveKind(options.kind, store, &info);
    if (!gk.ok()) {
      err << EscapeForTerminal(gk.status().ToString()) << "\n";
      return 1;
    }
    const bool namespaced = info == nullptr || info->namespaced;
    const std::string ns = namespaced ? NamespaceOf(options) : std::string();
    refs.push_back({*gk, ns, StoredName(store, *gk, ns, options.name)});
  }
  // Each object goes as the DROP of its kind would: not while something depends on it, unless
  // --force (deploy::Executor::Delete).
  int rc = 0;
  for (ObjectRef& ref : refs) {
    const KindInfo* kind = resource::FindKind(ref.kind);
    if ((kind == nullptr || kind->namespaced) && ref.namespace_name.empty()) {
      ref.namespace_name = std::string(resource::kDefaultNamespace);
    }
    deploy::ExecuteOptions execute;
    execute.namespace_name =
        ref.namespace_name.empty() ? std::string(resource::kDefaultNamespace) : ref.namespace_name;
    execute.provisioners = options.provisioners;
    deploy::Executor executor(store, std::move(execute));
    auto deleted = executor.Delete(ref, options.force);
    if (!deleted.ok()) {
      err << EscapeForTerminal(RedactSecrets(deleted.status().ToString())) << "\n";
      rc = 1;
      continue;
    }
    for (const Resource& r : deleted->objects) {
      out << DisplayName(r)
          << (r.deletion_timestamp() && !r.finalizers().empty()
                  ? " marked for deletion (waiting for finalizers)"
                  : " deleted")
          << "\n";
    }
    for (const std::string& effect : deleted->effects) out << effect << "\n";
  }
  return rc;
}

int RunCrds(std::ostream& out) {
  out << EmitYamlDocuments(resource::AllCustomResourceDefinitions());
  return 0;
}

}  // namespace hop::cli
