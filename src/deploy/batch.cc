#include "deploy/batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "deploy/objects.h"

namespace hop::deploy {

using resource::Resource;
using store::Write;

namespace {

// `existing` with the desired object's content: spec and the other top-level fields from
// `desired`; labels and annotations merged with the desired ones winning (typed objects) or the
// existing ones winning (rendered ones); owner references added. The store keeps uid and the
// rest of metadata.
Resource Updated(const Resource& existing, const Resource& desired, bool desired_wins) {
  Resource out(desired.json());
  out.set_name(existing.name());
  out.set_namespace(existing.namespace_name());
  std::map<std::string, std::string> labels = existing.labels();
  std::map<std::string, std::string> annotations = existing.annotations();
  for (const auto& [k, v] : desired.labels()) {
    if (desired_wins || !labels.count(k)) labels[k] = v;
  }
  for (const auto& [k, v] : desired.annotations()) {
    if (desired_wins || !annotations.count(k)) annotations[k] = v;
  }
  for (const auto& [k, v] : labels) out.set_label(k, v);
  for (const auto& [k, v] : annotations) out.set_annotation(k, v);
  auto owners = existing.owner_references();
  for (const auto& o : desired.owner_references()) {
    bool known = std::any_of(owners.begin(), owners.end(), [&](const resource::OwnerReference& x) {
      return x.kind == o.kind && x.name == o.name && x.api_version == o.api_version;
    });
    if (!known) owners.push_back(o);
  }
  out.set_owner_references(owners);
  out.set_finalizers(existing.finalizers());
  // Status belongs to whoever reconciles the object.
  if (existing.status()) {
    out.set_status(*existing.status());
  } else {
    out.clear_status();
  }
  return out;
}

}  // namespace

Batch::Batch(store::Store& store, const ExecuteOptions& options, const catalog::Catalog& catalog,
             const sql::Statement* statement)
    : store_(store), options_(options), catalog_(catalog), statement_(statement) {}

Result<RenderContext> Batch::Render() const {
  RenderContext render;
  if (options_.render != nullptr) {
    render = *options_.render;
  } else {
    HOP_ASSIGN_OR_RETURN(render, LoadRenderContext(store_, options_.namespace_name));
  }
  if (options_.provisioners != nullptr) {
    for (const catalog::Schema* schema : catalog_.DatabaseSchemas()) {
      if (options_.provisioners->For(*schema) == nullptr) continue;
      if (schema->provisions_async) {
        render.provisioned_by_hop.insert(schema->database);
      } else {
        render.provisioned_synchronously.insert(schema->database);
      }
    }
  }
  return render;
}

Status Batch::Put(const Resource& desired, bool desired_wins, bool must_create) {
  // An object this batch already writes (a topic that a logical table's tier renders and its
  // pipeline reads) is written once, with both owners.
  const store::ObjectRef ref = store::RefOf(desired);
  for (Change& c : changes_) {
    const bool writes = c.write.op == Write::Op::kCreate || c.write.op == Write::Op::kUpdate;
    const store::ObjectRef other = writes ? store::RefOf(c.write.object) : store::ObjectRef{};
    if (writes && other.kind == ref.kind && other.namespace_name == ref.namespace_name &&
        other.name == ref.name) {
      Resource merged = Updated(c.write.object, desired, desired_wins);
      if (const std::string version = c.write.object.resource_version(); !version.empty()) {
        merged.set_resource_version(version);
      } else {
        merged.clear_resource_version();
      }
      c.write.object = std::move(merged);
      // Written after its owners, the new one included.
      Change moved = std::move(c);
      changes_.erase(changes_.begin() + (&c - changes_.data()));
      changes_.push_back(std::move(moved));
      last_put_ = changes_.size() - 1;
      return Status::OK();
    }
  }
  last_put_ = changes_.size();
  if (must_create) {
    changes_.push_back({Write::Create(desired), ""});
    return Status::OK();
  }
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(store::RefOf(desired)));
  if (existing && existing->deletion_timestamp()) {
    // The store would take the update, and the object would still go when its finalizers do:
    // a statement that said it configured it would not be true.
    const std::vector<std::string> finalizers = existing->finalizers();
    return Status::AlreadyExists(fmt::format(
        "{}/{} is being deleted (it waits for finalizer{} {}): it cannot be created or replaced "
        "until its deletion ends",
        AsciiToLower(existing->kind()), existing->name(), finalizers.size() == 1 ? "" : "s",
        Join(finalizers, ", ")));
  }
  if (!existing) {
    changes_.push_back({Write::Create(desired), ""});
  } else {
    changes_.push_back(
        {Write::Update(Updated(*existing, desired, desired_wins)), existing->resource_version()});
  }
  return Status::OK();
}

