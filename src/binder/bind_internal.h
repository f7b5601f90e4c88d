// What the statement binders share (bind_statement.cc dispatches to them): one function per
// statement kind, each in the file of its kind. Internal to src/binder.
#pragma once

#include <string>
#include <vector>

#include "binder/bound_statement.h"
#include "sql/ast/identifier.h"

namespace hop::binder {

// bind_create.cc
Result<BoundStatementPtr> BindCreateView(const catalog::Catalog& cat,
                                         const sql::Statement& statement,
                                         const BindOptions& options);
Result<BoundStatementPtr> BindCreateTable(const catalog::Catalog& cat,
                                          const sql::Statement& statement,
                                          const BindOptions& options);
Result<BoundStatementPtr> BindCreateTrigger(const catalog::Catalog& cat,
                                            const sql::Statement& statement,
                                            const BindOptions& options);
Result<BoundStatementPtr> BindCreateDatabase(const sql::Statement& statement,
                                             const BindOptions& options);
// bind_drop.cc
Result<BoundStatementPtr> BindDrop(const catalog::Catalog& cat, const sql::Statement& statement);
// bind_object.cc: FIRE, PAUSE, RESUME, REFRESH
Result<BoundStatementPtr> BindObjectStatement(const catalog::Catalog& cat,
                                              const sql::Statement& statement);

// A trigger's resource name: the canonical form of its one-part name (`Triggers cannot belong
// to a schema or database.` otherwise).
Result<std::string> TriggerName(const sql::QualifiedName& name);

// The table or view `name` names, which must be of the `expected` kind for `statement`:
// `Element X not found.` when there is none.
Result<const catalog::Table*> Element(const catalog::Catalog& cat, const sql::QualifiedName& name,
                                      sql::ObjectKind expected, std::string_view statement);

}  // namespace hop::binder
