// A second process for the store's multi-process tests: it opens the same state directory and
// writes to it while the test process watches, or writes batches until it is killed.
//
//   store_test_child DIR create PREFIX N     create N ConfigMaps PREFIX-0 .. PREFIX-(N-1)
//   store_test_child DIR batches PREFIX      forever: commit a batch of 50 ConfigMaps
//                                            PREFIX-<batch>-<i>, then print the batch number
//   store_test_child DIR timed PREFIX N MS   create N ConfigMaps MS milliseconds apart, printing
//                                            after each commit CLOCK_MONOTONIC in nanoseconds
//   store_test_child DIR threads PREFIX T    forever, on each of T threads at once (their commits
//                                            grouped): commit a batch of 5 ConfigMaps
//                                            PREFIX-<thread>x<batch>-<i>, then print
//                                            "<thread>x<batch>" once Commit has returned
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite_store.h"

namespace {

hop::resource::Resource ConfigMap(const std::string& name) {
  hop::resource::Resource r(hop::Json::parse(
      R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}, "data": {"k": "v"}})"));
  r.set_name(name);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: store_test_child DIR create|batches PREFIX [N]\n");
    return 2;
  }
  auto store = hop::store::SqliteStore::Open(argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  const std::string command = argv[2];
  const std::string prefix = argv[3];
  if (command == "create" && argc == 5) {
    const int n = std::atoi(argv[4]);
    for (int i = 0; i < n; ++i) {
      auto r = (*store)->Create(ConfigMap(prefix + "-" + std::to_string(i)));
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 1;
      }
    }
    return 0;
  }
  if (command == "timed" && argc == 6) {
    const int n = std::atoi(argv[4]);
    const int gap_ms = std::atoi(argv[5]);
    for (int i = 0; i < n; ++i) {
      if (i > 0) usleep(static_cast<useconds_t>(gap_ms) * 1000);
      auto r = (*store)->Create(ConfigMap(prefix + "-" + std::to_string(i)));
      timespec now{};
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 1;
      }
      std::printf("%lld\n", static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec);
      std::fflush(stdout);
    }
    return 0;
  }
  if (command == "threads" && argc == 5) {
    const int threads = std::atoi(argv[4]);
    std::mutex out;
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t) {
      running.emplace_back([&, t] {
        for (long batch = 0;; ++batch) {
          const std::string name = prefix + "-" + std::to_string(t) + "x" + std::to_string(batch);
          std::vector<hop::store::Write> writes;
          for (int i = 0; i < 5; ++i) {
            writes.push_back(hop::store::Write::Create(ConfigMap(name + "-" + std::to_string(i))));
          }
          auto r = (*store)->Commit(std::move(writes));
          std::lock_guard<std::mutex> lock(out);
          if (!r.ok()) {
            std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
            std::exit(1);
          }
          std::printf("%dx%ld\n", t, batch);
          std::fflush(stdout);
        }
      });
    }
    for (auto& t : running) t.join();
    return 0;
  }
  if (command == "batches") {
    for (long batch = 0;; ++batch) {
      std::vector<hop::store::Write> writes;
      for (int i = 0; i < 50; ++i) {
        writes.push_back(hop::store::Write::Create(
            ConfigMap(prefix + "-" + std::to_string(batch) + "-" + std::to_string(i))));
      }
      auto r = (*store)->Commit(std::move(writes));
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 1;
      }
      std::printf("%ld\n", batch);
      std::fflush(stdout);
    }
  }
  std::fprintf(stderr, "unknown command %s\n", command.c_str());
  return 2;
}
