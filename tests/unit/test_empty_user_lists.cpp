// A reader's list that is empty is no rows, under not_in too. Seed 001: "region in
// current_user.regions (also not in) ... An empty list means zero rows." Bound as an empty list,
// `not_in` would show every row to a reader whose claim list came through empty.

#include <string>

#include <catch2/catch.hpp>

#include "row_filter_outcome.h"

using namespace twtest;
using nlohmann::json;

namespace {

// u has the attribute regions: [] and holds no role (it reads by a grant to the user itself);
// r has regions [EU] and holds analyst. The one row filter on c.s.t is `condition`.
std::string snapshot(const std::string& condition) {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: u, attributes: {regions: []}}
  - {name: r, attributes: {regions: [EU]}}
roles: [analyst]
role_assignments:
  - {role: analyst, user: r}
classifications: []
objects:
  - name: c.s.t
    kind: table
    columns:
      - {name: role, type: varchar}
      - {name: region, type: varchar}
grants:
  - {principal: {user: u}, object: "c.s.t", privileges: [SELECT]}
  - {principal: {role: analyst}, object: "c.s.t", privileges: [SELECT]}
policies:
  - {name: f, type: row_filter, scope: {object: c.s.t}, condition: )" +
         condition + "}\n";
}

using Filtered = RowFilterOutcome;

Filtered filter_for(const std::string& condition, const std::string& user) {
  return row_filter_outcome(snapshot(condition), user);
}

}  // namespace

TEST_CASE("not_in an empty list attribute is no rows, not every row", "[policies][user-lists]") {
  const Filtered f = filter_for("{column: region, op: not_in, value: {$user: attributes.regions}}", "u");
  CHECK(f.unsatisfiable);
  CHECK(f.trino == "1 = 0");
  CHECK(f.reason.find("empty list") != std::string::npos);
  // A reader whose list holds values is filtered by it.
  CHECK(filter_for("{column: region, op: not_in, value: {$user: attributes.regions}}", "r").trino ==
        "\"region\" NOT IN ('EU')");
}

TEST_CASE("not_in the roles of a reader who holds none is no rows", "[policies][user-lists]") {
  const Filtered f = filter_for("{column: role, op: not_in, values: {$user: roles}}", "u");
  CHECK(f.unsatisfiable);
  CHECK(f.trino == "1 = 0");
  CHECK(filter_for("{column: role, op: not_in, values: {$user: roles}}", "r").trino == "\"role\" NOT IN ('analyst')");
}

TEST_CASE("in an empty list of the reader's stays no rows", "[policies][user-lists]") {
  CHECK(filter_for("{column: region, op: in, value: {$user: attributes.regions}}", "u").trino == "1 = 0");
  CHECK(filter_for("{column: role, op: in, value: {$user: roles}}", "u").trino == "1 = 0");
}
