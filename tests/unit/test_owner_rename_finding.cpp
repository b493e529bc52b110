// MODEL §2 leaves OWNERSHIP of a gated object to the cleared (and to those no policy applies to),
// and Trino lets its holder rename the object or a column out from under every rule keyed by the
// old name (found by the audit on a real Trino 483). Not withheld: the info finding names them.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

std::string snapshot(const std::string& owner_roles) {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: o}, {name: rd}, {name: plain}]
roles: [r]
role_assignments: )" +
         owner_roles + R"(
classifications: [{name: G, clearance: [{type: role, name: r}]}]
objects:
  - {name: c.s.g, owner: o, columns: [{name: id, type: bigint}, {name: sec, type: varchar, tags: [G]}]}
  - {name: c.s.free, owner: o, columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: o}, object: "c.s.*", privileges: [SELECT, OWNERSHIP]}
  - {principal: {user: rd}, object: "c.s.*", privileges: [SELECT]}
  - {principal: {user: plain}, object: "c.s.free", privileges: [OWNERSHIP]}
)";
}

const tw::Finding* rename_finding(const tw::ProfileCompile& pc) {
  for (const auto& f : pc.findings) {
    if (f.code == "trino_owners_can_rename_governed") return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("owners who keep OWNERSHIP of a gated object are named: they can rename it on Trino", "[findings]") {
  auto cleared = model_of(snapshot("[{role: r, user: o}]"));
  const tw::ProfileCompile pc = tw::compile_profile(*cleared, trino_profile({"c"}));
  REQUIRE(pc.policy_set);
  CHECK(privs(object(*pc.policy_set, "c.s.g"), user_index(*cleared, "o")) == Names{"SELECT", "OWNERSHIP"});
  const tw::Finding* f = rename_finding(pc);
  REQUIRE(f != nullptr);
  CHECK(f->severity == tw::Severity::Info);
  CHECK(f->subjects == Names{"o"});  // plain owns only an ungoverned object
  CHECK_THAT(f->message, Catch::Contains("c.s.g") && !Catch::Contains("c.s.free"));

  // Uncleared, o loses OWNERSHIP of the gated object: nothing to name.
  auto uncleared = model_of(snapshot("[]"));
  const tw::ProfileCompile pc2 = tw::compile_profile(*uncleared, trino_profile({"c"}));
  REQUIRE(pc2.policy_set);
  CHECK(rename_finding(pc2) == nullptr);
}
