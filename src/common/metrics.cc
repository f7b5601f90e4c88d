// The metrics registry and its text exposition (docs/metrics.md). Families and their children
// are created under locks and never move or die before their registry; samples are plain
// atomics, so the code that counts never waits for the code that renders.
#include "common/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/log.h"

namespace hop::metrics {
namespace {

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kCounter: return "counter";
    case Type::kGauge: return "gauge";
    case Type::kHistogram: return "histogram";
  }
  return "untyped";
}

// HELP text escapes only backslash and newline (a double quote is fine there).
std::string EscapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void AppendHeader(const Family& f, std::string& out) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name(), EscapeHelp(f.help()), f.name(),
                     TypeName(f.type()));
}

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Status ValidateLabels(const std::vector<std::string>& names, Type type) {
  std::set<std::string_view> seen;
  for (const std::string& n : names) {
    HOP_RETURN_IF_ERROR(ValidateLabelName(n));
    if (!seen.insert(n).second) {
      return Status::InvalidArgument(fmt::format("metric label '{}' is named twice", n));
    }
    // `le` is what a histogram's buckets are labelled with.
    if (type == Type::kHistogram && n == "le") {
      return Status::InvalidArgument("a histogram cannot have a label named 'le'");
    }
  }
  return Status::OK();
}

}  // namespace

Status ValidateMetricName(std::string_view name) {
  bool ok = !name.empty() && !IsDigit(name[0]);
  for (char c : name) ok = ok && (IsLetter(c) || IsDigit(c) || c == '_' || c == ':');
  if (!ok) {
    return Status::InvalidArgument(fmt::format(
        "'{}' is not a metric name: it takes letters, digits, '_' and ':', not first a digit",
        name));
  }
  return Status::OK();
}

Status ValidateLabelName(std::string_view name) {
  bool ok = !name.empty() && !IsDigit(name[0]);
  for (char c : name) ok = ok && (IsLetter(c) || IsDigit(c) || c == '_');
  if (!ok) {
    return Status::InvalidArgument(fmt::format(
        "'{}' is not a metric label name: it takes letters, digits and '_', not first a digit",
        name));
  }
  // Prometheus keeps names starting with "__" for itself.
  if (name.substr(0, 2) == "__") {
    return Status::InvalidArgument(
        fmt::format("metric label name '{}' is reserved: names starting with '__' are", name));
  }
  return Status::OK();
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  double b = start;
  for (int i = 0; i < count; ++i, b *= factor) out.push_back(b);
  return out;
}

// --- children ---

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds.size() + 1)) {}

void Histogram::Observe(double v) {
  // The first bound >= v: buckets are `le` (less than or equal) their bound. NaN lands in +Inf.
  const size_t i = std::isnan(v)
                       ? bounds_.size()
                       : static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) -
                                             bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::BucketCounts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  for (size_t i = 0; i < out.size(); ++i) out[i] = buckets_[i].load(std::memory_order_relaxed);
  return out;
}

uint64_t Histogram::Count() const {
  uint64_t n = 0;
  for (uint64_t c : BucketCounts()) n += c;
  return n;
}

CallbackHandle& CallbackHandle::operator=(CallbackHandle&& other) noexcept {
  if (this != &other) {
    Reset();
    remove_ = std::move(other.remove_);
    other.remove_ = nullptr;
  }
  return *this;
}

void CallbackHandle::Reset() {
  if (remove_) {
    auto remove = std::move(remove_);
    remove_ = nullptr;
    remove();
  }
}

// --- families ---

Family::Family(Type type, std::string name, std::string help, std::vector<std::string> label_names)
    : type_(type),
      name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)) {}

void Family::ReportWrongArity(size_t got) const {
  if (wrong_arity_reported_.exchange(true)) return;
  log::Error("metrics: {} takes {} label values, got {}; those samples are not exported", name_,
             label_names_.size(), got);
}

std::string Family::LabelText(const std::vector<std::string>& values,
                              std::string_view extra) const {
  if (values.empty() && extra.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < values.size() && i < label_names_.size(); ++i) {
    if (i > 0) out += ',';
    out += fmt::format("{}=\"{}\"", label_names_[i], EscapeLabelValue(values[i]));
  }
  if (!extra.empty()) {
    if (!values.empty()) out += ',';
    out += extra;
  }
  out += '}';
  return out;
}

