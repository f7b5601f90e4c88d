// libpq, PostgreSQL's client library, loaded on first use (common/shared_library.h): a command
// that never connects to PostgreSQL does not map libpq and the twenty libraries it needs
// (Kerberos, LDAP, GnuTLS and more). libpq-fe.h gives the types and signatures only.
#pragma once

#include <libpq-fe.h>

#include "common/status.h"

namespace hop::catalog {

// The libpq functions the PostgreSQL adapter (postgres.cc) calls.
struct LibPq {
  decltype(&::PQcancel) PQcancel;
  decltype(&::PQclear) PQclear;
  decltype(&::PQcmdTuples) PQcmdTuples;
  decltype(&::PQconnectdbParams) PQconnectdbParams;
  decltype(&::PQconsumeInput) PQconsumeInput;
  decltype(&::PQerrorMessage) PQerrorMessage;
  decltype(&::PQexec) PQexec;
  decltype(&::PQexecParams) PQexecParams;
  decltype(&::PQfinish) PQfinish;
  decltype(&::PQfreeCancel) PQfreeCancel;
  decltype(&::PQgetCancel) PQgetCancel;
  decltype(&::PQgetResult) PQgetResult;
  decltype(&::PQgetisnull) PQgetisnull;
  decltype(&::PQgetlength) PQgetlength;
  decltype(&::PQgetvalue) PQgetvalue;
  decltype(&::PQisBusy) PQisBusy;
  decltype(&::PQntuples) PQntuples;
  decltype(&::PQputCopyData) PQputCopyData;
  decltype(&::PQputCopyEnd) PQputCopyEnd;
  decltype(&::PQresultErrorField) PQresultErrorField;
  decltype(&::PQresultStatus) PQresultStatus;
  decltype(&::PQsendQueryParams) PQsendQueryParams;
  decltype(&::PQsetNoticeProcessor) PQsetNoticeProcessor;
  decltype(&::PQsetSingleRowMode) PQsetSingleRowMode;
  decltype(&::PQstatus) PQstatus;
  decltype(&::PQtransactionStatus) PQtransactionStatus;
};

// Loads libpq.so.5 once for the process. Errors: Unavailable, saying libpq cannot be loaded.
const Result<LibPq>& LoadLibPq();

// The loaded functions. Only after LoadLibPq succeeded: every PGconn comes from one.
inline const LibPq& Pq() { return *LoadLibPq(); }

}  // namespace hop::catalog
