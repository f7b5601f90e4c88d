// The deployers, one per statement kind, each in its own file (deployer.h is their contract).
// Internal to src/deploy.
#pragma once

#include <vector>

#include "deploy/deployer.h"
#include "deploy/render.h"
#include "planner/planner.h"

namespace hop::deploy {

// CREATE [OR REPLACE] VIEW and MATERIALIZED VIEW (view_deployer.cc).
class ViewDeployer : public Deployer {
 public:
  Status Specify(const binder::BoundStatement& statement, Batch& batch) const override;
};

// CREATE [OR REPLACE] TABLE (table_deployer.cc).
class TableDeployer : public Deployer {
 public:
  Status Specify(const binder::BoundStatement& statement, Batch& batch) const override;
};

// CREATE [OR REPLACE] TRIGGER (trigger_deployer.cc).
class TriggerDeployer : public Deployer {
 public:
  Status Specify(const binder::BoundStatement& statement, Batch& batch) const override;
};

// CREATE [OR REPLACE] DATABASE (database_deployer.cc).
class DatabaseDeployer : public Deployer {
 public:
  Status Specify(const binder::BoundStatement& statement, Batch& batch) const override;
};

// DROP of every kind, guarded by what depends on the object (drop_deployer.cc).
class DropDeployer : public Deployer {
 public:
  Status Specify(const binder::BoundStatement& statement, Batch& batch) const override;
  // The drops themselves, also behind `hop delete` (SpecifyDeletion); `force` skips the guard.
  static Status DropTable(const catalog::Table& table, bool force, Batch& batch);
  static Status DropView(const catalog::Table& view, bool force, Batch& batch);
  static Status DropDatabase(const store::ObjectRef& ref, bool force, Batch& batch);
};

// FIRE, PAUSE, RESUME and REFRESH: statements that change the state of an object that exists
// (fire_deployer.cc).
class FireDeployer : public Deployer {
 public:
  Status Specify(const binder::BoundStatement& statement, Batch& batch) const override;
};

// Warns when a materialized view's pipeline renders no job: nothing of hop's would move rows
// into the view.
void WarnWithoutJob(const planner::Pipeline& pipeline, const std::vector<Spec>& specs,
                    const std::vector<SkippedTemplate>& skipped, Issues& issues);

}  // namespace hop::deploy