CounterFamily::CounterFamily(std::string name, std::string help,
                             std::vector<std::string> label_names)
    : Family(Type::kCounter, std::move(name), std::move(help), std::move(label_names)) {
  // A family without labels has its one child from the start, so it renders as 0 before use.
  if (this->label_names().empty()) children_.Get({});
}

Counter& CounterFamily::With(const std::vector<std::string>& values) {
  if (values.size() != label_names().size()) {
    ReportWrongArity(values.size());
    return misfit_;
  }
  std::lock_guard lock(mu_);
  return children_.Get(values);
}

void CounterFamily::Render(std::string& out) const {
  AppendHeader(*this, out);
  std::lock_guard lock(mu_);
  for (const auto& [values, child] : children_.all()) {
    out += fmt::format("{}{} {}\n", name(), LabelText(values), child->Value());
  }
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : Family(Type::kGauge, std::move(name), std::move(help), std::move(label_names)) {
  if (this->label_names().empty()) children_.Get({});
}

Gauge& GaugeFamily::With(const std::vector<std::string>& values) {
  if (values.size() != label_names().size()) {
    ReportWrongArity(values.size());
    return misfit_;
  }
  std::lock_guard lock(mu_);
  return children_.Get(values).gauge;
}

CallbackHandle GaugeFamily::AddCallback(const std::vector<std::string>& values,
                                        std::function<double()> callback) {
  if (values.size() != label_names().size()) {
    ReportWrongArity(values.size());
    return {};
  }
  std::lock_guard lock(mu_);
  Child& child = children_.Get(values);
  const uint64_t id = next_callback_++;
  child.callbacks.emplace(id, std::move(callback));
  return CallbackHandle([this, &child, id] {
    std::lock_guard lock(mu_);
    child.callbacks.erase(id);
  });
}

void GaugeFamily::Render(std::string& out) const {
  AppendHeader(*this, out);
  std::lock_guard lock(mu_);
  for (const auto& [values, child] : children_.all()) {
    double v = child->gauge.Value();
    if (!child->callbacks.empty()) {
      v = 0;
      for (const auto& [id, callback] : child->callbacks) v += callback();
    }
    out += fmt::format("{}{} {}\n", name(), LabelText(values), FormatValue(v));
  }
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> label_names, std::vector<double> bounds)
    : Family(Type::kHistogram, std::move(name), std::move(help), std::move(label_names)),
      bounds_(std::move(bounds)),
      misfit_(bounds_) {
  if (this->label_names().empty()) children_.Get({}, bounds_);
}

Histogram& HistogramFamily::With(const std::vector<std::string>& values) {
  if (values.size() != label_names().size()) {
    ReportWrongArity(values.size());
    return misfit_;
  }
  std::lock_guard lock(mu_);
  return children_.Get(values, bounds_);
}

void HistogramFamily::Render(std::string& out) const {
  AppendHeader(*this, out);
  std::lock_guard lock(mu_);
  for (const auto& [values, child] : children_.all()) {
    // The sum is read first: observations are counted in their bucket before their sum grows,
    // so a concurrent Observe can make the count run ahead of the sum, never behind it.
    const double sum = child->Sum();
    const std::vector<uint64_t> counts = child->BucketCounts();
    uint64_t cumulative = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      cumulative += counts[i];
      const std::string le = i < bounds_.size() ? FormatValue(bounds_[i]) : "+Inf";
      out += fmt::format("{}_bucket{} {}\n", name(), LabelText(values, "le=\"" + le + "\""),
                         cumulative);
    }
    out += fmt::format("{}_sum{} {}\n", name(), LabelText(values), FormatValue(sum));
    out += fmt::format("{}_count{} {}\n", name(), LabelText(values), cumulative);
  }
}

// --- registry ---

Registry& Registry::Default() {
  // Never destroyed: a thread still counting while the process exits must not find it gone.
  static Registry* const registry = std::make_unique<Registry>().release();
  return *registry;
}

