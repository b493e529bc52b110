// MODEL.md §3: on Trino, principals are matched by enumerated user names only. Trino's file-based
// rules can also match `group` and `role`, which Trino fills from its own group provider and
// the connector's roles: a rule keyed on them would open an object to whoever Trino's side puts in
// a group or role of that name, outside the snapshot (and §2: group names never reach the
// engines). A snapshot rich in groups and group-held roles still renders rules with no such key.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "helpers.h"
#include "tagwarden/engines/trino/rules.h"

using namespace twtest;

namespace {

const std::string kSnapshot = R"(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: ana, groups: [stewards, readers]}
  - {name: bo, groups: [readers]}
roles: [steward, reader]
role_assignments:
  - {role: steward, group: stewards}
  - {role: reader, group: readers}
  - {role: reader, user: bo}
classifications:
  - {name: PII, clearance: [{type: role, name: steward}, {type: group, name: stewards}]}
objects:
  - {name: c.s.t, owner: bo, columns: [{name: id}, {name: region}, {name: iban, tags: [PII]}]}
grants:
  - {principal: {role: reader}, object: "c.*.*", privileges: [SELECT]}
  - {principal: {role: steward}, object: c.s.t, privileges: [SELECT, INSERT]}
policies:
  - {name: m, type: column_mask, mask: full, scope: {column: c.s.t.region}, applies_to: {roles: [reader]}}
  - name: f
    type: row_filter
    scope: {object: c.s.t}
    applies_to: {roles: [steward]}
    condition: {column: region, op: eq, value: EU}
)";

}  // namespace

TEST_CASE("Trino rules match users by name only, never by group or role", "[trino][principals]") {
  const auto m = model_of(kSnapshot);
  const nlohmann::json rules =
      nlohmann::json::parse(tw::trino::render_rules(must_compile(*m, trino_profile({"c"}))).text);
  std::size_t rules_seen = 0;
  for (const auto& [section, list] : rules.items()) {
    if (!list.is_array()) continue;
    for (const auto& rule : list) {
      ++rules_seen;
      INFO(section << ": " << rule.dump());
      CHECK_FALSE(rule.contains("group"));
      CHECK_FALSE(rule.contains("role"));
    }
  }
  CHECK(rules_seen > 6);
}
