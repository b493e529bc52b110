// Trino's TRUNCATE TABLE needs only DELETE and ignores row filters, while DELETE, UPDATE and INSERT
// honour them. Observed on a real Trino 483 (tests/trino-e2e): a user filtered to region EU, with
// DELETE on the table, truncated the US rows too. So DELETE is withheld from a user a row filter
// applies to (withhold_writes or not, as OWNERSHIP is withheld for a policy); masks and column
// denies leave it (TRUNCATE then removes no row DELETE could not), and so does a filter that keeps
// every row.

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

using Names = std::vector<std::string>;

const char* kSnapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: eu, attributes: {region: EU}}
  - {name: masked}
  - {name: all_rows}
  - {name: open}
roles: []
role_assignments: []
classifications: []
objects:
  - {name: c.s.t, kind: table, columns: [{name: id, type: bigint}, {name: region, type: varchar}, {name: secret, type: varchar}]}
grants:
  - {principal: {user: eu}, object: "c.s.t", privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: masked}, object: "c.s.t", privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: all_rows}, object: "c.s.t", privileges: [SELECT, INSERT, UPDATE, DELETE]}
  - {principal: {user: open}, object: "c.s.t", privileges: [SELECT, INSERT, UPDATE, DELETE]}
policies:
  - name: own_region
    type: row_filter
    scope: {object: c.s.t}
    applies_to: {users: [eu]}
    condition: {column: region, op: eq, value: {$user: attributes.region}}
  - name: everything
    type: row_filter
    scope: {object: c.s.t}
    applies_to: {users: [all_rows]}
    condition: {"true": true}
  - {name: hide_secret, type: column_mask, mask: full, scope: {column: c.s.t.secret}, applies_to: {users: [masked]}}
)";

}  // namespace

TEST_CASE("a row filter withholds DELETE: Trino's TRUNCATE ignores row filters", "[compiler][policies]") {
  auto m = model_of(kSnapshot);
  tw::Profile p = trino_profile({"c"});
  const bool withhold_writes = GENERATE(true, false);
  p.withhold_writes = withhold_writes;
  const tw::PolicySet ps = must_compile(*m, p);
  const tw::ObjectPolicy& t = object(ps, "c.s.t");

  CHECK(privs(t, user_index(*m, "eu")) == Names{"SELECT", "INSERT", "UPDATE"});
  const tw::AccessClass* eu = find_access(t, user_index(*m, "eu"));
  REQUIRE(eu);
  CHECK(std::find(eu->reasons.begin(), eu->reasons.end(),
                  "DELETE withheld: own_region applies (TRUNCATE TABLE ignores row filters)") != eu->reasons.end());

  // A mask, a filter that keeps every row, or no policy: TRUNCATE removes nothing DELETE could not.
  CHECK(privs(t, user_index(*m, "masked")) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
  CHECK(privs(t, user_index(*m, "all_rows")) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
  CHECK(privs(t, user_index(*m, "open")) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
}
