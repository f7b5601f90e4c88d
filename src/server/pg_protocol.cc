// The PostgreSQL protocol's bytes (pg_protocol.h).
#include "server/pg_protocol.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace hop::server {

namespace {

Status Violation(std::string_view what) {
  return Status::InvalidArgument(fmt::format("protocol violation: {}", what));
}

uint32_t BigEndian32(std::string_view b) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(b[0])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[3]));
}

}  // namespace

std::string StartupPacket::Parameter(std::string_view name) const {
  for (const auto& [k, v] : parameters) {
    if (k == name) return v;
  }
  return "";
}

Result<uint32_t> StartupLength(std::string_view four_bytes, uint32_t max_bytes) {
  if (four_bytes.size() < 4) return Violation("short startup packet");
  const uint32_t n = BigEndian32(four_bytes);
  if (n < 8) return Violation(fmt::format("startup packet of {} bytes", n));
  if (n > max_bytes) {
    return Violation(fmt::format("startup packet of {} bytes, over the limit of {}", n, max_bytes));
  }
  return n;
}

Result<StartupPacket> DecodeStartup(std::string_view body) {
  Reader r(body);
  HOP_ASSIGN_OR_RETURN(int32_t code, r.Int32());
  StartupPacket p;
  if (code == kSslRequestCode || code == kGssEncRequestCode) {
    HOP_RETURN_IF_ERROR(r.End(code == kSslRequestCode ? "SSLRequest" : "GSSENCRequest"));
    p.kind = code == kSslRequestCode ? StartupPacket::Kind::kSsl : StartupPacket::Kind::kGssEnc;
    return p;
  }
  if (code == kCancelRequestCode) {
    p.kind = StartupPacket::Kind::kCancel;
    HOP_ASSIGN_OR_RETURN(p.process_id, r.Int32());
    HOP_ASSIGN_OR_RETURN(p.secret_key, r.Int32());
    HOP_RETURN_IF_ERROR(r.End("CancelRequest"));
    return p;
  }
  if (code != kProtocolVersion3) {
    return Status::InvalidArgument(
        fmt::format("unsupported frontend protocol {}.{}: hop serves protocol 3.0",
                    static_cast<uint32_t>(code) >> 16, code & 0xffff));
  }
  for (;;) {
    HOP_ASSIGN_OR_RETURN(std::string name, r.CString());
    if (name.empty()) break;
    HOP_ASSIGN_OR_RETURN(std::string value, r.CString());
    p.parameters.emplace_back(std::move(name), std::move(value));
  }
  HOP_RETURN_IF_ERROR(r.End("StartupMessage"));
  return p;
}

Result<uint32_t> MessageBodyLength(std::string_view four_bytes, uint32_t max_bytes) {
  if (four_bytes.size() < 4) return Violation("short message header");
  const uint32_t n = BigEndian32(four_bytes);
  if (n < 4) return Violation(fmt::format("message length {}", n));
  if (n - 4 > max_bytes) {
    return Violation(fmt::format("message of {} bytes, over the limit of {}", n - 4, max_bytes));
  }
  return n - 4;
}

Result<int16_t> Reader::Int16() {
  if (body_.size() - pos_ < 2) return Violation("message too short");
  const auto hi = static_cast<uint8_t>(body_[pos_]);
  const auto lo = static_cast<uint8_t>(body_[pos_ + 1]);
  pos_ += 2;
  return static_cast<int16_t>((hi << 8) | lo);
}

Result<int32_t> Reader::Int32() {
  if (body_.size() - pos_ < 4) return Violation("message too short");
  const uint32_t v = BigEndian32(body_.substr(pos_, 4));
  pos_ += 4;
  return static_cast<int32_t>(v);
}

Result<std::string> Reader::CString() {
  const size_t nul = body_.find('\0', pos_);
  if (nul == std::string_view::npos) return Violation("a string without its terminating NUL");
  std::string s(body_.substr(pos_, nul - pos_));
  pos_ = nul + 1;
  return s;
}

Result<std::string_view> Reader::Bytes(size_t n) {
  if (body_.size() - pos_ < n) return Violation("message too short");
  std::string_view s = body_.substr(pos_, n);
  pos_ += n;
  return s;
}

