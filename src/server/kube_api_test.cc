// The Kubernetes API of `hop serve --http-port` over raw HTTP: a real HttpServer on a free port
// over a SqliteStore in a temporary directory. Watches resumed after a dropped connection, from a
// bookmark and from a revision the store has forgotten; lists in pages; Tables; the
// metav1.Status of every failure; many watchers, stalled ones and garbage on the socket; the
// listen and token rules; the health checks.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "resource/json.h"
#include "resource/resource.h"
#include "server/http_server.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::server {
namespace {

using namespace std::chrono_literals;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kDatabases =
    "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/databases";

Json ConfigMap(const std::string& name, const std::string& value = "v") {
  Json doc = Json::object();
  doc["apiVersion"] = "v1";
  doc["kind"] = "ConfigMap";
  doc["metadata"] = Json::object();
  doc["metadata"]["name"] = name;
  doc["data"] = Json::object();
  doc["data"]["k"] = value;
  return doc;
}

Json Database(const std::string& name) {
  return Json::parse(R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"Database",
    "metadata":{"name":")" +
                     name + R"("},
    "spec":{"schema":"ADS","url":"jdbc:demodb://names=ads","dialect":"Calcite"}})");
}

// One event line of a watch, parsed.
struct Event {
  std::string type;
  Json object;
  int64_t revision() const {
    return std::stoll("0" + object["metadata"].value("resourceVersion", std::string()));
  }
  std::string name() const { return object["metadata"].value("name", std::string()); }
};

// Splits a watch's chunks into lines.
class LineReader {
 public:
  // Returns the events completed by `chunk`.
  std::vector<Event> Feed(const char* data, size_t len) {
    buffer_.append(data, len);
    std::vector<Event> out;
    size_t nl = 0;
    while ((nl = buffer_.find('\n')) != std::string::npos) {
      Json line = Json::parse(buffer_.substr(0, nl), nullptr, false);
      buffer_.erase(0, nl + 1);
      if (line.is_discarded()) {
        out.push_back({"UNPARSABLE", Json()});
        continue;
      }
      out.push_back({line.value("type", std::string()), line["object"]});
    }
    return out;
  }

 private:
  std::string buffer_;
};

int RawConnect(int port, int rcvbuf = 0) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads what arrives on `fd` until `want` is in it, the peer closes or `timeout` passes.
std::string ReadUntil(int fd, std::string_view want, std::chrono::milliseconds timeout) {
  std::string got;
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end &&
         (want.empty() || got.find(want) == std::string::npos)) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// What a raw connection received: the bytes, and whether the server closed it.
struct Received {
  std::string bytes;
  bool closed = false;
};

// Reads what arrives on `fd` until the server closes it or `timeout` passes.
Received ReadToClose(int fd, std::chrono::milliseconds timeout = 5s) {
  Received r;
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      r.closed = true;
      break;
    }
    r.bytes.append(buf, static_cast<size_t>(n));
  }
  return r;
}

// One response read off a raw connection.
struct RawResponse {
  int status = 0;
  std::string head;  // status line and fields
  std::string body;  // chunks joined
  bool chunked = false;
};

// The responses in `bytes`, in order (by Content-Length, chunks, or to the end); an interim 100
// Continue counts as one.
std::vector<RawResponse> Responses(std::string_view bytes, bool head_only = false) {
  std::vector<RawResponse> out;
  while (bytes.starts_with("HTTP/1.1 ")) {
    const size_t end = bytes.find("\r\n\r\n");
    if (end == std::string_view::npos) break;
    RawResponse r;
    r.head = std::string(bytes.substr(0, end + 2));
    r.status = std::atoi(r.head.c_str() + 9);
    bytes.remove_prefix(end + 4);
    const std::string lower = AsciiToLower(r.head);
    r.chunked = lower.find("transfer-encoding: chunked") != std::string::npos;
    const size_t cl = lower.find("content-length: ");
    if (r.status == 100 || head_only) {
      // no body
    } else if (r.chunked) {
      for (;;) {
        const size_t line = bytes.find("\r\n");
        if (line == std::string_view::npos) return out;
        const size_t n = std::stoul(std::string(bytes.substr(0, line)), nullptr, 16);
        if (bytes.size() < line + 2 + n + 2) return out;
        r.body += bytes.substr(line + 2, n);
        bytes.remove_prefix(line + 2 + n + 2);
        if (n == 0) break;
      }
    } else if (cl != std::string::npos) {
      const size_t n = std::stoul(lower.substr(cl + 16));
      r.body = std::string(bytes.substr(0, n));
      bytes.remove_prefix(std::min(n, bytes.size()));
    } else {
      r.body = std::string(bytes);
      bytes = {};
    }
    out.push_back(std::move(r));
  }
  return out;
}

// The statuses of `responses`, in order.
std::vector<int> Statuses(const std::vector<RawResponse>& responses) {
  std::vector<int> out;
  for (const RawResponse& r : responses) out.push_back(r.status);
  return out;
}

class KubeApiTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options = {}, store::SqliteStoreOptions store_options = {}) {
    store_options.durable = false;
    store_options.poll_interval = 5ms;
    auto store = store::SqliteStore::Open(dir_.path(), store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    StartServer(std::move(options));
  }
  void StartServer(HttpServerOptions options = {}) {
    options.port = 0;
    auto server = HttpServer::Start(*store_, std::move(options), &role_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  httplib::Client Client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    c.set_connection_timeout(5, 0);
    return c;
  }

  // Writes `n` ConfigMaps straight into the store, in one batch; names are `prefix-000`...
  void WriteConfigMaps(const std::string& prefix, int n, const std::string& value = "v") {
    std::vector<store::Write> writes;
    for (int i = 0; i < n; ++i) {
      char name[64];
      snprintf(name, sizeof name, "%s-%03d", prefix.c_str(), i);
      auto r = resource::Resource::FromJson(ConfigMap(name, value), "test");
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      writes.push_back(store::Write::Create(std::move(*r)));
    }
    auto committed = store_->Commit(std::move(writes));
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  }
  int64_t Revision() {
    auto rev = store_->Revision();
    EXPECT_TRUE(rev.ok());
    return rev.ok() ? *rev : 0;
  }

  // Reads a watch of `path` (a query string included) until `stop` says so after an event, or
  // `timeout` passes; returns every event seen.
  std::vector<Event> Watch(const std::string& path,
                           const std::function<bool(const std::vector<Event>&)>& stop,
                           std::chrono::milliseconds timeout = 10s) {
    httplib::Client c = Client();
    std::vector<Event> seen;
    LineReader lines;
    const auto end = std::chrono::steady_clock::now() + timeout;
    // The server ends the watch too, should `stop` never say so.
    const std::string bounded =
        fmt::format("{}&timeoutSeconds={}", path,
                    std::chrono::duration_cast<std::chrono::seconds>(timeout).count() + 1);
    c.Get(bounded.c_str(), [&](const char* data, size_t len) {
      for (Event& e : lines.Feed(data, len)) seen.push_back(std::move(e));
      return !stop(seen) && std::chrono::steady_clock::now() < end;
    });
    return seen;
  }

  hop::testing::TempDir dir_{"hop-kube-api"};
  std::atomic<ServeRole> role_{ServeRole::kLeading};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<HttpServer> server_;
};

Json Body(const httplib::Result& r) {
  if (!r) return Json();
  return Json::parse(r->body, nullptr, false);
}

// A metav1.Status failure with `code` and `reason`.
void ExpectStatus(const httplib::Result& r, int code, const std::string& reason) {
  ASSERT_TRUE(r) << "no response";
  EXPECT_EQ(r->status, code) << r->body;
  const Json s = Body(r);
  ASSERT_TRUE(s.is_object()) << r->body;
  EXPECT_EQ(s.value("kind", ""), "Status") << r->body;
  EXPECT_EQ(s.value("apiVersion", ""), "v1") << r->body;
  EXPECT_EQ(s.value("status", ""), "Failure") << r->body;
  EXPECT_EQ(s.value("code", 0), code) << r->body;
  EXPECT_EQ(s.value("reason", ""), reason) << r->body;
}

// --- watches ---

// A watcher that drops its connection every few events and resumes from the last revision it
// saw, while a writer adds objects: every object arrives exactly once, in revision order.
TEST_F(KubeApiTest, WatchResumesAfterADroppedConnectionWithoutLosingOrRepeating) {
  Start();
  const int64_t from = Revision();
  constexpr int kObjects = 300;
  constexpr size_t kPerConnection = 37;
  std::thread writer([&] {
    for (int i = 0; i < kObjects; i += 10) {
      char prefix[32];
      snprintf(prefix, sizeof prefix, "cm-%03d", i);
      WriteConfigMaps(prefix, 10);
      std::this_thread::sleep_for(2ms);
    }
  });
  std::vector<Event> all;
  int64_t last = from;
  int connections = 0;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (all.size() < static_cast<size_t>(kObjects) &&
         std::chrono::steady_clock::now() < deadline) {
    ++connections;
    // Each connection takes up to kPerConnection events, then hangs up mid-stream.
    auto events = Watch(
        fmt::format("{}?watch=true&resourceVersion={}", kConfigMaps, last),
        [&](const std::vector<Event>& seen) {
          return seen.size() >= kPerConnection ||
                 all.size() + seen.size() >= static_cast<size_t>(kObjects);
        },
        5s);
    // Events come in batches: a read can bring more, and what is past the limit is dropped as
    // if the connection had ended before it (the next one sends it again).
    if (events.size() > kPerConnection) events.resize(kPerConnection);
    for (const Event& e : events) {
      ASSERT_EQ(e.type, "ADDED") << e.object.dump();
      all.push_back(e);
      last = e.revision();
    }
  }
  writer.join();
  ASSERT_EQ(all.size(), static_cast<size_t>(kObjects));
  EXPECT_GE(connections, kObjects / static_cast<int>(kPerConnection));
  std::set<std::string> names;
  for (size_t i = 0; i < all.size(); ++i) {
    names.insert(all[i].name());
    if (i > 0) {
      EXPECT_GT(all[i].revision(), all[i - 1].revision());
    }
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kObjects));
}