Result<Family*> Registry::Add(std::unique_ptr<Family> family) {
  std::lock_guard lock(mu_);
  auto found = families_.find(family->name());
  if (found == families_.end()) {
    Family* added = family.get();
    families_.emplace(family->name(), std::move(family));
    return added;
  }
  Family& old = *found->second;
  bool same = old.type() == family->type() && old.help() == family->help() &&
              old.label_names() == family->label_names();
  if (same && old.type() == Type::kHistogram) {
    same = static_cast<const HistogramFamily&>(old).bounds() ==
           static_cast<const HistogramFamily&>(*family).bounds();
  }
  if (!same) {
    return Status::AlreadyExists(
        fmt::format("metric {} is already registered as a {} with other help, labels or buckets",
                    old.name(), TypeName(old.type())));
  }
  return &old;
}

Result<CounterFamily*> Registry::AddCounter(std::string_view name, std::string_view help,
                                            std::vector<std::string> label_names) {
  HOP_RETURN_IF_ERROR(ValidateMetricName(name));
  HOP_RETURN_IF_ERROR(ValidateLabels(label_names, Type::kCounter));
  HOP_ASSIGN_OR_RETURN(Family * f, Add(std::make_unique<CounterFamily>(
                                       std::string(name), std::string(help), label_names)));
  return static_cast<CounterFamily*>(f);
}

Result<GaugeFamily*> Registry::AddGauge(std::string_view name, std::string_view help,
                                        std::vector<std::string> label_names) {
  HOP_RETURN_IF_ERROR(ValidateMetricName(name));
  HOP_RETURN_IF_ERROR(ValidateLabels(label_names, Type::kGauge));
  HOP_ASSIGN_OR_RETURN(Family * f, Add(std::make_unique<GaugeFamily>(
                                       std::string(name), std::string(help), label_names)));
  return static_cast<GaugeFamily*>(f);
}

Result<HistogramFamily*> Registry::AddHistogram(std::string_view name, std::string_view help,
                                                std::vector<std::string> label_names,
                                                std::vector<double> bounds) {
  HOP_RETURN_IF_ERROR(ValidateMetricName(name));
  HOP_RETURN_IF_ERROR(ValidateLabels(label_names, Type::kHistogram));
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
      return Status::InvalidArgument(
          fmt::format("histogram {}: bucket bounds must be finite and strictly increasing", name));
    }
  }
  HOP_ASSIGN_OR_RETURN(Family * f,
                       Add(std::make_unique<HistogramFamily>(std::string(name), std::string(help),
                                                             label_names, std::move(bounds))));
  return static_cast<HistogramFamily*>(f);
}

namespace {

// The family from `added`, or else a detached one made by `make`, kept by `detached`.
template <typename F, typename Make>
F& OrDetached(Result<F*> added, std::mutex& mu, std::vector<std::unique_ptr<Family>>& detached,
              Make make) {
  if (added.ok()) return **added;
  log::Error("metrics: {}; its samples are not exported", added.status().ToString());
  auto family = make();
  F& out = *family;
  std::lock_guard lock(mu);
  detached.push_back(std::move(family));
  return out;
}

}  // namespace

CounterFamily& Registry::Counter(std::string_view name, std::string_view help,
                                 std::vector<std::string> label_names) {
  return OrDetached(AddCounter(name, help, label_names), mu_, detached_, [&] {
    return std::make_unique<CounterFamily>(std::string(name), std::string(help), label_names);
  });
}

GaugeFamily& Registry::Gauge(std::string_view name, std::string_view help,
                             std::vector<std::string> label_names) {
  return OrDetached(AddGauge(name, help, label_names), mu_, detached_, [&] {
    return std::make_unique<GaugeFamily>(std::string(name), std::string(help), label_names);
  });
}

HistogramFamily& Registry::Histogram(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> bounds) {
  return OrDetached(AddHistogram(name, help, label_names, bounds), mu_, detached_, [&] {
    // A detached histogram still needs usable bounds: invalid ones would break Observe's search.
    std::vector<double> usable;
    for (double b : bounds) {
      if (std::isfinite(b) && (usable.empty() || b > usable.back())) usable.push_back(b);
    }
    return std::make_unique<HistogramFamily>(std::string(name), std::string(help), label_names,
                                             std::move(usable));
  });
}

std::string Registry::Render() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) family->Render(out);
  return out;
}

}  // namespace hop::metrics
