// Implementation of `hop export` and `hop import` (docs/kubernetes.md "Moving resources").
#include "cli/export_command.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "common/files.h"
#include "common/issues.h"
#include "common/limits.h"
#include "common/redact.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/secrets.h"
#include "resource/yaml.h"

namespace hop::cli {

using resource::GroupKind;
using resource::KindInfo;
using resource::Resource;
using store::ObjectRef;
using store::Write;

namespace {

// The metadata a store sets on every object it writes: a store given them either refuses the
// object or ignores them, and a copy of them names nothing in another store.
constexpr std::string_view kStoreSetMetadata[] = {
    "uid",           "resourceVersion",   "creationTimestamp",          "generation",
    "managedFields", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"};

const GroupKind& JobKind() {
  static const GroupKind kind{"batch", "Job"};
  return kind;
}

bool Namespaced(const GroupKind& kind) {
  const KindInfo* info = resource::FindKind(kind);
  return info == nullptr || info->namespaced;
}

// The kinds --kind names: hop's and well-known kinds by any of their names, and the rest as the
// Kind (or Kind + "s") of stored objects, which only a listing of every kind can match.
struct KindSelection {
  std::set<GroupKind> kinds;
  std::vector<std::string> by_stored_name;

  bool Matches(const Resource& r) const {
    if (kinds.count(r.group_kind())) return true;
    for (const std::string& name : by_stored_name) {
      if (EqualsIgnoreCase(r.kind(), name) || AsciiToLower(r.kind()) + "s" == AsciiToLower(name)) {
        return true;
      }
    }
    return false;
  }
};

// The selected objects but those being deleted, in the store's order.
Result<std::vector<Resource>> SelectObjects(const ExportOptions& options, store::Store& store,
                                            std::vector<std::string>* notes) {
  std::vector<Resource> out;
  auto keep = [&](Resource r) {
    if (!r.deletion_timestamp()) out.push_back(std::move(r));
  };
  if (options.kinds.empty()) {
    // Every kind but Jobs: a Job written into a cluster runs (again), and a trigger's runs are
    // kept in its status (docs/kubernetes.md says why).
    HOP_ASSIGN_OR_RETURN(store::ListResult all, store.List({std::nullopt, options.namespace_name}));
    int jobs = 0, unfinished = 0;
    for (Resource& r : all.items) {
      if (r.group_kind() == JobKind()) {
        ++jobs;
        if (!resource::BatchJobFinished(r)) ++unfinished;
        continue;
      }
      keep(std::move(r));
    }
    if (jobs > 0) {
      notes->push_back(fmt::format(
          "{} batch/v1 Job{} left out ({} not finished): a Job imported into a cluster runs "
          "again; --kind jobs exports them",
          jobs, jobs == 1 ? "" : "s", unfinished));
    }
    return out;
  }
  KindSelection selection;
  for (const std::string& name : options.kinds) {
    if (const KindInfo* info = resource::LookupKind(name)) {
      selection.kinds.insert(info->group_kind());
    } else {
      selection.by_stored_name.push_back(name);
    }
  }
  if (selection.by_stored_name.empty()) {
    for (const GroupKind& kind : selection.kinds) {
      HOP_ASSIGN_OR_RETURN(store::ListResult listed, store.List({kind, options.namespace_name}));
      for (Resource& r : listed.items) keep(std::move(r));
    }
    return out;
  }
  HOP_ASSIGN_OR_RETURN(store::ListResult all, store.List({std::nullopt, options.namespace_name}));
  for (const std::string& name : selection.by_stored_name) {
    const bool stored = std::any_of(all.items.begin(), all.items.end(), [&](const Resource& r) {
      return KindSelection{{}, {name}}.Matches(r);
    });
    if (!stored) {
      return Status::NotFound(
          fmt::format("hop knows no kind \"{}\" and the store holds none of that name", name));
    }
  }
  for (Resource& r : all.items) {
    if (selection.Matches(r)) keep(std::move(r));
  }
  return out;
}

// Orders `objects` so that every object comes after the owners it names that are among them:
// by the length of the longest chain of owners above it, then by kind, group, namespace and
// name. Objects whose owners form a cycle (no store makes one by itself) go last, with a note.
void OrderOwnersFirst(std::vector<Resource>* objects, std::vector<std::string>* notes) {
  const size_t n = objects->size();
  std::map<std::string, size_t> by_uid;
  std::map<std::tuple<GroupKind, std::string, std::string>, size_t> by_name;
  for (size_t i = 0; i < n; ++i) {
    const Resource& r = (*objects)[i];
    if (!r.uid().empty()) by_uid.emplace(r.uid(), i);
    by_name.emplace(std::make_tuple(r.group_kind(), r.namespace_name(), r.name()), i);
  }
  std::vector<std::vector<size_t>> dependents(n);
  std::vector<size_t> owners_left(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Resource& r = (*objects)[i];
    std::set<size_t> owners;
    for (const resource::OwnerReference& o : r.owner_references()) {
      std::optional<size_t> owner;
      if (!o.uid.empty()) {
        if (auto it = by_uid.find(o.uid); it != by_uid.end()) owner = it->second;
      } else if (auto it = by_name.find(
                     std::make_tuple(GroupKind{resource::GroupOf(o.api_version), o.kind},
                                     r.namespace_name(), o.name));
                 it != by_name.end()) {
        owner = it->second;
      }
      if (!owner) {
        notes->push_back(fmt::format(
            "{} is owned by {}/{}, which is not exported: its import fails unless the target "
            "has that owner",
            store::RefOf(r).ToString(), o.kind, o.name));
        continue;
      }
      if (*owner != i) owners.insert(*owner);
    }
    owners_left[i] = owners.size();
    for (size_t owner : owners) dependents[owner].push_back(i);
  }
  // Kahn's algorithm a layer at a time: layer k holds the objects whose owners are all in
  // layers before it, so k is the longest chain of owners above an object.
  std::vector<size_t> depth(n, n);
  std::vector<size_t> layer;
  for (size_t i = 0; i < n; ++i) {
    if (owners_left[i] == 0) layer.push_back(i);
  }
  for (size_t k = 0; !layer.empty(); ++k) {
    std::vector<size_t> next;
    for (size_t i : layer) {
      depth[i] = k;
      for (size_t d : dependents[i]) {
        if (--owners_left[d] == 0) next.push_back(d);
      }
    }
    layer = std::move(next);
  }
  for (size_t i = 0; i < n; ++i) {
    if (depth[i] == n) {
      notes->push_back(fmt::format(
          "{} is in a cycle of owner references: it is exported last and its import may fail",
          store::RefOf((*objects)[i]).ToString()));
    }
  }
  // Each object's sort key is read from its document once, not at each comparison.
  using Key = std::tuple<size_t, std::string, std::string, std::string, std::string>;
  std::vector<Key> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Resource& r = (*objects)[i];
    keys.emplace_back(depth[i], r.kind(), r.group(), r.namespace_name(), r.name());
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<Resource> sorted;
  sorted.reserve(n);
  for (size_t i : order) sorted.push_back(std::move((*objects)[i]));
  *objects = std::move(sorted);
}

}  // namespace

Json ExportedForm(const Resource& object) {
  Json doc = object.Ordered();
  auto md = doc.find("metadata");
  if (md == doc.end() || !md->is_object()) return doc;
  for (std::string_view key : kStoreSetMetadata) md->erase(std::string(key));
  if (auto refs = md->find("ownerReferences"); refs != md->end() && refs->is_array()) {
    for (Json& ref : *refs) {
      if (ref.is_object()) ref.erase("uid");
    }
  }
  return doc;
}

Result<std::vector<Json>> ExportDocuments(const ExportOptions& options, store::Store& store,
                                          std::vector<std::string>* notes) {
  HOP_ASSIGN_OR_RETURN(std::vector<Resource> objects, SelectObjects(options, store, notes));
  OrderOwnersFirst(&objects, notes);
  std::vector<Json> docs;
  docs.reserve(objects.size());
  for (Resource& r : objects) {
    docs.push_back(ExportedForm(r));
    r = Resource();  // gone once its document is made: the store's objects are not held twice
  }
  return docs;
}

int RunExport(const ExportOptions& options, store::Store& store, std::ostream& out,
              std::ostream& err) {
  std::vector<std::string> notes;
  auto docs = ExportDocuments(options, store, &notes);
  if (!docs.ok()) {
    err << "hop export: " << EscapeForTerminal(docs.status().ToString()) << "\n";
    return 1;
  }
  for (const std::string& note : notes) err << "hop export: " << EscapeForTerminal(note) << "\n";
  const bool to_file = !options.output.empty();
  const std::string where = EscapeForTerminal(options.output);
  int fd = -1;
  if (to_file) {
    fd = OpenPrivateFile(options.output, O_WRONLY | O_TRUNC);
    if (fd < 0) {
      err << "hop export: cannot write " << where << ": " << strerror(errno) << "\n";
      return 1;
    }
  }
  // The documents are written a megabyte at a time, each dropped once it is text, so that the
  // export holds the objects once, not also their whole text (47 MB for 30,000 objects).
  auto write = [&](const std::string& text) {
    if (!to_file) return static_cast<bool>(out << text);
    for (size_t written = 0; written < text.size();) {
      const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      written += static_cast<size_t>(n);
    }
    return true;
  };
  constexpr size_t kChunk = size_t{1} << 20;
  std::string text;
  bool ok = true;
  for (size_t i = 0; i < docs->size() && ok; ++i) {
    if (i > 0) text += "---\n";
    text += EmitYaml((*docs)[i]);
    (*docs)[i] = Json();
    if (text.size() >= kChunk || i + 1 == docs->size()) {
      ok = write(text);
      text.clear();
    }
  }
  if (!to_file) {
    out.flush();
    if (!ok || !out) {
      err << "hop export: cannot write to standard output\n";
      return 1;
    }
    return 0;
  }
  if (!ok) {
    err << "hop export: cannot write " << where << ": " << strerror(errno) << "\n";
    ::close(fd);
    return 1;
  }
  if (::close(fd) != 0) {
    err << "hop export: cannot write " << where << ": " << strerror(errno) << "\n";
    return 1;
  }
  out << docs->size() << (docs->size() == 1 ? " object" : " objects") << " written to " << where
      << "\n";
  return 0;
}

// ---------------------------------------------------------------------------------------------
// hop import

namespace {

// The documents of a YAML stream, read a little at a time and split at the lines that start a
// document (`---`, alone or followed by a blank), so that the stream may be larger than
// anything read whole. A line starting with `---` cannot be inside a document's content: YAML
// reserves it as a document marker, and hop's YAML writer indents every block scalar.
class DocumentReader {
 public:
  struct Document {
    std::string text;        // the document's lines, each ending with "\n"
    int64_t line = 0;        // the stream's line the document starts at
    bool too_large = false;  // longer than the limit: `text` is empty
  };