// With allowWatchBookmarks, an idle watch gets bookmarks whose revision follows the store (here
// advanced by writes of another kind); resuming from one loses nothing written after it.
TEST_F(KubeApiTest, BookmarksArriveAndResumingFromOneLosesNothing) {
  HttpServerOptions options;
  options.api.bookmark_interval = 50ms;
  Start(options);
  WriteConfigMaps("before", 3);
  const int64_t from = Revision();
  // Writes of Databases move the store's revision while the ConfigMap watch stays idle.
  for (int i = 0; i < 3; ++i) {
    auto r = resource::Resource::FromJson(Database(fmt::format("db-{}", i)), "test");
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(store_->Create(std::move(*r)).ok());
  }
  const int64_t after_databases = Revision();
  auto events = Watch(
      fmt::format("{}?watch=true&allowWatchBookmarks=true&resourceVersion={}", kConfigMaps, from),
      [&](const std::vector<Event>& seen) {
        return !seen.empty() && seen.back().type == "BOOKMARK" &&
               seen.back().revision() >= after_databases;
      },
      5s);
  ASSERT_FALSE(events.empty());
  for (const Event& e : events) EXPECT_EQ(e.type, "BOOKMARK") << e.object.dump();
  const Event& bookmark = events.back();
  EXPECT_EQ(bookmark.object.value("kind", ""), "ConfigMap");
  EXPECT_EQ(bookmark.revision(), after_databases);
  // Written while nobody watches; the watch resumed from the bookmark sees all of it.
  WriteConfigMaps("after", 5);
  auto resumed = Watch(
      fmt::format("{}?watch=true&resourceVersion={}", kConfigMaps, bookmark.revision()),
      [](const std::vector<Event>& seen) { return seen.size() >= 5; }, 5s);
  ASSERT_EQ(resumed.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(resumed[i].type, "ADDED");
    EXPECT_EQ(resumed[i].name(), fmt::format("after-{:03}", i));
  }
}

// Bookmarks come on time also while other kinds change all the time (each change wakes the
// watch, which has nothing of its own to send).
TEST_F(KubeApiTest, BookmarksArriveWhileOtherKindsKeepChanging) {
  HttpServerOptions options;
  options.api.bookmark_interval = 50ms;
  Start(options);
  const int64_t from = Revision();
  std::atomic<bool> done{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int i = 0; !done; ++i) {
      auto r = resource::Resource::FromJson(Database(fmt::format("busy-{}", i)), "test");
      if (!r.ok() || !store_->Create(std::move(*r)).ok()) break;
      written = i + 1;
      std::this_thread::sleep_for(2ms);
    }
  });
  auto events = Watch(
      fmt::format("{}?watch=true&allowWatchBookmarks=true&resourceVersion={}", kConfigMaps, from),
      [&](const std::vector<Event>& seen) {
        return !seen.empty() && seen.back().type == "BOOKMARK" && seen.back().revision() > from;
      },
      // Well under the half second a watch waits for the cache when nothing comes at all.
      400ms);
  const int written_while_watched = written;
  done = true;
  writer.join();
  EXPECT_GE(written_while_watched, 3);  // the other kind did keep changing meanwhile
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, "BOOKMARK");
  EXPECT_GT(events.back().revision(), from);
}

// A watch from before the store's retained history is told 410 Expired, as a Status in an
// ERROR event, so that the client lists again.
TEST_F(KubeApiTest, WatchFromForgottenHistoryGets410Expired) {
  store::SqliteStoreOptions store_options;
  store_options.retained_events = 5;
  store_options.durable = false;
  auto store = store::SqliteStore::Open(dir_.path(), store_options);
  ASSERT_TRUE(store.ok());
  store_ = std::move(store).value();
  // The store trims its log when the revision crosses a multiple of 256.
  for (int i = 0; i < 3; ++i) WriteConfigMaps(fmt::format("old{}", i), 100);
  StartServer();
  auto events = Watch(
      fmt::format("{}?watch=true&resourceVersion=1", kConfigMaps),
      [](const std::vector<Event>& seen) { return !seen.empty(); }, 5s);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "ERROR");
  EXPECT_EQ(events[0].object.value("kind", ""), "Status") << events[0].object.dump();
  EXPECT_EQ(events[0].object.value("code", 0), 410) << events[0].object.dump();
  EXPECT_EQ(events[0].object.value("reason", ""), "Expired") << events[0].object.dump();
  // A recent revision still resumes.
  const int64_t now = Revision();
  WriteConfigMaps("new", 2);
  auto fresh = Watch(
      fmt::format("{}?watch=true&resourceVersion={}", kConfigMaps, now),
      [](const std::vector<Event>& seen) { return seen.size() >= 2; }, 5s);
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[0].type, "ADDED");
}

// A watch cache holding only the last few events still serves a client resuming from long
// before them, from the store's history, and then from the cache: nothing lost or repeated.
TEST_F(KubeApiTest, SmallWatchCacheFallsBackToTheStoresHistory) {
  HttpServerOptions options;
  options.api.watch_cache_events = 5;
  Start(options);
  const int64_t from = Revision();
  WriteConfigMaps("a", 50);
  std::thread writer([&] {
    std::this_thread::sleep_for(20ms);
    for (int i = 0; i < 4; ++i) WriteConfigMaps(fmt::format("b{}", i), 5);
  });
  auto events = Watch(
      fmt::format("{}?watch=true&resourceVersion={}", kConfigMaps, from),
      [](const std::vector<Event>& seen) { return seen.size() >= 70; }, 10s);
  writer.join();
  ASSERT_EQ(events.size(), 70u);
  std::set<std::string> names;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].type, "ADDED");
    names.insert(events[i].name());
    if (i > 0) {
      EXPECT_GT(events[i].revision(), events[i - 1].revision());
    }
  }
  EXPECT_EQ(names.size(), 70u);
  EXPECT_EQ(events.front().name(), "a-000");
}

// --- lists ---

