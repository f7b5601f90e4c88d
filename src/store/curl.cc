#include "store/curl.h"

#include <fmt/format.h>

#include "common/shared_library.h"

namespace hop::store {

namespace {

Result<LibCurl> Bind() {
  HOP_ASSIGN_OR_RETURN(SharedLibrary lib,
                       SharedLibrary::Open("libcurl.so.4", "A Kubernetes API server"));
  LibCurl c;
  lib.Bind(c.global_init, "curl_global_init");
  lib.Bind(c.easy_init, "curl_easy_init");
  lib.Bind(c.easy_cleanup, "curl_easy_cleanup");
  lib.Bind(c.easy_reset, "curl_easy_reset");
  lib.Bind(c.easy_setopt, "curl_easy_setopt");
  lib.Bind(c.easy_perform, "curl_easy_perform");
  lib.Bind(c.easy_getinfo, "curl_easy_getinfo");
  lib.Bind(c.easy_strerror, "curl_easy_strerror");
  lib.Bind(c.slist_append, "curl_slist_append");
  lib.Bind(c.slist_free_all, "curl_slist_free_all");
  lib.Bind(c.multi_init, "curl_multi_init");
  lib.Bind(c.multi_cleanup, "curl_multi_cleanup");
  lib.Bind(c.multi_add_handle, "curl_multi_add_handle");
  lib.Bind(c.multi_remove_handle, "curl_multi_remove_handle");
  lib.Bind(c.multi_perform, "curl_multi_perform");
  lib.Bind(c.multi_poll, "curl_multi_poll");
  lib.Bind(c.multi_wakeup, "curl_multi_wakeup");
  lib.Bind(c.multi_info_read, "curl_multi_info_read");
  lib.Bind(c.version_info, "curl_version_info");
  HOP_RETURN_IF_ERROR(lib.status());
  if (CURLcode rc = c.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    return Status::Unavailable(
        fmt::format("libcurl cannot be initialised: {}", c.easy_strerror(rc)));
  }
  // Blobs for the kubeconfig's *-data fields came in 7.71 (client certificates) and 7.77 (CA).
  const curl_version_info_data* v = c.version_info(CURLVERSION_NOW);
  if (v == nullptr || v->version_num < 0x074d00) {
    return Status::Unavailable(fmt::format("libcurl {} is too old: hop needs 7.77 or later",
                                           v != nullptr ? v->version : "(unknown)"));
  }
  if ((v->features & CURL_VERSION_SSL) == 0) {
    return Status::Unavailable("libcurl was built without TLS");
  }
  return c;
}

}  // namespace

const Result<LibCurl>& LoadLibCurl() {
  static const Result<LibCurl> curl = Bind();
  return curl;
}

}  // namespace hop::store
