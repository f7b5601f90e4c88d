// hop's metrics: a registry of counter, gauge and histogram families that renders itself in the
// Prometheus text exposition format 0.0.4, for `hop serve`'s /metrics (docs/metrics.md lists
// every metric hop exports). Hot paths keep a reference to a family's child and update it with
// one atomic operation: no lock, no allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hop::metrics {

// A count that only goes up (reconciles done, runs finished).
class Counter {
 public:
  void Inc(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A value that goes up and down. Its value at Render() is the sum of its callbacks' results when
// it has any (GaugeFamily::AddCallback), else what Set and Add left.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted in buckets with fixed upper bounds, plus their sum. Observe updates one
// bucket and the sum, each atomically; a Render running meanwhile may see the one without the
// other, never a bucket count lower than an earlier Render's.
class Histogram {
 public:
  // `bounds` is the family's, sorted, without +Inf; it outlives the histogram.
  explicit Histogram(const std::vector<double>& bounds);
  void Observe(double v);
  // Observations per bucket, not cumulative: bounds.size() + 1 entries, the last for +Inf.
  std::vector<uint64_t> BucketCounts() const;
  uint64_t Count() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double>& bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<double> sum_{0};
};

enum class Type { kCounter, kGauge, kHistogram };

// What every family has: a name, a help text, fixed label names, and its children by label
// values. Children live as long as the family, which lives as long as its registry.
class Family {
 public:
  Family(Type type, std::string name, std::string help, std::vector<std::string> label_names);
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  Type type() const { return type_; }
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends the family's `# HELP`, `# TYPE` and sample lines, children in order of label values.
  virtual void Render(std::string& out) const = 0;

 protected:
  // Logs once that `got` label values were given for label_names().size() labels.
  void ReportWrongArity(size_t got) const;
  // `{a="x",b="y"}` for `values` (escaped), with `extra` (e.g. `le="0.5"`) appended; "" when
  // there is no label at all.
  std::string LabelText(const std::vector<std::string>& values, std::string_view extra = {}) const;

  mutable std::mutex mu_;  // guards the children of the subclasses

 private:
  const Type type_;
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  mutable std::atomic<bool> wrong_arity_reported_{false};
};

// The children of a family, one per list of label values, created on first use. With() takes
// the family's lock: callers on hot paths look their child up once and keep the reference.
template <typename Child>
class Children {
 public:
  template <typename... Args>
  Child& Get(const std::vector<std::string>& values, Args&&... args) {
    auto [it, added] = children_.try_emplace(values);
    if (added) it->second = std::make_unique<Child>(std::forward<Args>(args)...);
    return *it->second;
  }
  const std::map<std::vector<std::string>, std::unique_ptr<Child>>& all() const {
    return children_;
  }

 private:
  std::map<std::vector<std::string>, std::unique_ptr<Child>> children_;
};

class CounterFamily : public Family {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names);
  // The child for `values`, one per label name in order. The reference stays valid for the
  // family's life. A wrong number of values is a programmer's error: it is logged once and the
  // child returned is one Render never shows. Thread-safe.
  Counter& With(const std::vector<std::string>& values = {});
  void Render(std::string& out) const override;

 private:
  Children<Counter> children_;  // guarded by mu_
  Counter misfit_;              // what a wrong number of label values gets
};

// Removes a gauge callback when destroyed (or reset); move-only. After it is gone the callback
// is not running and never runs again, so destroying it must not happen while holding a lock
// the callback takes.
class CallbackHandle {
 public:
  CallbackHandle() = default;
  CallbackHandle(std::function<void()> remove) : remove_(std::move(remove)) {}
  CallbackHandle(CallbackHandle&& other) noexcept : remove_(std::move(other.remove_)) {
    other.remove_ = nullptr;
  }
  CallbackHandle& operator=(CallbackHandle&& other) noexcept;
  ~CallbackHandle() { Reset(); }
  void Reset();

