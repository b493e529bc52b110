// Trino checks SELECT on the columns a row filter reads as the identity the filter runs as, the
// reader by default. Observed on a real Trino 483: a reader whose filter reads a column they are
// refused (a deny, or a column tag they are not cleared for) got "Cannot select from table" for
// every read of the object, where MODEL §2 takes only the column. Their filter now runs as the
// object's owner (filter_environment), who is checked by the same rules.

#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "helpers.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/trino/rules.h"

using namespace twtest;

namespace {

std::string snapshot(const std::string& owner_line) {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: etl_svc}
  - {name: eu, attributes: {region: EU}}
  - {name: cleared_eu, attributes: {region: EU}}
  - {name: hidden, attributes: {region: EU}}
roles: [stewards]
role_assignments:
  - {role: stewards, user: etl_svc}
  - {role: stewards, user: cleared_eu}
classifications:
  - {name: Geo, clearance: [{type: role, name: stewards}]}
objects:
  - {name: c.s.t, kind: table, )" +
         owner_line +
         R"( columns: [{name: id, type: bigint}, {name: region, type: varchar, tags: [Geo]}, {name: note, type: varchar}]}
grants:
  - {principal: {user: etl_svc}, object: "c.s.t", privileges: [SELECT]}
  - {principal: {user: eu}, object: "c.s.t", privileges: [SELECT]}
  - {principal: {user: cleared_eu}, object: "c.s.t", privileges: [SELECT]}
  - {principal: {user: hidden}, object: "c.s.t", privileges: [SELECT]}
policies:
  - name: own_region
    type: row_filter
    scope: {object: c.s.t}
    applies_to: {users: [eu, cleared_eu, hidden]}
    condition: {column: region, op: eq, value: {$user: attributes.region}}
  - name: no_note
    type: deny
    scope: {column: c.s.t.note}
    applies_to: {users: [hidden]}
  - name: by_note
    type: row_filter
    scope: {object: c.s.t}
    applies_to: {users: [hidden]}
    condition: {column: note, op: is_not_null}
)";
}

// The table rule of `user` in the rendered rules.json.
nlohmann::json rule_of(const std::string& rules_json, const std::string& user) {
  const auto doc = nlohmann::json::parse(rules_json);
  for (const auto& r : doc["tables"]) {
    if (r.contains("table") && r.contains("user") && r["user"].get<std::string>() == "^(?:" + user + ")$") return r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a row filter reading a refused column runs as the object's owner on Trino", "[compiler][policies]") {
  auto m = model_of(snapshot("owner: etl_svc,"));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const tw::ObjectPolicy& op = object(ps, "c.s.t");
  const auto owner = user_index(*m, "etl_svc");

  // Not cleared for Geo: region is refused, and the filter reads region.
  const auto* eu = find_access(op, user_index(*m, "eu"));
  REQUIRE(eu != nullptr);
  CHECK(eu->access.denied_columns == std::vector<std::string>{"region"});
  REQUIRE(eu->access.filter_as.has_value());
  CHECK(*eu->access.filter_as == owner);
  // Cleared: the filter reads a column the reader may read, and runs as the reader.
  const auto* cleared = find_access(op, user_index(*m, "cleared_eu"));
  REQUIRE(cleared != nullptr);
  CHECK_FALSE(cleared->access.row_filter.empty());
  CHECK_FALSE(cleared->access.filter_as.has_value());
  // A deny of note and a filter on note (ANDed with the region filter).
  const auto* hidden = find_access(op, user_index(*m, "hidden"));
  REQUIRE(hidden != nullptr);
  CHECK(hidden->access.filter_as == std::optional<std::size_t>(owner));

  const auto r = tw::render_artifact(ps);
  REQUIRE(r.artifact.has_value());
  const auto rule = rule_of(*r.artifact->bytes, "eu");
  REQUIRE(rule.is_object());
  CHECK(rule["filter_environment"] == nlohmann::json{{"user", "etl_svc"}});
  const auto cleared_rule = rule_of(*r.artifact->bytes, "cleared_eu");
  REQUIRE(cleared_rule.is_object());
  CHECK_FALSE(cleared_rule.contains("filter_environment"));

  // explain says whose identity Trino checks the filter's columns as.
  const tw::Explanation e = tw::explain_user(*m, {ps}, "eu", {{tw::Engine::Trino, tw::trino::enforced_expressions}});
  REQUIRE(e.profiles.size() == 1);
  REQUIRE(e.profiles[0].policies.size() == 1);
  CHECK(e.profiles[0].policies[0].expressions["trino_filter_runs_as"] == "etl_svc");
}

TEST_CASE("without an owner, a row filter reading a refused column keeps the reader's identity",
          "[compiler][policies]") {
  auto m = model_of(snapshot(""));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const auto* eu = find_access(object(ps, "c.s.t"), user_index(*m, "eu"));
  REQUIRE(eu != nullptr);
  CHECK_FALSE(eu->access.filter_as.has_value());
}

namespace {

std::size_t refusals_of_kind(const tw::Explanation& e, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& p : e.profiles)
    for (const auto& r : p.refusals) n += r.kind == kind && r.whole_object;
  return n;
}

const tw::Finding* finding(const tw::ProfileCompile& pc, const std::string& code) {
  for (const auto& f : pc.findings)
    if (f.code == code) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("a row filter nobody may run in the reader's place is reported: Trino refuses the whole object",
          "[compiler][policies][findings]") {
  // No owner; an owner refused the filtered column too; an owner who may read it.
  struct Case {
    std::string owner_line;
    bool refused;
  };
  for (const Case& c : {Case{"", true}, Case{"owner: hidden,", true}, Case{"owner: etl_svc,", false}}) {
    INFO("owner line: " << c.owner_line);
    auto m = model_of(snapshot(c.owner_line));
    const tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"c"}));
    REQUIRE(pc.policy_set.has_value());
    const tw::Finding* f = finding(pc, "trino_row_filter_refuses_object");
    CHECK((f != nullptr) == c.refused);
    if (f) {
      CHECK(f->severity == tw::Severity::Warning);
      CHECK(f->subjects == std::vector<std::string>{"eu", "hidden"});
      CHECK_THAT(f->message, Catch::Contains("every query of c.s.t (2 users)"));
    }
    const auto explained = [&](const std::string& user) {
      return tw::explain_user(*m, {*pc.policy_set}, user, {{tw::Engine::Trino, tw::trino::enforced_expressions}});
    };
    CHECK(refusals_of_kind(explained("eu"), "row_filter") == (c.refused ? 1u : 0u));
    CHECK(refusals_of_kind(explained("cleared_eu"), "row_filter") == 0);  // reads region: runs as the reader
    // MODEL's decision is unchanged: only the column is refused, the filter applies.
    const auto* eu = find_access(object(*pc.policy_set, "c.s.t"), user_index(*m, "eu"));
    REQUIRE(eu != nullptr);
    CHECK(eu->access.denied_columns == std::vector<std::string>{"region"});
    CHECK_FALSE(eu->access.row_filter.empty());
  }
  // StarRocks evaluates row access policies itself: nothing to report there.
  auto m = model_of(snapshot(""));
  tw::Profile sr = trino_profile({"c"});
  sr.engine = tw::Engine::StarRocks;
  const tw::ProfileCompile pc = tw::compile_profile(*m, sr);
  REQUIRE(pc.policy_set.has_value());
  CHECK(finding(pc, "trino_row_filter_refuses_object") == nullptr);
}