TEST_F(KubeApiTest, PagesGiveEveryObjectOnceInOrder) {
  Start();
  WriteConfigMaps("cm", 250);
  httplib::Client c = Client();
  std::vector<std::string> names;
  std::string token;
  std::string revision;
  int pages = 0;
  do {
    std::string path = fmt::format("{}?limit=17", kConfigMaps);
    if (!token.empty()) path += "&continue=" + httplib::detail::encode_query_param(token);
    auto r = c.Get(path.c_str());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const Json page = Body(r);
    ASSERT_EQ(page.value("kind", ""), "ConfigMapList");
    EXPECT_LE(page["items"].size(), 17u);
    for (const Json& o : page["items"]) names.push_back(o["metadata"]["name"]);
    // Every page carries the first page's revision.
    const std::string rv = page["metadata"].value("resourceVersion", "");
    if (revision.empty()) revision = rv;
    EXPECT_EQ(rv, revision);
    token = page["metadata"].value("continue", "");
    // Writes between pages do not disturb the ones to come.
    if (pages == 3) WriteConfigMaps("zz", 1);
    ++pages;
  } while (!token.empty() && pages < 100);
  EXPECT_EQ(pages, 15);  // 251 objects: the one written between pages comes last
  ASSERT_EQ(names.size(), 251u);
  for (int i = 0; i < 250; ++i) EXPECT_EQ(names[i], fmt::format("cm-{:03}", i));
  EXPECT_EQ(names.back(), "zz-000");

  ExpectStatus(c.Get(fmt::format("{}?limit=5&continue=not-a-token!", kConfigMaps).c_str()), 400,
               "BadRequest");
  // Valid base64 of something that is not a token.
  ExpectStatus(c.Get(fmt::format("{}?limit=5&continue=aGVsbG8%3D", kConfigMaps).c_str()), 400,
               "BadRequest");
}

TEST_F(KubeApiTest, TableOfTableTriggersHasThePrinterColumns) {
  Start();
  httplib::Client c = Client();
  const std::string trigger = R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1",
    "kind":"TableTrigger","metadata":{"name":"t1"},
    "spec":{"schema":"ADS","table":"AUDIENCE","schedule":"0 * * * *","paused":true}})";
  const std::string path =
      "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/tabletriggers";
  auto made = c.Post(path.c_str(), trigger, "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  const httplib::Headers table = {{"Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"}};
  for (const std::string& p : {path, path + "/t1"}) {
    auto r = c.Get(p.c_str(), table);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const Json t = Body(r);
    EXPECT_EQ(t.value("kind", ""), "Table");
    EXPECT_EQ(t.value("apiVersion", ""), "meta.k8s.io/v1");
    std::vector<std::string> columns;
    for (const Json& col : t["columnDefinitions"]) columns.push_back(col["name"]);
    const std::vector<std::string> want = {"Name",     "PAUSED",   "CATALOG",   "SCHEMA",
                                           "TABLE",    "SCHEDULE", "TIMESTAMP", "WATERMARK",
                                           "LAST RUN", "Age"};
    EXPECT_EQ(columns, want) << r->body;
    ASSERT_EQ(t["rows"].size(), 1u);
    const Json& cells = t["rows"][0]["cells"];
    ASSERT_EQ(cells.size(), want.size());
    EXPECT_EQ(cells[0], "t1");
    EXPECT_EQ(cells[1], true);
    EXPECT_TRUE(cells[2].is_null());
    EXPECT_EQ(cells[3], "ADS");
    EXPECT_EQ(cells[4], "AUDIENCE");
    EXPECT_EQ(cells[5], "0 * * * *");
  }
}

// `kubectl get jobs` against the API shows what a Job's status records, as `hop get jobs` does
// (docs/resources.md, "Commands"): STATUS, COMPLETIONS, DURATION and OWNER, a cell the Job
// records nothing for being null.
TEST_F(KubeApiTest, TableOfJobsShowsWhatTheirStatusRecords) {
  Start();
  httplib::Client c = Client();
  const std::string path = "/apis/batch/v1/namespaces/default/jobs";
  auto made = c.Post(path.c_str(), R"({"apiVersion":"batch/v1","kind":"Job",
    "metadata":{"name":"j1"},"spec":{"template":{"spec":{"restartPolicy":"Never",
    "containers":[{"name":"c","image":"busybox","command":["true"]}]}}}})",
                     "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  Json job = Body(made);
  job["status"] = Json::parse(R"({"succeeded": 1, "startTime": "2026-01-01T09:00:00Z",
    "completionTime": "2026-01-01T09:05:03Z",
    "conditions": [{"type": "Complete", "status": "True"}]})");
  auto put = c.Put((path + "/j1/status").c_str(), job.dump(), "application/json");
  ASSERT_TRUE(put);
  ASSERT_EQ(put->status, 200) << put->body;
  const httplib::Headers table = {{"Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"}};
  auto r = c.Get(path.c_str(), table);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const Json t = Body(r);
  std::vector<std::string> columns;
  for (const Json& col : t["columnDefinitions"]) columns.push_back(col["name"]);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Name", "STATUS", "COMPLETIONS", "DURATION", "OWNER", "Age"}))
      << r->body;
  ASSERT_EQ(t["rows"].size(), 1u) << r->body;
  const Json& cells = t["rows"][0]["cells"];
  ASSERT_EQ(cells.size(), 6u) << r->body;
  EXPECT_EQ(cells[0], "j1");
  EXPECT_EQ(cells[1], "Complete");
  EXPECT_EQ(cells[2], "1/1");
  EXPECT_EQ(cells[3], "5m3s");
  EXPECT_TRUE(cells[4].is_null()) << r->body;
}

// A YAML body holding a number JSON cannot hold is refused, naming the field, rather than stored
// as null (docs/resources.md, "YAML"); quoted, the text is kept.
TEST_F(KubeApiTest, AYamlBodyWithANumberJsonCannotHoldIsRefused) {
  Start();
  httplib::Client c = Client();
  const std::string path = "/apis/flink.apache.org/v1beta1/namespaces/default/flinksessionjobs";
  for (const char* value : {".inf", "-.inf", ".nan", "1e999"}) {
    auto r = c.Post(path.c_str(),
                    std::string("apiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\n"
                                "metadata: {name: f}\nspec:\n  job: {parallelism: ") +
                        value + "}\n",
                    "application/yaml");
    ExpectStatus(r, 400, "BadRequest");
    ASSERT_TRUE(r);
    EXPECT_NE(r->body.find("spec.job.parallelism: \\\"" + std::string(value) + "\\\""),
              std::string::npos)
        << value << ": " << r->body;
  }
  auto kept = c.Post(path.c_str(),
                     "apiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\n"
                     "metadata: {name: f}\nspec:\n  job: {parallelism: '.inf'}\n",
                     "application/yaml");
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->status, 201) << kept->body;
  EXPECT_EQ(Body(kept)["spec"]["job"]["parallelism"], ".inf") << kept->body;
}

// --- failures ---

TEST_F(KubeApiTest, FailuresAreStatusesWithTheirCodeAndReason) {
  HttpServerOptions options;
  options.max_body_bytes = 64 * 1024;
  Start(options);
  httplib::Client c = Client();
  ExpectStatus(c.Get(fmt::format("{}/missing", kConfigMaps).c_str()), 404, "NotFound");
  ExpectStatus(c.Get("/apis/nosuch.group/v1/things"), 404, "NotFound");

  const std::string db = Database("ads").dump();
  auto made = c.Post(kDatabases, db, "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  ExpectStatus(c.Post(kDatabases, db, "application/json"), 409, "AlreadyExists");

  // A replace naming a resourceVersion that is no longer the stored one.
  Json stale = Body(made);
  Json changed = stale;
  changed["spec"]["schema"] = "ADS2";
  auto updated =
      c.Put(fmt::format("{}/ads", kDatabases).c_str(), changed.dump(), "application/json");
  ASSERT_TRUE(updated);
  ASSERT_EQ(updated->status, 200) << updated->body;
  stale["spec"]["schema"] = "ADS3";
  auto conflict =
      c.Put(fmt::format("{}/ads", kDatabases).c_str(), stale.dump(), "application/json");
  ExpectStatus(conflict, 409, "Conflict");
  EXPECT_NE(conflict->body.find("the object has been modified"), std::string::npos);

  // The schema: spec.url is required, spec.schema a string.
  Json invalid = Database("bad");
  invalid["spec"].erase("url");
  invalid["spec"]["schema"] = 5;
  ExpectStatus(c.Post(kDatabases, invalid.dump(), "application/json"), 422, "Invalid");

  ExpectStatus(c.Post(kDatabases, "{\"apiVersion\": ", "application/json"), 400, "BadRequest");
  ExpectStatus(c.Post(kDatabases, "metadata: [unclosed\n  name: x", "application/yaml"), 400,
               "BadRequest");
  Json elsewhere = Database("other");
  elsewhere["metadata"]["namespace"] = "elsewhere";
  ExpectStatus(c.Post(kDatabases, elsewhere.dump(), "application/json"), 400, "BadRequest");

  ExpectStatus(c.Patch(fmt::format("{}/ads", kDatabases).c_str(), R"({"spec":{"schema":"X"}})",
                       "application/strategic-merge-patch+json"),
               415, "UnsupportedMediaType");
  // The same patch as a merge patch is fine.
  auto merged = c.Patch(fmt::format("{}/ads", kDatabases).c_str(), R"({"spec":{"schema":"X"}})",
                        "application/merge-patch+json");
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->status, 200) << merged->body;

  ExpectStatus(c.Post(kConfigMaps, ConfigMap("big", std::string(100 * 1024, 'x')).dump(),
                      "application/json"),
               413, "RequestEntityTooLarge");
  // The server still answers after refusing the large body.
  auto after = c.Get(fmt::format("{}/ads", kDatabases).c_str());
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(Body(after)["spec"]["schema"], "X");
}

