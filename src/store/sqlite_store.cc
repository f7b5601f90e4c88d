// The embedded store on SQLite. Layout (format 1):
//
//   meta(key, value)          revision: the global revision; compacted: events at or below it
//                             were dropped from the log
//   objects(id, grp, kind, namespace, name, uid, revision, body)   body = the object's JSON
//   labels(object_id, key, value)    for label-selected lists
//   owners(owner_uid, object_id)     for garbage collection by ownerReferences
//   events(revision, type, grp, kind, namespace, name, body)       the watch log
//   object_keys(key, object_id)      (format 2) the index keys of each object, as its kind
//                                    gives them (resource::KindInfo::index_keys), for lists of
//                                    one key; meta `keys` is the version of the key functions
//                                    they were computed with
//
// PRAGMA user_version holds the format version. Writes go through one connection guarded by a
// mutex and take the database's write lock up front (BEGIN IMMEDIATE), so concurrent processes
// queue rather than deadlock. Concurrent Commit calls are grouped: one leader commits every
// batch queued by then in one transaction (one fsync), each batch in its own SAVEPOINT (docs/
// store.md, "Group commit"). Reads use the writer's connection when no commit holds it, else a
// second, read-only connection, so that they do not wait for a commit's fsync. Watches at the
// same place in the event log share one read of it.
//
// Wake-ups across processes (docs/store.md, "Watches across processes"): after each commit that
// wrote something, the writer touches `hop.db-wake` in the state directory (futimens: one system
// call, after the commit is visible to readers). A store with open watches runs one thread that
// waits on an inotify descriptor watching the state directory and wakes the watches when that
// file is touched by another writer; polling stays as a safety net for writers that do not touch
// it. A store's own touches carry a token in the file's access time, by which its thread tells
// them from other writers' and leaves its watches alone: a commit of this store woke them itself.
// A store opened with listen_after (a command's) starts that thread only that long after it
// opened; its watches poll until then.
#include "store/sqlite_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "common/files.h"
#include "common/issues.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/time.h"
#include "resource/json_parse.h"
#include "resource/kinds.h"
#include "resource/validation.h"
#include "store/sqlite.h"

namespace hop::store {

using resource::FindKind;
using resource::KindInfo;

namespace {

// Migrations, indexed by the version they produce. Never edit one that has shipped: append.
constexpr const char* kMigrations[] = {
    "",  // version 0: an empty file
    R"sql(
      CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
      INSERT INTO meta VALUES ('revision', 0), ('compacted', 0);
      CREATE TABLE objects (
        id INTEGER PRIMARY KEY,
        grp TEXT NOT NULL, kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
        uid TEXT NOT NULL, revision INTEGER NOT NULL, body TEXT NOT NULL,
        UNIQUE (grp, kind, namespace, name)) STRICT;
      CREATE INDEX objects_uid ON objects (uid);
      CREATE TABLE labels (
        object_id INTEGER NOT NULL REFERENCES objects (id) ON DELETE CASCADE,
        key TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (object_id, key)) STRICT, WITHOUT ROWID;
      CREATE INDEX labels_key_value ON labels (key, value, object_id);
      CREATE TABLE owners (
        owner_uid TEXT NOT NULL,
        object_id INTEGER NOT NULL REFERENCES objects (id) ON DELETE CASCADE,
        PRIMARY KEY (owner_uid, object_id)) STRICT, WITHOUT ROWID;
      CREATE INDEX owners_object ON owners (object_id);
      CREATE TABLE events (
        revision INTEGER PRIMARY KEY, type INTEGER NOT NULL,
        grp TEXT NOT NULL, kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
        body TEXT NOT NULL) STRICT;
    )sql",
    R"sql(
      CREATE TABLE object_keys (
        key TEXT NOT NULL,
        object_id INTEGER NOT NULL REFERENCES objects (id) ON DELETE CASCADE,
        PRIMARY KEY (key, object_id)) STRICT, WITHOUT ROWID;
      CREATE INDEX object_keys_object ON object_keys (object_id);
      INSERT INTO meta VALUES ('keys', 0);
    )sql",
};

// The version of the kinds' index-key functions. Bump it when one changes: opening a store
// whose keys were computed with another version computes them again.
constexpr int64_t kIndexKeysVersion = 2;
static_assert(std::size(kMigrations) == SqliteStore::kFormatVersion + 1);

std::string NewUid() {
  static std::mutex mu;
  static std::mt19937_64 rng{
      std::random_device{}() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())};
  uint64_t a, b;
  {
    std::lock_guard<std::mutex> lock(mu);
    a = rng();
    b = rng();
  }
  // RFC 4122 version 4, variant 1.
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xffff,
                     b >> 48, b & 0xffffffffffffULL);
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// The body kept for `r`, which must fit the object limit (common/limits.h), as Kubernetes
// refuses objects past 1.5 MiB.
Result<std::string> Body(const Resource& r) {
  std::string body = Dump(r.json());
  const size_t limit = CurrentLimits().max_object_bytes;
  if (body.size() > limit) {
    return Status::InvalidArgument(
        fmt::format("{} is {} bytes as JSON, more than the {} an object may be "
                    "(HOP_MAX_OBJECT_BYTES)",
                    r.Describe(), body.size(), FormatByteSize(limit)));
  }
  return body;
}

// The parts of an object that determine its generation: everything but metadata and status.
bool SameContent(const Json& a, const Json& b) {
  auto stripped = [](const Json& j) {
    Json c = j;
    c.erase("metadata");
    c.erase("status");
    return c;
  };
  return resource::SameJson(stripped(a), stripped(b));
}

bool NamespacedKind(const GroupKind& gk) {
  const KindInfo* k = FindKind(gk);
  return k == nullptr || k->namespaced;
}

bool HasStatusSubresource(const GroupKind& gk) {
  const KindInfo* k = FindKind(gk);
  return k != nullptr && k->status_subresource;
}

int EventCode(EventType t) { return static_cast<int>(t); }

struct StoredObject {
  int64_t id = 0;
  int64_t revision = 0;
  Resource object;
};

// The file a writer touches after each commit, in the state directory, for watchers in other
// processes.
constexpr const char* kWakeFile = "hop.db-wake";

// How long a commit of CommitLazily batches only waits for another commit's fsync to cover it
// before the syncer syncs it (docs/store.md, "Writing and syncing").
constexpr std::chrono::milliseconds kLazySync{100};

struct Shared;

// Waits for writers of other processes to touch the wake file, and wakes the watches of one
// store when they do: one thread and two descriptors (inotify, and an eventfd that stops it),
// which exist only while the store has open watches.
class WakeListener {
 public:
  // nullptr when inotify cannot be used (no more inotify instances, an unwatchable directory):
  // the watches then poll.
  static std::unique_ptr<WakeListener> Start(const std::string& dir, Shared* shared);
  ~WakeListener();
  WakeListener(const WakeListener&) = delete;
  WakeListener& operator=(const WakeListener&) = delete;
  // False once the directory can no longer be watched (it was removed).
  bool alive() const { return alive_.load(); }

 private:
  WakeListener(int inotify_fd, int stop_fd, Shared* shared)
      : inotify_fd_(inotify_fd), stop_fd_(stop_fd), shared_(shared) {}
  void Run();

  int inotify_fd_;
  int stop_fd_;
  Shared* shared_;
  std::atomic<bool> alive_{true};
  std::thread thread_;
};

// Where one watch is in the event log, and the events read for it that it has not returned.
// Guarded by Shared::mu.
struct WatchPosition {
  WatchOptions options;
  int64_t cursor = 0;        // every event up to here is in `buffer` or was returned
  std::deque<Event> buffer;  // read, not returned yet, in revision order
  bool too_old = false;      // the log no longer reached back to `cursor`
  // Its Next waits on `cv` (with Shared::mu) while `waiting`. Each watch has its own, so that a
  // wake-up reaches only the watches it concerns (Shared::WakeReadersLocked).
  std::condition_variable cv;
  bool waiting = false;

  bool Wants(std::string_view group, std::string_view kind, std::string_view ns) const {
    return (!options.kind || (options.kind->group == group && options.kind->kind == kind)) &&
           (options.namespace_name.empty() || options.namespace_name == ns);
  }
};

// State shared between the store and its watches, which may outlive it.
struct Shared {
  std::mutex mu;
  // Bumped by every write of this process and by every wake-up from another process.
  uint64_t wakes = 0;
  bool closed = false;
  SqliteStore::Impl* impl = nullptr;  // null once the store is gone
  std::string dir;                    // the state directory
  int watches = 0;                    // watches not yet destroyed
  // The watches not yet destroyed: one read of the log serves every watch at the same cursor
  // (SqliteWatch::Next).
  std::vector<WatchPosition*> positions;
  // What the latest read of the log found: the store's revision then, and `wakes` then. Until
  // the next wake, a watch whose cursor has reached that revision has nothing new to read (a
  // watch still looks when its poll interval passes without a wake: the safety net).
  int64_t known_revision = -1;
  uint64_t known_at_wakes = 0;
  // The token this store's touches of the wake file set as its access time: the seconds are the
  // store's, drawn at random, and the nanoseconds count its touches. The count is set before
  // each touch, so a file that shows the latest was touched by this store last.
  const int64_t touch_seconds = NewTouchSeconds();
  std::atomic<int64_t> last_touch{-1};
  // Wake-ups of the watches by the listener: writes of other writers.
  std::atomic<int64_t> wakes_from_others{0};
  // When the watches may start the listener (SqliteStoreOptions::listen_after), and whether they
  // tried since the first of them opened: inotify could not be used, and they poll.
  std::chrono::steady_clock::time_point listen_from;
  bool listen_tried = false;
  // From the first wait of a watch at or after listen_from until the last watch goes, unless
  // inotify could not be used. Declared last: it goes first, and its thread, which locks `mu`,
  // is joined before `mu` goes.
  std::unique_ptr<WakeListener> listener;

  // Starts the listener if the watches should have one and do not. The watches then look at the
  // log once more, as after a write: another process may have committed after their last read
  // and before the listener began. With `mu` held.
  void ListenLocked(std::chrono::steady_clock::time_point now) {
    if (listen_tried || watches == 0 || now < listen_from) return;
    listen_tried = true;
    listener = WakeListener::Start(dir, this);
    if (!listener) return;
    ++wakes;
    WakeReadersLocked();
  }

  // Whether the wake file was last touched by this store: then every touch before it was made
  // after its writer's commit, so before this store's own commit woke the watches, whose reads
  // see that commit too (docs/store.md, "Watches across processes").
  // The count is set before its touch, so a file that shows the count before it was touched by
  // this store last too, with its next touch under way (another writer's touch in between would
  // show that writer's token).
  bool LastTouchWasOwn() const {
    struct stat st;
    if (::stat((std::filesystem::path(dir) / kWakeFile).c_str(), &st) != 0) return false;
    const int64_t last = last_touch.load();
    return st.st_atim.tv_sec == touch_seconds &&
           (st.st_atim.tv_nsec == last || st.st_atim.tv_nsec == (last + 999999999) % 1000000000);
  }