 private:
  std::function<void()> remove_;
};

class GaugeFamily : public Family {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names);
  // As CounterFamily::With.
  Gauge& With(const std::vector<std::string>& values = {});
  // Makes the child for `values` report, at each Render, the sum of the results of its
  // callbacks (this one and any others added), for values that already live elsewhere (a
  // store's revision, a queue's length). `callback` runs under the family's lock, from the
  // thread calling Render: it must be quick and must not use this registry. It is removed when
  // the handle goes; the family must outlive the handle. Thread-safe.
  [[nodiscard]] CallbackHandle AddCallback(const std::vector<std::string>& values,
                                           std::function<double()> callback);
  void Render(std::string& out) const override;

 private:
  struct Child {
    Gauge gauge;
    std::map<uint64_t, std::function<double()>> callbacks;  // by id
  };
  Children<Child> children_;    // guarded by mu_
  uint64_t next_callback_ = 0;  // guarded by mu_
  Gauge misfit_;
};

class HistogramFamily : public Family {
 public:
  // `bounds`: the buckets' upper bounds, strictly increasing and finite (+Inf is implicit).
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> bounds);
  // As CounterFamily::With.
  Histogram& With(const std::vector<std::string>& values = {});
  const std::vector<double>& bounds() const { return bounds_; }
  void Render(std::string& out) const override;

 private:
  const std::vector<double> bounds_;
  Children<Histogram> children_;  // guarded by mu_
  Histogram misfit_;
};

// `count` bounds from `start`, each `factor` times the one before (start > 0, factor > 1).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// A set of families. Registering is rare and takes a lock; updating a child takes none. Every
// method is thread-safe.
class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process's registry: what /metrics serves and what hop's code registers in by default.
  static Registry& Default();

  // Registers a family, or returns the one already registered under `name` when it has the same
  // type, help and label names (two controllers in one process share their families, and their
  // counts add up). Errors: InvalidArgument for a name that is not a Prometheus metric name
  // ([a-zA-Z_:][a-zA-Z0-9_:]*), a label name that is not one ([a-zA-Z_][a-zA-Z0-9_]*, not
  // starting with "__"), a label named twice, `le` on a histogram, or histogram bounds that are
  // not finite and strictly increasing; AlreadyExists when `name` is registered differently.
  Result<CounterFamily*> AddCounter(std::string_view name, std::string_view help,
                                    std::vector<std::string> label_names = {});
  Result<GaugeFamily*> AddGauge(std::string_view name, std::string_view help,
                                std::vector<std::string> label_names = {});
  Result<HistogramFamily*> AddHistogram(std::string_view name, std::string_view help,
                                        std::vector<std::string> label_names,
                                        std::vector<double> bounds);

  // The same, for registrations whose names are constants in hop's code, where a failure is a
  // programmer's error: it is logged and the family returned is one Render never shows, so
  // that call sites need no error path.
  CounterFamily& Counter(std::string_view name, std::string_view help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& Gauge(std::string_view name, std::string_view help,
                     std::vector<std::string> label_names = {});
  HistogramFamily& Histogram(std::string_view name, std::string_view help,
                             std::vector<std::string> label_names, std::vector<double> bounds);

  // Every family in the text exposition format 0.0.4, families by name, children by label
  // values: `# HELP` and `# TYPE` lines, then one sample per line (histograms: cumulative
  // `_bucket{le=...}` lines up to `le="+Inf"`, then `_sum` and `_count`). Gauge callbacks run
  // here.
  std::string Render() const;

  // The content type of Render()'s text, for an HTTP response.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  // Registers `family` unless `name` is taken; the existing family when it matches `family`.
  Result<Family*> Add(std::unique_ptr<Family> family);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;  // guarded by mu_
  std::vector<std::unique_ptr<Family>> detached_;  // guarded by mu_; never rendered
};

// Checks for names, exposed for tests and for callers that build names at run time.
Status ValidateMetricName(std::string_view name);
Status ValidateLabelName(std::string_view name);
// `value` as a label value inside double quotes: `\`, `"` and newline escaped.
std::string EscapeLabelValue(std::string_view value);
// `v` as Prometheus writes a sample value: shortest round-trip form, `+Inf`, `-Inf`, `NaN`.
std::string FormatValue(double v);

}  // namespace hop::metrics
