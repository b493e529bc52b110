// Seed 000: the simulator shows which policies apply to a member "and why". explain said only
// "applies through column c.s.t.a" or "is exempt", so an author whose exemption did not take
// (the role expired, or is held through a group, which exempt does not count) could not tell why
// from explain. Each reason now names how the user holds (or does not hold) the roles of
// applies_to and exempt (traceability audit).

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/explain.h"

using namespace twtest;

namespace {

const char* kSnapshot = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: ana}
  - {name: bo}
  - {name: cy, groups: [g1, gs]}
  - {name: di}
roles: [analyst, steward]
role_assignments:
  - {role: analyst, user: ana}
  - {role: steward, user: ana, expires_at: "2026-11-30T12:00:00Z"}
  - {role: analyst, user: bo}
  - {role: steward, user: bo}
  - {role: analyst, group: g1}
  - {role: steward, group: gs}
  - {role: analyst, user: di, expires_at: "2026-11-01T00:00:00Z"}
objects:
  - {name: c.s.t, owner: bo, columns: [{name: a}]}
grants:
  - {principal: {user: ana}, object: c.s.t, privileges: [SELECT]}
  - {principal: {user: bo}, object: c.s.t, privileges: [SELECT]}
  - {principal: {user: cy}, object: c.s.t, privileges: [SELECT]}
  - {principal: {user: di}, object: c.s.t, privileges: [SELECT]}
policies:
  - {name: m, type: column_mask, mask: full, scope: {column: c.s.t.a}, applies_to: {roles: [analyst]},
     exempt: {roles: [steward]}}
)yaml";

std::string reason_for(const std::string& user) {
  const auto m = model_of(kSnapshot);
  const tw::Explanation e = tw::explain_user(*m, {must_compile(*m, trino_profile({"c"}))}, user);
  REQUIRE(e.profiles.size() == 1);
  REQUIRE(e.profiles[0].policies.size() == 1);
  REQUIRE(e.profiles[0].policies[0].considered.size() == 1);
  return e.profiles[0].policies[0].considered[0].reason;
}

}  // namespace

TEST_CASE("explain says why an exemption did not take: an expired or group-held role", "[explain][policies]") {
  CHECK(reason_for("ana") ==
        "applies through column c.s.t.a to ana (role analyst: held directly); "
        "not exempt (role steward: expired at 2026-11-30T12:00:00Z)");
  CHECK(reason_for("cy") ==
        "applies through column c.s.t.a to cy (role analyst: held through group g1); "
        "not exempt (role steward: held through group gs, and exempt counts only roles held directly)");
}

TEST_CASE("explain says how an exemption or a missed applies_to is held", "[explain][policies]") {
  CHECK(reason_for("bo") == "not applied: bo is exempt (role steward: held directly)");
  CHECK(reason_for("di") ==
        "not applied: di is not among its applies_to (role analyst: expired at 2026-11-01T00:00:00Z)");
}
