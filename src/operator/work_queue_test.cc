// Tests of the WorkQueue: de-duplication, re-adds while processing, delays (ordering and
// earliest-wins), per-request backoff, idleness and shutdown. Time is a fake clock: nothing here
// sleeps, and the only threads are ones blocked in Get() that the test then releases.
#include "operator/work_queue.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "test/lib/fixtures.h"

namespace hop::op {
namespace {

using hop::testing::FakeClock;

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

Request R(const std::string& name) { return {{{"", "ConfigMap"}, "default", name}}; }

class WorkQueueTest : public ::testing::Test {
 protected:
  WorkQueueOptions Options() {
    WorkQueueOptions o;
    o.backoff_base = milliseconds(100);
    o.backoff_cap = seconds(1);
    o.clock = &clock_;
    return o;
  }

  // Takes every ready request, in order, and marks each done.
  std::vector<std::string> Drain(WorkQueue& q) {
    std::vector<std::string> out;
    while (auto r = q.TryGet()) {
      out.push_back(r->ref.name);
      q.Done(*r);
    }
    return out;
  }

  FakeClock clock_;
};

using Names = std::vector<std::string>;

TEST_F(WorkQueueTest, QueuesEachRequestOnceInArrivalOrder) {
  WorkQueue q(Options());
  q.Add(R("a"));
  q.Add(R("b"));
  q.Add(R("a"));
  q.Add(R("c"));
  q.Add(R("b"));
  EXPECT_EQ(q.Len(), 3u);
  EXPECT_EQ(Drain(q), (Names{"a", "b", "c"}));
  EXPECT_FALSE(q.TryGet().has_value());
  EXPECT_TRUE(q.Idle());
}

TEST_F(WorkQueueTest, RequestAddedWhileProcessingIsQueuedAgainAtDone) {
  WorkQueue q(Options());
  q.Add(R("a"));
  auto got = q.TryGet();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(q.Processing(), 1u);

  // Not handed to a second worker while the first has it, however often it is added.
  q.Add(R("a"));
  q.Add(R("a"));
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_FALSE(q.TryGet().has_value());

  q.Done(*got);
  EXPECT_EQ(q.Processing(), 0u);
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(Drain(q), (Names{"a"}));
  EXPECT_TRUE(q.Idle());
}

TEST_F(WorkQueueTest, DoneWithoutReAddForgetsTheRequest) {
  WorkQueue q(Options());
  q.Add(R("a"));
  auto got = q.TryGet();
  ASSERT_TRUE(got.has_value());
  q.Done(*got);
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_TRUE(q.Idle());
  // Once done, an add queues it again at once.
  q.Add(R("a"));
  EXPECT_EQ(q.Len(), 1u);
}

TEST_F(WorkQueueTest, AddAfterReleasesRequestsInTimeOrder) {
  WorkQueue q(Options());
  q.AddAfter(R("late"), seconds(30));
  q.AddAfter(R("early"), seconds(10));
  q.AddAfter(R("middle"), seconds(20));
  q.AddAfter(R("now"), Duration(0));
  EXPECT_EQ(q.Waiting(), 3u);
  EXPECT_EQ(q.NextWaitingTime(), clock_.Now() + seconds(10));
  EXPECT_EQ(Drain(q), (Names{"now"}));

  struct Step {
    Duration advance;
    Names ready;
  };
  const Step kSteps[] = {
      {seconds(9), {}},         {seconds(1), {"early"}}, {seconds(5), {}},
      {seconds(5), {"middle"}}, {seconds(30), {"late"}}, {seconds(30), {}},
  };
  int i = 0;
  for (const Step& step : kSteps) {
    clock_.Advance(step.advance);
    EXPECT_EQ(Drain(q), step.ready) << "step " << i;
    ++i;
  }
  EXPECT_EQ(q.Waiting(), 0u);
  EXPECT_FALSE(q.NextWaitingTime().has_value());
}

TEST_F(WorkQueueTest, AddAfterKeepsTheEarliestTime) {
  WorkQueue q(Options());
  q.AddAfter(R("a"), minutes(1));
  q.AddAfter(R("a"), seconds(10));  // earlier: replaces
  q.AddAfter(R("a"), minutes(5));   // later: ignored
  EXPECT_EQ(q.Waiting(), 1u);
  EXPECT_EQ(q.NextWaitingTime(), clock_.Now() + seconds(10));
  clock_.Advance(seconds(10));
  EXPECT_EQ(Drain(q), (Names{"a"}));
  clock_.Advance(minutes(10));
  EXPECT_EQ(Drain(q), Names{});  // it waited once, not three times
}

TEST_F(WorkQueueTest, DueRequestAlreadyQueuedIsNotDuplicated) {
  WorkQueue q(Options());
  q.AddAfter(R("a"), seconds(1));
  q.Add(R("a"));
  clock_.Advance(seconds(1));
  EXPECT_EQ(Drain(q), (Names{"a"}));
}

TEST_F(WorkQueueTest, BackoffGrowsPerRequestUpToTheCapUntilForget) {
  WorkQueue q(Options());
  // base 100ms, cap 1s.
  const int64_t kExpectedMs[] = {100, 200, 400, 800, 1000, 1000};
  int failures = 0;
  for (int64_t want : kExpectedMs) {
    SCOPED_TRACE(::testing::Message() << "failure " << failures + 1);
    EXPECT_EQ(q.AddRateLimited(R("a")).count(), want);
    EXPECT_EQ(q.NumRequeues(R("a")), ++failures);
    // Ready exactly when its backoff has passed, not a moment before.
    clock_.Advance(milliseconds(want - 1));
    EXPECT_EQ(Drain(q), Names{});
    clock_.Advance(milliseconds(1));
    EXPECT_EQ(Drain(q), (Names{"a"}));
  }

  // Failures are counted per request.
  EXPECT_EQ(q.NumRequeues(R("b")), 0);
  EXPECT_EQ(q.AddRateLimited(R("b")).count(), 100);

  q.Forget(R("a"));
  EXPECT_EQ(q.NumRequeues(R("a")), 0);
  EXPECT_EQ(q.AddRateLimited(R("a")).count(), 100);
}

TEST_F(WorkQueueTest, IdleIgnoresRequestsWaitingForLater) {
  WorkQueue q(Options());
  EXPECT_TRUE(q.Idle());
  q.Add(R("a"));
  EXPECT_FALSE(q.Idle());
  auto got = q.TryGet();
  ASSERT_TRUE(got.has_value());
  EXPECT_FALSE(q.Idle());  // processing
  EXPECT_FALSE(q.WaitIdle(Duration(0)));
  q.Done(*got);
  EXPECT_TRUE(q.Idle());
  EXPECT_TRUE(q.WaitIdle(Duration(0)));

  q.AddAfter(R("b"), seconds(5));
  EXPECT_TRUE(q.Idle());
  clock_.Advance(seconds(5));
  EXPECT_FALSE(q.Idle());  // due, even before anyone looked
  EXPECT_EQ(Drain(q), (Names{"b"}));
  EXPECT_TRUE(q.Idle());
}

TEST_F(WorkQueueTest, GetBlocksUntilAnAdd) {
  WorkQueue q(Options());
  std::optional<Request> got;
  std::thread worker([&] { got = q.Get(); });
  q.Add(R("a"));
  worker.join();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->ref.name, "a");
  EXPECT_EQ(q.Processing(), 1u);
}

TEST_F(WorkQueueTest, GetReturnsADelayedRequestAfterTheClockMovesAndWakeUp) {
  WorkQueue q(Options());
  q.AddAfter(R("a"), hours(1));
  std::optional<Request> got;
  std::thread worker([&] { got = q.Get(); });
  // Whether the worker is already asleep or not, it sees the request once the clock has moved.
  clock_.Advance(hours(1));
  q.WakeUp();
  worker.join();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->ref.name, "a");
}