  DocumentReader(int fd, size_t limit) : fd_(fd), limit_(limit) {}

  // The next document; false at the end of the stream. Errors: Unavailable when reading fails.
  Result<bool> Next(Document* doc) {
    doc->text.clear();
    doc->too_large = false;
    bool started = false;
    if (start_pending_) {
      start_pending_ = false;
      doc->line = start_line_;
      Append(doc, start_text_, false);
      started = true;
    }
    std::string line;
    while (true) {
      bool cut = false;
      HOP_ASSIGN_OR_RETURN(bool read, ReadLine(&line, &cut));
      if (!read) return started;
      ++line_number_;
      if (started && !cut && StartsDocument(line)) {
        start_pending_ = true;
        start_text_ = std::move(line);
        start_line_ = line_number_;
        return true;
      }
      if (!started) doc->line = line_number_;
      started = true;
      Append(doc, line, cut);
    }
  }

 private:
  static bool StartsDocument(std::string_view line) {
    return line.substr(0, 3) == "---" &&
           (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
  }

  void Append(Document* doc, const std::string& line, bool cut) {
    if (doc->too_large) return;
    if (cut || doc->text.size() + line.size() + 1 > limit_) {
      doc->too_large = true;
      std::string().swap(doc->text);
      return;
    }
    doc->text += line;
    doc->text += '\n';
  }

  // One line without its "\n"; `cut` when it is longer than the limit (the rest is skipped).
  // False at the end of the stream.
  Result<bool> ReadLine(std::string* line, bool* cut) {
    line->clear();
    bool any = false;
    while (true) {
      if (pos_ == end_) {
        if (eof_) return any;
        const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Status::Unavailable(fmt::format("cannot read: {}", strerror(errno)));
        if (n == 0) {
          eof_ = true;
          return any;
        }
        pos_ = 0;
        end_ = static_cast<size_t>(n);
      }
      any = true;
      const char* begin = buffer_.data() + pos_;
      const void* newline = std::memchr(begin, '\n', end_ - pos_);
      const size_t take = newline ? static_cast<const char*>(newline) - begin : end_ - pos_;
      if (!*cut) {
        if (line->size() + take > limit_) {
          *cut = true;
          std::string().swap(*line);
        } else {
          line->append(begin, take);
        }
      }
      pos_ += take;
      if (newline) {
        ++pos_;
        return true;
      }
    }
  }

  const int fd_;
  const size_t limit_;
  std::array<char, 64 * 1024> buffer_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
  bool start_pending_ = false;  // the line that starts the next document was read already
  std::string start_text_;
  int64_t start_line_ = 0;
};

// Whether `value` says nothing an absent key does not: null, or an empty mapping.
bool SaysNothing(const Json& value) {
  return value.is_null() || (value.is_object() && value.empty());
}

// Where `want` has a value that `have` does not hold, as a path ("spec.sql",
// "metadata.ownerReferences[0].name"); nullopt when `have` holds all of `want`. Mappings may
// hold more keys in `have`; sequences must be as long; a null or an empty mapping in `want` is
// held by an absent key too.
std::optional<std::string> FirstDifference(const Json& have, const Json& want,
                                           const std::string& path) {
  auto below = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
  if (want.is_object()) {
    if (want.empty() && have.is_null()) return std::nullopt;
    if (!have.is_object()) return path;
    for (const auto& [key, value] : want.items()) {
      auto it = have.find(key);
      if (it == have.end()) {
        if (SaysNothing(value)) continue;
        return below(key);
      }
      if (auto diff = FirstDifference(*it, value, below(key))) return diff;
    }
    return std::nullopt;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return path;
    for (size_t i = 0; i < want.size(); ++i) {
      if (auto diff = FirstDifference(have[i], want[i], fmt::format("{}[{}]", path, i))) {
        return diff;
      }
    }
    return std::nullopt;
  }
  if (have == want) return std::nullopt;
  return path;
}

// Writes documents into the store one by one and counts the outcomes.
class Importer {
 public:
  Importer(store::Store& store, bool overwrite, std::ostream& out, std::ostream& err)
      : store_(store), overwrite_(overwrite), out_(out), err_(err) {}

