// The "k8s" system schema: hop's resources as tables, read live from the store when a query
// scans them (compatibility.md §8), in the catalog's namespace. Hoptimator's tables, with its columns:
//
//   DATABASES(NAME, URL, CATALOG, SCHEMA, DIALECT, DRIVER)
//   ENGINES(NAME, URL, DIALECT, DRIVER, DATABASES)
//   PIPELINES(NAME, READY, FAILED, MESSAGE)
//   PIPELINE_ELEMENTS(NAME, READY, FAILED, MESSAGE, CONFIGS)   NAME is `<Kind>/<name>`
//   PIPELINE_ELEMENT_MAP(ELEMENT_NAME, PIPELINE_NAME)
//   TABLE_TRIGGERS(NAME, CATALOG, SCHEMA, TABLE, PAUSED, TIMESTAMP, WATERMARK)
//   VIEWS(NAME, CATALOG, SCHEMA, VIEW, SQL, MATERIALIZED)
//
// and hop's own:
//
//   TRIGGER_RUNS(TRIGGER, JOB, WINDOW_FROM, WINDOW_TO, STARTED, FINISHED, OUTCOME, MESSAGE)
//       one row per run a TableTrigger recorded (status.jobs)
//   JOBS(NAME, TRIGGER, ACTIVE, SUCCEEDED, FAILED, STARTED, COMPLETED, STATUS)
//       one row per batch/v1 Job, with its status (Running, Complete, Failed, Pending)
//   WATERMARKS(KIND, NAME, CATALOG, SCHEMA, TABLE, WATERMARK)
//       one row per table and view, with how far it is complete (status.watermark)
//
// The schema's name is lower case and must be quoted (`"k8s".pipelines`); its tables are read
// only, and never a source or sink of a pipeline. A scan with `NAME = '...'` reads that one
// resource instead of listing them all.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "store/store.h"

namespace hop::catalog {

inline constexpr std::string_view kSystemSchema = "k8s";

// The "k8s" schema of `namespace_name`, whose tables read `store` when scanned (the store must
// outlive the catalog).
Schema SystemSchema(store::Store& store, std::string namespace_name);

}  // namespace hop::catalog
