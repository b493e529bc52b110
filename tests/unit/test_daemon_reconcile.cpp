// The daemon's reconcile loop when a pass throws (out of memory, most likely, on a
// snapshot much larger than the last): the pass reports failure, the last good
// artifacts stay served at their version, the failure is counted, and the next
// pass recovers without a restart.

#include <unistd.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <new>
#include <thread>

#include "daemon/daemon.h"
#include "helpers.h"
#include "scripted_source.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/document.h"

namespace {

using tw_test::reconcile;
using tw_test::ScriptedSource;

const char* kSnapshot = R"({
  "version": 1, "generated_at": "2026-11-30T12:00:00Z",
  "users": [{"name": "ana"}, {"name": "bo"}],
  "roles": ["analyst", "steward"],
  "role_assignments": [{"role": "analyst", "user": "ana"}, {"role": "analyst", "user": "bo"},
                       {"role": "steward", "user": "ana"}],
  "classifications": [{"name": "PII", "clearance": [{"type": "role", "name": "steward"}]}],
  "objects": [{"name": "lake.sales.orders", "kind": "table",
               "columns": [{"name": "id", "type": "bigint"}, {"name": "email", "type": "varchar", "tags": [%TAGS%]}]}],
  "grants": [{"principal": {"role": "analyst"}, "object": "lake.sales.*", "privileges": ["SELECT"]}],
  "policies": []
})";

std::string snapshot_with(const std::string& tags) {
  std::string s = kSnapshot;
  s.replace(s.find("%TAGS%"), 6, tags);
  return s;
}

}  // namespace

TEST_CASE("a reconcile pass that throws keeps the last good artifacts served and the next pass recovers") {
  const auto state_dir = std::filesystem::temp_directory_path() / ("tw-reconcile-" + std::to_string(::getpid()));
  std::filesystem::remove_all(state_dir);
  tw::Config config;
  config.profiles.push_back(twtest::trino_profile({"lake"}, "trino_main"));
  config.daemon.state_dir = state_dir.string();
  config.daemon.reconcile_interval_s = 3600;
  auto source = std::make_shared<ScriptedSource>();
  source->set(snapshot_with(""));
  tw::Daemon daemon(config, "", source);
  daemon.restore_state();
  std::thread loop([&] { daemon.run(); });

  const tw::ReconcileOutcome first = reconcile(daemon);
  CHECK(first.ok());
  auto served = daemon.published("trino_main");
  REQUIRE(served);
  const std::string good_sha = served->artifact.sha256;
  const auto good_version = served->version;

  source->set(snapshot_with("\"PII\""));
  source->fail(true);
  const tw::ReconcileOutcome failed = reconcile(daemon);
  CHECK_FALSE(failed.ok());
  CHECK(failed.source == "failed");
  CHECK_THAT(failed.source_error,
             Catch::Contains("reconcile failed") && Catch::Contains("the last good artifacts stay served"));
  served = daemon.published("trino_main");
  REQUIRE(served);
  CHECK(served->artifact.sha256 == good_sha);
  CHECK(served->version == good_version);
  CHECK_THAT(daemon.metrics(), Catch::Contains("tagwarden_reconcile_failures_total 1"));
  CHECK(daemon.ready());

  source->fail(false);
  const tw::ReconcileOutcome recovered = reconcile(daemon);
  CHECK(recovered.ok());
  served = daemon.published("trino_main");
  REQUIRE(served);
  CHECK(served->artifact.sha256 != good_sha);  // the PII gate on email is now in force
  CHECK(served->version == good_version + 1);
  CHECK_THAT(*served->artifact.bytes, Catch::Contains("email"));

  daemon.stop();
  loop.join();
  std::filesystem::remove_all(state_dir);
}

