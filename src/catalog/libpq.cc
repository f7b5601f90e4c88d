#include "catalog/libpq.h"

#include "common/shared_library.h"

namespace hop::catalog {

namespace {

Result<LibPq> Bind() {
  HOP_ASSIGN_OR_RETURN(SharedLibrary lib,
                       SharedLibrary::Open("libpq.so.5", "A PostgreSQL database"));
  LibPq pq;
  lib.Bind(pq.PQcancel, "PQcancel");
  lib.Bind(pq.PQclear, "PQclear");
  lib.Bind(pq.PQcmdTuples, "PQcmdTuples");
  lib.Bind(pq.PQconnectdbParams, "PQconnectdbParams");
  lib.Bind(pq.PQconsumeInput, "PQconsumeInput");
  lib.Bind(pq.PQerrorMessage, "PQerrorMessage");
  lib.Bind(pq.PQexec, "PQexec");
  lib.Bind(pq.PQexecParams, "PQexecParams");
  lib.Bind(pq.PQfinish, "PQfinish");
  lib.Bind(pq.PQfreeCancel, "PQfreeCancel");
  lib.Bind(pq.PQgetCancel, "PQgetCancel");
  lib.Bind(pq.PQgetResult, "PQgetResult");
  lib.Bind(pq.PQgetisnull, "PQgetisnull");
  lib.Bind(pq.PQgetlength, "PQgetlength");
  lib.Bind(pq.PQgetvalue, "PQgetvalue");
  lib.Bind(pq.PQisBusy, "PQisBusy");
  lib.Bind(pq.PQntuples, "PQntuples");
  lib.Bind(pq.PQputCopyData, "PQputCopyData");
  lib.Bind(pq.PQputCopyEnd, "PQputCopyEnd");
  lib.Bind(pq.PQresultErrorField, "PQresultErrorField");
  lib.Bind(pq.PQresultStatus, "PQresultStatus");
  lib.Bind(pq.PQsendQueryParams, "PQsendQueryParams");
  lib.Bind(pq.PQsetNoticeProcessor, "PQsetNoticeProcessor");
  lib.Bind(pq.PQsetSingleRowMode, "PQsetSingleRowMode");
  lib.Bind(pq.PQstatus, "PQstatus");
  lib.Bind(pq.PQtransactionStatus, "PQtransactionStatus");
  HOP_RETURN_IF_ERROR(lib.status());
  return pq;
}

}  // namespace

const Result<LibPq>& LoadLibPq() {
  static const Result<LibPq> pq = Bind();
  return pq;
}

}  // namespace hop::catalog
