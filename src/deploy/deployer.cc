// The one place that says which deployer takes which statement kind.
#include "deploy/deployer.h"

#include "deploy/deployers.h"

namespace hop::deploy {

const Deployer* DeployerFor(sql::StatementKind kind) {
  static const ViewDeployer view;
  static const TableDeployer table;
  static const TriggerDeployer trigger;
  static const DatabaseDeployer database;
  static const DropDeployer drop;
  static const FireDeployer fire;
  switch (kind) {
    case sql::StatementKind::kCreateView:
    case sql::StatementKind::kCreateMaterializedView: return &view;
    case sql::StatementKind::kCreateTable: return &table;
    case sql::StatementKind::kCreateTrigger: return &trigger;
    case sql::StatementKind::kCreateDatabase: return &database;
    case sql::StatementKind::kDrop: return &drop;
    case sql::StatementKind::kFire:
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume:
    case sql::StatementKind::kRefresh: return &fire;
    case sql::StatementKind::kQuery:
    case sql::StatementKind::kInsert:
    case sql::StatementKind::kCreateCatalog:
    case sql::StatementKind::kCreateFunction:
    case sql::StatementKind::kSet:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kSpecify:
    case sql::StatementKind::kPipeline:
    case sql::StatementKind::kDescribe:
    case sql::StatementKind::kResolve:
    case sql::StatementKind::kGraph:
    case sql::StatementKind::kDelete:
    case sql::StatementKind::kCopyFromStdin: return nullptr;
  }
  return nullptr;
}

}  // namespace hop::deploy
