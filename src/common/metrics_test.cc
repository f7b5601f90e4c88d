// Tests of the metrics registry: the exposition text exactly (golden strings), escaping, name
// validation, re-registration, gauge callbacks, and exact totals under concurrent updates.
#include "common/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

namespace hop::metrics {
namespace {

TEST(MetricsTest, RendersCountersGaugesAndHistogramsExactly) {
  Registry r;
  // Registered out of order: families render by name.
  CounterFamily& reconciles =
      r.Counter("test_reconciles_total", "Reconciles done.", {"kind", "result"});
  GaugeFamily& depth = r.Gauge("test_depth", "Requests waiting.");
  HistogramFamily& latency =
      r.Histogram("test_latency_seconds", "How long it took.", {"kind"}, {0.1, 1, 2.5});
  CounterFamily& bare = r.Counter("test_bare_total", "A counter nobody touched.");

  reconciles.With({"View", "success"}).Inc();
  reconciles.With({"View", "success"}).Inc(2);
  reconciles.With({"Job", "error"}).Inc();
  depth.With().Set(7);
  Histogram& h = latency.With({"Job"});
  h.Observe(0.05);
  h.Observe(0.1);  // on a bound: counts in that bound's bucket (le)
  h.Observe(2);
  h.Observe(30);
  (void)bare;

  EXPECT_EQ(r.Render(),
            "# HELP test_bare_total A counter nobody touched.\n"
            "# TYPE test_bare_total counter\n"
            "test_bare_total 0\n"
            "# HELP test_depth Requests waiting.\n"
            "# TYPE test_depth gauge\n"
            "test_depth 7\n"
            "# HELP test_latency_seconds How long it took.\n"
            "# TYPE test_latency_seconds histogram\n"
            "test_latency_seconds_bucket{kind=\"Job\",le=\"0.1\"} 2\n"
            "test_latency_seconds_bucket{kind=\"Job\",le=\"1\"} 2\n"
            "test_latency_seconds_bucket{kind=\"Job\",le=\"2.5\"} 3\n"
            "test_latency_seconds_bucket{kind=\"Job\",le=\"+Inf\"} 4\n"
            "test_latency_seconds_sum{kind=\"Job\"} 32.15\n"
            "test_latency_seconds_count{kind=\"Job\"} 4\n"
            "# HELP test_reconciles_total Reconciles done.\n"
            "# TYPE test_reconciles_total counter\n"
            "test_reconciles_total{kind=\"Job\",result=\"error\"} 1\n"
            "test_reconciles_total{kind=\"View\",result=\"success\"} 3\n");
}

TEST(MetricsTest, UnlabelledHistogramRendersEmptyBucketsBeforeUse) {
  Registry r;
  r.Histogram("test_h", "H.", {}, {1, 10});
  EXPECT_EQ(r.Render(),
            "# HELP test_h H.\n"
            "# TYPE test_h histogram\n"
            "test_h_bucket{le=\"1\"} 0\n"
            "test_h_bucket{le=\"10\"} 0\n"
            "test_h_bucket{le=\"+Inf\"} 0\n"
            "test_h_sum 0\n"
            "test_h_count 0\n");
}

TEST(MetricsTest, EscapesLabelValuesAndHelp) {
  Registry r;
  r.Counter("test_total", "Help with a \\ and a\nnewline and \"quotes\".", {"name"})
      .With({"a\\b \"c\"\nd"})
      .Inc();
  EXPECT_EQ(r.Render(),
            "# HELP test_total Help with a \\\\ and a\\nnewline and \"quotes\".\n"
            "# TYPE test_total counter\n"
            "test_total{name=\"a\\\\b \\\"c\\\"\\nd\"} 1\n");
}

TEST(MetricsTest, FormatsSpecialValues) {
  struct Case {
    double v;
    const char* want;
  };
  const Case kCases[] = {
      {0, "0"},
      {1.5, "1.5"},
      {-2, "-2"},
      {0.001, "0.001"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const Case& c : kCases) EXPECT_EQ(FormatValue(c.v), c.want) << c.want;
}

TEST(MetricsTest, ValidatesNamesWhenRegistering) {
  struct Case {
    const char* name;
    std::vector<std::string> labels;
    bool ok;
  };
  const Case kCases[] = {
      {"hop_ok_total", {"kind"}, true},
      {"hop:recorded_rule", {}, true},
      {"_leading_underscore", {"_x"}, true},
      {"", {}, false},
      {"9starts_with_digit", {}, false},
      {"has-dash", {}, false},
      {"has space", {}, false},
      {"hop_x", {"bad-label"}, false},
      {"hop_x", {"has:colon"}, false},
      {"hop_x", {"__reserved"}, false},
      {"hop_x", {"1digit"}, false},
      {"hop_x", {"kind", "kind"}, false},
  };
  for (const Case& c : kCases) {
    Registry r;
    auto added = r.AddCounter(c.name, "help", c.labels);
    EXPECT_EQ(added.ok(), c.ok) << c.name;
    if (!c.ok) EXPECT_EQ(added.status().code(), StatusCode::kInvalidArgument) << c.name;
  }
  Registry r;
  EXPECT_FALSE(r.AddHistogram("hop_h", "h", {"le"}, {1}).ok());
  EXPECT_FALSE(r.AddHistogram("hop_h", "h", {}, {2, 1}).ok());
  EXPECT_FALSE(r.AddHistogram("hop_h", "h", {}, {1, 1}).ok());
  EXPECT_FALSE(r.AddHistogram("hop_h", "h", {}, {1, std::numeric_limits<double>::infinity()}).ok());
  EXPECT_TRUE(r.AddHistogram("hop_h", "h", {}, {1, 2}).ok());
}

TEST(MetricsTest, SameRegistrationSharesTheFamilyAndAnotherIsRefused) {
  Registry r;
  auto first = r.AddCounter("hop_x_total", "X.", {"kind"});
  auto again = r.AddCounter("hop_x_total", "X.", {"kind"});
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(*first, *again);

  auto other_labels = r.AddCounter("hop_x_total", "X.", {"name"});
  ASSERT_FALSE(other_labels.ok());
  EXPECT_EQ(other_labels.status().code(), StatusCode::kAlreadyExists);
  EXPECT_FALSE(r.AddGauge("hop_x_total", "X.", {"kind"}).ok());

  // The never-failing form gives a family that counts but is not exported.
  r.Counter("hop_x_total", "X.", {"name"}).With({"n"}).Inc();
  (*first)->With({"View"}).Inc();
  EXPECT_EQ(r.Render(),
            "# HELP hop_x_total X.\n"
            "# TYPE hop_x_total counter\n"
            "hop_x_total{kind=\"View\"} 1\n");
}

TEST(MetricsTest, WrongNumberOfLabelValuesIsNotExported) {
  Registry r;
  CounterFamily& f = r.Counter("hop_y_total", "Y.", {"a", "b"});
  f.With({"only-one"}).Inc();
  EXPECT_EQ(r.Render(), "# HELP hop_y_total Y.\n# TYPE hop_y_total counter\n");
}

TEST(MetricsTest, GaugeCallbacksRunAtRenderAndGoWithTheirHandle) {
  Registry r;
  GaugeFamily& g = r.Gauge("hop_depth", "Depth.", {"queue"});
  double a = 3, b = 4;
  g.With({"q"}).Set(100);  // replaced by the callbacks while there are any
  CallbackHandle ha = g.AddCallback({"q"}, [&] { return a; });
  {
    CallbackHandle hb = g.AddCallback({"q"}, [&] { return b; });
    EXPECT_EQ(r.Render(),
              "# HELP hop_depth Depth.\n# TYPE hop_depth gauge\nhop_depth{queue=\"q\"} 7\n");
  }
  a = 5;
  EXPECT_EQ(r.Render(),
            "# HELP hop_depth Depth.\n# TYPE hop_depth gauge\nhop_depth{queue=\"q\"} 5\n");
  CallbackHandle moved = std::move(ha);
  moved.Reset();
  EXPECT_EQ(r.Render(),
            "# HELP hop_depth Depth.\n# TYPE hop_depth gauge\nhop_depth{queue=\"q\"} 100\n");
}

TEST(MetricsTest, ChildReferencesStayValidAsChildrenAreAdded) {
  Registry r;
  CounterFamily& f = r.Counter("hop_z_total", "Z.", {"i"});
  Counter& first = f.With({"0"});
  for (int i = 1; i < 1000; ++i) f.With({std::to_string(i)}).Inc();
  first.Inc();
  EXPECT_EQ(&f.With({"0"}), &first);
  EXPECT_EQ(first.Value(), 1u);
}

TEST(MetricsTest, ConcurrentUpdatesGiveExactTotals) {
  Registry r;
  CounterFamily& c = r.Counter("hop_c_total", "C.", {"t"});
  HistogramFamily& h = r.Histogram("hop_h", "H.", {}, {0.5});
  GaugeFamily& g = r.Gauge("hop_g", "G.");
  constexpr int kThreads = 8;
  constexpr int kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Half the threads share a child and look it up each time; the rest keep theirs.
      Counter& mine = c.With({std::to_string(t % 2)});
      for (int i = 0; i < kEach; ++i) {
        if (t < kThreads / 2) {
          c.With({"shared"}).Inc();
        } else {
          mine.Inc();
        }
        h.With().Observe(i % 2 ? 1.0 : 0.25);
        g.With().Add(1);
        if (i % 1000 == 0) (void)r.Render();  // rendering does not disturb the counts
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.With({"shared"}).Value(), uint64_t{kThreads / 2 * kEach});
  EXPECT_EQ(c.With({"0"}).Value() + c.With({"1"}).Value(), uint64_t{kThreads / 2 * kEach});
  EXPECT_EQ(h.With().Count(), uint64_t{kThreads * kEach});
  EXPECT_EQ(h.With().BucketCounts()[0], uint64_t{kThreads * kEach / 2});
  EXPECT_DOUBLE_EQ(h.With().Sum(), kThreads * kEach / 2 * 1.25);
  EXPECT_DOUBLE_EQ(g.With().Value(), kThreads * kEach);
}

TEST(MetricsTest, ExponentialBuckets) {
  EXPECT_EQ(ExponentialBuckets(0.01, 2, 4), (std::vector<double>{0.01, 0.02, 0.04, 0.08}));
}

}  // namespace
}  // namespace hop::metrics
