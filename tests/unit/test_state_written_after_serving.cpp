// The daemon stores an artifact's digest before serving it and its bytes after: a restart
// that finds the bytes behind the digest (a crash in between, or a failed write) serves
// deny-all until its first good compile, never the older artifact; and a failed write is
// retried by the next pass even when the artifact did not change.

#include <unistd.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "daemon/daemon.h"
#include "helpers.h"
#include "scripted_source.h"
#include "tagwarden/publish/state_store.h"

namespace {

using tw_test::reconcile;
using tw_test::ScriptedSource;

const char* kSnapshot = R"({
  "version": 1, "generated_at": "2026-11-30T12:00:00Z",
  "users": [{"name": "ana"}, {"name": "bo"}],
  "roles": ["analyst", "steward"],
  "role_assignments": [{"role": "analyst", "user": "ana"}, {"role": "analyst", "user": "bo"}%MORE%],
  "classifications": [{"name": "PII", "clearance": [{"type": "role", "name": "steward"}]}],
  "objects": [{"name": "lake.sales.orders", "kind": "table",
               "columns": [{"name": "id", "type": "bigint"}, {"name": "email", "type": "varchar", "tags": ["PII"]}]}],
  "grants": [{"principal": {"role": "analyst"}, "object": "lake.sales.*", "privileges": ["SELECT"]}],
  "policies": []
})";

std::string snapshot(bool ana_cleared) {
  std::string s = kSnapshot;
  s.replace(s.find("%MORE%"), 6, ana_cleared ? R"(, {"role": "steward", "user": "ana"})" : "");
  return s;
}

long counter(const std::string& metrics, const std::string& series) {
  const auto at = metrics.find(series + " ");
  return at == std::string::npos ? 0 : std::stol(metrics.substr(at + series.size() + 1));
}

// A daemon on `state_dir` whose source can never compile: what it serves is what it restored.
std::shared_ptr<const tw::PublishedArtifact> restored(const tw::Config& config) {
  tw::Daemon daemon(config, "", std::make_shared<ScriptedSource>("{\"version\": 1, \"users\": ["));
  daemon.restore_state();
  return daemon.published("trino_main");
}

struct StateDir {
  std::filesystem::path dir;
  explicit StateDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
  }
  ~StateDir() { std::filesystem::remove_all(dir); }
  tw::Config config() const {
    tw::Config c;
    c.profiles.push_back(twtest::trino_profile({"lake"}, "trino_main"));
    c.daemon.state_dir = dir.string();
    c.daemon.reconcile_interval_s = 3600;
    return c;
  }
  std::filesystem::path profile() const { return dir / "profiles" / "trino_main"; }
};

}  // namespace

TEST_CASE("a restart that finds older bytes under the served digest serves deny-all, not the older artifact") {
  const StateDir state("tw-state-order");
  const tw::Config config = state.config();
  std::string older_bytes;
  {
    auto source = std::make_shared<ScriptedSource>(snapshot(true));
    tw::Daemon daemon(config, "", source);
    daemon.restore_state();
    std::thread loop([&] { daemon.run(); });
    REQUIRE(reconcile(daemon).ok());
    older_bytes = *daemon.published("trino_main")->artifact.bytes;
    daemon.stop();
    loop.join();
  }
  REQUIRE(restored(config));
  CHECK(*restored(config)->artifact.bytes == older_bytes);

  // What a crash between the two writes leaves: the next version's metadata over the older bytes
  // (ana's clearance revoked, the older artifact still shows her email).
  const tw::StateStore store(config.daemon.state_dir);
  auto stored = store.load("trino_main");
  REQUIRE(stored);
  stored->version += 1;
  stored->artifact.sha256 = tw::sha256_hex("the revoking version");
  store.save_meta("trino_main", *stored);

  std::string problem;
  CHECK_FALSE(store.load("trino_main", &problem));
  CHECK_THAT(problem, Catch::Contains("does not match its digest"));
  CHECK_FALSE(restored(config));  // deny-all until the first good compile
}

TEST_CASE("the artifact is served before its bytes are stored, and a failed store is retried by the next pass") {
  const StateDir state("tw-state-retry");
  const tw::Config config = state.config();
  auto source = std::make_shared<ScriptedSource>(snapshot(false));
  tw::Daemon daemon(config, "", source);
  daemon.restore_state();
  std::thread loop([&] { daemon.run(); });

  // The artifact's file name is taken by a directory: storing the bytes fails, serving does not.
  std::filesystem::create_directories(state.profile() / "rules.json" / "in-the-way");
  const tw::ReconcileOutcome first = reconcile(daemon);
  CHECK(first.ok());
  const auto served = daemon.published("trino_main");
  REQUIRE(served);
  CHECK(served->version == 1);
  // run() may have taken its first periodic pass before the requested one: each failed to store.
  CHECK(counter(daemon.metrics(), "tagwarden_state_write_failures_total{profile=\"trino_main\"}") >= 1);
  CHECK_FALSE(restored(config));  // a restart now would serve deny-all
  std::string problem;
  CHECK_FALSE(tw::StateStore(config.daemon.state_dir).load("trino_main", &problem));
  CHECK_THAT(problem, Catch::Contains("is a directory"));

  // Nothing changed, but the state is behind: the next pass stores the bytes.
  std::filesystem::remove_all(state.profile() / "rules.json");
  source->reset();
  CHECK(reconcile(daemon).ok());
  CHECK(daemon.published("trino_main")->version == 1);
  const auto back = restored(config);
  REQUIRE(back);
  CHECK(back->artifact.sha256 == served->artifact.sha256);
  CHECK(*back->artifact.bytes == *served->artifact.bytes);

  daemon.stop();
  loop.join();
}