  // One parsed document, named `where` in errors; a v1 List is its items.
  void Import(Json doc, const std::string& where) {
    if (doc.is_object() && doc.value("apiVersion", Json()) == "v1" &&
        doc.value("kind", Json()) == "List" && doc.contains("items") && doc["items"].is_array()) {
      Json items = std::move(doc["items"]);
      for (size_t i = 0; i < items.size(); ++i) {
        Import(std::move(items[i]), fmt::format("{}, item {}", where, i + 1));
      }
      return;
    }
    auto object = Resource::FromJson(std::move(doc), where);
    if (!object.ok()) {
      Fail(where, object.status());
      return;
    }
    Resource r(ExportedForm(*object));
    if (r.namespace_name().empty() && Namespaced(r.group_kind())) {
      r.set_namespace(resource::kDefaultNamespace);
    }
    const ObjectRef ref = store::RefOf(r);
    Issues redacted;
    resource::RefuseRedacted(r.json(), "", redacted);
    if (redacted.HasErrors()) {
      Fail(ref.ToString(), redacted.ToStatus(StatusCode::kValidation,
                                             "it holds a secret as `hop get` prints it, not the "
                                             "secret itself:"));
      return;
    }
    auto done = Write(r, ref);
    if (!done.ok()) {
      Fail(ref.ToString(), done.status());
      return;
    }
    ++counts_[*done];
    out_ << EscapeForTerminal(ref.ToString()) << " " << *done << "\n";
  }

