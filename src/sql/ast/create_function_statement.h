// `CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] name [RETURNS type] [LANGUAGE lang]
//  AS 'definition' [LANGUAGE lang] [IN 'namespace' | IN $$code$$]
//  [USING JAR|FILE|ARCHIVE 'uri', ...] [WITH (options)]`.
#pragma once

#include <optional>

#include "sql/ast/data_type.h"
#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

enum class FunctionResourceKind : uint8_t { kJar, kFile, kArchive };

struct FunctionResource {
  FunctionResourceKind kind = FunctionResourceKind::kJar;
  std::string uri;
  friend bool operator==(const FunctionResource&, const FunctionResource&) = default;
};

struct CreateFunctionStatement : Statement {
  CreateFunctionStatement() : Statement(StatementKind::kCreateFunction) {}
  bool or_replace = false;
  bool if_not_exists = false;
  QualifiedName name;
  std::optional<DataType> returns;
  std::optional<Identifier> language;
  std::string definition;         // AS '...': a class, template or function name
  std::optional<std::string> in;  // IN '...': a namespace, module or inline code
  std::vector<FunctionResource> resources;
  OptionList options;
};

}  // namespace hop::sql
