#include "store/kube_client.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/log.h"
#include "common/strings.h"
#include "store/curl.h"

namespace hop::store {

namespace {

// A response larger than this is refused rather than held: lists come in pages.
constexpr size_t kMaxResponseBytes = size_t{512} << 20;
constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{5000};

bool IsLoopbackServer(const std::string& server) {
  // http://HOST[:PORT]...
  std::string_view rest(server);
  rest.remove_prefix(rest.find("://") + 3);
  std::string_view host;
  if (!rest.empty() && rest.front() == '[') {
    host = rest.substr(1, rest.find(']') - 1);
  } else {
    host = rest.substr(0, std::min(rest.find(':'), rest.find('/')));
  }
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The bearer token of a token file, read again when the file changes (a service account's token
// is rotated by the kubelet).
class TokenFile {
 public:
  explicit TokenFile(std::string path) : path_(std::move(path)) {}

  Result<std::string> Token() {
    struct stat st;
    if (stat(path_.c_str(), &st) != 0) {
      return Status::Unavailable(fmt::format("cannot read the token file {}", path_));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (st.st_mtim.tv_sec != mtime_.tv_sec || st.st_mtim.tv_nsec != mtime_.tv_nsec ||
        st.st_size != size_) {
      std::ifstream in(path_, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in && !in.eof()) {
        return Status::Unavailable(fmt::format("cannot read the token file {}", path_));
      }
      token_ = std::string(TrimWhitespace(text.str()));
      mtime_ = st.st_mtim;
      size_ = st.st_size;
    }
    return token_;
  }

 private:
  std::string path_;
  std::mutex mu_;
  timespec mtime_{};
  off_t size_ = -1;
  std::string token_;
};

// A token bucket: Acquire waits until a token is there.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst) : qps_(qps), burst_(std::max(burst, 1)), tokens_(burst_) {}

  void Acquire() {
    if (qps_ <= 0) return;
    std::chrono::steady_clock::time_point ready;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto now = std::chrono::steady_clock::now();
      tokens_ = std::min<double>(
          burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
      last_ = now;
      tokens_ -= 1;  // may go negative: the debt is waited for below
      if (tokens_ >= 0) return;
      ready = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(-tokens_ / qps_));
    }
    std::this_thread::sleep_until(ready);
  }

 private:
  const double qps_;
  const int burst_;
  std::mutex mu_;
  double tokens_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

size_t AppendBody(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  const size_t bytes = size * n;
  if (body->size() + bytes > kMaxResponseBytes) return 0;  // makes curl fail the transfer
  body->append(data, bytes);
  return bytes;
}

struct RetryAfter {
  long seconds = -1;
};

size_t ReadHeader(char* data, size_t size, size_t n, void* user) {
  const size_t bytes = size * n;
  std::string_view line(data, bytes);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    std::string lower(line.substr(0, kName.size()));
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (lower == kName) {
      const std::string value(TrimWhitespace(line.substr(kName.size())));
      char* end = nullptr;
      const long seconds = std::strtol(value.c_str(), &end, 10);
      if (end != value.c_str() && seconds >= 0) static_cast<RetryAfter*>(user)->seconds = seconds;
    }
  }
  return bytes;
}

// Curl errors where the request never reached the server, so sending it again is safe whatever
// its method.
bool NeverSent(CURLcode rc) {
  return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
         rc == CURLE_SSL_CONNECT_ERROR;
}

}  // namespace

std::string UrlEscape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

struct KubeClient::Impl {
  KubeConfig config;
  KubeClientOptions options;
  std::unique_ptr<TokenFile> token_file;
  RateLimiter limiter{0, 1};
  std::mutex pool_mu;
  std::vector<CURL*> pool;  // idle easy handles, each keeping its connections alive

  Impl(KubeConfig c, KubeClientOptions o)
      : config(std::move(c)), options(o), limiter(o.qps, o.burst) {
    if (!config.token_file.empty()) token_file = std::make_unique<TokenFile>(config.token_file);
  }

  ~Impl() {
    for (CURL* h : pool) Curl().easy_cleanup(h);
  }

  CURL* Take() {
    {
      std::lock_guard<std::mutex> lock(pool_mu);
      if (!pool.empty()) {
        CURL* h = pool.back();
        pool.pop_back();
        Curl().easy_reset(h);
        return h;
      }
    }
    return Curl().easy_init();
  }

  void Give(CURL* h) {
    std::lock_guard<std::mutex> lock(pool_mu);
    pool.push_back(h);
  }

  // The headers of every request; null on an error reading the token.
  Result<curl_slist*> Headers(std::string_view content_type) {
    const LibCurl& c = Curl();
    curl_slist* h = nullptr;
    h = c.slist_append(h, "Accept: application/json");
    h = c.slist_append(h, "X-Hop-Store-Client: true");
    if (!content_type.empty()) {
      h = c.slist_append(h, fmt::format("Content-Type: {}", content_type).c_str());
    }
    // No "Expect: 100-continue" round trip before bodies.
    h = c.slist_append(h, "Expect:");
    std::string token = config.token;
    if (token_file) {
      auto read = token_file->Token();
      if (!read.ok()) {
        c.slist_free_all(h);
        return read.status();
      }
      token = *read;
    }
    if (!token.empty())
      h = c.slist_append(h, fmt::format("Authorization: Bearer {}", token).c_str());
    return h;
  }

