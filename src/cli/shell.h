// The interactive shell: `hop` with neither a subcommand nor -e/-f. A read-eval-print loop over
// one session that gathers lines until a statement ends in `;` (or a `!` command line ends), runs
// it, and keeps going after errors; with line editing, persistent history and tab completion of
// keywords, catalog names and commands when standard input is a terminal (libedit).
//
// The parts that decide anything (is a buffer complete, which words complete a prefix, the history
// file's format) are pure functions or small classes here, tested without a terminal.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "cli/run_command.h"
#include "common/status.h"
#include "session/session.h"
#include "store/store.h"

namespace hop::cli {

// Whether `buffer` (the lines typed so far, joined by '\n') is ready to run: its last statement
// ends in `;` outside quotes and comments, or it is a `!` command line (a `!` first on a line where
// a statement could start, complete at the end of its line). A buffer of only whitespace and
// comments is complete too: it runs nothing. Uses the script splitter's rules (sql/script.h).
bool IsComplete(std::string_view buffer);

// What tab completion offers, gathered once and refreshed from the catalog.
struct CompletionWords {
  struct SchemaNames {
    std::string catalog;              // "" for a schema outside any catalog
    std::string name;                 // as the catalog spells it, e.g. ADS
    std::vector<std::string> tables;  // tables and views, as spelled, e.g. PAGE_VIEWS
  };
  std::vector<std::string> keywords;  // upper case
  std::vector<std::string> commands;  // command words without '!', lower case
  std::vector<SchemaNames> schemas;
  std::vector<std::string> databases;  // Database resource names
  std::string default_schema;          // whose tables complete unqualified
};

// The SQL keywords (sql/keywords.h) and the command words of the session and the shell.
CompletionWords BaseCompletionWords();
// Adds the schemas, tables, views and databases of `catalog` to `words`, replacing earlier ones.
void SetCatalogWords(const catalog::Catalog& catalog, CompletionWords& words);

// The characters that end a word for completion; the line editor is told the same.
inline constexpr const char* kCompletionWordBreaks = " \t\n(),;=<>+*/%|";

// Where the word being completed starts in `text` (the text before the cursor).
size_t CompletionWordStart(std::string_view text);

// The words that may replace the word before the cursor, sorted and without duplicates.
// `text_before_cursor` is the whole pending input (earlier lines of an unfinished statement
// included) up to the cursor. Matching ignores case; a candidate keeps what was typed and writes
// the rest in the case of the last letter typed (upper when no letter was typed), so `sel` gives
// `select` and `SEL` gives `SELECT`. Names that only quoting can spell (lower-case letters,
// hyphens, reserved words) are offered quoted: `kafka.ex` gives `kafka."existing-topic-1"`.
// Qualified words complete within their schema or catalog (`ads.pa` gives `ads.page_views`);
// unqualified ones to keywords, schemas, catalogs and the default schema's tables, or after
// DATABASE to database names. A `!` word first on a line where a command may start completes
// command names.
std::vector<std::string> Completions(std::string_view text_before_cursor,
                                     const CompletionWords& words);

// What the editor inserts for `candidates` of `word`: the one candidate, or their longest common
// prefix when it extends `word`, else `word` itself (nothing typed is ever taken away).
std::string CommonCompletion(std::string_view word, const std::vector<std::string>& candidates);

// Whether `word` (a completed name) names a schema or a catalog of `words`, after which a user
// types '.': completing it adds no space.
bool NamesAContainer(std::string_view word, const CompletionWords& words);

// The history file: one entry per line, newest last, with `\` escaping backslashes (`\\`),
// newlines (`\n`) and carriage returns (`\r`) so a multi-line statement stays one entry.
std::string EncodeHistoryEntry(std::string_view entry);
std::string DecodeHistoryEntry(std::string_view line);

// The entered items of earlier sessions, kept in a file (the state directory's `history`),
// capped at `limit` entries. Not thread-safe; several shells may append to one file (each entry
// is one append of one line).
class History {
 public:
  static constexpr size_t kDefaultLimit = 1000;

  explicit History(std::string path, size_t limit = kDefaultLimit);

  // Reads the file, keeping the newest `limit` entries, and rewrites it when it held more. A
  // missing file is an empty history. Errors: Unavailable when the file cannot be read or
  // rewritten (the entries read are kept).
  Status Load();

