// The interactive shell: buffer completeness (from the script splitter), completion candidates,
// the history file, the read-eval-print loop, and the libedit glue that is only used when
// standard input is a terminal.
#include "cli/shell.h"

#include <editline/readline.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include "common/files.h"
#include "common/limits.h"
#include "common/strings.h"
#include "engine/engine.h"
#include "session/control_plane.h"
#include "sql/keywords.h"
#include "sql/script.h"

namespace hop::cli {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool IsSpace(char c) { return IsBlank(c) || c == '\n'; }

bool IsBreak(char c) { return c != '\0' && std::strchr(kCompletionWordBreaks, c) != nullptr; }

bool IsAsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsAsciiLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

// Whether `name` can be written without quotes and mean itself: upper case (unquoted words fold
// to upper case), letters, digits and underscores, and not a reserved word.
bool IsRegularName(std::string_view name) {
  if (name.empty() || !(IsAsciiUpper(name[0]) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(IsAsciiUpper(c) || IsAsciiDigit(c) || c == '_')) return false;
  }
  const sql::Keyword kw = sql::LookupKeyword(name);
  return kw == sql::Keyword::kNone || !sql::IsReserved(kw);
}

std::string Quoted(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  out += '"';
  return out;
}

// A quoted part of a qualified name without its quotes; an unterminated one is taken to its end.
std::string Unquoted(std::string_view part) {
  std::string out;
  for (size_t i = 1; i < part.size(); ++i) {
    if (part[i] == '"') {
      if (i + 1 < part.size() && part[i + 1] == '"') {
        out += '"';
        ++i;
        continue;
      }
      break;
    }
    out += part[i];
  }
  return out;
}

// Whether a qualifier part as typed (quoted: exact; unquoted: any case) names `name`.
bool PartNames(std::string_view part, std::string_view name) {
  if (!part.empty() && part[0] == '"') return Unquoted(part) == name;
  return EqualsIgnoreCase(part, name);
}

// The parts of a typed word split at the dots outside double quotes; the last part is the one
// being typed, possibly empty.
std::vector<std::string_view> SplitParts(std::string_view word) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  size_t begin = 0;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '"') {
      quoted = !quoted;
    } else if (word[i] == '.' && !quoted) {
      parts.push_back(word.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  parts.push_back(word.substr(begin));
  return parts;
}

// Candidates are written in the case of the last letter typed: lower case after a lower-case
// letter, upper case otherwise (which is how keywords and folded names are spelled).
bool TypedLowerCase(std::string_view typed) {
  for (size_t i = typed.size(); i > 0; --i) {
    const char c = typed[i - 1];
    if (IsAsciiLower(c)) return true;
    if (IsAsciiUpper(c)) return false;
  }
  return false;
}

// Whether the last letter typed is upper case (command words are lower case otherwise).
bool TypedUpperCase(std::string_view typed) {
  for (size_t i = typed.size(); i > 0; --i) {
    if (IsAsciiUpper(typed[i - 1])) return true;
    if (IsAsciiLower(typed[i - 1])) return false;
  }
  return false;
}

// `typed` (a case-insensitive prefix of `word`) followed by the rest of `word` in the typed case.
std::string Styled(std::string_view typed, std::string_view word, bool lower) {
  std::string_view rest = word.substr(typed.size());
  return std::string(typed) + (lower ? AsciiToLower(rest) : AsciiToUpper(rest));
}

// Collects the candidates of one completion: `prefix` is what precedes the part being typed
// (qualifiers and their dots, as typed), `partial` the part itself.
class Candidates {
 public:
  Candidates(std::string_view prefix, std::string_view partial, bool lower)
      : prefix_(prefix), partial_(partial), lower_(lower) {}

  // A keyword (upper case); offered only to an unquoted part.
  void Keyword(std::string_view kw) {
    if (Quoting() || !StartsWithIgnoreCase(kw, partial_)) return;
    out_.push_back(prefix_ + Styled(partial_, kw, lower_));
  }

  // A name as the catalog spells it: quoted when it has to be, or when the user opened a quote.
  void Name(std::string_view name) {
    if (Quoting()) {
      const std::string typed = Unquoted(partial_);
      if (name.substr(0, typed.size()) == typed) out_.push_back(prefix_ + Quoted(name));
      return;
    }
    if (!StartsWithIgnoreCase(name, partial_)) return;
    out_.push_back(prefix_ + (IsRegularName(name) ? Styled(partial_, name, lower_) : Quoted(name)));
  }

  std::vector<std::string> Take() {
    std::sort(out_.begin(), out_.end());
    out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
    return std::move(out_);
  }

 private:
  bool Quoting() const { return !partial_.empty() && partial_[0] == '"'; }

  std::string prefix_;
  std::string_view partial_;
  bool lower_;
  std::vector<std::string> out_;
};

// Database resource names are canonical (lower case); SQL writes them as identifiers of any case.
std::string DatabaseSpelling(std::string_view name) {
  std::string upper = AsciiToUpper(name);
  return IsRegularName(upper) ? upper : std::string(name);
}

// The word before the blanks at the end of `text`.
std::string_view PreviousWord(std::string_view text) {
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text.substr(CompletionWordStart(text));
}

std::vector<std::string> CommandCompletions(std::string_view word, const CompletionWords& words) {
  std::vector<std::string> out;
  const std::string_view typed = word.substr(1);
  for (const auto& c : words.commands) {
    if (StartsWithIgnoreCase(c, typed))
      out.push_back("!" + Styled(typed, c, !TypedUpperCase(typed)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

constexpr std::string_view kShellHelp =
    "Shell:\n"
    "  !quit, !exit           leave the shell (so does Ctrl-D)\n"
    "  Statements end with ';' and may span several lines (the prompt is '  -> ' until the ';');\n"
    "  Ctrl-C drops an unfinished statement. Tab completes keywords, names and commands;\n"
    "  the arrow keys recall earlier entries (kept in the state directory's `history`).\n";

// The command word of a command item, lower case.
std::string CommandWord(std::string_view text) {
  text = TrimWhitespace(text);
  size_t end = 0;
  while (end < text.size() && !IsBlank(text[end])) ++end;
  return AsciiToLower(text.substr(0, end));
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable(std::strerror(errno));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

// Writes `data` to `path` with `flags` (plus write-only, create, close-on-exec), mode 0600:
// history may hold secrets typed into statements.
Status WriteFile(const std::string& path, int flags, std::string_view data) {
  const int fd = OpenPrivateFile(path, O_WRONLY | flags);
  if (fd < 0) {
    return Status::Unavailable(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  Status st = WriteAll(fd, data);
  if (::close(fd) != 0 && st.ok()) st = Status::Unavailable(std::strerror(errno));
  if (!st.ok()) return Status::Unavailable(fmt::format("cannot write {}: {}", path, st.message()));
  return Status::OK();
}

// ---- libedit glue ----------------------------------------------------------------------------

// libedit calls back through plain C functions without a user pointer, so the reader in use is
// reachable from here; there is at most one (the process has one terminal).
std::function<std::vector<std::string>(std::string_view)>* g_complete = nullptr;
// Whether a completed word names a schema or catalog (a '.' usually follows, not a space).
std::function<bool(std::string_view)>* g_continues = nullptr;
volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

// Ctrl-C while a statement runs cancels its query; the shell goes on.
void OnCancel(int) { engine::Engine::RequestInterrupt(); }

// libedit frees what a completion function returns with free(), so the array and its strings
// come from malloc.
char* MallocCopy(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p != nullptr) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

char** CompleteHook(const char* text, int /*start*/, int end) {
  rl_attempted_completion_over = 1;  // never fall back to completing file names
  if (g_complete == nullptr || rl_line_buffer == nullptr || end < 0) return nullptr;
  const std::string_view before(rl_line_buffer, static_cast<size_t>(end));
  const std::string_view word = before.substr(CompletionWordStart(before));
  // libedit replaces `text`; when it saw a different word (escapes), completing could mangle it.
  if (word != text) return nullptr;
  std::vector<std::string> candidates = (*g_complete)(before);
  if (candidates.empty()) return nullptr;
  // libedit's layout (as its rl_completion_matches builds it): what to insert, then every
  // candidate (the one candidate too: libedit reads matches[2] to tell one from several), then
  // NULL.
  char** matches = static_cast<char**>(std::calloc(candidates.size() + 2, sizeof(char*)));
  if (matches == nullptr) return nullptr;
  matches[0] = MallocCopy(CommonCompletion(word, candidates));
  // After a schema or catalog comes a '.', not a space.
  rl_completion_append_character =
      candidates.size() == 1 && g_continues != nullptr && (*g_continues)(candidates[0]) ? '\0'
                                                                                        : ' ';
  for (size_t i = 0; i < candidates.size(); ++i) matches[i + 1] = MallocCopy(candidates[i]);
  return matches;
}

// The terminal's line editor (libedit's readline interface): prompts, editing, history recall,
// tab completion through `complete`, Ctrl-C reported as kInterrupted.
class EditLineReader : public LineReader {
 public:
  EditLineReader(const History* history,
                 std::function<std::vector<std::string>(std::string_view)> complete,
                 std::function<bool(std::string_view)> continues)
      : complete_(std::move(complete)), continues_(std::move(continues)) {
    rl_readline_name = "hop";  // for `hop:` lines in ~/.editrc
    using_history();
    stifle_history(static_cast<int>(History::kDefaultLimit));
    if (history != nullptr) {
      for (const auto& e : history->entries()) add_history(e.c_str());
    }
    rl_attempted_completion_function = CompleteHook;
    rl_basic_word_break_characters = kCompletionWordBreaks;
    rl_completer_word_break_characters = word_breaks_.data();
    g_complete = &complete_;
    g_continues = &continues_;
  }
  ~EditLineReader() override {
    g_complete = nullptr;
    g_continues = nullptr;
    rl_attempted_completion_function = nullptr;
  }
  EditLineReader(const EditLineReader&) = delete;
  EditLineReader& operator=(const EditLineReader&) = delete;

  Result Read(const std::string& prompt, std::string& line) override {
    // Ctrl-C while editing interrupts the read (no SA_RESTART); while a statement runs it keeps
    // its default action.
    g_interrupted = 0;
    struct sigaction on_int = {};
    struct sigaction previous = {};
    on_int.sa_handler = OnInterrupt;
    sigemptyset(&on_int.sa_mask);
    on_int.sa_flags = 0;
    sigaction(SIGINT, &on_int, &previous);
    char* raw = readline(prompt.c_str());
    sigaction(SIGINT, &previous, nullptr);
    if (raw == nullptr) {
      std::fputc('\n', stdout);
      std::fflush(stdout);
      return g_interrupted ? Result::kInterrupted : Result::kEof;
    }
    line.assign(raw);
    std::free(raw);
    return Result::kLine;
  }

  void Remember(const std::string& entry) override { add_history(entry.c_str()); }

 private:
  std::function<std::vector<std::string>(std::string_view)> complete_;
  std::function<bool(std::string_view)> continues_;
  std::string word_breaks_ = kCompletionWordBreaks;  // libedit declares this one non-const
};

}  // namespace

// ---- completeness and completion --------------------------------------------------------------

bool IsComplete(std::string_view buffer) {
  const std::vector<sql::ScriptItem> items = sql::SplitScript(buffer);
  if (items.empty()) return true;
  const sql::ScriptItem& last = items.back();
  if (last.kind == sql::ScriptItem::Kind::kCommand) return true;
  // A statement's text stops before its ';' and the whitespace in front of it; an unterminated
  // one runs to the end of the buffer.
  size_t pos = static_cast<size_t>(last.text.data() + last.text.size() - buffer.data());
  while (pos < buffer.size() && IsSpace(buffer[pos])) ++pos;
  return pos < buffer.size() && buffer[pos] == ';';
}

CompletionWords BaseCompletionWords() {
  CompletionWords words;
  for (int i = 1; i < sql::kKeywordCount; ++i) {
    words.keywords.emplace_back(sql::KeywordText(static_cast<sql::Keyword>(i)));
  }
  std::sort(words.keywords.begin(), words.keywords.end());
  // The commands of session::Session::Command, and the shell's own.
  words.commands = {"describe", "exit",    "graph",   "help",    "pipeline",
                    "quit",     "resolve", "schemas", "specify", "tables"};
  return words;
}

void SetCatalogWords(const catalog::Catalog& catalog, CompletionWords& words) {
  words.schemas.clear();
  words.databases.clear();
  words.default_schema = catalog.default_schema();
  for (const catalog::Schema* s : catalog.Schemas()) {
    CompletionWords::SchemaNames names{s->catalog, s->name, {}};
    for (const auto& [folded, table] : s->tables) names.tables.push_back(table.name);
    words.schemas.push_back(std::move(names));
    if (!s->database.empty()) words.databases.push_back(s->database);
  }
  std::sort(words.databases.begin(), words.databases.end());
  words.databases.erase(std::unique(words.databases.begin(), words.databases.end()),
                        words.databases.end());
}

size_t CompletionWordStart(std::string_view text) {
  size_t i = text.size();
  while (i > 0 && !IsBreak(text[i - 1])) --i;
  return i;
}

std::vector<std::string> Completions(std::string_view text_before_cursor,
                                     const CompletionWords& words) {
  const size_t start = CompletionWordStart(text_before_cursor);
  const std::string_view word = text_before_cursor.substr(start);

  if (!word.empty() && word[0] == '!') {
    // A command name, when the `!` opens a line where a statement could start.
    const size_t newline =
        start == 0 ? std::string_view::npos : text_before_cursor.rfind('\n', start - 1);
    const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
    for (size_t i = line_start; i < start; ++i) {
      if (!IsBlank(text_before_cursor[i])) return {};
    }
    if (!IsComplete(text_before_cursor.substr(0, line_start))) return {};
    return CommandCompletions(word, words);
  }

  const std::vector<std::string_view> parts = SplitParts(word);
  const std::string_view partial = parts.back();
  const std::string_view prefix = word.substr(0, word.size() - partial.size());
  Candidates out(prefix, partial, TypedLowerCase(word));
  switch (parts.size()) {
    case 1:
      // Database names where a statement names a database (CREATE / DROP DATABASE), and only
      // there: elsewhere they would crowd the schemas they are often named after.
      if (EqualsIgnoreCase(PreviousWord(text_before_cursor.substr(0, start)), "DATABASE")) {
        for (const auto& d : words.databases) out.Name(DatabaseSpelling(d));
        break;
      }
      for (const auto& kw : words.keywords) out.Keyword(kw);
      for (const auto& s : words.schemas) {
        if (s.catalog.empty()) {
          out.Name(s.name);
        } else {
          out.Name(s.catalog);
        }
        if (s.catalog.empty() && s.name == words.default_schema) {
          for (const auto& t : s.tables) out.Name(t);
        }
      }
      break;
    case 2:
      // `schema.` gives its tables, `catalog.` its schemas.
      for (const auto& s : words.schemas) {
        if (s.catalog.empty() && PartNames(parts[0], s.name)) {
          for (const auto& t : s.tables) out.Name(t);
        } else if (!s.catalog.empty() && PartNames(parts[0], s.catalog)) {
          out.Name(s.name);
        }
      }
      break;
    case 3:
      for (const auto& s : words.schemas) {
        if (!s.catalog.empty() && PartNames(parts[0], s.catalog) && PartNames(parts[1], s.name)) {
          for (const auto& t : s.tables) out.Name(t);
        }
      }
      break;
    default: break;
  }
  return out.Take();
}

bool NamesAContainer(std::string_view word, const CompletionWords& words) {
  const std::vector<std::string_view> parts = SplitParts(word);
  if (parts.back().empty()) return false;
  for (const auto& s : words.schemas) {
    if (parts.size() == 1 && s.catalog.empty() && PartNames(parts[0], s.name)) return true;
    if (parts.size() == 1 && !s.catalog.empty() && PartNames(parts[0], s.catalog)) return true;
    if (parts.size() == 2 && !s.catalog.empty() && PartNames(parts[0], s.catalog) &&
        PartNames(parts[1], s.name)) {
      return true;
    }
  }
  return false;
}

std::string CommonCompletion(std::string_view word, const std::vector<std::string>& candidates) {
  if (candidates.empty()) return std::string(word);
  if (candidates.size() == 1) return candidates[0];
  std::string_view common = candidates[0];
  for (const auto& c : candidates) {
    size_t n = 0;
    while (n < common.size() && n < c.size() && common[n] == c[n]) ++n;
    common = common.substr(0, n);
  }
  // Never stop inside a UTF-8 sequence.
  while (!common.empty() && common.size() < candidates[0].size() &&
         (static_cast<unsigned char>(candidates[0][common.size()]) & 0xC0) == 0x80) {
    common.remove_suffix(1);
  }
  if (common.size() >= word.size() && common.substr(0, word.size()) == word) {
    return std::string(common);
  }
  return std::string(word);
}

// ---- history ----------------------------------------------------------------------------------

std::string EncodeHistoryEntry(std::string_view entry) {
  std::string out;
  out.reserve(entry.size());
  for (char c : entry) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out;
}

std::string DecodeHistoryEntry(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\' || i + 1 == line.size()) {
      out += line[i];
      continue;
    }
    const char next = line[++i];
    switch (next) {
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case '\\': out += '\\'; break;
      default:  // not written by EncodeHistoryEntry: kept as it is
        out += '\\';
        out += next;
    }
  }
  return out;
}

History::History(std::string path, size_t limit)
    : path_(std::move(path)), limit_(std::max<size_t>(limit, 1)) {}

Status History::Load() {
  entries_.clear();
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return Status::OK();
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    return Status::Unavailable(fmt::format("cannot read {}: {}", path_, std::strerror(errno)));
  }
  size_t total = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++total;
    entries_.push_back(DecodeHistoryEntry(line));
    if (entries_.size() > limit_) entries_.pop_front();
  }
  if (in.bad()) {
    return Status::Unavailable(fmt::format("cannot read {}: {}", path_, std::strerror(errno)));
  }
  if (total <= limit_) return Status::OK();
  // Rewrite the newest entries, replacing the file at once.
  std::string text;
  for (const auto& e : entries_) {
    text += EncodeHistoryEntry(e);
    text += '\n';
  }
  const std::string tmp = path_ + ".tmp";
  HOP_RETURN_IF_ERROR(WriteFile(tmp, O_TRUNC, text));
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    return Status::Unavailable(fmt::format("cannot replace {}: {}", path_, std::strerror(e)));
  }
  return Status::OK();
}

Status History::Add(std::string_view entry) {
  if (entry.empty() || (!entries_.empty() && entries_.back() == entry)) return Status::OK();
  entries_.emplace_back(entry);
  if (entries_.size() > limit_) entries_.pop_front();
  return WriteFile(path_, O_APPEND, EncodeHistoryEntry(entry) + "\n");
}

// ---- the loop ---------------------------------------------------------------------------------

LineReader::Result StreamLineReader::Read(const std::string& /*prompt*/, std::string& line) {
  // Stops one byte past the request limit, so that a stream without line breaks (/dev/zero)
  // cannot exhaust memory: Shell::Feed refuses the over-long line.
  const size_t keep = CurrentLimits().max_request_bytes + 1;
  line.clear();
  std::streambuf* buf = in_.rdbuf();
  if (buf == nullptr) return Result::kEof;
  bool any = false;
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    any = true;
    if (c == '\n') break;
    line.push_back(static_cast<char>(c));
    if (line.size() >= keep) break;
  }
  if (!any) return Result::kEof;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (first_) DropByteOrderMark(line);
  first_ = false;
  return Result::kLine;
}

Shell::Shell(session::Session& session, store::Store& store, History* history, std::ostream& out,
             std::ostream& err)
    : session_(session),
      store_(store),
      history_(history),
      out_(out),
      err_(err),
      words_(BaseCompletionWords()) {
  if (history_ != nullptr && !history_->entries().empty()) last_entry_ = history_->entries().back();
}

int Shell::Run(LineReader& reader, bool run_unfinished) {
  piped_ = run_unfinished;
  std::string line;
  for (;;) {
    switch (reader.Read(prompt(), line)) {
      case LineReader::Result::kLine:
        if (!Feed(line, reader)) return failed_;
        break;
      case LineReader::Result::kInterrupted: Clear(); break;
      case LineReader::Result::kEof: {
        const std::string buffer = std::move(pending_);
        pending_.clear();
        if (run_unfinished && !buffer.empty()) RunBuffer(buffer, reader);
        return failed_;
      }
    }
  }
}

bool Shell::Feed(const std::string& line, LineReader& reader) {
  const size_t limit = CurrentLimits().max_request_bytes;
  if (pending_.size() + line.size() > limit) {
    ++failed_;
    err_ << "hop: the statement being entered is larger than " << FormatByteSize(limit)
         << ", the most hop reads from one input (HOP_MAX_REQUEST_BYTES); it was dropped\n"
         << std::flush;
    pending_.clear();
    return !piped_;
  }
  if (pending_.empty()) {
    if (TrimWhitespace(line).empty()) return true;
    pending_ = line;
  } else {
    pending_ += '\n';
    pending_ += line;
  }
  if (!IsComplete(pending_)) return true;
  const std::string buffer = std::move(pending_);
  pending_.clear();
  return RunBuffer(buffer, reader);
}

bool Shell::RunBuffer(const std::string& buffer, LineReader& reader) {
  const std::vector<sql::ScriptItem> items = sql::SplitScript(buffer);
  if (items.empty()) return true;  // only comments
  const bool quits = items.size() == 1 && items[0].kind == sql::ScriptItem::Kind::kCommand &&
                     (CommandWord(items[0].text) == "quit" || CommandWord(items[0].text) == "exit");
  if (!quits) Remember(std::string(TrimRight(buffer)), reader);
  for (const sql::ScriptItem& item : items) {
    const bool is_command = item.kind == sql::ScriptItem::Kind::kCommand;
    const std::string word = is_command ? CommandWord(item.text) : std::string();
    if (word == "quit" || word == "exit") return false;
    std::string o;
    session_.set_output_flush([this](std::string& chunk) {
      out_ << chunk;
      chunk.clear();
    });
    struct sigaction previous = {};
    if (cancel_on_interrupt_) {
      struct sigaction on_int = {};
      on_int.sa_handler = OnCancel;
      sigemptyset(&on_int.sa_mask);
      on_int.sa_flags = SA_RESTART;
      sigaction(SIGINT, &on_int, &previous);
    }
    Status st = session_.Execute(item.text, is_command, o,
                                 {item.loc.line, item.loc.column, item.line_prefix});
    if (cancel_on_interrupt_) sigaction(SIGINT, &previous, nullptr);
    session_.set_output_flush(nullptr);
    if (word == "help" && st.ok()) o += kShellHelp;
    words_stale_ = true;
    out_ << EscapeForTerminal(o);
    if (!o.empty() && o.back() != '\n') out_ << '\n';
    out_ << std::flush;
    if (!st.ok()) {
      ++failed_;
      err_ << EscapeForTerminal(st.ToString()) << "\n" << std::flush;
    }
  }
  return true;
}

void Shell::Remember(const std::string& entry, LineReader& reader) {
  // An entry equal to the one before it is not repeated, in the editor as in the file.
  if (entry.empty() || entry == last_entry_) return;
  last_entry_ = entry;
  reader.Remember(entry);
  if (history_ == nullptr) return;
  Status st = history_->Add(entry);
  if (!st.ok() && !history_warned_) {
    history_warned_ = true;
    err_ << "hop: history is not saved: " << EscapeForTerminal(st.message()) << "\n" << std::flush;
  }
}

const CompletionWords& Shell::Words() {
  if (words_stale_) {
    words_stale_ = false;
    // A catalog that cannot be loaded leaves the names of the last one.
    auto cat = catalog::Catalog::Load(store_, session_.properties().namespace_name);
    if (cat.ok()) SetCatalogWords(*cat, words_);
  }
  return words_;
}

std::vector<std::string> Shell::Complete(std::string_view line_before_cursor) {
  if (pending_.empty()) return Completions(line_before_cursor, Words());
  std::string text = pending_;
  text += '\n';
  text += line_before_cursor;
  return Completions(text, Words());
}

int RunShell(const RunOptions& options, const std::string& state_dir, store::Store& store) {
  auto props = SessionProperties(options);
  if (!props.ok()) {
    std::cerr << "hop: " << EscapeForTerminal(props.status().ToString()) << "\n";
    return 2;
  }
  session::Session session(store, std::move(props).value());
  // Interactive: the operator runs from the start, so triggers fire while the user works.
  if (options.start_control_plane) {
    session.set_control_plane(options.start_control_plane(session::ControlPlaneNeed::kRun));
  }
  if (!::isatty(STDIN_FILENO)) {
    // Piped input: the loop without editing, prompts or history, failing like `hop -f -`.
    Shell shell(session, store, nullptr, std::cout, std::cerr);
    StreamLineReader reader(std::cin);
    return shell.Run(reader, /*run_unfinished=*/true) > 0 ? 1 : 0;
  }
  History history((std::filesystem::path(state_dir) / "history").string());
  History* kept = &history;
  if (Status st = history.Load(); !st.ok()) {
    std::cerr << "hop: history is not kept: " << EscapeForTerminal(st.message()) << "\n";
    kept = nullptr;
  }
  Shell shell(session, store, kept, std::cout, std::cerr);
  shell.set_cancel_on_interrupt(true);
  std::cout << fmt::format(
                   "hop shell on {} (namespace {}). Statements end with ';'; !help lists the "
                   "commands, !quit leaves.\n",
                   state_dir, session.properties().namespace_name)
            << std::flush;
  EditLineReader reader(
      kept, [&shell](std::string_view line) { return shell.Complete(line); },
      [&shell](std::string_view word) { return NamesAContainer(word, shell.Words()); });
  shell.Run(reader, /*run_unfinished=*/false);
  return 0;
}

}  // namespace hop::cli