// A View written through the API whose schema and view name are a physical table's is refused
// as CREATE VIEW refuses it, with its words (422 Invalid): it would hide the table.
TEST_F(KubeApiTest, AViewOverAPhysicalTablesNameIsInvalid) {
  Start();
  httplib::Client c = Client();
  auto db = c.Post(kDatabases, Database("ads").dump(), "application/json");
  ASSERT_TRUE(db);
  ASSERT_EQ(db->status, 201) << db->body;
  const std::string views = "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/views";
  auto view = [](const std::string& resource, const std::string& name) {
    return Json::parse(R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"View",
      "metadata":{"name":")" +
                       resource + R"("},"spec":{"schema":"ADS","view":")" + name +
                       R"(","sql":"SELECT 1 AS x"}})");
  };
  auto shadow =
      c.Post(views.c_str(), view("ads-page-views", "PAGE_VIEWS").dump(), "application/json");
  ExpectStatus(shadow, 422, "Invalid");
  EXPECT_NE(shadow->body.find("Cannot overwrite physical table PAGE_VIEWS with a view."),
            std::string::npos)
      << shadow->body;
  // A view of its own name is fine; renaming it onto the table, by replace or patch, is not.
  Json fine = view("ads-fine", "FINE");
  auto made = c.Post(views.c_str(), fine.dump(), "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  Json renamed = Body(made);
  renamed["spec"]["view"] = "PAGE_VIEWS";
  ExpectStatus(c.Put((views + "/ads-fine").c_str(), renamed.dump(), "application/json"), 422,
               "Invalid");
  ExpectStatus(c.Patch((views + "/ads-fine").c_str(), R"({"spec":{"view":"PAGE_VIEWS"}})",
                       "application/merge-patch+json"),
               422, "Invalid");
  auto kept = c.Get((views + "/ads-fine").c_str());
  ASSERT_TRUE(kept);
  EXPECT_EQ(Body(kept)["spec"]["view"], "FINE");
}

// hop's KubernetesStore marks its requests with X-Hop-Store-Client: true, and reads secrets whole,
// in objects and in watch events alike; other clients read them redacted.
TEST_F(KubeApiTest, TheStoreClientHeaderReadsSecretsWhole) {
  Start();
  Json db = Database("secret");
  db["spec"]["url"] = "jdbc:mysql://db:3306;user=app;password=swordfish";
  httplib::Client c = Client();
  auto made = c.Post(kDatabases, db.dump(), "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  EXPECT_EQ(made->body.find("swordfish"), std::string::npos);
  const httplib::Headers store_client = {{"X-Hop-Store-Client", "true"}};
  auto whole = c.Get(fmt::format("{}/secret", kDatabases).c_str(), store_client);
  ASSERT_TRUE(whole);
  EXPECT_EQ(Body(whole)["spec"]["url"], "jdbc:mysql://db:3306;user=app;password=swordfish");
  auto other = c.Get(fmt::format("{}/secret", kDatabases).c_str(), {{"X-Hop-Store-Client", "no"}});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->body.find("swordfish"), std::string::npos);

  // A watch: the initial event and a change, whole for the store client only.
  for (const bool whole_watch : {true, false}) {
    httplib::Client w = Client();
    std::vector<Event> seen;
    LineReader lines;
    const std::string path = fmt::format("{}?watch=true&timeoutSeconds=5", kDatabases);
    std::thread change([&] {
      std::this_thread::sleep_for(200ms);
      Client().Patch(fmt::format("{}/secret", kDatabases).c_str(),
                     R"({"metadata":{"labels":{"n":")" + std::to_string(whole_watch) + R"("}}})",
                     "application/merge-patch+json");
    });
    w.Get(path.c_str(), whole_watch ? store_client : httplib::Headers{},
          [&](const char* data, size_t len) {
            for (Event& e : lines.Feed(data, len)) seen.push_back(std::move(e));
            return seen.size() < 2;
          });
    change.join();
    ASSERT_EQ(seen.size(), 2u) << whole_watch;
    for (const Event& e : seen) {
      EXPECT_EQ(e.object["spec"]["url"].get<std::string>().find("swordfish") != std::string::npos,
                whole_watch)
          << e.object.dump();
    }
  }
}

// A Job's env entries whose names name a secret and the argument after a secret option read
// redacted, in an object and in a list; a name that says the value is a file's path does not.
TEST_F(KubeApiTest, SecretsInEnvAndArgumentsReadRedacted) {
  Start();
  const Json job = Json::parse(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
    "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c",
      "command":["psql","--password","hunter5a","--token=hunter5b"],
      "args":["--api-key","hunter5c"],
      "env":[{"name":"PGPASSWORD","value":"hunter5d"},{"name":"PASSWORD_FILE","value":"/run/pw"}]
    }]}}}})");
  const char* jobs = "/apis/batch/v1/namespaces/default/jobs";
  httplib::Client c = Client();
  auto made = c.Post(jobs, job.dump(), "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  EXPECT_EQ(made->body.find("hunter5"), std::string::npos) << made->body;
  for (const std::string path : {std::string(jobs) + "/j", std::string(jobs)}) {
    auto got = c.Get(path.c_str());
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 200) << got->body;
    EXPECT_EQ(got->body.find("hunter5"), std::string::npos) << path << ": " << got->body;
    EXPECT_NE(got->body.find("/run/pw"), std::string::npos) << path << ": " << got->body;
  }
  auto whole = c.Get((std::string(jobs) + "/j").c_str(), {{"X-Hop-Store-Client", "true"}});
  ASSERT_TRUE(whole);
  EXPECT_EQ(Body(whole)["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"],
            "hunter5d");
}

// --- robustness ---

TEST_F(KubeApiTest, FiveHundredWatchesDoNotSlowOtherRequests) {
  Start();
  const int64_t from = Revision();
  std::vector<int> watchers;
  const std::string request =
      fmt::format("GET {}?watch=true&resourceVersion={} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                  kConfigMaps, from);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 500; ++i) {
    const int fd = RawConnect(server_->port());
    ASSERT_GE(fd, 0) << "connection " << i;
    ASSERT_TRUE(SendAll(fd, request));
    watchers.push_back(fd);
  }
  // They connect without waiting on a full listen backlog.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  // Every watch has started: each has its response headers.
  for (size_t i = 0; i < watchers.size(); i += 50) {
    EXPECT_NE(ReadUntil(watchers[i], "\r\n\r\n", 5s).find("200 OK"), std::string::npos) << i;
  }
  httplib::Client c = Client();
  const auto started = std::chrono::steady_clock::now();
  auto r = c.Get("/api/v1/namespaces/default/configmaps");
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(took, 1s);
  // A write reaches the watchers.
  WriteConfigMaps("seen", 1);
  for (size_t i = 1; i < watchers.size(); i += 99) {
    EXPECT_NE(ReadUntil(watchers[i], "seen-000", 5s).find("\"ADDED\""), std::string::npos) << i;
  }
  for (int fd : watchers) close(fd);
}

