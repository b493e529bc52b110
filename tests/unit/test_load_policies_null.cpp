// Seed 004: "is_null and is_not_null are the only way to match an empty value. A null value in a
// comparison is rejected." A literal null refuses the snapshot, naming the entry; a user's null
// attribute is the reader's data and is no rows for them (MODEL §4), as before.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

std::string snapshot(const std::string& condition, const std::string& attributes = "{}") {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana, attributes: )" +
         attributes + R"(}]
objects:
  - {name: c.s.t, columns: [{name: region, type: varchar}]}
grants: [{principal: {user: ana}, object: "c.s.t", privileges: [SELECT]}]
policies:
  - {name: f, type: row_filter, scope: {object: c.s.t}, condition: )" +
         condition + "}\n";
}

}  // namespace

TEST_CASE("a literal null in a comparison refuses the snapshot, naming the entry", "[policies][validation]") {
  for (const char* op : {"eq", "ne", "gt", "gte", "lt", "lte"}) {
    INFO(op);
    const auto errors = must_fail(snapshot(std::string("{column: region, op: ") + op + ", value: null}"));
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith("policies[0].condition.value:") &&
                              Catch::Contains("a null value in a comparison is rejected") &&
                              Catch::Contains("is_null"));
  }
  const auto in_list = must_fail(snapshot("{and: [{true: true}, {column: region, op: not_in, values: [EU, null]}]}"));
  REQUIRE(in_list.size() == 1);
  CHECK_THAT(in_list[0], Catch::StartsWith("policies[0].condition.and[1].values[1]:"));
  // is_null takes no value; a null attribute is the reader's, judged per reader: no rows.
  must_parse(snapshot("{column: region, op: is_null}"));
  auto m = model_of(snapshot("{column: region, op: eq, value: {$user: attributes.region}}", "{region: null}"));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const tw::AccessClass* ana = find_access(object(ps, "c.s.t"), user_index(*m, "ana"));
  REQUIRE(ana != nullptr);
  CHECK(ana->access.row_filter == R"({"false":true})");
}