Status Batch::PutElements(const std::vector<Spec>& specs, const Resource& owner) {
  for (const Spec& spec : specs) {
    const std::string where = spec.template_kind + " " + spec.template_name;
    for (const Json& doc : spec.docs) {
      if (doc.is_null()) continue;
      HOP_ASSIGN_OR_RETURN(Resource element, Resource::FromJson(doc, where));
      if (element.namespace_name().empty()) element.set_namespace(owner.namespace_name());
      // Owner references never cross namespaces: an element a template puts in another
      // namespace is not owned, and outlives its owner.
      if (element.namespace_name() == owner.namespace_name()) {
        element.set_owner_references({OwnerByName(owner)});
      }
      HOP_RETURN_IF_ERROR(Put(element, false));
      changes_[last_put_].element = true;
      if (!spec.queued.empty() && changes_.back().write.op == Write::Op::kCreate &&
          std::find(queued_.begin(), queued_.end(), spec.queued) == queued_.end()) {
        queued_.push_back(spec.queued);
      }
    }
  }
  return Status::OK();
}

Status Batch::AddEffect(bool create, const catalog::Schema& schema,
                        const catalog::TableDefinition& table, bool fresh) {
  if (options_.provisioners == nullptr || schema.database.empty()) return Status::OK();
  catalog::Provisioner* provisioner = options_.provisioners->For(schema);
  if (provisioner == nullptr) return Status::OK();
  if (create && schema.provisions_async) {
    // Its TableProvisionJob creates it later; what can never be created fails now.
    Status st = provisioner->Check(schema, table);
    if (st.ok()) return st;
    return Status(st.code(), fmt::format("Cannot create table {} in database {}: {}",
                                         Join(table.path, "."), table.database, st.message()));
  }
  for (const Effect& e : effects_) {
    if (e.create == create && e.table.database == table.database && e.table.path == table.path) {
      return Status::OK();  // a table read twice, or read and written
    }
  }
  Effect effect;
  effect.create = create;
  effect.fresh = create && fresh;
  effect.provisioner = provisioner;
  effect.schema = schema;
  effect.schema.tables.clear();
  effect.table = table;
  effects_.push_back(std::move(effect));
  return Status::OK();
}

void Batch::SetDeletePreconditions(const store::Write& deletion) {
  for (Change& c : changes_) {
    store::Write& w = c.write;
    if (w.op != store::Write::Op::kDelete || w.ref.kind != deletion.ref.kind ||
        w.ref.namespace_name != deletion.ref.namespace_name || w.ref.name != deletion.ref.name) {
      continue;
    }
    w.uid = deletion.uid;
    w.resource_version = deletion.resource_version;
  }
}

Status Batch::Check(Subject subject) {
  subject.statement = statement_;
  ValidationContext context{store_, options_.namespace_name};
  Issues& issues = issues_.Child(SubjectContext(subject));
  for (const Validator* v : DefaultValidators()) v->Validate(subject, context, issues);
  return issues_.ToStatus(StatusCode::kValidation, "Failed validation:");
}

Status Batch::CheckObject(const Resource& object) {
  Subject subject(ValidationPoint::kObject);
  subject.object = &object;
  return Check(std::move(subject));
}

std::string Batch::StampAfter(std::initializer_list<std::string_view> after) const {
  using std::chrono::milliseconds;
  SystemTime now = std::chrono::time_point_cast<milliseconds>(options_.clock->Now());
  for (std::string_view text : after) {
    if (text.empty()) continue;
    if (auto t = ParseRfc3339(text); t && now <= *t) {
      now = std::chrono::time_point_cast<milliseconds>(*t) + milliseconds(1);
    }
  }
  return FormatRfc3339(now, 3);
}

}  // namespace hop::deploy