namespace {

const char* kExpiring = R"({
  "version": 1, "generated_at": "2026-11-30T12:00:00Z",
  "users": [{"name": "farid"}],
  "roles": ["steward"],
  "role_assignments": [{"role": "steward", "user": "farid", "expires_at": "2026-11-30T12:10:00Z"}],
  "classifications": [{"name": "Confidential", "clearance": [{"type": "role", "name": "steward"}]}],
  "objects": [{"name": "lake.fin.invoices", "kind": "table", "tags": ["Confidential"],
               "columns": [{"name": "id", "type": "bigint"}]}],
  "grants": [{"principal": {"user": "farid"}, "object": "lake.fin.*", "privileges": ["SELECT"]}],
  "policies": []
})";

void set_clock(const std::filesystem::path& file, const std::string& at) { std::ofstream(file) << at << "\n"; }

// A fresh directory with a test clock at 12:05 (the expiring assignment ends at 12:10) and a
// config whose Trino profile trino_main covers `lake`, keeps its state there and recompiles hourly.
struct ClockedDir {
  std::filesystem::path dir, clock;
  explicit ClockedDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))), clock(dir / "clock") {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    set_clock(clock, "2026-11-30T12:05:00Z");
    ::setenv("TAGWARDEN_TEST_CLOCK_FILE", clock.c_str(), 1);
  }
  tw::Config config() const {
    tw::Config c;
    c.profiles.push_back(twtest::trino_profile({"lake"}, "trino_main"));
    c.daemon.state_dir = (dir / "state").string();
    c.daemon.reconcile_interval_s = 3600;
    return c;
  }
};

}  // namespace

