// Opt-in: the applier against a real StarRocks FE. Set TAGWARDEN_STARROCKS_DSN
// (e.g. mysql://root@127.0.0.1:9030, password in TAGWARDEN_STARROCKS_PASSWORD)
// to run it; otherwise it prints a SKIP line. It creates and drops its own
// database (twlive_db), users (twlive_*) and the roles of profile twlive.

#include <cstdlib>
#include <iostream>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/starrocks/apply.h"
#include "tagwarden/engines/starrocks/live_state.h"
#include "tagwarden/engines/starrocks/server.h"
#include "tagwarden/engines/starrocks/sql.h"

using namespace srtest;
namespace sr = tw::starrocks;

TEST_CASE("starrocks live server: apply, read back, idempotence, drift", "[starrocks-live]") {
  const char* dsn = std::getenv("TAGWARDEN_STARROCKS_DSN");
  if (!dsn || !*dsn) {
    std::cout << "SKIP starrocks-live: TAGWARDEN_STARROCKS_DSN is not set\n";
    SUCCEED("skipped");
    return;
  }
  sr::OpenResult opened = sr::open_server(dsn, std::nullopt, sr::Dialect::StarRocks, "twlive");
  INFO(opened.error);
  REQUIRE(opened.session.has_value());
  sr::Connection& c = *opened.session->connection;
  std::cout << "starrocks-live: " << opened.session->probe.version << ", masking policies "
            << (opened.session->probe.capabilities.masking_policies ? "on" : "off") << "\n";

  auto cleanup = [&] {
    const std::string prefix = sr::owner_prefix("twlive");
    for (const auto& r : c.query("SHOW ROLES").rows) {
      if (r[0] && r[0]->rfind(prefix, 0) == 0) c.execute("DROP ROLE " + sr::sql::ident(*r[0]));
    }
    c.execute("DROP DATABASE IF EXISTS twlive_db FORCE");
    for (const char* u : {"twlive_cleared", "twlive_reader"})
      c.execute("DROP USER IF EXISTS " + sr::sql::user_identity(u));
  };
  cleanup();
  c.execute("CREATE DATABASE twlive_db");
  c.execute(
      "CREATE TABLE twlive_db.secret_t (id BIGINT, pii VARCHAR(64)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) "
      "BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")");
  c.execute(
      "CREATE TABLE twlive_db.open_t (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 "
      "PROPERTIES (\"replication_num\" = \"1\")");
  for (const char* u : {"twlive_cleared", "twlive_reader"}) c.execute("CREATE USER " + sr::sql::user_identity(u));

  auto m = model_from_text(R"json({
    "version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "twlive_cleared"}, {"name": "twlive_reader"}],
    "roles": ["reader", "pii"],
    "role_assignments": [{"role": "reader", "user": "twlive_cleared"}, {"role": "reader", "user": "twlive_reader"},
                         {"role": "pii", "user": "twlive_cleared"}],
    "classifications": [{"name": "PII", "clearance": [{"type": "role", "name": "pii"}]}],
    "objects": [
      {"name": "live.twlive_db.secret_t", "columns": [{"name": "id", "type": "bigint"},
                                                    {"name": "pii", "type": "varchar(64)", "tags": ["PII"]}]},
      {"name": "live.twlive_db.open_t", "columns": [{"name": "id", "type": "bigint"}]}],
    "grants": [{"principal": {"role": "reader"}, "object": "live.*.*", "privileges": ["SELECT"]}]
  })json");
  tw::Profile p;
  p.name = "twlive";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"live"};
  p.catalog_map = {{"live", "default_catalog"}};
  const sr::Plan plan = plan_ok(compile_ok(*m, p), {sr::Dialect::StarRocks, opened.session->probe.capabilities});

  sr::ApplyResult first = sr::apply_plan(plan, c);
  for (const auto& e : first.errors) std::cout << "starrocks-live error: " << e << "\n";
  CHECK(first.ok);
  sr::LiveRead live = sr::read_live_state(c, plan);
  CHECK(live.state.owned.roles == plan.desired.roles);
  CHECK(sr::apply_plan(plan, c).statements == 0);

  c.execute("GRANT SELECT ON TABLE twlive_db.secret_t TO USER 'twlive_reader'@'%'");
  sr::ApplyOptions dry;
  dry.dry_run = true;
  sr::ApplyResult d = sr::apply_plan(plan, c, dry);
  bool drift = false;
  for (const auto& f : d.findings) drift = drift || f.code == "starrocks_drift";
  CHECK(drift);
  cleanup();
}
