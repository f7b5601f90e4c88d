// `hop export` and `hop import`: the objects of a store as a stream of YAML documents, and that
// stream written into a store, to move the resources of a state directory to a Kubernetes cluster
// and back (docs/kubernetes.md "Moving resources"). Both take any store::Store and the output
// streams and return the process exit status, so tests run them without a process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "resource/json.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::cli {

struct ExportOptions {
  std::string namespace_name;  // -n: only this namespace's objects; every namespace when empty
  // --kind, repeatable: only these kinds, each named as `hop get` takes it (plural, singular,
  // short name or Kind, optionally `.group`). Empty: every kind but batch/v1 Jobs.
  std::vector<std::string> kinds;
  std::string output;  // -o: the file to write (created, or made, mode 0600); empty: `out`
};

// An object as `hop export` writes it: without what a store sets (metadata's uid,
// resourceVersion, creationTimestamp, generation, managedFields, deletionTimestamp,
// deletionGracePeriodSeconds and selfLink), its owner references without their owners' uids
// (an owner is named by apiVersion, kind and name in the object's namespace, as store.h lets a
// write name it), its status kept; in Resource::Ordered's order.
Json ExportedForm(const resource::Resource& object);

// What `hop export` writes, one document per object: the selected objects but those being
// deleted (a deletionTimestamp), owners before the objects they own, then by kind, group,
// namespace and name, so that `hop import` can write them in one pass. `notes` receives what the
// export leaves out or cannot order (Jobs left out, an owner not exported, an ownership cycle).
// Errors: the store's; NotFound for a --kind that names no kind hop knows nor any stored.
Result<std::vector<Json>> ExportDocuments(const ExportOptions& options, store::Store& store,
                                          std::vector<std::string>* notes);

// Writes ExportDocuments as YAML documents separated by `---`, whole (Secrets included: the
// output is as private as the state directory), to `out` or to the file of `options.output`,
// which is written only once every object is read (then a megabyte at a time). The notes go to
// `err`. Exit 0, or 1 on an error of the store or of the file.
int RunExport(const ExportOptions& options, store::Store& store, std::ostream& out,
              std::ostream& err);

struct ImportOptions {
  std::string file;        // -f: the stream to read, or "-" for standard input
  bool overwrite = false;  // --overwrite: replace an existing object that differs
};

// Writes each document of the stream, in order, as `hop export` wrote them: absent, the object is
// created, then its status is written (one batch: Create, then UpdateStatus, which the status
// subresource needs); present, it is left alone when it already holds every field the document
// gives it ("unchanged"; the target may hold more, such as defaults its API server fills in), else
// replaced, its status too, with `overwrite` ("updated"), or reported and left alone. What a
// store sets is dropped from each document first (ExportedForm), so an owner is found by name:
// an owner written earlier in the run, or already in the store. Documents are read one at a time,
// each at most CurrentLimits().max_request_bytes, so a stream of any size can be imported.
//
// Prints one line per object on `out` ("<ref> created|updated|unchanged") or `err` (the error,
// secrets redacted), then a summary on `out`. A document that does not parse, holds a redacted
// secret (as `hop get` prints one), or names a kind the target does not serve (the message says
// to install the CRDs first) fails alone; the others are still written. Writing the same stream
// again changes nothing. Exit 0, 1 when any object failed or reading the stream fails part way,
// 2 on a usage error (a file that cannot be opened, or a directory, among them).
int RunImport(const ImportOptions& options, store::Store& store, std::ostream& out,
              std::ostream& err);

}  // namespace hop::cli