Status Reader::End(std::string_view what) const {
  if (pos_ != body_.size()) {
    return Violation(fmt::format("{} has {} bytes past its end", what, body_.size() - pos_));
  }
  return Status::OK();
}

Result<std::string> DecodeQuery(std::string_view body) {
  Reader r(body);
  HOP_ASSIGN_OR_RETURN(std::string query, r.CString());
  HOP_RETURN_IF_ERROR(r.End("Query"));
  return query;
}

namespace {

// A count of 16-bit values that cannot be negative.
Result<int> Count(Reader& r) {
  HOP_ASSIGN_OR_RETURN(int16_t n, r.Int16());
  if (n < 0) return Violation(fmt::format("negative count {}", n));
  return static_cast<int>(n);
}

Result<std::vector<int16_t>> Formats(Reader& r) {
  HOP_ASSIGN_OR_RETURN(int n, Count(r));
  std::vector<int16_t> formats;
  for (int i = 0; i < n; ++i) {
    HOP_ASSIGN_OR_RETURN(int16_t f, r.Int16());
    if (f != 0 && f != 1) return Violation(fmt::format("format code {}", f));
    formats.push_back(f);
  }
  return formats;
}

}  // namespace

Result<ParseMessage> DecodeParse(std::string_view body) {
  Reader r(body);
  ParseMessage m;
  HOP_ASSIGN_OR_RETURN(m.statement, r.CString());
  HOP_ASSIGN_OR_RETURN(m.query, r.CString());
  HOP_ASSIGN_OR_RETURN(int n, Count(r));
  for (int i = 0; i < n; ++i) {
    HOP_ASSIGN_OR_RETURN(int32_t oid, r.Int32());
    m.param_types.push_back(static_cast<uint32_t>(oid));
  }
  HOP_RETURN_IF_ERROR(r.End("Parse"));
  return m;
}

Result<BindMessage> DecodeBind(std::string_view body) {
  Reader r(body);
  BindMessage m;
  HOP_ASSIGN_OR_RETURN(m.portal, r.CString());
  HOP_ASSIGN_OR_RETURN(m.statement, r.CString());
  HOP_ASSIGN_OR_RETURN(m.param_formats, Formats(r));
  HOP_ASSIGN_OR_RETURN(int n, Count(r));
  if (m.param_formats.size() > 1 && m.param_formats.size() != static_cast<size_t>(n)) {
    return Violation(
        fmt::format("Bind has {} parameter formats for {} parameters", m.param_formats.size(), n));
  }
  for (int i = 0; i < n; ++i) {
    HOP_ASSIGN_OR_RETURN(int32_t len, r.Int32());
    if (len == -1) {
      m.params.emplace_back(std::nullopt);
      continue;
    }
    if (len < 0) return Violation(fmt::format("parameter length {}", len));
    HOP_ASSIGN_OR_RETURN(std::string_view value, r.Bytes(static_cast<size_t>(len)));
    m.params.emplace_back(std::string(value));
  }
  HOP_ASSIGN_OR_RETURN(m.result_formats, Formats(r));
  HOP_RETURN_IF_ERROR(r.End("Bind"));
  return m;
}

Result<TargetMessage> DecodeTarget(std::string_view body, std::string_view what) {
  Reader r(body);
  TargetMessage m;
  HOP_ASSIGN_OR_RETURN(std::string_view target, r.Bytes(1));
  m.target = target[0];
  if (m.target != 'S' && m.target != 'P') {
    return Violation(
        fmt::format("{} of '{}', neither S nor P", what, static_cast<unsigned char>(m.target)));
  }
  HOP_ASSIGN_OR_RETURN(m.name, r.CString());
  HOP_RETURN_IF_ERROR(r.End(what));
  return m;
}

Result<ExecuteMessage> DecodeExecute(std::string_view body) {
  Reader r(body);
  ExecuteMessage m;
  HOP_ASSIGN_OR_RETURN(m.portal, r.CString());
  HOP_ASSIGN_OR_RETURN(m.max_rows, r.Int32());
  HOP_RETURN_IF_ERROR(r.End("Execute"));
  if (m.max_rows < 0) m.max_rows = 0;  // as PostgreSQL: no limit
  return m;
}