  void Setup(CURL* h, std::string_view method, const std::string& target, curl_slist* headers) {
    const LibCurl& c = Curl();
    const std::string url = config.server + target;
    c.easy_setopt(h, CURLOPT_URL, url.c_str());
    c.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    c.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    c.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    c.easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    c.easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    c.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    c.easy_setopt(h, CURLOPT_USERAGENT, "hop/" HOP_VERSION);
    c.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (method == "GET") {
      c.easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      c.easy_setopt(h, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
    }
    if (!config.ca_pem.empty()) {
      curl_blob ca{const_cast<char*>(config.ca_pem.data()), config.ca_pem.size(), CURL_BLOB_COPY};
      c.easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
    }
    if (config.insecure_skip_tls_verify) {
      c.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      c.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!config.client_cert_pem.empty()) {
      curl_blob cert{const_cast<char*>(config.client_cert_pem.data()),
                     config.client_cert_pem.size(), CURL_BLOB_COPY};
      curl_blob key{const_cast<char*>(config.client_key_pem.data()), config.client_key_pem.size(),
                    CURL_BLOB_COPY};
      c.easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      c.easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
      c.easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
      c.easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
    }
    if (!config.username.empty()) {
      c.easy_setopt(h, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
      c.easy_setopt(h, CURLOPT_USERNAME, config.username.c_str());
      c.easy_setopt(h, CURLOPT_PASSWORD, config.password.c_str());
    }
  }

  Status CurlError(CURLcode rc, const char* error_buffer) const {
    const std::string detail = error_buffer[0] != '\0' ? error_buffer : Curl().easy_strerror(rc);
    return Status::Unavailable(
        fmt::format("the Kubernetes API at {} cannot be reached: {}", config.server, detail));
  }
};

KubeClient::KubeClient() = default;
KubeClient::~KubeClient() = default;

Result<std::unique_ptr<KubeClient>> KubeClient::Create(KubeConfig config,
                                                       KubeClientOptions options) {
  if (config.server.rfind("http://", 0) == 0 && !IsLoopbackServer(config.server) &&
      (!config.token.empty() || !config.token_file.empty() || !config.password.empty())) {
    return Status::InvalidArgument(fmt::format(
        "the Kubernetes API at {} is plain HTTP off loopback: its credentials would cross the "
        "network in the clear (use https://)",
        config.server));
  }
  if (!config.tls_server_name.empty()) {
    return Status::InvalidArgument("a kubeconfig cluster's tls-server-name is not supported");
  }
  HOP_RETURN_IF_ERROR(LoadLibCurl().status());
  std::unique_ptr<KubeClient> client(new KubeClient());
  client->impl_ = std::make_unique<Impl>(std::move(config), options);
  return client;
}

const KubeConfig& KubeClient::config() const { return impl_->config; }
const std::string& KubeClient::server() const { return impl_->config.server; }

Result<KubeHttpResponse> KubeClient::Request(std::string_view method, const std::string& target,
                                             std::string_view body, std::string_view content_type) {
  const LibCurl& c = Curl();
  Impl& impl = *impl_;
  std::chrono::milliseconds backoff = kFirstBackoff;
  for (int attempt = 0;; ++attempt) {
    impl.limiter.Acquire();
    HOP_ASSIGN_OR_RETURN(curl_slist * headers, impl.Headers(body.empty() ? "" : content_type));
    CURL* h = impl.Take();
    if (h == nullptr) {
      c.slist_free_all(headers);
      return Status::Unavailable("libcurl cannot make a handle");
    }
    impl.Setup(h, method, target, headers);
    KubeHttpResponse response;
    RetryAfter retry_after;
    char error_buffer[CURL_ERROR_SIZE] = {0};
    c.easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
    c.easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(impl.options.request_timeout.count()));
    c.easy_setopt(h, CURLOPT_WRITEFUNCTION, &AppendBody);
    c.easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
    c.easy_setopt(h, CURLOPT_HEADERFUNCTION, &ReadHeader);
    c.easy_setopt(h, CURLOPT_HEADERDATA, &retry_after);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      c.easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
      c.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    const CURLcode rc = c.easy_perform(h);
    c.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
    c.slist_free_all(headers);
    impl.Give(h);

    const bool read_only = method == "GET";
    bool retry = false;
    std::chrono::milliseconds wait = backoff;
    if (rc != CURLE_OK) {
      retry = read_only || NeverSent(rc);
      if (!retry || attempt >= impl.options.max_retries) return impl.CurlError(rc, error_buffer);
    } else if (response.status == 429) {
      retry = true;
      if (retry_after.seconds >= 0) {
        wait = std::min(std::chrono::milliseconds(retry_after.seconds * 1000), kMaxBackoff);
      }
    } else if (response.status >= 500 && read_only) {
      retry = true;
    }
    if (!retry || attempt >= impl.options.max_retries) return response;
    log::Debug("kubernetes: {} {} answered {} (curl {}), trying again in {} ms", method, target,
               response.status, static_cast<int>(rc), wait.count());
    std::this_thread::sleep_for(wait);
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

namespace {

class CurlStream : public KubeClient::Stream {
 public:
  CurlStream(KubeClient::Impl* impl, std::string target)
      : impl_(impl), target_(std::move(target)) {}

  ~CurlStream() override = default;

  Result<long> Run(const std::function<bool(std::string_view)>& on_line) override;

  void Cancel() override {
    cancelled_ = true;
    std::lock_guard<std::mutex> lock(mu_);
    if (multi_ != nullptr) Curl().multi_wakeup(multi_);
  }

 private:
  static size_t OnData(char* data, size_t size, size_t n, void* user) {
    auto* self = static_cast<CurlStream*>(user);
    const size_t bytes = size * n;
    if (self->cancelled_ || self->stopped_) return 0;
    self->pending_.append(data, bytes);
    if (self->status_ != 200) {
      // An error answer is one Status object: kept whole for the caller.
      if (self->pending_.size() > (1u << 20)) return 0;
      return bytes;
    }
    size_t start = 0;
    for (size_t nl; (nl = self->pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(self->pending_.data() + start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!line.empty() && !(*self->on_line_)(line)) {
        self->stopped_ = true;
        return 0;
      }
    }
    self->pending_.erase(0, start);
    if (self->pending_.size() > kMaxResponseBytes) return 0;
    return bytes;
  }

  static size_t OnHeader(char* data, size_t size, size_t n, void* user) {
    auto* self = static_cast<CurlStream*>(user);
    std::string_view line(data, size * n);
    if (line.rfind("HTTP/", 0) == 0) {
      const size_t sp = line.find(' ');
      if (sp != std::string_view::npos)
        self->status_ = std::strtol(line.data() + sp + 1, nullptr, 10);
    }
    return size * n;
  }

  KubeClient::Impl* impl_;
  std::string target_;
  std::atomic<bool> cancelled_{false};
  bool stopped_ = false;
  long status_ = 0;
  std::string pending_;
  const std::function<bool(std::string_view)>* on_line_ = nullptr;
  std::mutex mu_;
  CURLM* multi_ = nullptr;
};

Result<long> CurlStream::Run(const std::function<bool(std::string_view)>& on_line) {
  const LibCurl& c = Curl();
  on_line_ = &on_line;
  pending_.clear();
  status_ = 0;
  stopped_ = false;
  impl_->limiter.Acquire();
  HOP_ASSIGN_OR_RETURN(curl_slist * headers, impl_->Headers(""));
  CURL* h = c.easy_init();
  CURLM* multi = c.multi_init();
  if (h == nullptr || multi == nullptr) {
    if (h != nullptr) c.easy_cleanup(h);
    if (multi != nullptr) c.multi_cleanup(multi);
    c.slist_free_all(headers);
    return Status::Unavailable("libcurl cannot make a handle");
  }
  impl_->Setup(h, "GET", target_, headers);
  char error_buffer[CURL_ERROR_SIZE] = {0};
  c.easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  c.easy_setopt(h, CURLOPT_WRITEFUNCTION, &CurlStream::OnData);
  c.easy_setopt(h, CURLOPT_WRITEDATA, this);
  c.easy_setopt(h, CURLOPT_HEADERFUNCTION, &CurlStream::OnHeader);
  c.easy_setopt(h, CURLOPT_HEADERDATA, this);
  c.multi_add_handle(multi, h);
  {
    std::lock_guard<std::mutex> lock(mu_);
    multi_ = multi;
  }
  CURLcode result = CURLE_OK;
  bool done = false;
  while (!done && !cancelled_) {
    int running = 0;
    if (c.multi_perform(multi, &running) != CURLM_OK) {
      result = CURLE_RECV_ERROR;
      break;
    }
    int queued = 0;
    while (CURLMsg* msg = c.multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE) {
        result = msg->data.result;
        done = true;
      }
    }
    if (done || running == 0) break;
    c.multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    multi_ = nullptr;
  }
  long status = status_;
  c.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  c.multi_remove_handle(multi, h);
  c.easy_cleanup(h);
  c.multi_cleanup(multi);
  c.slist_free_all(headers);
  if (cancelled_ || stopped_) return status;
  if (result != CURLE_OK && !(result == CURLE_WRITE_ERROR && stopped_)) {
    return impl_->CurlError(result, error_buffer);
  }
  if (status != 200 && !pending_.empty()) on_line(pending_);
  return status;
}

}  // namespace

std::unique_ptr<KubeClient::Stream> KubeClient::OpenStream(const std::string& target) {
  return std::make_unique<CurlStream>(impl_.get(), target);
}

}  // namespace hop::store
