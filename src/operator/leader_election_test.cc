#include "operator/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "operator/reconciler_test_fixture.h"

namespace hop::op {
namespace {

using namespace std::chrono_literals;

const store::GroupKind kLease{"coordination.k8s.io", "Lease"};

class LeaderElectionTest : public ReconcilerStoreTest {
 protected:
  LeaderElectionOptions Options(const std::string& identity) {
    LeaderElectionOptions o;
    o.identity = identity;
    o.lease_duration = 1s;  // the Lease's unit is whole seconds
    o.renew_deadline = 600ms;
    o.retry_period = 100ms;
    return o;
  }
  resource::Resource Lease() { return *store_->Get({kLease, "default", "hop-operator"}); }
  std::string Spec(const char* key) {
    const resource::Resource lease = Lease();
    const Json* spec = lease.spec();
    return spec->contains(key) ? (*spec)[key].dump() : "";
  }
};

TEST_F(LeaderElectionTest, TheFirstCandidateTakesTheLeaseAndTheSecondStandsBy) {
  LeaderElector a(*store_, Options("a"));
  LeaderElector b(*store_, Options("b"));
  ASSERT_EQ(a.TryAcquireOrRenew().value(), true);
  EXPECT_EQ(b.TryAcquireOrRenew().value(), false);
  EXPECT_EQ(b.Holder(), "a");
  EXPECT_EQ(Spec("holderIdentity"), "\"a\"");
  EXPECT_EQ(Spec("leaseDurationSeconds"), "1");
  EXPECT_EQ(Spec("leaseTransitions"), "0");
  // Renewing keeps the holder and moves renewTime.
  const std::string renewed = Spec("renewTime");
  std::this_thread::sleep_for(5ms);
  ASSERT_EQ(a.TryAcquireOrRenew().value(), true);
  EXPECT_NE(Spec("renewTime"), renewed);
  EXPECT_EQ(Spec("leaseTransitions"), "0");
}

TEST_F(LeaderElectionTest, AStandByTakesOverOnlyAfterTheHolderStoppedRenewingForTheDuration) {
  LeaderElector a(*store_, Options("a"));
  LeaderElector b(*store_, Options("b"));
  ASSERT_EQ(a.TryAcquireOrRenew().value(), true);
  ASSERT_EQ(b.TryAcquireOrRenew().value(), false);
  // While a renews, b never gets it.
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(300ms);
    ASSERT_EQ(a.TryAcquireOrRenew().value(), true);
    ASSERT_EQ(b.TryAcquireOrRenew().value(), false) << "round " << i;
  }
  // a stops renewing: b takes over once a whole duration passed since it last saw a change.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(b.TryAcquireOrRenew().value(), false);
  std::this_thread::sleep_for(600ms);
  EXPECT_EQ(b.TryAcquireOrRenew().value(), true);
  EXPECT_EQ(Spec("holderIdentity"), "\"b\"");
  EXPECT_EQ(Spec("leaseTransitions"), "1");
  // a, back, finds b holding it.
  EXPECT_EQ(a.TryAcquireOrRenew().value(), false);
  EXPECT_EQ(a.Holder(), "b");
}

TEST_F(LeaderElectionTest, ReleasingLetsAStandByTakeOverAtOnce) {
  LeaderElector a(*store_, Options("a"));
  LeaderElector b(*store_, Options("b"));
  ASSERT_EQ(a.TryAcquireOrRenew().value(), true);
  ASSERT_EQ(b.TryAcquireOrRenew().value(), false);
  ASSERT_TRUE(a.Release().ok());
  EXPECT_EQ(Spec("holderIdentity"), "\"\"");
  EXPECT_EQ(b.TryAcquireOrRenew().value(), true);
  // Releasing what it does not hold changes nothing.
  ASSERT_TRUE(a.Release().ok());
  EXPECT_EQ(Spec("holderIdentity"), "\"b\"");
}

TEST_F(LeaderElectionTest, CandidatesRacingNeverBothHoldIt) {
  LeaderElector a(*store_, Options("a"));
  LeaderElector b(*store_, Options("b"));
  for (int round = 0; round < 40; ++round) {
    std::atomic<int> held{0};
    std::thread ta([&] {
      auto r = a.TryAcquireOrRenew();
      held += r.ok() && *r ? 1 : 0;
    });
    std::thread tb([&] {
      auto r = b.TryAcquireOrRenew();
      held += r.ok() && *r ? 1 : 0;
    });
    ta.join();
    tb.join();
    ASSERT_LE(held.load(), 1) << "round " << round;
    // Whoever holds it lets it go, so that every round is a fresh race.
    ASSERT_TRUE(a.Release().ok());
    ASSERT_TRUE(b.Release().ok());
  }
}

}  // namespace
}  // namespace hop::op