// A watcher that stops reading holds only its own connection: another watcher receives every
// event, and requests still answer.
TEST_F(KubeApiTest, AWatcherThatStopsReadingBlocksNoOne) {
  Start();
  const int64_t from = Revision();
  const int stalled = RawConnect(server_->port(), 4096);
  ASSERT_GE(stalled, 0);
  ASSERT_TRUE(SendAll(stalled, fmt::format("GET {}?watch=true&resourceVersion={} HTTP/1.1\r\n"
                                           "Host: 127.0.0.1\r\n\r\n",
                                           kConfigMaps, from)));
  std::this_thread::sleep_for(50ms);  // the stalled watch is open before the writes
  // 200 objects of 16 KiB: far more than the socket buffers of the stalled client hold.
  std::thread writer([&] {
    for (int i = 0; i < 20; ++i)
      WriteConfigMaps(fmt::format("big{:02}", i), 10, std::string(16384, 'x'));
  });
  auto events = Watch(
      fmt::format("{}?watch=true&resourceVersion={}", kConfigMaps, from),
      [](const std::vector<Event>& seen) { return seen.size() >= 200; }, 10s);
  writer.join();
  EXPECT_EQ(events.size(), 200u);
  httplib::Client c = Client();
  const auto started = std::chrono::steady_clock::now();
  auto r = c.Get(fmt::format("{}/big00-000", kConfigMaps).c_str());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s);
  close(stalled);
}

