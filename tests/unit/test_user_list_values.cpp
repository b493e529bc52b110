// A reader's own list as the values of `in` / `not_in`. Seed 004 writes it `"values":
// {"$identity": "groups"}` ("as values is the reader's list"), MODEL.md section 4 names
// `{"$user": "roles"}` a list: `{"values": {"$user": ...}}` binds that list, as `{"value": ...}`
// does. Read as a malformed list literal it was no rows for everybody, the cleared included.

#include <string>

#include <catch2/catch.hpp>

#include "row_filter_outcome.h"

using namespace twtest;
using nlohmann::json;

namespace {

// User u holds roles analyst and auditor directly and has the list attribute `regions`; the one
// row filter on c.s.t is `condition`.
std::string snapshot(const std::string& condition) {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: u, attributes: {regions: [EU, "O'Brien"], region: EU, unset: null, also_unset: ~}}
roles: [analyst, auditor]
role_assignments:
  - {role: analyst, user: u}
  - {role: auditor, user: u}
classifications: []
objects:
  - name: c.s.t
    kind: table
    columns:
      - {name: role, type: varchar}
      - {name: region, type: varchar}
grants:
  - {principal: {role: analyst}, object: "c.s.t", privileges: [SELECT]}
policies:
  - {name: f, type: row_filter, scope: {object: c.s.t}, condition: )" +
         condition + "}\n";
}

using Filtered = RowFilterOutcome;

Filtered filter_for(const std::string& condition) { return row_filter_outcome(snapshot(condition), "u"); }

void require_filter(const Filtered& f, const std::string& trino) {
  INFO(f.reason);
  CHECK_FALSE(f.unsatisfiable);
  CHECK(f.trino == trino);
}

}  // namespace

TEST_CASE("values: {$user: roles} is the reader's roles, as value: {$user: roles} is", "[policies][user-lists]") {
  require_filter(filter_for("{column: role, op: in, values: {$user: roles}}"), "\"role\" IN ('analyst', 'auditor')");
  require_filter(filter_for("{column: role, op: in, value: {$user: roles}}"), "\"role\" IN ('analyst', 'auditor')");
  require_filter(filter_for("{column: role, op: not_in, values: {$user: roles}}"),
                 "\"role\" NOT IN ('analyst', 'auditor')");
}

TEST_CASE("values: {$user: attributes.<list>} is the reader's list attribute", "[policies][user-lists]") {
  require_filter(filter_for("{column: region, op: in, values: {$user: attributes.regions}}"),
                 "\"region\" IN ('EU', 'O''Brien')");
}

TEST_CASE("values bound to a single value, or a mapping that is not $user, is still no rows",
          "[policies][user-lists]") {
  const Filtered scalar = filter_for("{column: region, op: in, values: {$user: attributes.region}}");
  CHECK(scalar.unsatisfiable);
  CHECK(scalar.trino == "1 = 0");
  const Filtered other = filter_for("{column: region, op: in, values: {$identity: groups}}");
  CHECK(other.unsatisfiable);
  CHECK(other.trino == "1 = 0");
}

TEST_CASE("an attribute whose value is null is the attribute left out: no rows, the snapshot still loads",
          "[policies][user-lists]") {
  // An identity provider sends an unset claim as null; it used to refuse the whole snapshot.
  for (const char* key : {"unset", "also_unset"}) {
    const Filtered f = filter_for(std::string("{column: region, op: eq, value: {$user: attributes.") + key + "}}");
    CHECK(f.unsatisfiable);
    CHECK(f.trino == "1 = 0");
    CHECK(f.reason.find(std::string("no attribute ") + key) != std::string::npos);
  }
  require_filter(filter_for("{column: region, op: eq, value: {$user: attributes.region}}"), "\"region\" = 'EU'");
}