TEST_F(WorkQueueTest, ShutDownReleasesEveryWaiterAndDropsWork) {
  WorkQueue q(Options());
  std::vector<std::thread> workers;
  std::mutex mu;
  int released = 0;
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      auto got = q.Get();
      std::lock_guard<std::mutex> lock(mu);
      if (!got.has_value()) ++released;
    });
  }
  q.ShutDown();
  for (auto& w : workers) w.join();
  EXPECT_EQ(released, 3);
  EXPECT_TRUE(q.ShuttingDown());

  q.Add(R("a"));
  q.AddAfter(R("b"), seconds(1));
  EXPECT_EQ(q.AddRateLimited(R("c")).count(), 100);  // computed, but nothing is queued
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_EQ(q.Waiting(), 0u);
  EXPECT_FALSE(q.TryGet().has_value());
  EXPECT_FALSE(q.Get().has_value());  // does not block
  q.ShutDown();                       // idempotent
}

TEST_F(WorkQueueTest, ShutDownLetsProcessingFinishWithoutRequeue) {
  WorkQueue q(Options());
  q.Add(R("a"));
  q.Add(R("b"));
  q.AddAfter(R("c"), seconds(1));
  auto got = q.TryGet();
  ASSERT_TRUE(got.has_value());
  q.Add(*got);  // would be queued again at Done
  q.ShutDown();
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_EQ(q.Waiting(), 0u);
  EXPECT_FALSE(q.Idle());
  q.Done(*got);
  EXPECT_TRUE(q.Idle());
  EXPECT_TRUE(q.WaitIdle(Duration(0)));
  EXPECT_EQ(q.Len(), 0u);
}

}  // namespace
}  // namespace hop::op