TEST_F(KubeApiTest, GarbageOnTheSocketGetsAnErrorOrACloseAndTheServerKeepsServing) {
  Start();
  const std::vector<std::string> garbage = {
      std::string("\x00\x01\x02\xff\xfe garbage\r\n\r\n", 17),
      "GET\r\n\r\n",
      "GET / HTTP/9.9\r\nHost\r\n\r\n",
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
      "PATCH /api/v1/namespaces/default/configmaps/x HTTP/1.1\r\nContent-Length: "
      "99999999999999999999\r\n\r\n",
      std::string(100000, 'A') + "\r\n\r\n",
  };
  for (const std::string& g : garbage) {
    const int fd = RawConnect(server_->port());
    ASSERT_GE(fd, 0);
    SendAll(fd, g);
    shutdown(fd, SHUT_WR);
    const std::string answer = ReadUntil(fd, "", 3s);
    // Either an HTTP error or nothing (closed).
    if (!answer.empty()) {
      ASSERT_EQ(answer.rfind("HTTP/1.1 ", 0), 0u) << answer.substr(0, 200);
      EXPECT_GE(std::atoi(answer.c_str() + 9), 400) << answer.substr(0, 200);
    }
    close(fd);
  }
  httplib::Client c = Client();
  auto r = c.Get("/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// --- listening, the token, health ---

TEST_F(KubeApiTest, NonLoopbackWithoutTlsAndTokenDoesNotStart) {
  auto store = store::SqliteStore::Open(dir_.path());
  ASSERT_TRUE(store.ok());
  store_ = std::move(store).value();
  const std::string token_file = dir_.path() + "/token";
  std::ofstream(token_file) << "s3cret\n";
  for (const bool with_token : {false, true}) {
    HttpServerOptions options;
    options.listen = "0.0.0.0";
    if (with_token) options.token_file = token_file;
    auto server = HttpServer::Start(*store_, options, &role_);
    ASSERT_FALSE(server.ok());
    EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument) << server.status().ToString();
  }
}

TEST_F(KubeApiTest, WithATokenRequestsWithoutItGet401WhileHealthAnswers) {
  const std::string token_file = dir_.path() + "/token";
  std::ofstream(token_file) << "s3cret\n";
  HttpServerOptions options;
  options.token_file = token_file;
  Start(options);
  httplib::Client c = Client();
  ExpectStatus(c.Get(kConfigMaps), 401, "Unauthorized");
  ExpectStatus(c.Get(kConfigMaps, {{"Authorization", "Bearer wrong"}}), 401, "Unauthorized");
  ExpectStatus(c.Get(fmt::format("{}?watch=true", kConfigMaps).c_str()), 401, "Unauthorized");
  ExpectStatus(c.Get(kConfigMaps, {{"Authorization", "Bearer s3cre"}}), 401, "Unauthorized");
  ExpectStatus(c.Get(kConfigMaps, {{"Authorization", "Bearer s3cret2"}}), 401, "Unauthorized");
  ExpectStatus(c.Get(kConfigMaps, {{"Authorization", "Basic s3cret"}}), 401, "Unauthorized");
  ExpectStatus(c.Get(kConfigMaps, {{"Authorization", "Bearers3cret"}}), 401, "Unauthorized");
  ExpectStatus(c.Get(kConfigMaps, {{"Authorization", "Bearer S3CRET"}}), 401, "Unauthorized");
  // The scheme is compared without regard to case, as the API server compares it; the token is
  // compared exactly.
  for (const char* scheme : {"Bearer", "bearer", "BEARER", "bEaReR"}) {
    auto ok = c.Get(kConfigMaps, {{"Authorization", fmt::format("{} s3cret", scheme)}});
    ASSERT_TRUE(ok) << scheme;
    EXPECT_EQ(ok->status, 200) << scheme << "\n" << ok->body;
  }
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_NE(server_->Kubeconfig().find("token: \"s3cret\""), std::string::npos);
}

// Without a token the API (on loopback) serves only the user hop serve runs as, and only
// requests addressed to a loopback name: loopback is open to every user of the machine, and a
// page whose name resolves to 127.0.0.1 (DNS rebinding) sends its own Host. The health checks
// answer anyone, as with a token.
TEST_F(KubeApiTest, WithoutATokenOnlyTheLocalUserAndLoopbackHostsAreServed) {
  Start();
  httplib::Client c = Client();
  auto mine = c.Get(kConfigMaps);
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->status, 200) << mine->body;
  for (const char* host :
       {"localhost", "localhost:80", "127.0.0.1:1234", "127.0.0.2", "[::1]:8080", "LOCALHOST"}) {
    auto ok = c.Get(kConfigMaps, {{"Host", host}});
    ASSERT_TRUE(ok) << host;
    EXPECT_EQ(ok->status, 200) << host << "\n" << ok->body;
  }
  for (const char* host : {"evil.example", "evil.example:8080", "127.1", "localhost.evil.example",
                           "10.0.0.1", "[::1", "::1"}) {
    auto refused = c.Get(kConfigMaps, {{"Host", host}});
    ASSERT_TRUE(refused) << host;
    EXPECT_EQ(refused->status, 403) << host;
    EXPECT_NE(refused->body.find("is not a loopback address or localhost"), std::string::npos)
        << refused->body;
  }
  // Another user: the server is told that the user it serves is not this test's.
  server_->Stop();
  HttpServerOptions others;
  others.loopback_user = geteuid() + 1;
  StartServer(others);
  httplib::Client stranger = Client();
  for (const char* path : {kConfigMaps, "/metrics", "/api"}) {
    auto refused = stranger.Get(path);
    ASSERT_TRUE(refused) << path;
    EXPECT_EQ(refused->status, 403) << path;
    EXPECT_NE(refused->body.find(
                  fmt::format("serves only the user hop serve runs as (uid {})", geteuid() + 1)),
              std::string::npos)
        << refused->body;
  }
  auto created =
      stranger.Post(kConfigMaps, ConfigMap("from-a-stranger", "v").dump(), "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 403);
  EXPECT_FALSE(store_->Find({{"", "ConfigMap"}, "default", "from-a-stranger"})->has_value());
  auto health = stranger.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  // With a token the token decides, whoever connects.
  server_->Stop();
  const std::string token_file = dir_.path() + "/token";
  std::ofstream(token_file) << "s3cret\n";
  HttpServerOptions with_token;
  with_token.loopback_user = geteuid() + 1;
  with_token.token_file = token_file;
  StartServer(with_token);
  httplib::Client holder = Client();
  auto ok = holder.Get(kConfigMaps, {{"Authorization", "Bearer s3cret"}, {"Host", "hop.example"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

TEST_F(KubeApiTest, HealthChecksFollowTheRole) {
  Start();
  httplib::Client c = Client();
  for (ServeRole role : {ServeRole::kLeading, ServeRole::kStandingBy}) {
    role_ = role;
    for (const char* path : {"/readyz", "/livez", "/healthz"}) {
      auto r = c.Get(path);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 200) << path;
      EXPECT_EQ(r->body, "ok");
    }
  }
  role_ = ServeRole::kStarting;
  for (const char* path : {"/readyz", "/healthz"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 503) << path;
    EXPECT_NE(r->body.find("starting"), std::string::npos) << r->body;
  }
  // Starting is alive, only not ready.
  auto live = c.Get("/livez");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
}

// Ready means the store can keep what it is given: once its state directory is removed,
// /readyz and /healthz answer 503 with the store's reason while /livez, about the process,
// stays 200, and a write is refused with the same reason.
TEST_F(KubeApiTest, HealthChecksSayWhenTheStoreCannotKeepWrites) {
  Start();
  httplib::Client c = Client();
  role_ = ServeRole::kLeading;
  auto before = c.Get("/readyz?verbose");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 200) << before->body;
  EXPECT_NE(before->body.find("[+]store ok"), std::string::npos) << before->body;
  std::filesystem::remove_all(dir_.path());
  for (const char* path : {"/readyz", "/healthz"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 503) << path;
    EXPECT_NE(r->body.find("not ready: the store failed: " + dir_.path() + "/hop.db was removed"),
              std::string::npos)
        << path << ": " << r->body;
  }
  auto verbose = c.Get("/readyz?verbose");
  ASSERT_TRUE(verbose);
  EXPECT_NE(verbose->body.find("[-]store failed: "), std::string::npos) << verbose->body;
  EXPECT_NE(verbose->body.find("readyz check failed"), std::string::npos) << verbose->body;
  auto live = c.Get("/livez");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200) << live->body;
  auto write = c.Post(kConfigMaps, ConfigMap("after").dump(), "application/json");
  ASSERT_TRUE(write);
  EXPECT_EQ(write->status, 503) << write->body;
  EXPECT_NE(write->body.find("hop.db was removed"), std::string::npos) << write->body;
}

// /metrics is Prometheus text whose HTTP counters move with the requests answered and whose
// store gauges read the store.
TEST_F(KubeApiTest, MetricsCountRequestsByVerbAndCodeAndReadTheStore) {
  Start();
  httplib::Client c = Client();
  auto sample = [&](const std::string& line_start) -> double {
    auto r = c.Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    if (!r) return -1;
    EXPECT_NE(r->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
    size_t at = r->body.find("\n" + line_start + " ");
    if (at == std::string::npos) return 0;
    at += line_start.size() + 2;
    return std::stod(r->body.substr(at, r->body.find('\n', at) - at));
  };
  const std::string list = "hop_http_requests_total{verb=\"list\",code=\"200\"}";
  const std::string missing = "hop_http_requests_total{verb=\"get\",code=\"404\"}";
  const double lists = sample(list);
  const double misses = sample(missing);
  ASSERT_TRUE(c.Get("/api/v1/namespaces/default/configmaps"));
  ASSERT_TRUE(c.Get("/api/v1/namespaces/default/configmaps"));
  ASSERT_TRUE(c.Get("/api/v1/namespaces/default/configmaps/nothing-here"));
  EXPECT_EQ(sample(list), lists + 2);
  EXPECT_EQ(sample(missing), misses + 1);
  auto created = c.Post("/api/v1/namespaces/default/configmaps", ConfigMap("counted").dump(),
                        "application/json");
  ASSERT_TRUE(created && created->status == 201);
  auto stats = store_->ReadStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(sample("hop_store_objects"), static_cast<double>(stats->objects));
  EXPECT_EQ(sample("hop_store_revision"), static_cast<double>(stats->revision));
  EXPECT_GT(sample("hop_store_bytes"), 0);
}

// A delete of an object with finalizers marks it (202) until a patch removes the last one; an
// Orphan delete keeps the objects that named it as their owner, without that reference.
TEST_F(KubeApiTest, FinalizersHoldADeleteAndOrphanKeepsDependents) {
  Start();
  httplib::Client c = Client();
  Json held = ConfigMap("held");
  held["metadata"]["finalizers"] = Json::array({"example.com/hold"});
  ASSERT_EQ(c.Post(kConfigMaps, held.dump(), "application/json")->status, 201);
  auto marked = c.Delete(std::string(kConfigMaps) + "/held");
  ASSERT_TRUE(marked);
  EXPECT_EQ(marked->status, 202) << marked->body;
  EXPECT_TRUE(Body(marked)["metadata"].contains("deletionTimestamp")) << marked->body;
  EXPECT_EQ(c.Get(std::string(kConfigMaps) + "/held")->status, 200);
  auto released = c.Patch(std::string(kConfigMaps) + "/held", R"({"metadata":{"finalizers":null}})",
                          "application/merge-patch+json");
  ASSERT_TRUE(released);
  EXPECT_EQ(c.Get(std::string(kConfigMaps) + "/held")->status, 404);

  auto owner = c.Post(kConfigMaps, ConfigMap("owner").dump(), "application/json");
  ASSERT_EQ(owner->status, 201);
  for (const char* name : {"kept", "taken"}) {
    Json child = ConfigMap(name);
    child["metadata"]["ownerReferences"] =
        Json::array({Json{{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"name", "owner"},
                          {"uid", Body(owner)["metadata"]["uid"]}}});
    ASSERT_EQ(c.Post(kConfigMaps, child.dump(), "application/json")->status, 201);
  }
  // Background (the default) takes the dependents with the owner...
  auto other = c.Post(kConfigMaps, ConfigMap("owner2").dump(), "application/json");
  Json taken = Body(c.Get(std::string(kConfigMaps) + "/taken"));
  taken["metadata"]["ownerReferences"][0]["name"] = "owner2";
  taken["metadata"]["ownerReferences"][0]["uid"] = Body(other)["metadata"]["uid"];
  ASSERT_EQ(c.Put(std::string(kConfigMaps) + "/taken", taken.dump(), "application/json")->status,
            200);
  ASSERT_EQ(c.Delete(std::string(kConfigMaps) + "/owner2")->status, 200);
  EXPECT_EQ(c.Get(std::string(kConfigMaps) + "/taken")->status, 404);
  // ... and Orphan leaves them, without the reference.
  auto orphaned = c.Delete(std::string(kConfigMaps) + "/owner?propagationPolicy=Orphan");
  ASSERT_TRUE(orphaned);
  EXPECT_EQ(orphaned->status, 200) << orphaned->body;
  auto kept = c.Get(std::string(kConfigMaps) + "/kept");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->status, 200);
  EXPECT_FALSE(Body(kept)["metadata"].contains("ownerReferences")) << kept->body;
  ExpectStatus(c.Delete(std::string(kConfigMaps) + "/kept?propagationPolicy=Sideways"), 400,
               "BadRequest");
}

// --- the HTTP/1.1 server itself ---

// Requests sent back to back on one connection (pipelined) are answered in order; the last asks
// for the connection to close, and it does.
TEST_F(KubeApiTest, PipelinedRequestsAreAnsweredInOrderOnOneConnection) {
  Start();
  const std::string body = ConfigMap("piped").dump();
  const int fd = RawConnect(server_->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(
      fd, fmt::format("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
                      "POST {0} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      "Content-Length: {1}\r\n\r\n{2}"
                      "GET {0}/piped HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                      kConfigMaps, body.size(), body)));
  const Received got = ReadToClose(fd);
  close(fd);
  EXPECT_TRUE(got.closed);
  const auto responses = Responses(got.bytes);
  ASSERT_EQ(Statuses(responses), (std::vector<int>{200, 201, 200})) << got.bytes;
  EXPECT_EQ(responses[0].body, "ok");
  EXPECT_EQ(Json::parse(responses[2].body)["metadata"]["name"], "piped");
  EXPECT_NE(responses[2].head.find("Connection: close"), std::string::npos);
}

// Each way of making two readers disagree on where a body ends is refused with one answer, and
// the connection closes: the request hidden in the body is never served.
TEST_F(KubeApiTest, SmugglingAttemptsAreRefusedAndNothingHidesBehindThem) {
  Start();
  WriteConfigMaps("victim", 1);
  const std::string hidden =
      fmt::format("DELETE {}/victim-000 HTTP/1.1\r\nHost: localhost\r\n\r\n", kConfigMaps);
  const std::string chunked_hidden = fmt::format("0\r\n\r\n{}", hidden);
  struct Case {
    const char* name;
    std::string fields;
    std::string body;
    int status;
  };
  const Case kCases[] = {
      {"Content-Length and chunked",
       fmt::format("Content-Length: {}\r\nTransfer-Encoding: chunked\r\n", chunked_hidden.size()),
       chunked_hidden, 400},
      {"chunked and Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
       chunked_hidden, 400},
      {"two Content-Lengths", "Content-Length: 0\r\nContent-Length: 60\r\n", hidden, 400},
      {"a coding before chunked", "Transfer-Encoding: gzip, chunked\r\n", chunked_hidden, 501},
      {"a chunk size past 64 bits", "Transfer-Encoding: chunked\r\n",
       "1" + std::string(20, '0') + "\r\n" + hidden, 413},
      {"obs-fold", "X-A: 1\r\n Transfer-Encoding: chunked\r\n", chunked_hidden, 400},
      {"a blank before the colon", "Transfer-Encoding : chunked\r\n", chunked_hidden, 400},
  };
  for (const Case& c : kCases) {
    const int fd = RawConnect(server_->port());
    ASSERT_GE(fd, 0);
    SendAll(fd, fmt::format("POST {} HTTP/1.1\r\nHost: localhost\r\n{}\r\n{}", kConfigMaps,
                            c.fields, c.body));
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed) << c.name;
    const auto responses = Responses(got.bytes);
    ASSERT_EQ(Statuses(responses), std::vector<int>{c.status}) << c.name << "\n" << got.bytes;
    const Json status = Json::parse(responses[0].body, nullptr, false);
    EXPECT_EQ(status.value("kind", ""), "Status") << c.name;
    EXPECT_EQ(status.value("code", 0), c.status) << c.name;
  }
  httplib::Client client = Client();
  auto victim = client.Get(fmt::format("{}/victim-000", kConfigMaps).c_str());
  ASSERT_TRUE(victim);
  EXPECT_EQ(victim->status, 200);
}

// What the parser refuses reaches the client as a metav1.Status with the code, and the server
// goes on serving.
TEST_F(KubeApiTest, MalformedRequestsGetTheirStatusCode) {
  HttpServerOptions options;
  options.max_body_bytes = 1000;
  Start(options);
  struct Case {
    const char* name;
    std::string request;
    int status;
    std::string reason;
  };
  const Case kCases[] = {
      {"garbage", "garbage\r\n\r\n", 400, "BadRequest"},
      {"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "BadRequest"},
      {"a NUL in a field",
       "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX: a" + std::string(1, '\0') + "b\r\n\r\n", 400,
       "BadRequest"},
      {"a head of 70 KiB",
       "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX: " + std::string(70 * 1024, 'x') + "\r\n\r\n",
       431, "BadRequest"},
      {"HTTP/2.0", "GET /healthz HTTP/2.0\r\nHost: localhost\r\n\r\n", 505, "BadRequest"},
      {"an expectation", "GET /healthz HTTP/1.1\r\nHost: localhost\r\nExpect: magic\r\n\r\n", 417,
       "BadRequest"},
      {"a chunked body past the limit",
       fmt::format("POST {} HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "3e8\r\n{}\r\n1\r\nx\r\n0\r\n\r\n",
                   kConfigMaps, std::string(1000, 'x')),
       413, "RequestEntityTooLarge"},
      {"a method hop does not know", "BREW /pot HTTP/1.1\r\nHost: localhost\r\n\r\n", 405,
       "MethodNotAllowed"},
      {"OPTIONS", "OPTIONS * HTTP/1.1\r\nHost: localhost\r\n\r\n", 405, "MethodNotAllowed"},
  };
  for (const Case& c : kCases) {
    const int fd = RawConnect(server_->port());
    ASSERT_GE(fd, 0);
    SendAll(fd, c.request);
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed) << c.name;
    const auto responses = Responses(got.bytes);
    ASSERT_EQ(Statuses(responses), std::vector<int>{c.status}) << c.name << "\n" << got.bytes;
    const Json status = Json::parse(responses[0].body, nullptr, false);
    EXPECT_EQ(status.value("reason", ""), c.reason) << c.name;
    if (c.status == 405) {
      EXPECT_NE(responses[0].head.find("Allow: GET, HEAD, POST, PUT, PATCH, DELETE"),
                std::string::npos)
          << responses[0].head;
    }
  }
  httplib::Client client = Client();
  auto r = client.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// Bodies in chunks, and bodies the client holds back until the server says 100 Continue (as curl
// does for large ones), are read whole.
TEST_F(KubeApiTest, ChunkedAndContinuedBodiesAreRead) {
  Start();
  const std::string body = ConfigMap("chunky", std::string(3000, 'c')).dump();
  {
    const int fd = RawConnect(server_->port());
    ASSERT_GE(fd, 0);
    std::string request = fmt::format(
        "POST {} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        kConfigMaps);
    for (size_t at = 0; at < body.size(); at += 1000) {
      const std::string piece = body.substr(at, 1000);
      request += fmt::format("{:x};n={}\r\n{}\r\n", piece.size(), at, piece);
    }
    request += "0\r\nX-Trailer: yes\r\n\r\n";
    ASSERT_TRUE(SendAll(fd, request));
    const Received got = ReadToClose(fd);
    close(fd);
    const auto responses = Responses(got.bytes);
    ASSERT_EQ(Statuses(responses), std::vector<int>{201}) << got.bytes;
  }
  {
    const std::string second = ConfigMap("continued", std::string(3000, 'd')).dump();
    const int fd = RawConnect(server_->port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, fmt::format("POST {} HTTP/1.1\r\nHost: localhost\r\n"
                                        "Content-Type: application/json\r\n"
                                        "Content-Length: {}\r\nExpect: 100-continue\r\n\r\n",
                                        kConfigMaps, second.size())));
    // The server asks for the body before the client sends it.
    EXPECT_EQ(ReadUntil(fd, "\r\n\r\n", 5s), "HTTP/1.1 100 Continue\r\n\r\n");
    ASSERT_TRUE(SendAll(fd, second));
    const auto responses = Responses(ReadUntil(fd, "\"continued\"", 5s));
    ASSERT_EQ(Statuses(responses), std::vector<int>{201});
    close(fd);
  }
  httplib::Client client = Client();
  for (const char* name : {"chunky", "continued"}) {
    auto r = client.Get(fmt::format("{}/{}", kConfigMaps, name).c_str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << name;
    EXPECT_EQ(Body(r)["data"]["k"].get<std::string>().size(), 3000u) << name;
  }
}

// HTTP/1.0 closes after each answer unless it asks to keep the connection; HTTP/1.1 keeps it
// up to max_requests_per_connection, the last answer saying Connection: close. HEAD answers
// GET's head without its body.
TEST_F(KubeApiTest, KeepAliveFollowsTheVersionTheLimitAndHead) {
  HttpServerOptions options;
  options.max_requests_per_connection = 3;
  Start(options);
  {
    const int fd = RawConnect(server_->port());
    ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.0\r\n\r\nGET /healthz HTTP/1.0\r\n\r\n"));
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed);
    EXPECT_EQ(Statuses(Responses(got.bytes)), std::vector<int>{200});
  }
  {
    const int fd = RawConnect(server_->port());
    const std::string ask = "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
    ASSERT_TRUE(SendAll(fd, ask));
    const std::string first = ReadUntil(fd, "ok", 5s);
    EXPECT_NE(first.find("Connection: keep-alive"), std::string::npos) << first;
    ASSERT_TRUE(SendAll(fd, ask));
    EXPECT_EQ(Statuses(Responses(ReadUntil(fd, "ok", 5s))), std::vector<int>{200});
    close(fd);
  }
  {
    const int fd = RawConnect(server_->port());
    std::string four;
    for (int i = 0; i < 4; ++i) four += "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    ASSERT_TRUE(SendAll(fd, four));
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed);
    const auto responses = Responses(got.bytes);
    ASSERT_EQ(Statuses(responses), (std::vector<int>{200, 200, 200})) << got.bytes;
    EXPECT_EQ(responses[1].head.find("Connection: close"), std::string::npos);
    EXPECT_NE(responses[2].head.find("Connection: close"), std::string::npos);
  }
  {
    WriteConfigMaps("headed", 2);
    const int fd = RawConnect(server_->port());
    ASSERT_TRUE(SendAll(
        fd, fmt::format("HEAD {0} HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                        kConfigMaps)));
    const Received got = ReadToClose(fd);
    close(fd);
    const auto responses = Responses(got.bytes, /*head_only=*/true);
    ASSERT_EQ(Statuses(responses), (std::vector<int>{200, 200})) << got.bytes;
    EXPECT_NE(responses[0].head.find("Content-Length: "), std::string::npos);
    EXPECT_EQ(responses[0].head.find("Content-Length: 0\r\n"), std::string::npos);
    // Nothing but the second head and its body follow the first head.
    EXPECT_TRUE(got.bytes.ends_with("\r\n\r\nok")) << got.bytes;
  }
}

// A connection that sends half a head and stalls gets 408 after the read timeout; one that sends
// nothing, or nothing more after an answer, is closed after the idle timeout; one that connects
// and closes at once costs nothing. With room for one connection, each of them frees it.
TEST_F(KubeApiTest, StalledIdleAndVanishingClientsFreeTheirConnection) {
  HttpServerOptions options;
  options.max_connections = 1;
  options.read_timeout = 300ms;
  options.idle_timeout = 200ms;
  Start(options);
  {
    const int fd = RawConnect(server_->port());
    ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\nHo"));
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed);
    EXPECT_EQ(Statuses(Responses(got.bytes)), std::vector<int>{408}) << got.bytes;
  }
  {
    const int fd = RawConnect(server_->port());
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed);
    EXPECT_EQ(got.bytes, "");
  }
  {
    const int fd = RawConnect(server_->port());
    ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    const Received got = ReadToClose(fd);
    close(fd);
    EXPECT_TRUE(got.closed);  // after the idle timeout
    EXPECT_EQ(Statuses(Responses(got.bytes)), std::vector<int>{200});
  }
  for (int i = 0; i < 5; ++i) close(RawConnect(server_->port()));
  httplib::Client c = Client();
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// Past max_connections a new client waits, its connection queued, until one ends.
TEST_F(KubeApiTest, PastTheConnectionLimitAClientWaitsForAFreeOne) {
  HttpServerOptions options;
  options.max_connections = 1;
  options.idle_timeout = 30s;
  Start(options);
  const int first = RawConnect(server_->port());
  ASSERT_TRUE(SendAll(first, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  EXPECT_NE(ReadUntil(first, "ok", 5s).find("200 OK"), std::string::npos);
  const int second = RawConnect(server_->port());
  ASSERT_GE(second, 0);
  ASSERT_TRUE(
      SendAll(second, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(ReadUntil(second, "ok", 300ms), "");  // the first holds the only connection
  close(first);
  const Received got = ReadToClose(second);
  close(second);
  EXPECT_EQ(Statuses(Responses(got.bytes)), std::vector<int>{200}) << got.bytes;
}

// A watcher that stops reading is dropped once a write has waited the write timeout, and its
// connection closes.
TEST_F(KubeApiTest, AWatcherThatStopsReadingIsDropped) {
  HttpServerOptions options;
  options.write_timeout = 300ms;
  Start(options);
  const int64_t from = Revision();
  const int stalled = RawConnect(server_->port(), 4096);
  ASSERT_TRUE(SendAll(stalled, fmt::format("GET {}?watch=true&resourceVersion={} HTTP/1.1\r\n"
                                           "Host: localhost\r\n\r\n",
                                           kConfigMaps, from)));
  std::this_thread::sleep_for(50ms);
  for (int i = 0; i < 20; ++i)
    WriteConfigMaps(fmt::format("big{:02}", i), 10, std::string(16384, 'x'));
  std::this_thread::sleep_for(1s);  // the write times out meanwhile
  const Received got = ReadToClose(stalled, 10s);
  close(stalled);
  EXPECT_TRUE(got.closed);
  // It had received its head and part of the events, not all of them.
  EXPECT_EQ(got.bytes.rfind("HTTP/1.1 200 OK", 0), 0u);
  EXPECT_LT(got.bytes.size(), 200u * 16384u);
}

// Stop ends every watch (each gets the end of its chunked body), closes idle and half-read
// connections, and returns once every connection's thread has ended.
TEST_F(KubeApiTest, StopEndsWatchesAndConnectionsPromptly) {
  HttpServerOptions options;
  options.idle_timeout = 60s;
  options.read_timeout = 60s;
  Start(options);
  std::vector<int> watchers;
  for (int i = 0; i < 3; ++i) {
    const int fd = RawConnect(server_->port());
    ASSERT_TRUE(SendAll(
        fd, fmt::format("GET {}?watch=true HTTP/1.1\r\nHost: localhost\r\n\r\n", kConfigMaps)));
    EXPECT_NE(ReadUntil(fd, "\r\n\r\n", 5s).find("200 OK"), std::string::npos);
    watchers.push_back(fd);
  }
  const int idle = RawConnect(server_->port());
  const int half = RawConnect(server_->port());
  ASSERT_TRUE(SendAll(half, "GET /healthz HTTP/1.1\r\n"));
  std::this_thread::sleep_for(100ms);
  const auto started = std::chrono::steady_clock::now();
  server_->Stop();
  // Well inside the 60 s the idle and half-read connections would otherwise be kept.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  for (int fd : watchers) {
    const Received got = ReadToClose(fd, 2s);
    close(fd);
    EXPECT_TRUE(got.closed);
    EXPECT_TRUE(got.bytes.ends_with("0\r\n\r\n")) << got.bytes;
  }
  for (int fd : {idle, half}) {
    const Received got = ReadToClose(fd, 2s);
    close(fd);
    EXPECT_TRUE(got.closed);
  }
}

TEST_F(KubeApiTest, ListensOnIpv6Loopback) {
  auto store = store::SqliteStore::Open(dir_.path());
  ASSERT_TRUE(store.ok());
  store_ = std::move(store).value();
  HttpServerOptions options;
  options.listen = "::1";
  auto server = HttpServer::Start(*store_, options, &role_);
  if (!server.ok() && server.status().code() == StatusCode::kUnavailable) {
    GTEST_SKIP() << "no IPv6 loopback here: " << server.status().ToString();
  }
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  server_ = std::move(server).value();
  EXPECT_EQ(server_->url(), fmt::format("http://[::1]:{}", server_->port()));
  httplib::Client c("::1", server_->port());
  c.set_connection_timeout(5, 0);
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
}

// With a certificate and key the server speaks only TLS: an HTTPS client that trusts the
// certificate is served (a watch too), a plain HTTP request is not. Both the watcher and the
// plain client hang up while the server still writes to them: a write to a vanished TLS client
// must fail, not raise SIGPIPE (which would end this process, and `hop serve`).
TEST_F(KubeApiTest, ServesTlsWithItsCertificate) {
  const std::string cert = dir_.path() + "/cert.pem";
  const std::string key = dir_.path() + "/key.pem";
  const auto [made, status] = hop::testing::Shell(
      fmt::format("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
                  "-addext subjectAltName=IP:127.0.0.1 -keyout {} -out {}",
                  key, cert));
  if (status != 0) GTEST_SKIP() << "openssl cannot make a certificate here: " << made;
  HttpServerOptions options;
  options.tls_cert = cert;
  options.tls_key = key;
  Start(options);
  EXPECT_EQ(server_->url(), fmt::format("https://127.0.0.1:{}", server_->port()));
  EXPECT_NE(server_->Kubeconfig().find("certificate-authority-data: "), std::string::npos);

  httplib::SSLClient c("127.0.0.1", server_->port());
  c.set_ca_cert_path(cert.c_str());
  c.enable_server_certificate_verification(true);
  c.set_read_timeout(10, 0);
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
  const std::string body = ConfigMap("secure", std::string(20000, 's')).dump();
  auto created = c.Post(kConfigMaps, body, "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201) << created->body;
  LineReader lines;
  std::vector<Event> seen;
  c.Get(fmt::format("{}?watch=true&timeoutSeconds=5", kConfigMaps).c_str(),
        [&](const char* data, size_t len) {
          for (Event& e : lines.Feed(data, len)) seen.push_back(std::move(e));
          return seen.empty();
        });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].name(), "secure");

  const int fd = RawConnect(server_->port());
  SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const Received plain = ReadToClose(fd, 3s);
  close(fd);
  EXPECT_EQ(plain.bytes.find("200 OK"), std::string::npos);
}

}  // namespace
}  // namespace hop::server