Result<std::string> DecodePassword(std::string_view body) {
  Reader r(body);
  HOP_ASSIGN_OR_RETURN(std::string password, r.CString());
  HOP_RETURN_IF_ERROR(r.End("PasswordMessage"));
  return password;
}

Result<std::pair<std::string, std::string>> DecodeSaslInitial(std::string_view body) {
  Reader r(body);
  HOP_ASSIGN_OR_RETURN(std::string mechanism, r.CString());
  HOP_ASSIGN_OR_RETURN(int32_t n, r.Int32());
  std::string first;
  if (n >= 0) {
    HOP_ASSIGN_OR_RETURN(std::string_view data, r.Bytes(static_cast<size_t>(n)));
    first = std::string(data);
  } else if (n != -1) {
    return Violation(fmt::format("SASL response length {}", n));
  }
  HOP_RETURN_IF_ERROR(r.End("SASLInitialResponse"));
  return std::make_pair(std::move(mechanism), std::move(first));
}

Writer& Writer::Begin(char type) {
  out_ += type;
  start_ = out_.size();
  out_.append(4, '\0');
  return *this;
}

Writer& Writer::Int8(uint8_t v) {
  out_ += static_cast<char>(v);
  return *this;
}

Writer& Writer::Int16(int16_t v) {
  const auto u = static_cast<uint16_t>(v);
  out_ += static_cast<char>(u >> 8);
  out_ += static_cast<char>(u & 0xff);
  return *this;
}

Writer& Writer::Int32(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  out_ += static_cast<char>(u >> 24);
  out_ += static_cast<char>((u >> 16) & 0xff);
  out_ += static_cast<char>((u >> 8) & 0xff);
  out_ += static_cast<char>(u & 0xff);
  return *this;
}

Writer& Writer::CString(std::string_view s) {
  const size_t nul = s.find('\0');
  out_ += s.substr(0, nul);
  out_ += '\0';
  return *this;
}

Writer& Writer::Bytes(std::string_view s) {
  out_ += s;
  return *this;
}

void Writer::End() {
  const auto n = static_cast<uint32_t>(out_.size() - start_);
  out_[start_] = static_cast<char>(n >> 24);
  out_[start_ + 1] = static_cast<char>((n >> 16) & 0xff);
  out_[start_ + 2] = static_cast<char>((n >> 8) & 0xff);
  out_[start_ + 3] = static_cast<char>(n & 0xff);
}

void WriteError(std::string& out, const ErrorFields& f, bool notice) {
  Writer w(out);
  w.Begin(notice ? 'N' : 'E');
  w.Int8('S').CString(f.severity);
  w.Int8('V').CString(f.severity);
  w.Int8('C').CString(f.sqlstate);
  w.Int8('M').CString(f.message);
  if (!f.detail.empty()) w.Int8('D').CString(f.detail);
  if (f.position > 0) w.Int8('P').CString(std::to_string(f.position));
  w.Int8(0);
  w.End();
}

std::string_view SqlState(StatusCode code) {
  // One row per code: adding a StatusCode without its row here fails to compile (-Wswitch).
  switch (code) {
    case StatusCode::kOk: return "00000";
    case StatusCode::kParse: return "42601";            // syntax_error
    case StatusCode::kBind: return "42804";             // datatype_mismatch (BindSqlState)
    case StatusCode::kCatalogNotFound: return "42P01";  // undefined_table
    case StatusCode::kAlreadyExists: return "42P07";    // duplicate_table
    case StatusCode::kInvalidArgument: return "22023";  // invalid_parameter_value
    case StatusCode::kValidation: return "23514";       // check_violation
    case StatusCode::kConflict: return "40001";         // serialization_failure
    case StatusCode::kNotFound: return "42704";         // undefined_object
    case StatusCode::kUnavailable: return "08006";      // connection_failure (of a dependency)
    case StatusCode::kExecution: return "22000";        // data_exception
    case StatusCode::kInternal: return "XX000";         // internal_error
  }
  return "XX000";
}