  void Fail(const std::string& what, const Status& status) {
    ++failed_;
    err_ << EscapeForTerminal(what)
         << " failed: " << EscapeForTerminal(RedactSecrets(status.ToString())) << "\n";
  }

  int failed() const { return failed_; }

  void PrintSummary() {
    const int total = counts_["created"] + counts_["updated"] + counts_["unchanged"] + failed_;
    out_ << fmt::format("{} object{}: {} created, {} updated, {} unchanged, {} failed\n", total,
                        total == 1 ? "" : "s", counts_["created"], counts_["updated"],
                        counts_["unchanged"], failed_);
  }

 private:
  // Creates or updates `doc` and its status: "created", "updated" or "unchanged".
  Result<std::string> Write(const Resource& doc, const ObjectRef& ref) {
    if (unserved_.count(ref.kind)) return Unserved(ref.kind);
    // A lost race with another writer (the object created or changed meanwhile) reads again.
    constexpr int kAttempts = 3;
    for (int attempt = 1;; ++attempt) {
      HOP_ASSIGN_OR_RETURN(std::optional<Resource> stored, store_.Find(ref));
      std::vector<store::Write> writes;
      std::string done;
      if (!stored) {
        writes.push_back(store::Write::Create(doc));
        // A kind with a status subresource takes no status with its creation.
        if (doc.status()) writes.push_back(store::Write::UpdateStatus(doc));
        done = "created";
      } else {
        if (stored->deletion_timestamp()) {
          return Status::Conflict(
              "it is being deleted in the target: import it again once it is gone");
        }
        Json have = ExportedForm(*stored);
        Json want = doc.json();
        const Json have_status = have.contains("status") ? have["status"] : Json();
        const Json want_status = want.contains("status") ? want["status"] : Json();
        have.erase("status");
        want.erase("status");
        const auto object_differs = FirstDifference(have, want, "");
        const auto status_differs = want_status.is_null()
                                        ? std::nullopt
                                        : FirstDifference(have_status, want_status, "status");
        if (!object_differs && !status_differs) return std::string("unchanged");
        if (!overwrite_) {
          return Status::AlreadyExists(
              fmt::format("it exists and differs at {}: left as it is (--overwrite replaces it)",
                          object_differs ? *object_differs : *status_differs));
        }
        if (object_differs) {
          Resource next = doc;
          next.set_resource_version(stored->resource_version());
          writes.push_back(store::Write::Update(std::move(next)));
        }
        if (status_differs) writes.push_back(store::Write::UpdateStatus(doc));
        done = "updated";
      }
      auto committed = store_.Commit(std::move(writes));
      if (committed.ok()) return done;
      const Status& s = committed.status();
      if ((s.code() == StatusCode::kAlreadyExists || s.code() == StatusCode::kConflict) &&
          attempt < kAttempts) {
        continue;
      }
      if (s.code() == StatusCode::kNotFound) {
        // A cluster without the kind's CustomResourceDefinition answers 404 to every request of
        // the kind, listing included; a missing namespace only to the write.
        auto listed = store_.List({ref.kind, ref.namespace_name});
        if (!listed.ok() && listed.status().code() == StatusCode::kNotFound) {
          unserved_.insert(ref.kind);
          return Unserved(ref.kind);
        }
      }
      return s;
    }
  }

