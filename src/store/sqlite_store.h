// SqliteStore: the embedded Store, one SQLite file (WAL mode) in the state directory. Every batch
// bumps a global revision kept in the file and appends to an event log, in one transaction with the
// batches committed at the same moment by other threads (group commit: each batch still all or
// nothing and failing alone), and is reported once an fsync of the log covers it, one fsync for
// every transaction written before it began (docs/store.md); watches read the log, woken at once by
// writes in this process and, through a file the writer touches and inotify, by writes of other
// processes on the same state directory (polling stays as a safety net; docs/store.md).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "store/store.h"

namespace hop::store {

struct SqliteStoreOptions {
  // Events kept for watches; a watch starting before the retained history gets kTooOld.
  int64_t retained_events = 100000;
  // How often an idle watch looks for writes made by other processes when they cannot wake it
  // (inotify unavailable: no instance left, or the state directory cannot be watched).
  std::chrono::milliseconds poll_interval{25};
  // How often it looks when they can: a safety net for writes that wake no one (another program
  // writing hop.db, a writer that cannot touch the wake file). A second keeps such a write
  // visible within a second, at the cost of one small read transaction a second per idle watch.
  std::chrono::milliseconds safety_poll_interval{1000};
  // How long after the store opens its watches begin to listen for other processes' writes
  // (the wake listener: a thread and an inotify instance); until then they look every
  // poll_interval. Zero listens from the first watch on. A command that runs for milliseconds
  // sets it, so that it never pays for tearing an inotify watch down at exit (5-20 ms on some
  // kernels; docs/store.md, "Watches across processes").
  std::chrono::milliseconds listen_after{0};
  // Report a commit only once it is durable (an fsync of the WAL covers it); off only for tests
  // and benchmarks that say so.
  bool durable = true;
  // How the WAL is made durable: fdatasync(fd) when empty. Tests put a failing or slow one here.
  std::function<int(int fd)> sync_wal;
};

class SqliteStore : public Store {
 public:
  // The current on-disk format. Files of older formats are migrated when opened; newer ones are
  // refused.
  static constexpr int kFormatVersion = 2;

  // Opens the store in `state_dir` (created if missing), file `hop.db`.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& state_dir,
                                                   const SqliteStoreOptions& options = {});
  ~SqliteStore() override;

  Result<Resource> Get(const ObjectRef& ref) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<int64_t> ListEach(const ListOptions& options,
                           const std::function<void(Resource)>& visit) override;
  Result<std::vector<Resource>> Commit(std::vector<Write> writes) override;
  Result<std::vector<Resource>> CommitWritten(std::vector<Write> writes,
                                              int64_t* durable_mark) override;
  Result<std::vector<Resource>> CommitLazily(std::vector<Write> writes) override;
  Status WaitDurable(int64_t durable_mark) override;
  Status Sync() override;
  std::unique_ptr<Watch> StartWatch(const WatchOptions& options) override;
  Result<int64_t> Revision() override;
  // Not OK after a failed fsync of the WAL, or once `hop.db` is gone or is another file than the
  // one opened (its device and inode are compared with one stat).
  Status Health() override;
  // Not OK from a commit that failed for want of space until one succeeds or 1 MiB can be
  // allocated in the state directory (tried at most once a second while it is not OK).
  Status Writable() override;
  // The object count and the database's size in pages, read in one transaction.
  Result<Stats> ReadStats() override;

  const std::string& path() const;

  // How group commit has gone (docs/store.md, "Group commit"), for tests and metrics: batches
  // committed or failed, the write transactions they took, the fsyncs that made them durable,
  // and, now, the batches waiting for a commit and whether one is under way. Also how often
  // the watches were woken by other writers' touches of the wake file (docs/store.md, "Watches
  // across processes"); this store's own touches wake no one. Thread-safe.
  struct CommitStats {
    int64_t batches = 0;
    int64_t transactions = 0;
    int64_t syncs = 0;
    int64_t waiting = 0;
    bool committing = false;
    int64_t wakes_from_others = 0;
    int64_t background_checkpoints = 0;  // run by the checkpointer (docs/store.md, "Checkpoints")
  };
  CommitStats commit_stats() const;

  class Impl;

 private:
  explicit SqliteStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The state directory to use when none is given: $HOP_STATE_DIR, else $XDG_STATE_HOME/hop, else
// $HOME/.local/state/hop, else ./.hop.
std::string DefaultStateDir();

}  // namespace hop::store
