// KubernetesStore: the Store interface over a Kubernetes API server (ARCHITECTURE.md §4.4), so the
// same deployers and reconcilers that run on the embedded SqliteStore run against a cluster, with
// hop's objects as custom resources. Where Kubernetes cannot keep a promise of store.h, this
// store says how it differs (docs/store.md, "On Kubernetes"):
//  - A batch is applied one write at a time, in order. When a write fails, the writes before it
//    are undone where that can be done exactly (a created object is deleted, an update or status
//    update is put back) unless another writer changed the object since; a delete cannot be
//    undone, and neither can a created batch/v1 Job, which may have started (a trigger's
//    reconciler adopts a Job its status does not record: operator/trigger_runs.h). Every batch
//    is checked first (hop's schemas, owners) so that it fails before it
//    writes whenever it can.
//  - Deleting an object leaves its dependents to the API server's garbage collector, which deletes
//    them soon after rather than in the same transaction.
//  - resourceVersions are read as the integers etcd gives them, the revision being the cluster's.
//  - Index keys are checked on the client: a list by index key lists the kind.
//  - A watch's history is the API server's (minutes on Kubernetes): an older revision, or 0, is
//    kTooOld, and the caller lists again. Watches of every kind at once are not served.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "store/kube_client.h"
#include "store/store.h"

namespace hop::store {

struct KubernetesStoreOptions {
  KubeClientOptions client;
  // Called for each request the store sends, with the Kubernetes verb (get, list, watch, create,
  // update, delete), the API group, the resource (plural) and the subresource ("" or "status"):
  // what RBAC must allow (docs/kubernetes.md). Null: nothing is called. Must be thread-safe.
  std::function<void(std::string_view verb, std::string_view group, std::string_view resource,
                     std::string_view subresource)>
      on_request;
  // How long a watch stream asks the server to keep it open before it is opened again from where
  // it was (the server may end it sooner).
  std::chrono::seconds watch_timeout{290};
};

class KubernetesStore : public Store {
 public:
  // Connects nothing yet: the first request does. Errors: those of KubeClient::Create.
  static Result<std::unique_ptr<KubernetesStore>> Open(KubeConfig config,
                                                       KubernetesStoreOptions options = {});
  ~KubernetesStore() override;

  Result<Resource> Get(const ObjectRef& ref) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<int64_t> ListEach(const ListOptions& options,
                           const std::function<void(Resource)>& visit) override;
  Result<std::vector<Resource>> Commit(std::vector<Write> writes) override;
  std::unique_ptr<Watch> StartWatch(const WatchOptions& options) override;
  // The cluster's revision now, read from a list of one object.
  Result<int64_t> Revision() override;
  bool ReplaysHistoryAtOnce() const override { return false; }
  bool AtomicBatches() const override { return false; }
  // The revision only: counting the objects would list every kind.
  Result<Stats> ReadStats() override;

  // The API server's URL.
  const std::string& server() const;
  // The namespace of the kubeconfig's context ("" when it sets none).
  const std::string& default_namespace() const;

  class Impl;

 private:
  explicit KubernetesStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hop::store