namespace {

// The 1-based character position in `query` of line `line`, column `column` (bytes) of the
// statement that starts at byte `offset`; 0 when it is not there.
int CharacterPosition(std::string_view query, size_t offset, uint32_t line, uint32_t column) {
  if (offset > query.size()) return 0;
  size_t i = offset;
  for (uint32_t l = 1; l < line; ++l) {
    const size_t nl = query.find('\n', i);
    if (nl == std::string_view::npos) return 0;
    i = nl + 1;
  }
  i += column - 1;
  if (i > query.size()) return 0;
  int chars = 1;
  for (size_t k = 0; k < i; ++k) chars += (static_cast<uint8_t>(query[k]) & 0xC0) != 0x80;
  return chars;
}

// A binder error's SQLSTATE, by the start of its message (Calcite's messages, which hop keeps):
// the name errors have PostgreSQL's codes of their own; typing errors are datatype_mismatch.
std::string_view BindSqlState(std::string_view message) {
  static constexpr std::pair<std::string_view, std::string_view> kByStart[] = {
      {"Column '", "42703"},  // undefined_column ...
      {"Unknown target column", "42703"},
      {"Unknown field", "42703"},
      {"Table '", "42P01"},                                // undefined_table
      {"No match found for function signature", "42883"},  // undefined_function
      {"Aggregate expression", "42803"},                   // grouping_error
      {"Duplicate name", "42701"},                         // duplicate_column
      {"Ordinal out of range", "42P10"},                   // invalid_column_reference
      {"target lists can have at most", "54011"},          // too_many_columns
  };
  for (const auto& [start, state] : kByStart) {
    if (message.rfind(start, 0) != 0) continue;
    // ... but an ambiguous column is ambiguous_column.
    if (state == "42703" && message.find("' is ambiguous") != std::string_view::npos) {
      return "42702";
    }
    return state;
  }
  return SqlState(StatusCode::kBind);
}

// A file hop could not write (store::sqlite::StorageProblem's words, from the store or from the
// engine's local files), with the code PostgreSQL gives the same failure of a file: a full disk
// 53100 disk_full, a read-only file system or directory 42501 insufficient_privilege, an I/O
// error 58030 io_error. Empty for any other message.
std::string_view StorageSqlState(std::string_view message) {
  if (message.find(" has no space left (") != std::string_view::npos) return "53100";
  if (message.find(" is on a read-only file system: hop cannot write ") != std::string_view::npos ||
      message.find(" is read-only to this user: hop cannot write ") != std::string_view::npos) {
    return "42501";
  }
  if (message.find(" (an I/O error)") != std::string_view::npos) return "58030";
  return {};
}

// An error in a value while a statement ran (the engine's kExecution and kInvalidArgument), by
// its message, where PostgreSQL has a code of its own for the cause; else the code's.
std::string_view ValueSqlState(const Status& status) {
  const std::string_view message = status.message();
  static constexpr std::pair<std::string_view, std::string_view> kByWords[] = {
      {"Division by zero", "22012"},       // division_by_zero
      {"Numeric overflow", "22003"},       // numeric_value_out_of_range
      {" is out of range for ", "22003"},  // a value too large for its type
      {"Substring error: ", "22011"},      // substring_error
  };
  for (const auto& [words, state] : kByWords) {
    if (message.find(words) != std::string_view::npos) return state;
  }
  // A text that is not a value of its type (CAST('abc' AS INTEGER), a value 'abc' written to an
  // INTEGER): invalid_text_representation, or for a date or time invalid_datetime_format.
  size_t type = std::string_view::npos;
  if (message.rfind("Cannot cast '", 0) == 0) {
    type = message.find("' to ");
    if (type != std::string_view::npos) type += 5;
  } else if (message.rfind("'", 0) == 0) {
    type = message.find("' is not a valid ");
    if (type != std::string_view::npos) type += 17;
  }
  if (type != std::string_view::npos) {
    const std::string_view name = message.substr(type);
    return name.rfind("DATE", 0) == 0 || name.rfind("TIME", 0) == 0 ? "22007" : "22P02";
  }
  return SqlState(status.code());
}

}  // namespace

