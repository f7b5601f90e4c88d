// Validators (compatibility.md §5.10): checks that run at fixed points of every statement and
// record errors and warnings in one tree. At each point the executor asks every validator; if the
// tree then holds an error the statement stops there, before anything is created or written, with
// `Failed validation:` and the tree. Warnings do not stop it; they are reported with its summary.
//
// The points, in the order a statement reaches them:
//   kStatement      the parsed statement
//   kTable          each table the statement creates, reads or writes, with its system
//   kObject         the object the statement is about (a View, TableTrigger or Database)
//   kElements       everything the statement is about to write, rendered
//   kPendingDelete  the object a DROP deletes, before it does
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/provisioner.h"
#include "common/issues.h"
#include "resource/resource.h"
#include "sql/ast/statement.h"
#include "store/store.h"

namespace hop::deploy {

enum class ValidationPoint { kStatement, kTable, kObject, kElements, kPendingDelete };

// What validators are asked about at one point; only the fields of that point are set.
struct Subject {
  explicit Subject(ValidationPoint p) : point(p) {}

  ValidationPoint point;
  const sql::Statement* statement = nullptr;  // every point: the statement being executed

  // kTable: the table, its schema and, when it is declared already, the declared table (an OR
  // REPLACE changes it). `created` when the statement creates or replaces it.
  const catalog::Schema* schema = nullptr;
  const catalog::TableDefinition* table = nullptr;
  const catalog::Table* existing = nullptr;
  bool created = false;

  // kObject: the object; kElements: every object to write, in order.
  const resource::Resource* object = nullptr;
  const std::vector<resource::Resource>* elements = nullptr;

  // kPendingDelete: the object to delete, the dependency identifier of the table it is (empty
  // when it is not one), and the owner whose own dependents do not count (a view's pipeline).
  store::ObjectRef deleted;
  std::string identifier;
  std::string self_kind, self_name;
  // Extra label selector on TableTriggers that listen to the deleted view (`view=<name>`).
  std::string trigger_selector;
};

struct ValidationContext {
  store::Store& store;
  std::string namespace_name;
};

class Validator {
 public:
  virtual ~Validator() = default;
  // Records what is wrong with `subject` in `issues` (a context naming it).
  virtual void Validate(const Subject& subject, const ValidationContext& context,
                        Issues& issues) const = 0;
};

// The validators every statement runs, in order:
//  - the statement's own checks (warnings for constraints hop does not enforce);
//  - key fields of the systems that need them: MySQL tables need a KEY_ field and keep their
//    keys, Venice stores need a key schema (a KEY column or KEY_ fields) and keep it;
//  - each rendered object against Kubernetes' rules and its kind's schema, all at once;
//  - the dependency guard of compatibility.md §5.8 before a delete.
const std::vector<const Validator*>& DefaultValidators();

// The checks of an object written as it is given, by `hop apply` or the Kubernetes API, that
// need its namespace's catalog, which the DDL makes as it binds: a View may not take the name of
// a physical table (catalog::Catalog::CheckViewName, the words of CREATE VIEW). Records what is
// wrong in `issues`; an object of another kind has nothing to check. A store that cannot be read
// is an error in `issues` too: the object is not written unchecked.
void CheckWrittenObject(store::Store& store, const resource::Resource& object, Issues& issues);

// The context line of a subject in the tree: `table KAFKA.events`, `trigger/nightly`, ...
std::string SubjectContext(const Subject& subject);

}  // namespace hop::deploy