  // A second count in [2^20, 2^31): a date between 1970 and 2038, which every file system hop
  // runs on can store.
  static int64_t NewTouchSeconds() {
    std::random_device seed;
    const uint64_t r =
        (static_cast<uint64_t>(seed()) << 32) ^ seed() ^ static_cast<uint64_t>(::getpid());
    return static_cast<int64_t>((1u << 20) + r % ((1u << 31) - (1u << 20)));
  }

  // After `wakes` moved: wakes one waiting watch for each cursor at which watches wait. It reads
  // the log for every watch at its cursor and wakes those it found events for; the others sleep
  // on, so a write costs the watches of the kinds it did not touch no wake-up. With `mu` held.
  void WakeReadersLocked() {
    for (size_t i = 0; i < positions.size(); ++i) {
      const WatchPosition* p = positions[i];
      if (!p->waiting) continue;
      bool woken = false;  // one waiting at the same cursor already was
      for (size_t j = 0; j < i && !woken; ++j) {
        woken = positions[j]->waiting && positions[j]->cursor == p->cursor;
      }
      if (!woken) positions[i]->cv.notify_one();
    }
  }
  // Wakes every watch (the store is gone). With `mu` held.
  void WakeAllLocked() {
    for (WatchPosition* p : positions) p->cv.notify_all();
  }
};

std::unique_ptr<WakeListener> WakeListener::Start(const std::string& dir, Shared* shared) {
  const int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (in < 0) return nullptr;
  // Not IN_MODIFY: that would be every write to the WAL. The wake file is touched (IN_ATTRIB),
  // and may be created or replaced.
  if (inotify_add_watch(in, dir.c_str(), IN_ATTRIB | IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
    close(in);
    return nullptr;
  }
  const int stop = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop < 0) {
    close(in);
    return nullptr;
  }
  std::unique_ptr<WakeListener> listener(new WakeListener(in, stop, shared));
  listener->thread_ = std::thread([l = listener.get()] { l->Run(); });
  return listener;
}

WakeListener::~WakeListener() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(stop_fd_, &one, sizeof(one));
  thread_.join();
  close(inotify_fd_);
  close(stop_fd_);
}

void WakeListener::Run() {
  alignas(inotify_event) char buffer[4096];
  while (true) {
    pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents != 0) return;
    bool touched = false;  // the wake file's times changed
    bool wake = false;     // something else happened that may hide a write
    bool gone = false;
    while (true) {
      const ssize_t n = read(inotify_fd_, buffer, sizeof(buffer));
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buffer + at);
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
        if (e->mask & IN_Q_OVERFLOW) wake = true;  // events were lost: look
        if (e->mask & IN_IGNORED) gone = true;
        if (e->len > 0 && std::strcmp(e->name, kWakeFile) == 0) {
          if (e->mask & IN_ATTRIB) {
            touched = true;
          } else {
            wake = true;  // created or replaced
          }
        }
      }
    }
    // A touch this store made last needs no wake-up: its commit woke the watches already.
    if (touched && !wake && !gone && shared_->LastTouchWasOwn()) touched = false;
    if (touched || wake || gone) {
      std::lock_guard<std::mutex> lock(shared_->mu);
      ++shared_->wakes;
      ++shared_->wakes_from_others;
      if (gone) alive_ = false;
      shared_->WakeReadersLocked();
    }
    if (gone) break;
  }
  alive_ = false;
  // Nothing to wait for but the stop.
  pollfd stop = {stop_fd_, POLLIN, 0};
  while (poll(&stop, 1, -1) < 0 && errno == EINTR) {
  }
}

}  // namespace

// A cached prepared statement, reset when the handle goes out of scope so that no statement
// stays active (and holds a read snapshot) after its use.
class CachedStatement {
 public:
  explicit CachedStatement(sqlite::Statement* st) : st_(st) {}
  ~CachedStatement() {
    if (st_) st_->Reset();
  }
  CachedStatement(CachedStatement&& other) noexcept : st_(std::exchange(other.st_, nullptr)) {}
  CachedStatement(const CachedStatement&) = delete;
  CachedStatement& operator=(const CachedStatement&) = delete;
  sqlite::Statement& operator*() { return *st_; }
  sqlite::Statement* operator->() { return st_; }

 private:
  sqlite::Statement* st_;
};

// One connection to the store's file and the statements prepared on it; used only under the
// mutex that guards it.
struct Connection {
  sqlite::Database db;
  std::map<std::string, sqlite::Statement, std::less<>> statements;

  // A prepared statement for fixed SQL text, prepared once per connection. Callers finish using
  // one before asking for the same text again (nothing here recurses while a statement steps).
  Result<CachedStatement> Prepared(const char* sql) {
    auto it = statements.find(sql);
    if (it == statements.end()) {
      HOP_ASSIGN_OR_RETURN(sqlite::Statement st, db.Prepare(sql));
      it = statements.emplace(sql, std::move(st)).first;
    }
    it->second.Reset();  // an earlier handle of the same text may not be gone yet
    return CachedStatement(&it->second);
  }

  void Close() {
    statements.clear();
    db = sqlite::Database();
  }
};

class SqliteStore::Impl {
 public:
  Impl(std::string path, SqliteStoreOptions options)
      : path_(std::move(path)), options_(options), shared_(std::make_shared<Shared>()) {
    shared_->impl = this;
    shared_->dir = std::filesystem::path(path_).parent_path().string();
    if (shared_->dir.empty()) shared_->dir = ".";
    shared_->listen_from = std::chrono::steady_clock::now() + options_.listen_after;
  }