  static Status Unserved(const GroupKind& kind) {
    if (kind.group == resource::kHopGroup) {
      return Status::NotFound(
          fmt::format("the target does not serve {}: install hop's CRDs first "
                      "(hop manifests | kubectl apply -f -)",
                      kind.ToString()));
    }
    return Status::NotFound(fmt::format(
        "the target does not serve {}: install its CustomResourceDefinition first (hop's own "
        "come with hop manifests | kubectl apply -f -)",
        kind.ToString()));
  }

  store::Store& store_;
  const bool overwrite_;
  std::ostream& out_;
  std::ostream& err_;
  std::map<std::string, int> counts_;
  int failed_ = 0;
  std::set<GroupKind> unserved_;
};

}  // namespace

int RunImport(const ImportOptions& options, store::Store& store, std::ostream& out,
              std::ostream& err) {
  if (options.file.empty()) {
    err << "hop import: give the stream to import with -f FILE, or -f - for standard input\n";
    return 2;
  }
  const bool stdin_input = options.file == "-";
  const std::string source = EscapeForTerminal(stdin_input ? "<stdin>" : options.file);
  const int fd = stdin_input ? STDIN_FILENO : ::open(options.file.c_str(), O_RDONLY | O_CLOEXEC);
  // A file that cannot be opened, or a directory, is a usage error (docs/resources.md), as for
  // every command that reads a file named on its command line.
  if (fd < 0) {
    err << "hop import: cannot read " << source << ": " << strerror(errno) << "\n";
    return 2;
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!stdin_input) ::close(fd);
    err << "hop import: " << source << " is a directory\n";
    return 2;
  }
  const size_t limit = CurrentLimits().max_request_bytes;
  DocumentReader reader(fd, limit);
  Importer importer(store, options.overwrite, out, err);
  int rc = 0;
  int number = 0;
  DocumentReader::Document chunk;
  while (true) {
    auto next = reader.Next(&chunk);
    if (!next.ok()) {
      err << "hop import: " << source << ": " << EscapeForTerminal(next.status().message()) << "\n";
      rc = 1;
      break;
    }
    if (!*next) break;
    const std::string at = fmt::format("{}, the document at line {}", source, chunk.line);
    if (chunk.too_large) {
      importer.Fail(at, Status::InvalidArgument(
                            fmt::format("it is larger than {}, the most hop reads as one document "
                                        "(HOP_MAX_REQUEST_BYTES)",
                                        FormatByteSize(limit))));
      ++number;
      continue;
    }
    auto docs = ParseYamlDocuments(chunk.text, at);
    if (!docs.ok()) {
      ++number;
      importer.Fail(fmt::format("document {}", number), docs.status());
      continue;
    }
    for (Json& doc : *docs) {
      ++number;
      importer.Import(std::move(doc), fmt::format("document {} ({})", number, at));
    }
  }
  if (!stdin_input) ::close(fd);
  importer.PrintSummary();
  return rc != 0 || importer.failed() > 0 ? 1 : 0;
}

}  // namespace hop::cli