TEST_CASE("after a restart with no valid snapshot, an artifact is withdrawn once a role expiry it saw passes") {
  const ClockedDir fixture("tw-expiry");
  const auto& dir = fixture.dir;
  const auto& clock = fixture.clock;
  tw::Config config = fixture.config();
  config.profiles[0].rules_file = (dir / "rules.json").string();
  const std::string deny_all = tw::trino::deny_all_rules().text;

  std::string cleared_sha;
  {  // farid is cleared until 12:10; the artifact is stored with that expiry
    auto source = std::make_shared<ScriptedSource>();
    source->set(kExpiring);
    tw::Daemon daemon(config, "", source);
    daemon.restore_state();
    std::thread loop([&] { daemon.run(); });
    CHECK(reconcile(daemon).ok());
    REQUIRE(daemon.published("trino_main"));
    cleared_sha = daemon.published("trino_main")->artifact.sha256;
    daemon.stop();
    loop.join();
  }
  {  // restarted while the source serves an invalid snapshot: the stored artifact is served until 12:10
    auto source = std::make_shared<ScriptedSource>();
    source->set("{\"version\": 1, \"users\": [");
    tw::Daemon daemon(config, "", source);
    daemon.restore_state();
    std::thread loop([&] { daemon.run(); });
    const tw::ReconcileOutcome refused = reconcile(daemon);
    CHECK_FALSE(refused.ok());
    CHECK_FALSE(refused.snapshot_errors.empty());
    REQUIRE(daemon.published("trino_main"));
    CHECK(daemon.published("trino_main")->artifact.sha256 == cleared_sha);
    // The same refused content again: still not a success for whoever waits on the pass.
    CHECK_FALSE(reconcile(daemon).ok());

    set_clock(clock, "2026-11-30T12:10:00Z");
    for (int i = 0; i < 100 && daemon.published("trino_main"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(daemon.published("trino_main") == nullptr);  // deny-all is served instead
    CHECK_FALSE(daemon.ready());
    CHECK(tw::read_file((dir / "rules.json").string()) == deny_all);
    CHECK_THAT(daemon.metrics(), Catch::Contains("tagwarden_artifacts_withdrawn_total{profile=\"trino_main\"} 1"));
    daemon.stop();
    loop.join();
  }
  {  // restarted again after the expiry: the stored artifact is never served
    std::filesystem::remove(dir / "rules.json");
    auto source = std::make_shared<ScriptedSource>();
    source->set("not json");
    tw::Daemon daemon(config, "", source);
    daemon.restore_state();
    CHECK(daemon.published("trino_main") == nullptr);
    CHECK(tw::read_file((dir / "rules.json").string()) == deny_all);
  }
  ::unsetenv("TAGWARDEN_TEST_CLOCK_FILE");
  std::filesystem::remove_all(dir);
}

namespace {

// kExpiring with a user whose engine name collides with farid's (no profile can compile), and
// farid's assignment extended to 13:00: the model's next expiry is later than the artifact's.
std::string colliding(const std::string& snapshot) {
  std::string s = snapshot;
  const std::string users = R"("users": [{"name": "farid"}])";
  s.replace(s.find(users), users.size(),
            R"("users": [{"name": "farid"}, {"name": "collider", "engine_user": "farid"}])");
  const std::string expiry = R"("expires_at": "2026-11-30T12:10:00Z")";
  s.replace(s.find(expiry), expiry.size(), R"("expires_at": "2026-11-30T13:00:00Z")");
  return s;
}

}  // namespace

TEST_CASE("a profile that cannot compile is withdrawn once the role expiry its last good artifact saw passes") {
  const ClockedDir fixture("tw-failing-expiry");
  const auto& dir = fixture.dir;
  const auto& clock = fixture.clock;
  tw::Config config = fixture.config();
  config.profiles[0].rules_file = (dir / "rules.json").string();
  tw::Profile sr;
  sr.name = "sr_main";
  sr.engine = tw::Engine::StarRocks;
  sr.catalogs = {"lake"};
  config.profiles.push_back(sr);
  const std::string deny_all = tw::trino::deny_all_rules().text;

  auto source = std::make_shared<ScriptedSource>();
  source->set(kExpiring);
  tw::Daemon daemon(config, "", source);
  daemon.restore_state();
  std::thread loop([&] { daemon.run(); });
  CHECK(reconcile(daemon).ok());
  REQUIRE(daemon.published("trino_main"));
  REQUIRE(daemon.published("sr_main"));
  CHECK_THAT(tw::read_file((dir / "rules.json").string()), Catch::Contains("farid"));

  source->set(colliding(kExpiring));
  const tw::ReconcileOutcome failed = reconcile(daemon);
  CHECK_FALSE(failed.ok());
  for (const auto& p : failed.profiles) CHECK(p.value("status", "") == "failed");
  // Both last good artifacts stay served until 12:10 (what they were compiled with is no longer
  // known to hold), and the timer is set for it, not for the proposed 13:00.
  REQUIRE(daemon.published("trino_main"));
  REQUIRE(daemon.published("sr_main"));
  CHECK(daemon.status()["next_expiry"] == "2026-11-30T12:10:00Z");

  set_clock(clock, "2026-11-30T12:10:00Z");
  for (int i = 0; i < 100 && (daemon.published("trino_main") || daemon.published("sr_main")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(daemon.published("trino_main") == nullptr);  // deny-all is served instead
  CHECK(daemon.published("sr_main") == nullptr);
  CHECK_FALSE(daemon.ready());
  CHECK(tw::read_file((dir / "rules.json").string()) == deny_all);
  const std::string metrics = daemon.metrics();
  CHECK_THAT(metrics, Catch::Contains("tagwarden_artifacts_withdrawn_total{profile=\"trino_main\"} 1"));
  CHECK_THAT(metrics, Catch::Contains("tagwarden_artifacts_withdrawn_total{profile=\"sr_main\"} 1"));
  // Nothing served has a valid_until now; the snapshot's next expiry still schedules a pass.
  CHECK(daemon.status()["next_expiry"] == "2026-11-30T13:00:00Z");

  // The snapshot is fixed: the profiles compile again, without the expired assignment.
  source->set(kExpiring);
  CHECK(reconcile(daemon).ok());
  REQUIRE(daemon.published("trino_main"));
  CHECK(daemon.ready());
  CHECK(tw::read_file((dir / "rules.json").string()) == *daemon.published("trino_main")->artifact.bytes);

  daemon.stop();
  loop.join();
  ::unsetenv("TAGWARDEN_TEST_CLOCK_FILE");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a reconcile pass that throws still withdraws an artifact past its valid_until") {
  const ClockedDir fixture("tw-throwing-expiry");
  const auto& dir = fixture.dir;
  const auto& clock = fixture.clock;
  tw::Config config = fixture.config();
  auto source = std::make_shared<ScriptedSource>();
  source->set(kExpiring);
  tw::Daemon daemon(config, "", source);
  daemon.restore_state();
  std::thread loop([&] { daemon.run(); });
  CHECK(reconcile(daemon).ok());
  REQUIRE(daemon.published("trino_main"));

  source->fail(true);
  set_clock(clock, "2026-11-30T12:10:00Z");
  const tw::ReconcileOutcome failed = reconcile(daemon);
  CHECK(failed.source == "failed");
  CHECK(daemon.published("trino_main") == nullptr);
  CHECK_THAT(daemon.metrics(), Catch::Contains("tagwarden_artifacts_withdrawn_total{profile=\"trino_main\"} 1"));

  source->fail(false);
  daemon.stop();
  loop.join();
  ::unsetenv("TAGWARDEN_TEST_CLOCK_FILE");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a StarRocks server that cannot be reached when its profile is withdrawn is retried after every pass") {
  const ClockedDir fixture("tw-sr-withdrawal");
  const auto& clock = fixture.clock;
  tw::Config config = fixture.config();
  config.profiles.clear();
  tw::Profile sr;
  sr.name = "sr_main";
  sr.engine = tw::Engine::StarRocks;
  sr.catalogs = {"lake"};
  sr.dsn = "mysql://applier@127.0.0.1:1?retries=0";  // nothing listens on port 1
  sr.dialect = "mysql";
  sr.masking = "off";
  config.profiles.push_back(sr);
  ::setenv("TAGWARDEN_STARROCKS_PASSWORD", "unused", 1);

  auto source = std::make_shared<ScriptedSource>();
  source->set(kExpiring);
  tw::Daemon daemon(config, "", source);
  daemon.restore_state();
  std::thread loop([&] { daemon.run(); });
  // The artifact is published (and valid until 12:10) before the apply, which fails.
  CHECK_FALSE(reconcile(daemon).ok());
  REQUIRE(daemon.published("sr_main"));
  CHECK_FALSE(daemon.status()["profiles"][0].contains("server_withdrawal"));

  source->set(colliding(kExpiring));
  set_clock(clock, "2026-11-30T12:10:00Z");
  CHECK_FALSE(reconcile(daemon).ok());
  CHECK(daemon.published("sr_main") == nullptr);
  const nlohmann::json w = daemon.status()["profiles"][0]["server_withdrawal"];
  CHECK(w["pending"] == true);
  CHECK(w["withdrawn_at"].is_null());
  CHECK_THAT(w["error"].get<std::string>(), Catch::Contains("127.0.0.1"));
  CHECK_THAT(daemon.metrics(), Catch::Contains("tagwarden_server_withdrawal_failures_total{profile=\"sr_main\"} 1"));
  // Every later pass tries again while the profile still cannot compile.
  CHECK_FALSE(reconcile(daemon).ok());
  CHECK_THAT(daemon.metrics(), Catch::Contains("tagwarden_server_withdrawal_failures_total{profile=\"sr_main\"} 2"));
  CHECK(daemon.status()["profiles"][0]["server_withdrawal"]["pending"] == true);

  daemon.stop();
  loop.join();
  ::unsetenv("TAGWARDEN_STARROCKS_PASSWORD");
  ::unsetenv("TAGWARDEN_TEST_CLOCK_FILE");
  std::filesystem::remove_all(fixture.dir);
}