  ~Impl() {
    StopCheckpointer();
    StopSyncer();
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->closed = true;
      shared_->impl = nullptr;
      shared_->WakeAllLocked();
    }
    if (wake_fd_ >= 0) close(wake_fd_);
    if (wal_fd_ >= 0) close(wal_fd_);
  }

  // Opens the store file, creating a new store when the state directory has none. A file that
  // exists is used only when it is a hop store: an empty file or another database is refused,
  // never taken for a new store (docs/store.md).
  Status Open() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string dir = fs::path(path_).parent_path().string();
    if (!dir.empty()) HOP_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
    const fs::file_status file = fs::status(path_, ec);
    if (file.type() == fs::file_type::not_found) {
      HOP_RETURN_IF_ERROR(CreateStoreFile());
    } else if (file.type() != fs::file_type::regular) {
      return NotAStore("is not a regular file");
    } else if (fs::file_size(path_, ec) == 0 && !ec) {
      return NotAStore("is empty (0 bytes)");
    }
    HOP_RETURN_IF_ERROR(Connect());
    HOP_RETURN_IF_ERROR(Migrate());
    // The file the connections have open, which Health looks for under its name.
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) {
      return Status::Unavailable(fmt::format("cannot look at {}: {}", path_, std::strerror(errno)));
    }
    file_dev_ = st.st_dev;
    file_ino_ = st.st_ino;
    CheckpointInBackground();
    return Status::OK();
  }

  // Store::Health: the failed fsync if one failed, else whether `hop.db` is still the file the
  // connections have open. A file that was removed (the state directory with it, say) or that
  // another took the place of still takes this process's writes, but they would be lost: no
  // one opening the store again would see them (docs/store.md, "Health").
  Status Health() {
    {
      std::lock_guard<std::mutex> lock(sync_mu_);
      if (!sync_error_.ok()) return sync_error_;
    }
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) {
      const int error = errno;
      if (error == ENOENT || error == ENOTDIR) {
        return Status::Unavailable(fmt::format(
            "{} was removed while this process had the store open (the state directory {} or "
            "the file was deleted): what it writes now would be lost, so it writes nothing more",
            path_, shared_->dir));
      }
      return Status::Unavailable(
          fmt::format("cannot look at {}, the store's file: {}", path_, std::strerror(error)));
    }
    if (st.st_dev != file_dev_ || st.st_ino != file_ino_) {
      return Status::Unavailable(fmt::format(
          "{} is no longer the file this process opened (it was replaced or moved): what it "
          "writes now would be lost, so it writes nothing more",
          path_));
    }
    return Status::OK();
  }

  // Store::Writable: the failure of the last commit that found no space, while no commit has
  // succeeded since and the state directory has not been seen to have room again. Nothing else
  // would mend it for a process that is not ready and so is sent no writes; so, at most once a
  // second, it asks the file system for kRoomToWrite in the state directory, as a file of its
  // own that it removes at once (docs/store.md, "Health").
  Status Writable() {
    std::lock_guard<std::mutex> lock(space_mu_);
    if (no_space_.ok()) return no_space_;
    const auto now = std::chrono::steady_clock::now();
    if (now - space_looked_at_ < kSpaceLookInterval) return no_space_;
    space_looked_at_ = now;
    if (HasRoom()) no_space_ = Status::OK();
    return no_space_;
  }

  static constexpr off_t kRoomToWrite = 1 << 20;
  static constexpr std::chrono::seconds kSpaceLookInterval{1};

  // Whether kRoomToWrite bytes can be allocated in the state directory now: a file without a
  // name where the file system makes them (O_TMPFILE), else one named and removed at once.
  bool HasRoom() const {
    int fd = ::open(shared_->dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
      const std::string probe =
          (std::filesystem::path(shared_->dir) / fmt::format(".hop-room-{}", ::getpid())).string();
      fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0) return false;
      ::unlink(probe.c_str());
    }
    const bool room = ::posix_fallocate(fd, 0, kRoomToWrite) == 0;
    ::close(fd);
    return room;
  }

  Status NotAStore(std::string_view what) const {
    return Status::InvalidArgument(fmt::format(
        "{} {}: it is not a hop store. Move it aside to start a new, empty store, or restore it "
        "from a backup",
        path_, what));
  }

  Status Connect() {
    HOP_ASSIGN_OR_RETURN(db_, sqlite::Database::Open(path_));
    // The store is private (ARCHITECTURE.md §4.16); SQLite gives its WAL and shared-memory
    // files the database file's mode when it creates them, and older ones are made private too.
    MakePrivate(path_);
    db_.WaitWhenBusy(std::chrono::seconds(10));
    HOP_RETURN_IF_ERROR(UseWal());
    MakePrivate(path_ + "-wal");
    MakePrivate(path_ + "-shm");
    HOP_RETURN_IF_ERROR(
        // A commit is written with SQLite's sync off, and made durable by SyncWal after the
        // write lock is released (docs/store.md, "Group commit"); NORMAL still syncs SQLite's
        // checkpoints.
        db_.Exec(options_.durable ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=OFF"));
    return db_.Exec("PRAGMA foreign_keys=ON");
  }

  // Builds a new store in a file of its own and links it into place, so that `hop.db` never
  // exists half-made (a process killed while creating it leaves only the temporary file) and two
  // processes creating the store at once end up sharing one.
  Status CreateStoreFile() {
    const std::string final_path = path_;
    const std::string temp = fmt::format("{}.new-{}-{}", final_path, ::getpid(), NewUid());
    path_ = temp;
    Status built = Connect();
    if (built.ok()) built = Migrate();
    writer_.Close();  // closing checkpoints the log into the file
    path_ = final_path;
    if (built.ok() && ::link(temp.c_str(), final_path.c_str()) != 0 && errno != EEXIST) {
      built = Status::Unavailable(
          fmt::format("cannot create {}: {}", final_path, std::strerror(errno)));
    }
    for (const char* suffix : {"", "-wal", "-shm", "-journal", "-wal-durable"}) {
      ::unlink((temp + suffix).c_str());
    }
    RemoveAbandonedStoreFiles(final_path);
    return built;
  }

  // Puts the file in WAL mode, which it keeps. Switching needs the file to itself, and SQLite
  // reports a busy file at once instead of waiting, so several processes opening a new store at
  // the same moment retry for the busy timeout (10 s) before giving up.
  Status UseWal() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      {  // (the statement is reset at the end of the block: no read may be open below)
        auto mode = Prepared("PRAGMA journal_mode");
        if (mode.ok()) {
          auto row = (*mode)->Step();
          if (row.ok() && *row && (*mode)->ColumnText(0) == "wal") return Status::OK();
        }
      }
      Status s = db_.Exec("PRAGMA journal_mode=WAL");
      // Only a busy file may come free; a read-only or full state directory will not.
      const int primary = sqlite3_extended_errcode(db_.handle()) & 0xff;
      if (s.ok() || (primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
          std::chrono::steady_clock::now() >= deadline) {
        return s;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // Checkpoints (docs/store.md, "Checkpoints"). SQLite's automatic checkpoint runs inside the
  // COMMIT that takes the WAL past 1,000 pages, in the committing thread, holding the write lock
  // while it copies the pages into the database file and syncs both files: every 20 or so
  // statements of a script, one of them waited for it. Instead, that commit hands the work to a
  // thread of this store's, which checkpoints on a connection of its own while commits go on.
  // A checkpoint that does not catch up with the writers cannot let the WAL start over, so a
  // WAL that still grows to kForegroundCheckpointPages is checkpointed by the commit that took
  // it there, as SQLite would: most of its pages are in the database file by then.
  static constexpr int kBackgroundCheckpointPages = 1000;
  static constexpr int kForegroundCheckpointPages = 4000;

  void CheckpointInBackground() { sqlite3_wal_hook(db_.handle(), &Impl::AfterCommit, this); }

  // SQLite's hook after each commit on the writer's connection, with the WAL's size in pages.
  static int AfterCommit(void* self, sqlite3* db, const char* name, int pages) {
    auto* impl = static_cast<Impl*>(self);
    if (pages >= kForegroundCheckpointPages) {
      // As SQLite's own hook does; a checkpoint under way elsewhere makes this one return BUSY
      // at once, and the next commit tries again.
      (void)sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    } else {
      // Pages already in the database file need no copy: it is due once 1,000 more are written
      // than the last checkpoint left behind (and the WAL started over if it is shorter).
      int64_t copied = impl->checkpointed_pages_.load(std::memory_order_relaxed);
      if (pages < copied) copied = 0;
      if (pages - copied >= kBackgroundCheckpointPages) impl->WantCheckpoint();
    }
    return SQLITE_OK;
  }

  void WantCheckpoint() {
    std::lock_guard<std::mutex> lock(checkpoint_mu_);
    if (checkpoint_stop_) return;
    checkpoint_wanted_ = true;
    if (!checkpointer_.joinable()) {
      checkpointer_ = std::thread([this] { CheckpointLoop(); });
    }
    checkpoint_cv_.notify_one();
  }

  void CheckpointLoop() {
    sqlite::Database db;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(checkpoint_mu_);
        checkpoint_cv_.wait(lock, [&] { return checkpoint_wanted_ || checkpoint_stop_; });
        if (checkpoint_stop_) return;
        checkpoint_wanted_ = false;
      }
      if (db.handle() == nullptr) {
        auto opened = sqlite::Database::Open(path_);
        // Without a connection of its own, the foreground checkpoints keep the WAL bounded.
        if (!opened.ok()) {
          log::Warn("{}: cannot open a connection to checkpoint on: {}", path_,
                    opened.status().ToString());
          return;
        }
        db = std::move(*opened);
        // The writer's setting: NORMAL syncs the WAL and the database file around the copy.
        (void)db.Exec(options_.durable ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=OFF");
      }
      int log = 0;
      int copied = 0;
      if (sqlite3_wal_checkpoint_v2(db.handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log,
                                    &copied) == SQLITE_OK) {
        checkpointed_pages_.store(copied, std::memory_order_relaxed);
      }
      background_checkpoints_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void StopCheckpointer() {
    {
      std::lock_guard<std::mutex> lock(checkpoint_mu_);
      checkpoint_stop_ = true;
      checkpoint_cv_.notify_one();
    }
    if (checkpointer_.joinable()) checkpointer_.join();
  }

  // Removes the temporary files of creations whose process is gone (killed while creating the
  // store); files of a creation still under way are left alone.
  static void RemoveAbandonedStoreFiles(const std::string& final_path) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(final_path).parent_path();
    const std::string prefix = fs::path(final_path).filename().string() + ".new-";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with(prefix)) continue;
      const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
    }
  }

  Status Migrate() {
    // A store that is current needs nothing written: a read says so without taking the write
    // lock, which would wait for another process's commit (hop serve's) to finish its fsync.
    HOP_ASSIGN_OR_RETURN(bool current, Current());
    if (current) return Status::OK();
    HOP_RETURN_IF_ERROR(db_.Exec("BEGIN IMMEDIATE"));
    auto version = UserVersion();
    if (!version.ok()) return Rollback(version.status());
    auto tables = CountTables();
    if (!tables.ok()) return Rollback(tables.status());
    if (*version == 0 && tables->all > 0) {
      return Rollback(NotAStore(
          fmt::format("is an SQLite database that hop did not create ({} tables)", tables->all)));
    }
    if (*version >= 1 && tables->ours < kFormat1Tables) {
      return Rollback(NotAStore(fmt::format("has format {} but lacks {} of its tables", *version,
                                            kFormat1Tables - tables->ours)));
    }
    if (*version > SqliteStore::kFormatVersion) {
      return Rollback(Status::InvalidArgument(
          fmt::format("{} has format {}, newer than this hop understands ({}); upgrade hop", path_,
                      *version, SqliteStore::kFormatVersion)));
    }
    for (int v = static_cast<int>(*version) + 1; v <= SqliteStore::kFormatVersion; ++v) {
      Status s = db_.Exec(kMigrations[v]);
      if (s.ok()) s = db_.Exec(fmt::format("PRAGMA user_version={}", v));
      if (!s.ok())
        return Rollback(s.WithContext(fmt::format("migrating {} to format {}: ", path_, v)));
    }
    // A new store starts at revision 1, its first write being 2: no list ever reports revision 0,
    // which the Kubernetes API reads as "any state" rather than as a point to watch from, so that
    // a list-then-watch of an empty store, over the API or KubernetesStore, misses nothing
    // written between the two (docs/store.md, "Revisions").
    if (*version == 0) {
      if (Status s = db_.Exec("UPDATE meta SET value = 1 WHERE key = 'revision'"); !s.ok()) {
        return Rollback(s.WithContext(fmt::format("creating {}: ", path_)));
      }
    }
    if (Status s = IndexKeysCurrent(); !s.ok()) {
      return Rollback(s.WithContext(fmt::format("indexing {}: ", path_)));
    }
    return db_.Exec("COMMIT");
  }

  // Whether the file is a store of the current format whose index keys are current, read in one
  // read transaction; false when anything is to be done or checked under the write lock.
  Result<bool> Current() {
    bool current = false;
    HOP_RETURN_IF_ERROR(InReadTransaction(writer_, [&]() -> Status {
      HOP_ASSIGN_OR_RETURN(int64_t version, UserVersion());
      if (version != SqliteStore::kFormatVersion) return Status::OK();
      HOP_ASSIGN_OR_RETURN(TableCount tables, CountTables());
      if (tables.ours < kFormat1Tables) return Status::OK();
      HOP_ASSIGN_OR_RETURN(int64_t keys, ReadMeta("keys"));
      current = keys == kIndexKeysVersion;
      return Status::OK();
    }));
    return current;
  }

  // Computes every object's index keys again when they were computed by other key functions
  // (a store from before format 2, or from a hop with another kIndexKeysVersion).
  Status IndexKeysCurrent() {
    HOP_ASSIGN_OR_RETURN(int64_t version, ReadMeta("keys"));
    if (version == kIndexKeysVersion) return Status::OK();
    HOP_RETURN_IF_ERROR(db_.Exec("DELETE FROM object_keys"));
    std::vector<const KindInfo*> kinds = resource::HopKinds();
    kinds.insert(kinds.end(), resource::ExternalKinds().begin(), resource::ExternalKinds().end());
    for (const KindInfo* info : kinds) {
      if (info->index_keys == nullptr) continue;
      HOP_ASSIGN_OR_RETURN(auto query,
                           db_.Prepare("SELECT id, body FROM objects WHERE grp = ? AND kind = ?"));
      query.Bind(1, info->group).Bind(2, info->kind);
      while (true) {
        HOP_ASSIGN_OR_RETURN(bool row, query.Step());
        if (!row) break;
        HOP_ASSIGN_OR_RETURN(Resource r, Decode(query.ColumnText(1)));
        HOP_RETURN_IF_ERROR(WriteKeys(query.ColumnInt(0), r));
      }
    }
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("UPDATE meta SET value = ? WHERE key = 'keys'"));
    st->Bind(1, kIndexKeysVersion);
    return st->Run();
  }

  Status RewriteKeys(int64_t id, const Resource& r) {
    const KindInfo* info = FindKind(r.group_kind());
    if (info == nullptr || info->index_keys == nullptr) return Status::OK();
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("DELETE FROM object_keys WHERE object_id = ?"));
    st->Bind(1, id);
    HOP_RETURN_IF_ERROR(st->Run());
    return WriteKeys(id, r);
  }

  Status WriteKeys(int64_t id, const Resource& r) {
    const KindInfo* info = FindKind(r.group_kind());
    if (info == nullptr || info->index_keys == nullptr) return Status::OK();
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("INSERT OR IGNORE INTO object_keys (key, object_id) "
                                           "VALUES (?, ?)"));
    for (const std::string& key : info->index_keys(r)) {
      st->Reset();
      st->Bind(1, key).Bind(2, id);
      HOP_RETURN_IF_ERROR(st->Run());
    }
    return Status::OK();
  }

  // The tables of format 1, which every later format keeps.
  static constexpr int64_t kFormat1Tables = 5;

  struct TableCount {
    int64_t ours = 0;  // of format 1's tables
    int64_t all = 0;
  };
  Result<TableCount> CountTables() {
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("SELECT count(*), count(CASE WHEN name IN ('meta', "
                                           "'objects', 'labels', 'owners', 'events') THEN 1 END) "
                                           "FROM sqlite_master WHERE type = 'table'"));
    HOP_ASSIGN_OR_RETURN(bool row, st->Step());
    TableCount count;
    if (row) {
      count.all = st->ColumnInt(0);
      count.ours = st->ColumnInt(1);
    }
    return count;
  }

  Result<int64_t> UserVersion() {
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("PRAGMA user_version"));
    HOP_ASSIGN_OR_RETURN(bool row, st->Step());
    return row ? st->ColumnInt(0) : 0;
  }

  Status Rollback(Status cause) {
    (void)db_.Exec("ROLLBACK");
    return cause;
  }

  // ---- reads ----

  Result<StoredObject> Load(const ObjectRef& ref) { return Load(writer_, ref); }

  Result<StoredObject> Load(Connection& c, const ObjectRef& ref) {
    HOP_ASSIGN_OR_RETURN(auto st,
                         c.Prepared("SELECT id, revision, body FROM objects WHERE grp = ? AND "
                                    "kind = ? AND namespace = ? AND name = ?"));
    st->Bind(1, ref.kind.group)
        .Bind(2, ref.kind.kind)
        .Bind(3, ref.namespace_name)
        .Bind(4, ref.name);
    HOP_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) return Status::NotFound(fmt::format("{} not found", ref.ToString()));
    StoredObject o;
    o.id = st->ColumnInt(0);
    o.revision = st->ColumnInt(1);
    HOP_ASSIGN_OR_RETURN(o.object, Decode(st->ColumnText(2)));
    return o;
  }

  Result<Resource> Decode(std::string_view body) {
    Json j = resource::ParseJsonOrDiscarded(body);
    if (j.is_discarded()) {
      return Status::Internal(fmt::format("{}: a stored object is not valid JSON", path_));
    }
    return Resource(std::move(j));
  }

  // Runs `read(connection)` on the writer's connection when no commit holds it, else on the
  // reader's (opened the first time it is needed), under the connection's mutex. A process that
  // never reads during a commit (a one-shot `hop -e`) opens one connection, not two.
  template <typename F>
  auto WithReadConnection(F&& read) -> decltype(read(std::declval<Connection&>())) {
    {
      std::unique_lock<std::mutex> writer(mu_, std::try_to_lock);
      if (writer.owns_lock()) return read(writer_);
    }
    std::lock_guard<std::mutex> lock(read_mu_);
    if (reader_.db.handle() == nullptr) {
      Status opened = OpenReaderLocked();
      if (!opened.ok()) return opened;
    }
    return read(reader_);
  }

  Status OpenReaderLocked() {
    HOP_ASSIGN_OR_RETURN(reader_.db, sqlite::Database::Open(path_));
    reader_.db.WaitWhenBusy(std::chrono::seconds(10));
    Status s = reader_.db.Exec("PRAGMA query_only=ON");
    if (!s.ok()) reader_.Close();
    return s;
  }

  // Runs `body` in a read transaction on `c`: one snapshot for all it reads.
  static Status InReadTransaction(Connection& c, const std::function<Status()>& body) {
    HOP_RETURN_IF_ERROR(Run(c, "BEGIN"));
    Status s = body();
    if (!s.ok()) {
      (void)Run(c, "ROLLBACK");
      return s;
    }
    return Run(c, "COMMIT");
  }

  // Runs a statement of fixed text that returns no rows, prepared once on `c` (BEGIN, COMMIT,
  // SAVEPOINT ...: run after every commit by every watch, they are worth not parsing each time).
  static Status Run(Connection& c, const char* sql) {
    HOP_ASSIGN_OR_RETURN(auto st, c.Prepared(sql));
    return st->Run();
  }

  Result<Resource> Get(ObjectRef ref) {
    Normalize(&ref);
    return WithReadConnection([&](Connection& c) -> Result<Resource> {
      HOP_ASSIGN_OR_RETURN(StoredObject o, Load(c, ref));
      return std::move(o.object);
    });
  }

  Result<ListResult> List(const ListOptions& options) {
    ListResult result;
    HOP_ASSIGN_OR_RETURN(result.revision, ListEach(options, [&](Resource r) {
                           result.items.push_back(std::move(r));
                         }));
    return result;
  }

  // Calls `visit` under a connection's mutex, inside the read transaction (so it must not call
  // the store).
  Result<int64_t> ListEach(const ListOptions& options, const std::function<void(Resource)>& visit) {
    // Requirements that name a key and values become index lookups; the first one drives the
    // query from the labels index. Every requirement is checked again on the decoded objects.
    using Op = resource::LabelSelector::Requirement::Op;
    std::string from = "objects o";
    std::string where = " WHERE 1";
    std::vector<std::string> binds;
    auto values_list = [&](const std::vector<std::string>& values) {
      std::string list;
      for (size_t i = 0; i < values.size(); ++i) {
        list += i == 0 ? "?" : ", ?";
        binds.push_back(values[i]);
      }
      return list;
    };
    bool driven = false;
    if (!options.index_key.empty()) {
      // CROSS JOIN makes SQLite keep this order: the key's rows first, objects by id.
      from = "object_keys k CROSS JOIN objects o ON o.id = k.object_id";
      where += " AND k.key = ?";
      binds.push_back(options.index_key);
      driven = true;
    }
    for (const auto& req : options.selector.requirements()) {
      if (req.op != Op::kEquals && req.op != Op::kIn && req.op != Op::kExists) continue;
      if (!driven) {
        // CROSS JOIN makes SQLite keep this order: labels first, objects by id.
        from = "labels l CROSS JOIN objects o ON o.id = l.object_id";
        where += " AND l.key = ?";
        binds.push_back(req.key);
        if (req.op != Op::kExists) where += " AND l.value IN (" + values_list(req.values) + ")";
        driven = true;
      } else if (req.op == Op::kExists) {
        where += " AND o.id IN (SELECT object_id FROM labels WHERE key = ?)";
        binds.push_back(req.key);
      } else {
        where += " AND o.id IN (SELECT object_id FROM labels WHERE key = ?";
        binds.push_back(req.key);
        where += " AND value IN (" + values_list(req.values) + "))";
      }
    }
    if (options.kind) {
      where += " AND o.grp = ? AND o.kind = ?";
      binds.push_back(options.kind->group);
      binds.push_back(options.kind->kind);
    }
    if (!options.namespace_name.empty()) {
      where += " AND o.namespace = ?";
      binds.push_back(options.namespace_name);
    }
    std::string sql = "SELECT o.body FROM " + from + where;
    sql += " ORDER BY o.grp, o.kind, o.namespace, o.name";
    int64_t revision = 0;
    HOP_RETURN_IF_ERROR(WithReadConnection([&](Connection& c) {
      return InReadTransaction(c, [&]() -> Status {
        HOP_ASSIGN_OR_RETURN(auto query, c.db.Prepare(sql));
        for (size_t i = 0; i < binds.size(); ++i) query.Bind(static_cast<int>(i + 1), binds[i]);
        while (true) {
          HOP_ASSIGN_OR_RETURN(bool row, query.Step());
          if (!row) break;
          HOP_ASSIGN_OR_RETURN(Resource r, Decode(query.ColumnText(0)));
          if (!options.selector.empty() && !options.selector.Matches(r.labels())) continue;
          visit(std::move(r));
        }
        HOP_ASSIGN_OR_RETURN(revision, ReadMeta(c, "revision"));
        return Status::OK();
      });
    }));
    return revision;
  }

  Result<int64_t> ReadMeta(std::string_view key) { return ReadMeta(writer_, key); }

  static Result<int64_t> ReadMeta(Connection& c, std::string_view key) {
    HOP_ASSIGN_OR_RETURN(auto st, c.Prepared("SELECT value FROM meta WHERE key = ?"));
    st->Bind(1, key);
    HOP_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) return Status::Internal(fmt::format("meta key {} is missing", key));
    return st->ColumnInt(0);
  }

  Status WriteMeta(std::string_view key, int64_t value) {
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("UPDATE meta SET value = ? WHERE key = ?"));
    st->Bind(1, value).Bind(2, key);
    return st->Run();
  }

  Result<int64_t> Revision() {
    return WithReadConnection([&](Connection& c) { return ReadMeta(c, "revision"); });
  }

  Result<Store::Stats> ReadStats() {
    Store::Stats out;
    HOP_RETURN_IF_ERROR(WithReadConnection([&](Connection& c) {
      return InReadTransaction(c, [&]() -> Status {
        HOP_ASSIGN_OR_RETURN(out.revision, ReadMeta(c, "revision"));
        HOP_ASSIGN_OR_RETURN(auto count, c.db.Prepare("SELECT count(*) FROM objects"));
        HOP_ASSIGN_OR_RETURN(bool row, count.Step());
        if (row) out.objects = count.ColumnInt(0);
        HOP_ASSIGN_OR_RETURN(auto size,
                             c.db.Prepare("SELECT page_count * page_size FROM pragma_page_count(), "
                                          "pragma_page_size()"));
        HOP_ASSIGN_OR_RETURN(row, size.Step());
        if (row) out.bytes = size.ColumnInt(0);
        return Status::OK();
      });
    }));
    return out;
  }

  // ---- writes ----

  // Fills in the namespace of a namespaced kind when it was left out.
  static void Normalize(ObjectRef* ref) {
    if (NamespacedKind(ref->kind)) {
      if (ref->namespace_name.empty())
        ref->namespace_name = std::string(resource::kDefaultNamespace);
    } else {
      ref->namespace_name.clear();
    }
  }

  static void NormalizeNamespace(Resource* r) {
    ObjectRef ref = RefOf(*r);
    Normalize(&ref);
    if (ref.namespace_name.empty()) {
      r->mutable_json()["metadata"].erase("namespace");
    } else {
      r->set_namespace(ref.namespace_name);
    }
  }

  // One write transaction: the batch's events, collected to be announced after commit.
  struct Txn {
    int64_t revision = 0;
    int64_t first_revision = 0;
    SystemTime now;
    std::string now_text;        // now, as RFC 3339
    std::set<int64_t> deleting;  // object ids being deleted, against ownership cycles
  };

  // When a batch is reported to its committer, and when it is made durable if no one waits.
  enum class Report {
    kDurable,        // reported once durable (Commit)
    kWritten,        // reported once written; the syncer starts its fsync at once (CommitWritten)
    kWrittenLazily,  // reported once written; made durable with others' fsyncs (CommitLazily)
  };

  // One caller's batch waiting in the commit queue, and what became of it.
  struct PendingBatch {
    std::vector<Write> writes;
    Result<std::vector<Resource>> result = Status::Internal("the batch was not committed");
    bool own_error = false;  // `result` is the batch's own failure
    bool taken = false;      // guarded by queue_mu_: a leader is committing it
    bool done = false;       // guarded by queue_mu_
    Report report = Report::kDurable;
    int64_t written = 0;     // the commit that wrote it (WaitDurable's mark), if it wrote
  };

  // Group commit (docs/store.md, "Group commit"): a caller queues its batch; whoever finds no
  // commit under way becomes the leader and commits every batch queued by then in one write
  // transaction with one fsync, each batch in a SAVEPOINT of its own, so that a batch that
  // fails is rolled back alone and the others still commit. The others wait meanwhile and take
  // their own result. Batches are applied in the order they were queued, each seeing the writes
  // of those before it, as if each had been committed alone in that order.
  // A batch reported once written sets `*durable_mark` to what WaitDurable then takes.
  Result<std::vector<Resource>> Commit(std::vector<Write> writes, Report report = Report::kDurable,
                                       int64_t* durable_mark = nullptr) {
    PendingBatch mine;
    mine.writes = std::move(writes);
    mine.report = report;
    std::unique_lock<std::mutex> queued(queue_mu_);
    queue_.push_back(&mine);
    while (!mine.done) {
      // A batch another leader took is done when that leader has made it durable.
      if (committing_ || mine.taken) {
        queue_cv_.wait(queued);
        continue;
      }
      committing_ = true;
      std::vector<PendingBatch*> group(queue_.begin(), queue_.end());
      queue_.clear();
      for (PendingBatch* b : group) b->taken = true;
      queued.unlock();
      int64_t written = 0;  // the group's place among the commits that wrote, if it wrote
      try {
        written = CommitGroup(group);
      } catch (const std::exception& e) {
        // Whatever went wrong, the batches waiting on this leader must hear of it, and the next
        // caller must be able to lead, with no transaction left open.
        {
          std::lock_guard<std::mutex> lock(mu_);
          (void)db_.Exec("ROLLBACK");
        }
        for (PendingBatch* b : group) {
          b->result = Status::Internal(fmt::format("{}: a commit failed: {}", path_, e.what()));
        }
      }
      // The next group may be written while this one is made durable. Batches that are
      // reported once written are done now.
      queued.lock();
      committing_ = false;
      batches_ += static_cast<int64_t>(group.size());
      ++transactions_;
      // (A batch marked done may be gone at once: only `to_sync` is touched after.)
      std::vector<PendingBatch*> to_sync;
      for (PendingBatch* b : group) {
        if (b->result.ok()) b->written = written;
        if (b->report == Report::kDurable && written > 0) {
          to_sync.push_back(b);
        } else {
          b->done = true;
        }
      }
      queue_cv_.notify_all();
      // A batch reported once written waits for no fsync of its writer's: the syncer starts
      // one now, while that writer goes on, or for one written lazily, soon (docs/store.md,
      // "Writing and syncing").
      if (written > 0) {
        auto any = [&](Report r) {
          return std::any_of(group.begin(), group.end(),
                             [r](const PendingBatch* b) { return b->report == r; });
        };
        if (any(Report::kWritten)) {
          WantSync(written, /*at_once=*/true);
        } else if (any(Report::kWrittenLazily)) {
          WantSync(written, /*at_once=*/false);
        }
      }
      if (!to_sync.empty()) {
        queued.unlock();
        if (Status synced = WaitDurable(written); !synced.ok()) {
          for (PendingBatch* b : to_sync) {
            if (b->result.ok()) b->result = synced;
          }
        }
        queued.lock();
        for (PendingBatch* b : to_sync) b->done = true;
        queue_cv_.notify_all();
      }
    }
    if (durable_mark != nullptr) *durable_mark = mine.written;
    return std::move(mine.result);
  }

  // Returns once the commit `written` (CommitGroup's count) is durable: one fdatasync of the WAL
  // makes every commit written before it durable, so a caller whose commit an fsync under way
  // does not cover waits for it and then syncs for itself and every commit written meanwhile.
  // After a failed fsync nothing written since the last good one can be counted durable (the
  // kernel may have dropped the pages), so every later commit fails too.
  Status WaitDurable(int64_t written) {
    std::unique_lock<std::mutex> lock(sync_mu_);
    while (synced_ < written) {
      if (!sync_error_.ok()) return sync_error_;
      if (syncing_) {
        sync_cv_.wait(lock);
        continue;
      }
      syncing_ = true;
      const int64_t target = written_;
      syncing_to_ = target;
      lock.unlock();
      Status s = SyncWal();
      lock.lock();
      syncing_ = false;
      if (s.ok()) {
        synced_ = std::max(synced_, target);
      } else {
        sync_error_ = s;
      }
      sync_cv_.notify_all();
    }
    return Status::OK();
  }

  // Returns once every commit written so far is durable (Store::Sync).
  Status Sync() {
    if (!options_.durable) return Status::OK();
    int64_t written = 0;
    {
      std::lock_guard<std::mutex> lock(sync_mu_);
      written = written_;
    }
    return WaitDurable(written);
  }

  // The syncer: a thread, started at the first batch reported once written, that makes each
  // commit of a CommitWritten batch durable as soon as it is written, so that its fsync runs
  // while the writer plans its next statement rather than when the writer comes to wait for it.
  // A commit of CommitLazily batches only is made durable by the next fsync another commit
  // starts, or by the syncer once it has waited kLazySync for one.
  void WantSync(int64_t written, bool at_once) {
    std::lock_guard<std::mutex> lock(sync_mu_);
    if (syncer_stop_) return;
    if (!syncer_.joinable()) syncer_ = std::thread([this] { SyncLoop(); });
    if (at_once) {
      wanted_ = std::max(wanted_, written);
    } else {
      // The first lazy commit no fsync done or under way covers: it is due from now (one
      // written during an fsync must not take the due time of one that fsync covers).
      const int64_t covered = syncing_ ? std::max(synced_, syncing_to_) : synced_;
      if (lazy_ <= covered) lazy_due_ = std::chrono::steady_clock::now() + kLazySync;
      lazy_ = std::max(lazy_, written);
    }
    sync_cv_.notify_all();
  }

  void SyncLoop() {
    std::unique_lock<std::mutex> lock(sync_mu_);
    while (!syncer_stop_) {
      // (WaitDurable's fsyncs notify sync_cv_ too: one that covered less wakes this again.)
      if (syncing_ || !sync_error_.ok() || synced_ >= std::max(wanted_, lazy_)) {
        sync_cv_.wait(lock);
        continue;
      }
      if (synced_ >= wanted_ &&
          sync_cv_.wait_until(lock, lazy_due_) == std::cv_status::no_timeout) {
        continue;  // something changed before the lazy commits were due: look again
      }
      if (syncer_stop_ || syncing_ || !sync_error_.ok() || synced_ >= std::max(wanted_, lazy_)) {
        continue;
      }
      const int64_t target = written_;
      lock.unlock();
      (void)WaitDurable(target);  // a failure stays in sync_error_, for the waiters
      lock.lock();
    }
  }

  void StopSyncer() {
    {
      std::lock_guard<std::mutex> lock(sync_mu_);
      syncer_stop_ = true;
      sync_cv_.notify_all();
    }
    if (syncer_.joinable()) syncer_.join();
  }

  // Makes everything written to the WAL so far durable, and, at the first sync of a WAL whose
  // directory entry is not known to be durable, that entry (docs/store.md, "The WAL's directory
  // entry"). The WAL stays the same file while this process has the store open: SQLite deletes
  // it only when the last connection closes. Called by one thread at a time (WaitDurable).
  Status SyncWal() {
    const std::string wal = path_ + "-wal";
    auto failed = [&](const char* what) {
      return Status::Unavailable(fmt::format(
          "{}: cannot make the store's writes durable ({} {}: {}); the writes since the last "
          "durable one may be lost, and this process commits nothing more",
          path_, what, wal, std::strerror(errno)));
    };
    if (wal_fd_ < 0) {
      wal_fd_ = ::open(wal.c_str(), O_RDONLY | O_CLOEXEC);
      if (wal_fd_ < 0) return failed("opening");
    }
    if (!wal_marked_) {
      if (!sqlite::WalMarkedDurable(wal)) {
        const int dir = ::open(shared_->dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const bool synced = dir >= 0 && ::fsync(dir) == 0;
        if (dir >= 0) ::close(dir);
        if (!synced) return failed("syncing the directory of");
      }
        if (SyncFile(wal_fd_) != 0) return failed("syncing");
      sqlite::MarkWalDurable(wal);
      wal_marked_ = true;
      return Status::OK();
    }
    if (SyncFile(wal_fd_) != 0) return failed("syncing");
    return Status::OK();
  }

  int SyncFile(int fd) {
    syncs_.fetch_add(1, std::memory_order_relaxed);
    return options_.sync_wal ? options_.sync_wal(fd) : ::fdatasync(fd);
  }

  // Commits `group` (WriteGroup) and notes for Writable whether the store wrote or found no
  // space to.
  int64_t CommitGroup(const std::vector<PendingBatch*>& group) {
    bool wrote = false;
    const int64_t written = WriteGroup(group, &wrote);
    const bool no_space = db_.TakeNoSpaceLeft();
    if (!wrote && !no_space) return written;
    std::lock_guard<std::mutex> lock(space_mu_);
    if (wrote) {
      no_space_ = Status::OK();
      return written;
    }
    // The first look for room is a second later: what failed may need more than it asks for.
    space_looked_at_ = std::chrono::steady_clock::now();
    no_space_ = Status::Unavailable("a write found no space");
    for (const PendingBatch* b : group) {
      if (!b->result.ok()) {
        no_space_ = b->result.status();
        break;
      }
    }
    return written;
  }

  // Commits `group` in one transaction, visible to readers but not yet durable (WaitDurable),
  // and sets each batch's result; `*wrote` says whether the transaction committed writes.
  // Returns the commit's number among those that wrote something (0 when it wrote nothing).
  // Never throws: a batch whose writes throw fails alone, as Internal.
  int64_t WriteGroup(const std::vector<PendingBatch*>& group, bool* wrote) {
    std::unique_lock<std::mutex> lock(mu_);
    (void)db_.TakeNoSpaceLeft();  // only this group's statements count
    // Every batch fails with `s`, but those that failed by themselves keep their own error.
    auto fail_all = [&](const Status& s) -> int64_t {
      for (PendingBatch* b : group) {
        if (!b->own_error) b->result = s;
      }
      return 0;
    };
    auto fail = [](PendingBatch* b, Status s) {
      b->result = std::move(s);
      b->own_error = true;
    };
    // A store that cannot keep a write takes none (Health).
    if (Status healthy = Health(); !healthy.ok()) return fail_all(healthy);
    if (Status begun = db_.Exec("BEGIN IMMEDIATE"); !begun.ok()) return fail_all(begun);
    Txn txn;
    txn.now = std::chrono::system_clock::now();
    txn.now_text = FormatRfc3339(txn.now);
    auto revision = ReadMeta("revision");
    if (!revision.ok()) return fail_all(Rollback(revision.status()));
    txn.revision = txn.first_revision = *revision;
    // Alone, a batch needs no savepoint: the transaction is its own.
    const bool savepoints = group.size() > 1;
    for (PendingBatch* b : group) {
      const int64_t before = txn.revision;
      txn.deleting.clear();
      if (savepoints) {
        if (Status s = Run(writer_, "SAVEPOINT batch"); !s.ok()) {
          fail(b, s);
          if (sqlite3_get_autocommit(db_.handle())) return fail_all(TransactionLost(s));
          continue;
        }
      }
      Result<std::vector<Resource>> applied = ApplyBatch(std::move(b->writes), &txn);
      b->writes.clear();
      if (applied.ok()) {
        if (savepoints) {
          if (Status s = Run(writer_, "RELEASE batch"); !s.ok()) {
            fail(b, s);
            (void)Run(writer_, "ROLLBACK TO batch");
            (void)Run(writer_, "RELEASE batch");
            txn.revision = before;
            if (sqlite3_get_autocommit(db_.handle())) return fail_all(TransactionLost(s));
            continue;
          }
        }
        b->result = std::move(applied);
        continue;
      }
      fail(b, applied.status());
      txn.revision = before;
      if (sqlite3_get_autocommit(db_.handle())) {
        // The error ended the whole transaction (SQLite rolls back on a full disk, an I/O
        // error, no memory): the batches before this one are gone with it.
        return fail_all(TransactionLost(applied.status()));
      }
      if (!savepoints) {
        (void)Rollback(Status::OK());
        return 0;
      }
      (void)Run(writer_, "ROLLBACK TO batch");
      (void)Run(writer_, "RELEASE batch");
    }
    if (txn.revision != txn.first_revision) {
      Status s = WriteMeta("revision", txn.revision);
      if (s.ok()) s = Compact(txn);
      if (!s.ok()) return fail_all(Rollback(s));
    }
    if (Status s = db_.Exec("COMMIT"); !s.ok()) return fail_all(Rollback(s));
    if (txn.revision == txn.first_revision) return 0;
    *wrote = true;
    int64_t written = 0;
    {
      std::lock_guard<std::mutex> guard(sync_mu_);
      written = ++written_;
    }
    WakeOtherProcessesLocked();
    lock.unlock();
    std::lock_guard<std::mutex> guard(shared_->mu);
    ++shared_->wakes;
    shared_->WakeReadersLocked();
    return options_.durable ? written : 0;
  }

  // Applies one batch's writes in the open transaction.
  Result<std::vector<Resource>> ApplyBatch(std::vector<Write> writes, Txn* txn) {
    std::vector<Resource> results;
    results.reserve(writes.size());
    try {
      for (size_t i = 0; i < writes.size(); ++i) {
        Result<Resource> r = Apply(std::move(writes[i]), txn);
        if (!r.ok()) {
          if (writes.size() == 1) return r.status();
          return r.status().WithContext(fmt::format("write {} of {}: ", i + 1, writes.size()));
        }
        results.push_back(std::move(r).value());
      }
    } catch (const std::exception& e) {
      return Status::Internal(fmt::format("{}: a write failed: {}", path_, e.what()));
    }
    return results;
  }

  // For the batches of a group whose transaction an error ended.
  static Status TransactionLost(const Status& cause) {
    return Status(
        cause.code() == StatusCode::kInternal ? StatusCode::kInternal : StatusCode::kUnavailable,
        "the store's transaction was rolled back by an error in a batch committed "
        "with this one: " +
            cause.message());
  }

  // Touches the wake file, which wakes the watches of other processes on this state directory.
  // Opened at the first commit that writes; a file that cannot be opened is not retried, and the
  // watches of other processes then see this process's writes by polling.
  void WakeOtherProcessesLocked() {
    if (!wake_opened_) {
      wake_opened_ = true;
      wake_fd_ =
          OpenPrivateFile((std::filesystem::path(shared_->dir) / kWakeFile).string(), O_WRONLY);
    }
    if (wake_fd_ < 0) return;
    // The access time carries this store's token (Shared::LastTouchWasOwn); the modification
    // time is now, as a plain touch sets it. inotify reports either change (IN_ATTRIB).
    const int64_t n = (shared_->last_touch.load() + 1) % 1000000000;
    shared_->last_touch.store(n);
    const timespec times[2] = {{static_cast<time_t>(shared_->touch_seconds), static_cast<long>(n)},
                               {0, UTIME_NOW}};
    // Setting a time needs the file's owner (root is one too); a writer that is not falls back
    // to a plain touch, which wakes every watch as before.
    if (futimens(wake_fd_, times) != 0) futimens(wake_fd_, nullptr);
  }

  Status Compact(const Txn& txn) {
    // Trim the log in steps of 256 revisions, not on every write.
    const int64_t keep = options_.retained_events;
    const int64_t revision = txn.revision;
    if (revision / 256 == txn.first_revision / 256 || revision <= keep) return Status::OK();
    const int64_t through = revision - keep;
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("DELETE FROM events WHERE revision <= ?"));
    st->Bind(1, through);
    HOP_RETURN_IF_ERROR(st->Run());
    return WriteMeta("compacted", through);
  }

  Result<Resource> Apply(Write w, Txn* txn) {
    switch (w.op) {
      case Write::Op::kCreate: return DoCreate(std::move(w.object), txn);
      case Write::Op::kUpdate:
        return DoUpdate(std::move(w.object), /*status_only=*/false, w.uid, txn);
      case Write::Op::kUpdateStatus:
        return DoUpdate(std::move(w.object), /*status_only=*/true, w.uid, txn);
      case Write::Op::kDelete: {
        Normalize(&w.ref);
        HOP_ASSIGN_OR_RETURN(StoredObject o, Load(w.ref));
        HOP_RETURN_IF_ERROR(
            CheckDeletePreconditions(w, o.object.uid(), std::to_string(o.revision)));
        return DoDelete(std::move(o), txn);
      }
    }
    return Status::Internal("unknown write");
  }

  // Owner references without a uid name their owner by kind and name in the object's namespace
  // (written earlier in the same batch, or stored before); the owner's uid is filled in, so that
  // an owner and its dependents can be created in one batch.
  Status ResolveOwners(Resource* r) {
    auto owners = r->owner_references();
    bool changed = false;
    for (auto& o : owners) {
      if (!o.uid.empty()) continue;
      // Only the uid is needed: the owner's body is not read.
      HOP_ASSIGN_OR_RETURN(auto st, Prepared("SELECT uid FROM objects WHERE grp = ? AND kind = ? "
                                             "AND namespace = ? AND name = ?"));
      st->Bind(1, resource::GroupOf(o.api_version)).Bind(2, o.kind);
      st->Bind(3, r->namespace_name()).Bind(4, o.name);
      HOP_ASSIGN_OR_RETURN(bool row, st->Step());
      if (!row) {
        return Status::InvalidArgument(
            fmt::format("{}: its owner {}/{} does not exist in namespace {}", RefOf(*r).ToString(),
                        o.kind, o.name, r->namespace_name()));
      }
      o.uid = std::string(st->ColumnText(0));
      changed = true;
    }
    if (changed) r->set_owner_references(owners);
    return Status::OK();
  }

  // What the kind's API server does to an object it stores (resource::KindInfo), as this store
  // stands for it.
  static void PrepareForWrite(Resource* r) {
    const resource::KindInfo* kind = resource::FindKind(r->group_kind());
    if (kind != nullptr && kind->prepare_for_write != nullptr) {
      kind->prepare_for_write(r->mutable_json());
    }
  }

  Result<Resource> DoCreate(Resource r, Txn* txn) {
    if (r.name().empty()) return Status::InvalidArgument("metadata.name is required");
    NormalizeNamespace(&r);
    HOP_RETURN_IF_ERROR(ResolveOwners(&r));
    PrepareForWrite(&r);
    HOP_RETURN_IF_ERROR(ValidateObject(r));
    auto existing = Load(RefOf(r));
    if (existing.ok()) {
      return Status::AlreadyExists(fmt::format("{} already exists", RefOf(r).ToString()));
    }
    if (existing.status().code() != StatusCode::kNotFound) return existing.status();
    Json& md = r.mutable_json()["metadata"];
    md.erase("resourceVersion");
    md.erase("deletionTimestamp");
    r.set_uid(NewUid());
    r.set_creation_timestamp(txn->now_text);
    r.set_generation(1);
    const int64_t revision = ++txn->revision;
    r.set_resource_version(std::to_string(revision));
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("INSERT INTO objects (grp, kind, namespace, name, uid, "
                                           "revision, body) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    HOP_ASSIGN_OR_RETURN(const std::string body, Body(r));
    st->Bind(1, r.group()).Bind(2, r.kind()).Bind(3, r.namespace_name()).Bind(4, r.name());
    st->Bind(5, r.uid()).Bind(6, revision).Bind(7, body);
    HOP_RETURN_IF_ERROR(st->Run());
    const int64_t id = sqlite3_last_insert_rowid(db_.handle());
    HOP_RETURN_IF_ERROR(WriteIndexes(id, r, /*fresh=*/true));
    HOP_RETURN_IF_ERROR(AppendEvent(EventType::kAdded, revision, r, body));
    return r;
  }

  // `uid`: the write's uid precondition (Write::uid), checked on the object as this transaction
  // reads it.
  Result<Resource> DoUpdate(Resource r, bool status_only, const std::string& uid, Txn* txn) {
    if (r.name().empty()) return Status::InvalidArgument("metadata.name is required");
    NormalizeNamespace(&r);
    if (!status_only) HOP_RETURN_IF_ERROR(ResolveOwners(&r));
    HOP_ASSIGN_OR_RETURN(StoredObject old, Load(RefOf(r)));
    HOP_RETURN_IF_ERROR(CheckUidPrecondition(RefOf(r), uid, old.object.uid()));
    const std::string wanted = r.resource_version();
    if (!wanted.empty() && wanted != std::to_string(old.revision)) {
      return Status::Conflict(fmt::format(
          "{}: the object has been modified (resourceVersion {} is not {}); read it again",
          RefOf(r).ToString(), old.object.resource_version(), wanted));
    }
    Resource next;
    if (status_only) {
      next = old.object;
      if (const Json* status = r.status()) {
        next.set_status(*status);
      } else {
        next.clear_status();
      }
    } else {
      next = std::move(r);
      PrepareForWrite(&next);
      // Fields only the store sets.
      Json& md = next.mutable_json()["metadata"];
      const Json& old_md = old.object.json()["metadata"];
      for (const char* key : {"uid", "creationTimestamp", "deletionTimestamp", "generation"}) {
        auto it = old_md.find(key);
        if (it == old_md.end()) {
          md.erase(key);
        } else {
          md[key] = *it;
        }
      }
      if (HasStatusSubresource(next.group_kind())) {
        if (const Json* status = old.object.status()) {
          next.set_status(*status);
        } else {
          next.clear_status();
        }
      }
      if (!SameContent(old.object.json(), next.json())) {
        next.set_generation(old.object.generation() + 1);
      }
    }
    next.set_resource_version(std::to_string(old.revision));
    if (next == old.object) return old.object;  // nothing changed: no write, same resourceVersion
    HOP_RETURN_IF_ERROR(status_only ? ValidateObject(next) : ValidateUpdate(old.object, next));
    if (next.deletion_timestamp() && next.finalizers().empty()) {
      // The last finalizer is gone: the deletion that was waiting for it happens now.
      old.object = std::move(next);
      return DoDelete(std::move(old), txn);
    }
    const int64_t revision = ++txn->revision;
    next.set_resource_version(std::to_string(revision));
    HOP_ASSIGN_OR_RETURN(const std::string body, Body(next));
    HOP_ASSIGN_OR_RETURN(auto st,
                         Prepared("UPDATE objects SET revision = ?, body = ? WHERE id = ?"));
    st->Bind(1, revision).Bind(2, body).Bind(3, old.id);
    HOP_RETURN_IF_ERROR(st->Run());
    if (!status_only) {
      HOP_RETURN_IF_ERROR(WriteIndexes(old.id, next, /*fresh=*/false));
    } else {
      HOP_RETURN_IF_ERROR(RewriteKeys(old.id, next));  // a kind's keys may read its status
    }
    HOP_RETURN_IF_ERROR(AppendEvent(EventType::kModified, revision, next, body));
    return next;
  }

  Result<Resource> DoDelete(StoredObject o, Txn* txn) {
    if (!o.object.finalizers().empty()) {
      if (o.object.deletion_timestamp()) return o.object;  // already marked
      o.object.set_deletion_timestamp(txn->now_text);
      const int64_t revision = ++txn->revision;
      o.object.set_resource_version(std::to_string(revision));
      const std::string body = Dump(o.object.json());
      HOP_ASSIGN_OR_RETURN(auto st,
                           Prepared("UPDATE objects SET revision = ?, body = ? WHERE id = ?"));
      st->Bind(1, revision).Bind(2, body).Bind(3, o.id);
      HOP_RETURN_IF_ERROR(st->Run());
      HOP_RETURN_IF_ERROR(AppendEvent(EventType::kModified, revision, o.object, body));
      return o.object;
    }
    if (!txn->deleting.insert(o.id).second) return o.object;  // an ownership cycle
    const std::string uid = o.object.uid();
    HOP_ASSIGN_OR_RETURN(auto del, Prepared("DELETE FROM objects WHERE id = ?"));
    del->Bind(1, o.id);
    HOP_RETURN_IF_ERROR(del->Run());
    const int64_t revision = ++txn->revision;
    HOP_RETURN_IF_ERROR(
        AppendEvent(EventType::kDeleted, revision, o.object, Dump(o.object.json())));
    HOP_RETURN_IF_ERROR(CollectDependents(uid, txn));
    return o.object;
  }

  // Deletes the objects `uid` owned, once none of their owners remains.
  Status CollectDependents(const std::string& uid, Txn* txn) {
    std::vector<StoredObject> dependents;
    {
      HOP_ASSIGN_OR_RETURN(auto st,
                           Prepared("SELECT o.id, o.revision, o.body FROM owners w JOIN "
                                    "objects o ON o.id = w.object_id WHERE w.owner_uid = ? "
                                    "ORDER BY o.id"));
      st->Bind(1, uid);
      while (true) {
        HOP_ASSIGN_OR_RETURN(bool row, st->Step());
        if (!row) break;
        StoredObject d;
        d.id = st->ColumnInt(0);
        d.revision = st->ColumnInt(1);
        HOP_ASSIGN_OR_RETURN(d.object, Decode(st->ColumnText(2)));
        dependents.push_back(std::move(d));
      }
    }
    for (StoredObject& d : dependents) {
      // Owners that remain keep the object; the references to those gone are removed, as
      // Kubernetes' garbage collector does.
      std::vector<resource::OwnerReference> alive_owners;
      for (const auto& owner : d.object.owner_references()) {
        if (owner.uid == uid) continue;
        bool alive = owner.uid.empty();
        if (!alive) {
          HOP_ASSIGN_OR_RETURN(alive, UidExists(owner.uid));
        }
        if (alive) alive_owners.push_back(owner);
      }
      if (alive_owners.empty()) {
        HOP_RETURN_IF_ERROR(DoDelete(std::move(d), txn).status());
        continue;
      }
      d.object.set_owner_references(alive_owners);
      const int64_t revision = ++txn->revision;
      d.object.set_resource_version(std::to_string(revision));
      const std::string body = Dump(d.object.json());
      HOP_ASSIGN_OR_RETURN(auto st,
                           Prepared("UPDATE objects SET revision = ?, body = ? WHERE id = ?"));
      st->Bind(1, revision).Bind(2, body).Bind(3, d.id);
      HOP_RETURN_IF_ERROR(st->Run());
      HOP_RETURN_IF_ERROR(WriteIndexes(d.id, d.object, /*fresh=*/false));
      HOP_RETURN_IF_ERROR(AppendEvent(EventType::kModified, revision, d.object, body));
    }
    return Status::OK();
  }

  Result<bool> UidExists(const std::string& uid) {
    HOP_ASSIGN_OR_RETURN(auto st, Prepared("SELECT 1 FROM objects WHERE uid = ?"));
    st->Bind(1, uid);
    return st->Step();
  }

  // Rewrites the label and owner rows of object `id`; a `fresh` object has none yet.
  Status WriteIndexes(int64_t id, const Resource& r, bool fresh) {
    if (!fresh) {
      HOP_ASSIGN_OR_RETURN(auto st, Prepared("DELETE FROM labels WHERE object_id = ?"));
      st->Bind(1, id);
      HOP_RETURN_IF_ERROR(st->Run());
      HOP_ASSIGN_OR_RETURN(auto st2, Prepared("DELETE FROM owners WHERE object_id = ?"));
      st2->Bind(1, id);
      HOP_RETURN_IF_ERROR(st2->Run());
      HOP_ASSIGN_OR_RETURN(auto st3, Prepared("DELETE FROM object_keys WHERE object_id = ?"));
      st3->Bind(1, id);
      HOP_RETURN_IF_ERROR(st3->Run());
    }
    HOP_RETURN_IF_ERROR(WriteKeys(id, r));
    const auto labels = r.labels();
    if (!labels.empty()) {
      HOP_ASSIGN_OR_RETURN(auto st,
                           Prepared("INSERT INTO labels (object_id, key, value) VALUES (?, ?, ?)"));
      for (const auto& [k, v] : labels) {
        st->Reset();
        st->Bind(1, id).Bind(2, k).Bind(3, v);
        HOP_RETURN_IF_ERROR(st->Run());
      }
    }
    const auto owners = r.owner_references();
    if (!owners.empty()) {
      HOP_ASSIGN_OR_RETURN(auto st, Prepared("INSERT OR IGNORE INTO owners (owner_uid, object_id) "
                                             "VALUES (?, ?)"));
      for (const auto& o : owners) {
        if (o.uid.empty()) continue;
        st->Reset();
        st->Bind(1, o.uid).Bind(2, id);
        HOP_RETURN_IF_ERROR(st->Run());
      }
    }
    return Status::OK();
  }

  Status AppendEvent(EventType type, int64_t revision, const Resource& r, const std::string& body) {
    HOP_ASSIGN_OR_RETURN(auto st,
                         Prepared("INSERT INTO events (revision, type, grp, kind, namespace, "
                                  "name, body) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    st->Bind(1, revision).Bind(2, EventCode(type)).Bind(3, r.group()).Bind(4, r.kind());
    st->Bind(5, r.namespace_name()).Bind(6, r.name()).Bind(7, body);
    return st->Run();
  }

  // ---- watches ----

  // Reads up to kEventsPerRead events after `after`, of every kind, and gives each of
  // `positions` (all at cursor `after`) the ones it wants, decoding each wanted event once; then
  // moves their cursors past every event examined. Sets their too_old when the log no longer
  // reaches back to `after`. Sets `*latest` to the store's revision as the read found it.
  // Called under Shared::mu, which guards the positions.
  Status ReadEvents(int64_t after, const std::vector<WatchPosition*>& positions, int64_t* latest) {
    return WithReadConnection([&](Connection& c) {
      return InReadTransaction(c, [&]() -> Status {
        HOP_ASSIGN_OR_RETURN(int64_t compacted, ReadMeta(c, "compacted"));
        if (after < compacted) {
          for (WatchPosition* p : positions) p->too_old = true;
          return Status::OK();
        }
        HOP_ASSIGN_OR_RETURN(*latest, ReadMeta(c, "revision"));
        if (*latest <= after) return Status::OK();
        HOP_ASSIGN_OR_RETURN(auto query,
                             c.Prepared("SELECT revision, type, grp, kind, namespace, body FROM "
                                        "events WHERE revision > ? ORDER BY revision LIMIT 512"));
        static_assert(kEventsPerRead == 512);
        query->Bind(1, after);
        int64_t last = *latest;
        size_t n = 0;
        std::vector<WatchPosition*> wanting;
        while (true) {
          HOP_ASSIGN_OR_RETURN(bool row, query->Step());
          if (!row) break;
          const int64_t revision = query->ColumnInt(0);
          if (++n == kEventsPerRead) last = revision;  // more may follow: resume from here
          wanting.clear();
          for (WatchPosition* p : positions) {
            if (p->Wants(query->ColumnText(2), query->ColumnText(3), query->ColumnText(4))) {
              wanting.push_back(p);
            }
          }
          if (wanting.empty()) continue;
          Event e;
          e.revision = revision;
          e.type = static_cast<EventType>(query->ColumnInt(1));
          HOP_ASSIGN_OR_RETURN(e.object, Decode(query->ColumnText(5)));
          for (size_t i = 0; i + 1 < wanting.size(); ++i) wanting[i]->buffer.push_back(e);
          wanting.back()->buffer.push_back(std::move(e));
        }
        for (WatchPosition* p : positions) p->cursor = last;
        return Status::OK();
      });
    });
  }
  static constexpr size_t kEventsPerRead = 512;

  std::unique_ptr<Watch> StartWatch(const WatchOptions& options);

  SqliteStore::CommitStats commit_stats() {
    std::lock_guard<std::mutex> lock(queue_mu_);
    return {batches_,
            transactions_,
            syncs_.load(std::memory_order_relaxed),
            static_cast<int64_t>(queue_.size()),
            committing_,
            shared_->wakes_from_others.load(),
            background_checkpoints_.load(std::memory_order_relaxed)};
  }

  const std::string& path() const { return path_; }
  const SqliteStoreOptions& options() const { return options_; }

 private:
  std::string path_;
  SqliteStoreOptions options_;
  // A statement prepared on the writer's connection.
  Result<CachedStatement> Prepared(const char* sql) { return writer_.Prepared(sql); }

  std::mutex mu_;  // guards writer_ and the wake file
  // The connection that writes (Commit), and the migrations at open.
  Connection writer_;
  sqlite::Database& db_ = writer_.db;
  // The connection reads use (Get, List, watches, Revision, Stats), opened at the first read: in
  // WAL mode a read does not wait for a commit's fsync on the writer (docs/store.md, "Group
  // commit").
  std::mutex read_mu_;
  Connection reader_;  // guarded by read_mu_
  // The commit queue (Commit): batches waiting for a leader, and whether one is at work.
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::vector<PendingBatch*> queue_;  // guarded by queue_mu_
  bool committing_ = false;           // guarded by queue_mu_
  int64_t batches_ = 0;               // guarded by queue_mu_
  int64_t transactions_ = 0;          // guarded by queue_mu_
  int wake_fd_ = -1;
  bool wake_opened_ = false;
  // Durability (WaitDurable): commits that wrote are numbered in the order they were written.
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  int64_t written_ = 0;     // guarded by sync_mu_: the last commit written
  int64_t wanted_ = 0;      // guarded by sync_mu_: the last one the syncer is to sync at once
  int64_t lazy_ = 0;        // guarded by sync_mu_: the last one written by CommitLazily
  std::chrono::steady_clock::time_point lazy_due_;  // guarded by sync_mu_: when lazy_ is due
  int64_t synced_ = 0;      // guarded by sync_mu_: the last commit known durable
  bool syncing_ = false;    // guarded by sync_mu_: an fsync is under way
  int64_t syncing_to_ = 0;  // guarded by sync_mu_: the last commit the fsync under way covers
  Status sync_error_;       // guarded by sync_mu_: the failed fsync, if one failed
  // Writable's: the failure of the last commit that found no space, while it lasts, and when the
  // state directory was last asked for room.
  std::mutex space_mu_;
  Status no_space_;                                        // guarded by space_mu_
  std::chrono::steady_clock::time_point space_looked_at_;  // guarded by space_mu_
  int wal_fd_ = -1;         // SyncWal's: the WAL, opened at the first sync
  // The device and inode of the file opened (set by Open; Health).
  dev_t file_dev_ = 0;
  ino_t file_ino_ = 0;
  std::atomic<int64_t> syncs_{0};  // fsyncs of the WAL (CommitStats)
  bool wal_marked_ = false;  // SyncWal's: the WAL's directory entry is durable, and marked so
  bool syncer_stop_ = false;  // guarded by sync_mu_: the syncer (WantSync) is to stop
  std::thread syncer_;        // guarded by sync_mu_ until joined
  // The checkpointer (CheckpointInBackground): a thread started at the first checkpoint due.
  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_wanted_ = false;  // guarded by checkpoint_mu_
  bool checkpoint_stop_ = false;    // guarded by checkpoint_mu_
  std::thread checkpointer_;        // guarded by checkpoint_mu_ until joined
  std::atomic<int64_t> background_checkpoints_{0};
  std::atomic<int64_t> checkpointed_pages_{0};  // of the WAL, by the last background checkpoint
  std::shared_ptr<Shared> shared_;
};

namespace {

class SqliteWatch : public Watch {
 public:
  SqliteWatch(std::shared_ptr<Shared> shared, WatchOptions options, std::chrono::milliseconds poll,
              std::chrono::milliseconds safety_poll)
      : shared_(std::move(shared)), poll_(poll), safety_poll_(safety_poll) {
    position_.cursor = options.from_revision;
    position_.options = std::move(options);
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->positions.push_back(&position_);
    ++shared_->watches;
  }

  ~SqliteWatch() override {
    std::unique_ptr<WakeListener> last;
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      std::erase(shared_->positions, &position_);
      if (--shared_->watches == 0) {
        last = std::move(shared_->listener);
        shared_->listen_tried = false;
      }
    }
    // Joined without the lock, which its thread takes.
  }

  Outcome Next(std::chrono::milliseconds timeout, Event* event) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::unique_lock<std::mutex> lock(shared_->mu);
    bool poll_due = false;  // a wait ended with no wake: look whatever the last read found
    while (true) {
      if (closed_ || shared_->closed || shared_->impl == nullptr) return Outcome::kClosed;
      if (position_.too_old) return Outcome::kTooOld;
      if (!position_.buffer.empty()) {
        *event = std::move(position_.buffer.front());
        position_.buffer.pop_front();
        return Outcome::kEvent;
      }
      // One read for every watch at this cursor whose buffer is not full (after a commit, every
      // watch of a controller that has kept up is): the first of them to look reads for all,
      // and the others find their events read. Reading under shared_->mu keeps the store alive
      // for the duration of the read.
      const uint64_t seen = shared_->wakes;
      const bool nothing_new = !poll_due && seen == shared_->known_at_wakes &&
                               shared_->known_revision >= 0 &&
                               position_.cursor >= shared_->known_revision;
      if (!nothing_new) {
        std::vector<WatchPosition*> group;
        for (WatchPosition* p : shared_->positions) {
          if (p->cursor == position_.cursor && !p->too_old &&
              (p == &position_ || p->buffer.size() < kMaxBuffered)) {
            group.push_back(p);
          }
        }
        int64_t latest = -1;
        Status s = shared_->impl->ReadEvents(position_.cursor, group, &latest);
        if (!s.ok()) return Outcome::kClosed;
        if (latest >= 0) {
          shared_->known_revision = latest;
          shared_->known_at_wakes = seen;  // (no wake can come while shared_->mu is held)
        }
        for (WatchPosition* p : group) {  // the others it found events for
          if (p != &position_ && (!p->buffer.empty() || p->too_old)) p->cv.notify_one();
        }
        // A read takes at most kEventsPerRead events: with more to read, read on.
        if (!position_.buffer.empty() || position_.too_old || position_.cursor < latest) continue;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return Outcome::kTimeout;
      // Only a watch that waits needs the listener: one that reads what is there and goes (a
      // catalog catching up, Next with no timeout) would make each of a script's statements pay
      // for tearing one down. Once it has started, look again: a write made between the read
      // above and its start woke no one.
      if (!shared_->listen_tried) {
        shared_->ListenLocked(now);
        if (shared_->wakes != seen) continue;
      }
      // Woken by a write in this process, by another process's (through the listener), by
      // Close(), or after the poll interval: the safety net's when other processes' writes wake
      // this one, the short one when they cannot (or do not yet: listen_after).
      const auto interval = shared_->listener && shared_->listener->alive() ? safety_poll_ : poll_;
      auto wait = std::min<std::chrono::steady_clock::duration>(deadline - now, interval);
      if (!shared_->listen_tried) wait = std::min(wait, shared_->listen_from - now);
      position_.waiting = true;
      poll_due = !position_.cv.wait_for(lock, wait, [&] {
        return closed_ || shared_->closed || shared_->wakes != seen || !position_.buffer.empty() ||
               position_.too_old;
      });
      position_.waiting = false;
    }
  }

  int64_t Progress() const override {
    std::lock_guard<std::mutex> lock(shared_->mu);
    return position_.buffer.empty() ? position_.cursor : position_.buffer.front().revision - 1;
  }

  void Close() override {
    std::lock_guard<std::mutex> lock(shared_->mu);
    closed_ = true;
    position_.cv.notify_all();
  }

 private:
  // Events another watch's read may leave in this one's buffer; a watch that has more waiting
  // (its reader is slow) falls out of step and reads for itself when it catches up.
  static constexpr size_t kMaxBuffered = 4096;

  std::shared_ptr<Shared> shared_;
  std::chrono::milliseconds poll_;
  std::chrono::milliseconds safety_poll_;
  WatchPosition position_;  // guarded by shared_->mu
  bool closed_ = false;     // guarded by shared_->mu
};

}  // namespace

std::unique_ptr<Watch> SqliteStore::Impl::StartWatch(const WatchOptions& options) {
  return std::make_unique<SqliteWatch>(shared_, options, options_.poll_interval,
                                       options_.safety_poll_interval);
}

// ---------------------------------------------------------------------------------------------

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& state_dir,
                                                       const SqliteStoreOptions& options) {
  auto impl =
      std::make_unique<Impl>((std::filesystem::path(state_dir) / "hop.db").string(), options);
  HOP_RETURN_IF_ERROR(impl->Open());
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(impl)));
}

