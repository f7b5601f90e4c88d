// Statement parsing: the dispatch on the first keyword, and every DDL and session statement of
// hop's language (Hoptimator's grammar, compatibility.md §1.2, plus SET / RESET / SHOW).
#include <fmt/format.h>

#include <charconv>

#include "common/strings.h"
#include "sql/lexer.h"
#include "sql/parser_impl.h"

namespace hop::sql::internal {
namespace {

template <typename T>
std::unique_ptr<T> Make(const Token& at) {
  auto node = std::make_unique<T>();
  node->loc = at.loc;
  return node;
}

}  // namespace

StatementPtr Parser::ParseStatementBody() {
  const Token& t = Peek();
  if (PeekQueryStart() || PeekType(TokenType::kLParen)) {
    auto stmt = Make<QueryStatement>(t);
    stmt->query = ParseQuery();
    if (!stmt->query) return nullptr;
    return stmt;
  }
  if (t.type == TokenType::kWord) {
    switch (t.keyword) {
      case Keyword::kINSERT: return ParseInsert();
      case Keyword::kCREATE: return ParseCreate();
      case Keyword::kDROP: return ParseDrop();
      case Keyword::kREFRESH: return ParseRefresh();
      case Keyword::kFIRE: return ParseFire();
      case Keyword::kPAUSE: return ParsePauseResume(false);
      case Keyword::kRESUME: return ParsePauseResume(true);
      case Keyword::kSET: return ParseSet();
      case Keyword::kRESET: return ParseReset();
      case Keyword::kSHOW: return ParseShow();
      case Keyword::kEXPLAIN:
      case Keyword::kSPECIFY:
      case Keyword::kPIPELINE:
      case Keyword::kDESCRIBE:
      case Keyword::kRESOLVE:
      case Keyword::kGRAPH: return ParseInspect();
      default: break;
    }
  }
  for (Keyword kw :
       {Keyword::kSELECT, Keyword::kWITH, Keyword::kVALUES, Keyword::kINSERT, Keyword::kCREATE,
        Keyword::kDROP, Keyword::kREFRESH, Keyword::kFIRE, Keyword::kPAUSE, Keyword::kRESUME,
        Keyword::kSET, Keyword::kRESET, Keyword::kSHOW, Keyword::kEXPLAIN, Keyword::kSPECIFY,
        Keyword::kPIPELINE, Keyword::kDESCRIBE, Keyword::kRESOLVE, Keyword::kGRAPH}) {
    NoteExpectedKeyword(kw);
  }
  NoteExpectedType(TokenType::kLParen);
  return nullptr;
}

bool Parser::ParseIfNotExists() {
  if (PeekKeyword(Keyword::kIF)) {
    ++pos_;
    return ExpectKeyword(Keyword::kNOT) && ExpectKeyword(Keyword::kEXISTS);
  }
  NoteExpectedKeyword(Keyword::kIF);
  return false;
}

StatementPtr Parser::ParseCreate() {
  ++pos_;  // CREATE
  bool or_replace = false;
  if (AcceptKeyword(Keyword::kOR)) {
    if (!ExpectKeyword(Keyword::kREPLACE)) return nullptr;
    or_replace = true;
  }
  const Token& t = Peek();
  if (t.type == TokenType::kWord) {
    switch (t.keyword) {
      case Keyword::kTABLE: return ParseCreateTable(or_replace);
      case Keyword::kVIEW: return ParseCreateView(or_replace);
      case Keyword::kMATERIALIZED: return ParseCreateMaterializedView(or_replace);
      case Keyword::kTRIGGER: return ParseCreateTrigger(or_replace);
      case Keyword::kDATABASE: return ParseCreateDatabase(or_replace);
      case Keyword::kCATALOG: return ParseCreateCatalog(or_replace);
      case Keyword::kFUNCTION: return ParseCreateFunction(or_replace);
      default: break;
    }
  }
  if (!or_replace) NoteExpectedKeyword(Keyword::kOR);
  for (Keyword kw : {Keyword::kTABLE, Keyword::kVIEW, Keyword::kMATERIALIZED, Keyword::kTRIGGER,
                     Keyword::kDATABASE, Keyword::kCATALOG, Keyword::kFUNCTION}) {
    NoteExpectedKeyword(kw);
  }
  return nullptr;
}

// An `IF NOT EXISTS` that may follow the object keyword. Returns false only on a malformed one.
#define HOP_PARSE_IF_NOT_EXISTS(stmt)        \
  if (PeekKeyword(Keyword::kIF)) {           \
    if (!ParseIfNotExists()) return nullptr; \
    (stmt)->if_not_exists = true;            \
  } else {                                   \
    NoteExpectedKeyword(Keyword::kIF);       \
  }

StatementPtr Parser::ParseCreateTable(bool or_replace) {
  auto stmt = Make<CreateTableStatement>(Peek());
  ++pos_;  // TABLE
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  if (AcceptKeyword(Keyword::kLIKE)) {
    LikeClause like;
    if (!ParseQualifiedName(&like.source)) return nullptr;
    // Options follow bare (Calcite) or in parentheses (Flink).
    const bool parenthesised =
        PeekType(TokenType::kLParen) &&
        (PeekKeyword(Keyword::kINCLUDING, 1) || PeekKeyword(Keyword::kEXCLUDING, 1));
    if (parenthesised) ++pos_;
    while (PeekKeyword(Keyword::kINCLUDING) || PeekKeyword(Keyword::kEXCLUDING)) {
      LikeOption opt;
      opt.including = PeekKeyword(Keyword::kINCLUDING);
      ++pos_;
      if (AcceptKeyword(Keyword::kALL)) {
        opt.kind = LikeOptionKind::kAll;
      } else if (AcceptKeyword(Keyword::kDEFAULTS)) {
        opt.kind = LikeOptionKind::kDefaults;
      } else if (AcceptKeyword(Keyword::kGENERATED)) {
        opt.kind = LikeOptionKind::kGenerated;
      } else {
        return nullptr;
      }
      like.options.push_back(opt);
    }
    NoteExpectedKeyword(Keyword::kINCLUDING);
    NoteExpectedKeyword(Keyword::kEXCLUDING);
    if (parenthesised && !ExpectType(TokenType::kRParen)) return nullptr;
    stmt->like = std::move(like);
    return stmt;
  }
  NoteExpectedKeyword(Keyword::kLIKE);
  if (AcceptType(TokenType::kLParen)) {
    do {
      if (!ParseTableElement(stmt.get())) return nullptr;
    } while (AcceptType(TokenType::kComma));
    if (!ExpectType(TokenType::kRParen)) return nullptr;
  }
  if (AcceptKeyword(Keyword::kWITH)) {
    if (!ParseOptionList(&stmt->options)) return nullptr;
  }
  if (AcceptKeyword(Keyword::kAS)) {
    stmt->as_query = ParseQuery();
    if (!stmt->as_query) return nullptr;
  }
  return stmt;
}

bool Parser::ParseTableElement(CreateTableStatement* stmt) {
  const Token& t = Peek();
  const bool constraint_start =
      t.type == TokenType::kWord &&
      (t.keyword == Keyword::kCONSTRAINT || t.keyword == Keyword::kPRIMARY ||
       t.keyword == Keyword::kUNIQUE || t.keyword == Keyword::kCHECK);
  if (constraint_start) {
    TableConstraint c;
    if (AcceptKeyword(Keyword::kCONSTRAINT)) {
      c.name = ParseIdentifier();
      if (!c.name) return false;
    }
    if (AcceptKeyword(Keyword::kPRIMARY)) {
      if (!ExpectKeyword(Keyword::kKEY)) return false;
      c.kind = ConstraintKind::kPrimaryKey;
      if (!ParseIdentifierList(&c.columns)) return false;
    } else if (AcceptKeyword(Keyword::kUNIQUE)) {
      c.kind = ConstraintKind::kUnique;
      if (!ParseIdentifierList(&c.columns)) return false;
    } else if (AcceptKeyword(Keyword::kCHECK)) {
      c.kind = ConstraintKind::kCheck;
      if (!ExpectType(TokenType::kLParen)) return false;
      c.check = ParseExpr();
      if (!c.check || !ExpectType(TokenType::kRParen)) return false;
    } else {
      return false;
    }
    if (PeekKeyword(Keyword::kNOT) && PeekKeyword(Keyword::kENFORCED, 1)) {
      pos_ += 2;
      c.not_enforced = true;
    }
    stmt->constraints.push_back(std::move(c));
    return true;
  }
  ColumnDef col;
  auto name = ParseIdentifier();
  if (!name) {
    for (Keyword kw :
         {Keyword::kCONSTRAINT, Keyword::kPRIMARY, Keyword::kUNIQUE, Keyword::kCHECK}) {
      NoteExpectedKeyword(kw);
    }
    return false;
  }
  col.name = std::move(*name);
  if (PeekType(TokenType::kComma) || PeekType(TokenType::kRParen)) {
    stmt->columns.push_back(std::move(col));
    return true;
  }
  col.type = ParseType();
  if (!col.type) return false;
  while (true) {
    if (col.value_kind == ColumnValueKind::kNone && AcceptKeyword(Keyword::kDEFAULT)) {
      col.value_kind = ColumnValueKind::kDefault;
      col.value = ParseExpr();
      if (!col.value) return false;
      continue;
    }
    if (col.value_kind == ColumnValueKind::kNone &&
        (PeekKeyword(Keyword::kGENERATED) || PeekKeyword(Keyword::kAS))) {
      if (AcceptKeyword(Keyword::kGENERATED)) {
        if (!ExpectKeyword(Keyword::kALWAYS)) return false;
        col.generated_always = true;
      }
      if (!ExpectKeyword(Keyword::kAS) || !ExpectType(TokenType::kLParen)) return false;
      col.value_kind = ColumnValueKind::kGenerated;
      col.value = ParseExpr();
      if (!col.value || !ExpectType(TokenType::kRParen)) return false;
      if (AcceptKeyword(Keyword::kVIRTUAL)) {
        col.storage = GeneratedStorage::kVirtual;
      } else if (AcceptKeyword(Keyword::kSTORED)) {
        col.storage = GeneratedStorage::kStored;
      }
      continue;
    }
    if (col.type->nullability == Nullability::kUnspecified) {
      if (PeekKeyword(Keyword::kNOT) && PeekKeyword(Keyword::kNULL, 1)) {
        pos_ += 2;
        col.type->nullability = Nullability::kNotNull;
        continue;
      }
      if (AcceptKeyword(Keyword::kNULL)) {
        col.type->nullability = Nullability::kNull;
        continue;
      }
    }
    if (!col.primary_key && AcceptKeyword(Keyword::kPRIMARY)) {
      if (!ExpectKeyword(Keyword::kKEY)) return false;
      col.primary_key = true;
      if (PeekKeyword(Keyword::kNOT) && PeekKeyword(Keyword::kENFORCED, 1)) {
        pos_ += 2;
        col.not_enforced = true;
      }
      continue;
    }
    if (col.value_kind == ColumnValueKind::kNone) {
      NoteExpectedKeyword(Keyword::kDEFAULT);
      NoteExpectedKeyword(Keyword::kGENERATED);
      NoteExpectedKeyword(Keyword::kAS);
    }
    break;
  }
  stmt->columns.push_back(std::move(col));
  return true;
}

StatementPtr Parser::ParseCreateView(bool or_replace) {
  auto stmt = Make<CreateViewStatement>(Peek());
  ++pos_;  // VIEW
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  if (PeekType(TokenType::kLParen) && !ParseIdentifierList(&stmt->columns)) return nullptr;
  if (AcceptKeyword(Keyword::kWITH) && !ParseOptionList(&stmt->options)) return nullptr;
  if (!ExpectKeyword(Keyword::kAS)) return nullptr;
  stmt->query = ParseQuery();
  if (!stmt->query) return nullptr;
  return stmt;
}

StatementPtr Parser::ParseCreateMaterializedView(bool or_replace) {
  auto stmt = Make<CreateMaterializedViewStatement>(Peek());
  ++pos_;  // MATERIALIZED
  if (!ExpectKeyword(Keyword::kVIEW)) return nullptr;
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  if (PeekType(TokenType::kLParen) && !ParseIdentifierList(&stmt->columns)) return nullptr;
  if (AcceptKeyword(Keyword::kREFRESHED)) {
    auto cron = ParseStringLiteral();
    if (!cron) return nullptr;
    stmt->refresh_schedule = std::move(*cron);
  }
  if (AcceptKeyword(Keyword::kWITH)) {
    if (!ParseOptionList(&stmt->options)) return nullptr;
  }
  if (!ExpectKeyword(Keyword::kAS)) return nullptr;
  stmt->query = ParseQuery();
  if (!stmt->query) return nullptr;
  return stmt;
}

StatementPtr Parser::ParseCreateTrigger(bool or_replace) {
  auto stmt = Make<CreateTriggerStatement>(Peek());
  ++pos_;  // TRIGGER
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  if (!ExpectKeyword(Keyword::kON) || !ParseQualifiedName(&stmt->target)) return nullptr;
  if (!ExpectKeyword(Keyword::kAS)) return nullptr;
  auto tmpl = ParseStringLiteral();
  if (!tmpl) return nullptr;
  stmt->job_template = std::move(*tmpl);
  if (AcceptKeyword(Keyword::kIN)) {
    auto ns = ParseStringLiteral();
    if (!ns) return nullptr;
    stmt->job_namespace = std::move(*ns);
  }
  if (AcceptKeyword(Keyword::kSCHEDULED)) {
    auto cron = ParseStringLiteral();
    if (!cron) return nullptr;
    stmt->schedule = std::move(*cron);
  }
  if (AcceptKeyword(Keyword::kWITH)) {
    if (!ParseOptionList(&stmt->options)) return nullptr;
  }
  return stmt;
}

StatementPtr Parser::ParseCreateDatabase(bool or_replace) {
  auto stmt = Make<CreateDatabaseStatement>(Peek());
  ++pos_;  // DATABASE
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  if (AcceptKeyword(Keyword::kWITH)) {
    if (!ParseOptionList(&stmt->options)) return nullptr;
  }
  return stmt;
}

StatementPtr Parser::ParseCreateCatalog(bool or_replace) {
  auto stmt = Make<CreateCatalogStatement>(Peek());
  ++pos_;  // CATALOG
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  auto name = ParseIdentifier();
  if (!name) return nullptr;
  stmt->name = std::move(*name);
  if (AcceptKeyword(Keyword::kWITH)) {
    if (!ParseOptionList(&stmt->options)) return nullptr;
  }
  return stmt;
}

StatementPtr Parser::ParseCreateFunction(bool or_replace) {
  auto stmt = Make<CreateFunctionStatement>(Peek());
  ++pos_;  // FUNCTION
  stmt->or_replace = or_replace;
  HOP_PARSE_IF_NOT_EXISTS(stmt);
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  auto language = [&]() -> bool {
    if (stmt->language || !AcceptKeyword(Keyword::kLANGUAGE)) return true;
    stmt->language = ParseIdentifier();
    return stmt->language.has_value();
  };
  if (AcceptKeyword(Keyword::kRETURNS)) {
    stmt->returns = ParseType();
    if (!stmt->returns) return nullptr;
  }
  if (!language() || !ExpectKeyword(Keyword::kAS)) return nullptr;
  auto def = ParseStringLiteral();
  if (!def) return nullptr;
  stmt->definition = std::move(*def);
  if (!language()) return nullptr;
  if (AcceptKeyword(Keyword::kIN)) {
    auto in = ParseStringLiteral();
    if (!in) return nullptr;
    stmt->in = std::move(*in);
  }
  if (AcceptKeyword(Keyword::kUSING)) {
    do {
      FunctionResource r;
      if (AcceptKeyword(Keyword::kJAR)) {
        r.kind = FunctionResourceKind::kJar;
      } else if (AcceptKeyword(Keyword::kFILE)) {
        r.kind = FunctionResourceKind::kFile;
      } else if (AcceptKeyword(Keyword::kARCHIVE)) {
        r.kind = FunctionResourceKind::kArchive;
      } else {
        return nullptr;
      }
      auto uri = ParseStringLiteral();
      if (!uri) return nullptr;
      r.uri = std::move(*uri);
      stmt->resources.push_back(std::move(r));
    } while (AcceptType(TokenType::kComma));
  }
  if (AcceptKeyword(Keyword::kWITH)) {
    if (!ParseOptionList(&stmt->options)) return nullptr;
  }
  return stmt;
}

#undef HOP_PARSE_IF_NOT_EXISTS

StatementPtr Parser::ParseInsert() {
  auto stmt = Make<InsertStatement>(Peek());
  ++pos_;  // INSERT
  if (!ExpectKeyword(Keyword::kINTO) || !ParseQualifiedName(&stmt->target)) return nullptr;
  if (PeekType(TokenType::kLParen)) {
    size_t k = 1;
    while (PeekType(TokenType::kLParen, k)) ++k;
    if (!PeekQueryStart(k) && !ParseIdentifierList(&stmt->columns)) return nullptr;
  }
  stmt->query = ParseQuery();
  if (!stmt->query) return nullptr;
  return stmt;
}

StatementPtr Parser::ParseDrop() {
  auto stmt = Make<DropStatement>(Peek());
  ++pos_;  // DROP
  if (AcceptKeyword(Keyword::kTABLE)) {
    stmt->object = ObjectKind::kTable;
  } else if (AcceptKeyword(Keyword::kVIEW)) {
    stmt->object = ObjectKind::kView;
  } else if (AcceptKeyword(Keyword::kMATERIALIZED)) {
    if (!ExpectKeyword(Keyword::kVIEW)) return nullptr;
    stmt->object = ObjectKind::kMaterializedView;
  } else if (AcceptKeyword(Keyword::kTRIGGER)) {
    stmt->object = ObjectKind::kTrigger;
  } else if (AcceptKeyword(Keyword::kFUNCTION)) {
    stmt->object = ObjectKind::kFunction;
  } else if (AcceptKeyword(Keyword::kDATABASE)) {
    stmt->object = ObjectKind::kDatabase;
  } else {
    return nullptr;
  }
  if (PeekKeyword(Keyword::kIF)) {
    ++pos_;
    if (!ExpectKeyword(Keyword::kEXISTS)) return nullptr;
    stmt->if_exists = true;
  } else {
    NoteExpectedKeyword(Keyword::kIF);
  }
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  return stmt;
}

StatementPtr Parser::ParseRefresh() {
  auto stmt = Make<RefreshStatement>(Peek());
  ++pos_;  // REFRESH
  if (!ExpectKeyword(Keyword::kMATERIALIZED) || !ExpectKeyword(Keyword::kVIEW) ||
      !ParseQualifiedName(&stmt->name)) {
    return nullptr;
  }
  return stmt;
}

StatementPtr Parser::ParseFire() {
  auto stmt = Make<FireStatement>(Peek());
  ++pos_;  // FIRE
  if (AcceptKeyword(Keyword::kTRIGGER)) {
    stmt->object = ObjectKind::kTrigger;
  } else if (AcceptKeyword(Keyword::kTABLE)) {
    stmt->object = ObjectKind::kTable;
  } else if (AcceptKeyword(Keyword::kVIEW)) {
    stmt->object = ObjectKind::kView;
  } else if (AcceptKeyword(Keyword::kMATERIALIZED)) {
    if (!ExpectKeyword(Keyword::kVIEW)) return nullptr;
    stmt->object = ObjectKind::kMaterializedView;
  } else {
    return nullptr;
  }
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  if (stmt->object == ObjectKind::kTrigger) {
    stmt->retry = AcceptKeyword(Keyword::kRETRY);
    if (AcceptKeyword(Keyword::kWITH) && !ParseOptionList(&stmt->options)) return nullptr;
  } else if (AcceptKeyword(Keyword::kWATERMARK)) {
    auto at = ParseStringLiteral();
    if (!at) return nullptr;
    stmt->watermark = std::move(*at);
  }
  return stmt;
}

StatementPtr Parser::ParsePauseResume(bool resume) {
  auto stmt = std::make_unique<PauseStatement>(resume);
  stmt->loc = Peek().loc;
  ++pos_;  // PAUSE | RESUME
  if (AcceptKeyword(Keyword::kTRIGGER)) {
    stmt->object = ObjectKind::kTrigger;
  } else if (AcceptKeyword(Keyword::kMATERIALIZED)) {
    if (!ExpectKeyword(Keyword::kVIEW)) return nullptr;
    stmt->object = ObjectKind::kMaterializedView;
  } else {
    return nullptr;
  }
  if (!ParseQualifiedName(&stmt->name)) return nullptr;
  return stmt;
}

bool Parser::ParseSettingName(std::string* out) {
  if (PeekType(TokenType::kString)) {
    const Token& t = Peek();
    *out = *ParseStringLiteral();
    if (out->empty()) {
      Fail(t, "a setting name must not be empty");
      return false;
    }
    return true;
  }
  // Dotted words as written; any word is allowed (`k8s.namespace`, `table.exec.x`).
  bool first = true;
  do {
    const Token& t = Peek();
    if (t.type == TokenType::kQuotedIdentifier) {
      if (t.length <= 2) {
        Fail(t, "a quoted identifier must not be empty");
        return false;
      }
      if (!first) out->push_back('.');
      *out += UnquoteToken(text_, t);
    } else if (t.type == TokenType::kWord) {
      if (!first) out->push_back('.');
      *out += TokenText(t);
    } else {
      NoteExpectedType(TokenType::kWord);
      if (first) NoteExpectedType(TokenType::kString);
      return false;
    }
    ++pos_;
    first = false;
  } while (AcceptType(TokenType::kDot));
  return true;
}

StatementPtr Parser::ParseSet() {
  auto stmt = Make<SetStatement>(Peek());
  ++pos_;  // SET
  if (!ParseSettingName(&stmt->name)) return nullptr;
  if (!AcceptType(TokenType::kEq) && !ExpectKeyword(Keyword::kTO)) return nullptr;
  bool negative = false;
  if (PeekType(TokenType::kMinus) &&
      (PeekType(TokenType::kInteger, 1) || PeekType(TokenType::kDecimal, 1) ||
       PeekType(TokenType::kFloat, 1))) {
    negative = true;
    ++pos_;
  }
  const Token& v = Peek();
  switch (v.type) {
    case TokenType::kString:
    case TokenType::kEscapeString:
    case TokenType::kDollarString:
      stmt->value = UnquoteToken(text_, v);
      stmt->value_kind = SettingValueKind::kString;
      break;
    case TokenType::kInteger:
    case TokenType::kDecimal:
    case TokenType::kFloat:
      stmt->value = negative ? "-" : "";
      stmt->value += TokenText(v);
      stmt->value_kind = SettingValueKind::kNumber;
      break;
    case TokenType::kWord:
      if (v.keyword == Keyword::kTRUE || v.keyword == Keyword::kFALSE) {
        stmt->value = std::string(KeywordText(v.keyword));
        stmt->value_kind = SettingValueKind::kBoolean;
      } else if (v.keyword == Keyword::kDEFAULT) {
        stmt->value_kind = SettingValueKind::kDefault;
      } else {
        stmt->value.assign(TokenText(v));
        stmt->value_kind = SettingValueKind::kWord;
      }
      break;
    case TokenType::kQuotedIdentifier:
      stmt->value = UnquoteToken(text_, v);
      stmt->value_kind = SettingValueKind::kString;
      break;
    default: NoteExpectedCategory(ExpectCategory::kLiteral); return nullptr;
  }
  ++pos_;
  return stmt;
}

StatementPtr Parser::ParseReset() {
  auto stmt = Make<ResetStatement>(Peek());
  ++pos_;  // RESET
  if (AcceptKeyword(Keyword::kALL)) return stmt;
  if (PeekType(TokenType::kEnd) || PeekType(TokenType::kSemicolon)) return stmt;  // Flink: RESET
  if (!ParseSettingName(&stmt->name)) return nullptr;
  return stmt;
}

StatementPtr Parser::ParseInspect() {
  const Token& at = Peek();
  StatementKind kind = StatementKind::kExplain;
  switch (at.keyword) {
    case Keyword::kSPECIFY: kind = StatementKind::kSpecify; break;
    case Keyword::kPIPELINE: kind = StatementKind::kPipeline; break;
    case Keyword::kDESCRIBE: kind = StatementKind::kDescribe; break;
    case Keyword::kRESOLVE: kind = StatementKind::kResolve; break;
    case Keyword::kGRAPH: kind = StatementKind::kGraph; break;
    default: break;
  }
  auto stmt = std::make_unique<InspectStatement>(kind);
  stmt->loc = at.loc;
  ++pos_;  // the keyword
  if (kind == StatementKind::kDescribe || kind == StatementKind::kResolve) {
    // DESCRIBE TABLE t as Calcite writes it; a table named TABLE must be quoted.
    if (kind == StatementKind::kDescribe) AcceptKeyword(Keyword::kTABLE);
    if (!ParseQualifiedName(&stmt->name)) return nullptr;
    return stmt;
  }
  if (kind == StatementKind::kGraph) {
    if (!ParseQualifiedName(&stmt->name)) return nullptr;
    // DEPTH n and FORMAT word, each at most once, in either order.
    for (;;) {
      const Token& option = Peek();
      if (AcceptKeyword(Keyword::kDEPTH)) {
        const Token& n = Peek();
        if (!ExpectType(TokenType::kInteger)) return nullptr;
        int64_t depth = 0;
        const std::string_view digits = TokenText(n);
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), depth);
        if (stmt->depth || ec != std::errc() || end != digits.data() + digits.size() ||
            depth > 1000000) {
          Fail(stmt->depth ? option : n,
               stmt->depth ? "GRAPH takes DEPTH once" : "DEPTH is an integer from 0 to 1000000");
          return nullptr;
        }
        stmt->depth = depth;
      } else if (AcceptKeyword(Keyword::kFORMAT)) {
        const Token& word = Peek();
        if (!ExpectType(TokenType::kWord)) return nullptr;
        if (!stmt->format.empty()) {
          Fail(option, "GRAPH takes FORMAT once");
          return nullptr;
        }
        stmt->format = AsciiToLower(TokenText(word));
      } else {
        return stmt;
      }
    }
  }
  if (PeekKeyword(Keyword::kEXPLAIN) || PeekKeyword(Keyword::kSPECIFY) ||
      PeekKeyword(Keyword::kPIPELINE) || PeekKeyword(Keyword::kDESCRIBE) ||
      PeekKeyword(Keyword::kRESOLVE) || PeekKeyword(Keyword::kGRAPH)) {
    Fail(Peek(), fmt::format("{} of {} says nothing more: write the statement it inspects",
                             TokenText(at), TokenText(Peek())));
    return nullptr;
  }
  const size_t first = pos_;
  stmt->statement = ParseStatementBody();
  if (!stmt->statement) return nullptr;
  SetSource(*stmt->statement, first, pos_);
  return stmt;
}

StatementPtr Parser::ParseShow() {
  auto stmt = Make<ShowStatement>(Peek());
  ++pos_;  // SHOW
  if (AcceptKeyword(Keyword::kALL)) return stmt;
  if (!ParseSettingName(&stmt->name)) return nullptr;
  return stmt;
}

}  // namespace hop::sql::internal
