// libcurl, loaded on first use (common/shared_library.h), for the Kubernetes API client
// (kube_client.h): a command that never talks to a cluster does not map libcurl and the
// libraries it needs (docs/architecture.md, "Start-up"). curl.h gives the types and signatures
// only.
#pragma once

#include <curl/curl.h>

#include "common/status.h"

namespace hop::store {

// The libcurl functions the Kubernetes client calls.
struct LibCurl {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_wakeup) multi_wakeup;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_version_info) version_info;
};

// Loads libcurl.so.4 once for the process and initialises it (curl_global_init, which is not
// thread-safe in itself: the first call happens under the function-local static's lock).
// Errors: Unavailable, saying libcurl cannot be loaded.
const Result<LibCurl>& LoadLibCurl();

// The loaded functions. Only after LoadLibCurl succeeded.
inline const LibCurl& Curl() { return *LoadLibCurl(); }

}  // namespace hop::store