SqliteStore::SqliteStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteStore::~SqliteStore() = default;

Result<Resource> SqliteStore::Get(const ObjectRef& ref) { return impl_->Get(ref); }
Result<ListResult> SqliteStore::List(const ListOptions& options) { return impl_->List(options); }
Result<int64_t> SqliteStore::ListEach(const ListOptions& options,
                                      const std::function<void(Resource)>& visit) {
  return impl_->ListEach(options, visit);
}
Result<std::vector<Resource>> SqliteStore::Commit(std::vector<Write> writes) {
  if (writes.empty()) return std::vector<Resource>{};
  return impl_->Commit(std::move(writes));
}

Result<std::vector<Resource>> SqliteStore::CommitWritten(std::vector<Write> writes,
                                                         int64_t* durable_mark) {
  *durable_mark = 0;
  if (writes.empty()) return std::vector<Resource>{};
  return impl_->Commit(std::move(writes), Impl::Report::kWritten, durable_mark);
}

Result<std::vector<Resource>> SqliteStore::CommitLazily(std::vector<Write> writes) {
  if (writes.empty()) return std::vector<Resource>{};
  return impl_->Commit(std::move(writes), Impl::Report::kWrittenLazily);
}

Status SqliteStore::WaitDurable(int64_t durable_mark) { return impl_->WaitDurable(durable_mark); }
Status SqliteStore::Sync() { return impl_->Sync(); }
std::unique_ptr<Watch> SqliteStore::StartWatch(const WatchOptions& options) {
  return impl_->StartWatch(options);
}
Result<int64_t> SqliteStore::Revision() { return impl_->Revision(); }
Status SqliteStore::Health() { return impl_->Health(); }
Status SqliteStore::Writable() { return impl_->Writable(); }
Result<Store::Stats> SqliteStore::ReadStats() { return impl_->ReadStats(); }
const std::string& SqliteStore::path() const { return impl_->path(); }
SqliteStore::CommitStats SqliteStore::commit_stats() const { return impl_->commit_stats(); }

std::string DefaultStateDir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  if (std::string d = env("HOP_STATE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_STATE_HOME"); !d.empty()) return d + "/hop";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.local/state/hop";
  return ".hop";
}

}  // namespace hop::store