  // Adds an entry (not when it equals the newest one) and appends it to the file, creating the
  // file (mode 0600) if needed. Errors: Unavailable when the file cannot be written; the entry is
  // kept in memory all the same.
  Status Add(std::string_view entry);

  const std::deque<std::string>& entries() const { return entries_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  size_t limit_;
  std::deque<std::string> entries_;
};

// Where the shell reads lines from: the terminal's line editor or a plain stream.
class LineReader {
 public:
  enum class Result { kLine, kEof, kInterrupted };

  virtual ~LineReader() = default;
  // Reads one line into `line`, without its newline, showing `prompt` first when the reader shows
  // prompts. kInterrupted: the user pressed Ctrl-C.
  virtual Result Read(const std::string& prompt, std::string& line) = 0;
  // Offers an entered item for recall with the arrow keys; readers without recall ignore it.
  virtual void Remember(const std::string& /*entry*/) {}
};

// Lines from a stream, no prompts: for standard input that is not a terminal.
class StreamLineReader : public LineReader {
 public:
  explicit StreamLineReader(std::istream& in) : in_(in) {}
  Result Read(const std::string& prompt, std::string& line) override;

 private:
  std::istream& in_;
  bool first_ = true;  // the first line, which may start with a byte-order mark
};

// The loop itself, given its reader: prompts `hop> ` and `  -> ` (while a statement is
// unfinished), runs each complete buffer's items in the session, prints output to `out` and errors
// to `err`, records items in the history, and stops at `!quit`, `!exit` or end of input.
class Shell {
 public:
  static constexpr const char* kPrompt = "hop> ";
  static constexpr const char* kContinuationPrompt = "  -> ";

  // `history` may be null (no history). The session, store and history must outlive the shell.
  Shell(session::Session& session, store::Store& store, History* history, std::ostream& out,
        std::ostream& err);

  // Reads and runs until `!quit`, `!exit` or end of input. At end of input an unfinished statement
  // runs when `run_unfinished` (scripts piped in), and is dropped otherwise (Ctrl-D at a terminal).
  // Returns the number of items that failed.
  // A statement larger than the request limit (common/limits.h) is dropped with an error; piped
  // input (`run_unfinished`) then stops, as `hop -f -` would refuse the whole script.
  int Run(LineReader& reader, bool run_unfinished);

  // Handles one line read. Returns false when the shell should stop (`!quit`, `!exit`).
  bool Feed(const std::string& line, LineReader& reader);
  // Forgets the unfinished statement (Ctrl-C).
  void Clear() { pending_.clear(); }
  // The prompt for the next line.
  const char* prompt() const { return pending_.empty() ? kPrompt : kContinuationPrompt; }
  // The lines of the unfinished statement, joined by '\n'.
  const std::string& pending() const { return pending_; }

  // The completion words, reloaded from the catalog of the session's namespace when a statement
  // or command ran since the last call (DDL adds tables; SET namespace changes the catalog).
  const CompletionWords& Words();
  // The candidates for the current line: the unfinished statement, then `line_before_cursor`.
  std::vector<std::string> Complete(std::string_view line_before_cursor);

  int failed() const { return failed_; }
  // Whether Ctrl-C while a statement runs cancels its query (the interactive shell) rather than
  // ending the process.
  void set_cancel_on_interrupt(bool on) { cancel_on_interrupt_ = on; }

 private:
  // Runs every item of a complete buffer; false at `!quit` / `!exit`.
  bool RunBuffer(const std::string& buffer, LineReader& reader);
  void Remember(const std::string& entry, LineReader& reader);

  session::Session& session_;
  store::Store& store_;
  History* history_;
  std::ostream& out_;
  std::ostream& err_;
  std::string pending_;
  std::string last_entry_;  // the newest history entry
  CompletionWords words_;
  bool words_stale_ = true;
  bool history_warned_ = false;
  bool cancel_on_interrupt_ = false;
  int failed_ = 0;
  bool piped_ = false;  // the current Run's run_unfinished
};

// `hop` without -e/-f: the shell on `store` (opened from `state_dir`), with the session flags of
// `options`. Line editing, history (`<state_dir>/history`) and completion when standard input is
// a terminal; plain lines otherwise. Returns 0, or 1 when standard input is not a terminal and an
// item failed (as `hop -f -`), or 2 for bad flags.
int RunShell(const RunOptions& options, const std::string& state_dir, store::Store& store);

}  // namespace hop::cli