ErrorFields ErrorOf(const Status& status, std::string_view query, size_t offset) {
  ErrorFields f;
  switch (status.code()) {
    case StatusCode::kBind: f.sqlstate = std::string(BindSqlState(status.message())); break;
    case StatusCode::kExecution:
    case StatusCode::kInvalidArgument: f.sqlstate = std::string(ValueSqlState(status)); break;
    default: f.sqlstate = std::string(SqlState(status.code())); break;
  }
  if (std::string_view storage = StorageSqlState(status.message()); !storage.empty()) {
    f.sqlstate = std::string(storage);
  }
  // The message without hop's category ("Execution Error: "), as PostgreSQL's primary message
  // is the words alone; the SQLSTATE says the kind.
  const std::string& text = status.message();
  const size_t nl = text.find('\n');
  f.message = text.substr(0, nl);
  if (nl != std::string::npos) f.detail = text.substr(nl + 1);
  if (!query.empty()) {
    // Positioned messages end their first line with "at line L, column C" (source_error.h).
    const size_t at = f.message.rfind(" at line ");
    if (at != std::string::npos) {
      const char* p = f.message.c_str() + at + 9;
      char* end = nullptr;
      const unsigned long line = std::strtoul(p, &end, 10);
      if (end != p && std::string_view(end).rfind(", column ", 0) == 0) {
        const char* c = end + 9;
        const unsigned long column = std::strtoul(c, &end, 10);
        if (end != c && line > 0 && column > 0 && line < 1u << 20 && column < 1u << 30) {
          f.position = CharacterPosition(query, offset, static_cast<uint32_t>(line),
                                         static_cast<uint32_t>(column));
        }
        if (f.position > 0) {
          // The client shows the line and a caret from the position: hop's own two go.
          size_t cut = f.detail.find('\n');
          cut = cut == std::string::npos ? std::string::npos : f.detail.find('\n', cut + 1);
          f.detail = cut == std::string::npos ? std::string() : f.detail.substr(cut + 1);
        }
      }
    }
  }
  return f;
}

std::vector<std::pair<std::string, std::string>> StartupOptionSettings(std::string_view options) {
  std::vector<std::string> words;
  bool in_word = false;
  for (size_t i = 0; i < options.size(); ++i) {
    const char ch = options[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
      in_word = false;
      continue;
    }
    if (!in_word) words.emplace_back();
    in_word = true;
    // A backslash takes the next character as it is; one at the very end stays.
    words.back() += ch == '\\' && i + 1 < options.size() ? options[++i] : ch;
  }
  std::vector<std::pair<std::string, std::string>> settings;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string pair;
    if (words[i] == "-c" && i + 1 < words.size()) {
      pair = words[++i];
    } else if (words[i].rfind("--", 0) == 0) {
      pair = words[i].substr(2);
    } else if (words[i].rfind("-c", 0) == 0) {
      pair = words[i].substr(2);
    } else {
      continue;
    }
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = pair.substr(0, eq);
    for (char& c : name) {
      if (c == '-') c = '_';
    }
    settings.emplace_back(std::move(name), pair.substr(eq + 1));
  }
  return settings;
}

Result<std::chrono::milliseconds> ParseTimeoutSetting(std::string_view name,
                                                      std::string_view value) {
  auto invalid = [&](std::string_view hint) {
    return Status::InvalidArgument(
        fmt::format("invalid value for parameter \"{}\": \"{}\"{}", name, value, hint));
  };
  std::string_view v = value;
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  const std::string text(v);
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || !std::isfinite(number)) return invalid("");
  std::string_view unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"", 1},        {"us", 0.001},  {"ms", 1},      {"s", 1000},
      {"min", 60000}, {"h", 3600000}, {"d", 86400000}};
  double factor = 0;
  for (const auto& [name, f] : kUnits) {
    if (unit == name) factor = f;
  }
  if (factor == 0) {
    return invalid(
        " (valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\" and \"d\")");
  }
  const double ms = std::rint(number * factor);
  if (ms < 0 || ms > 2147483647.0) {
    return Status::InvalidArgument(fmt::format(
        "{} is outside the valid range for parameter \"{}\" (0 .. 2147483647 ms)", value, name));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

std::string FormatTimeoutSetting(std::chrono::milliseconds timeout) {
  const int64_t ms = timeout.count();
  if (ms == 0) return "0";
  static constexpr std::pair<int64_t, std::string_view> kUnits[] = {
      {86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}};
  for (const auto& [size, name] : kUnits) {
    if (ms % size == 0) return fmt::format("{}{}", ms / size, name);
  }
  return fmt::format("{}ms", ms);
}

}  // namespace hop::server
