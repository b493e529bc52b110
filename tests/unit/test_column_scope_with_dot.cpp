// A column scope is `catalog.schema.object.column`. Object name parts never hold a dot, but a
// column name may ("c.1"): the scope splits after its third dot. Split at the last dot instead,
// `c.s.t.c.1` read as column "1" of object "c.s.t.c", so a policy on such a column refused the
// whole snapshot (nothing compiled, the governance platform's every update refused with it).

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/model/policy.h"

using namespace twtest;

namespace {

std::string snapshot(const std::string& scope) {
  return R"(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}, {name: etl}]
roles: []
classifications: []
objects:
  - name: c.s.t
    owner: etl
    columns: [{name: id}, {name: "c.1"}, {name: "1"}]
grants:
  - {principal: {user: ana}, object: c.s.t, privileges: [SELECT]}
policies:
  - {name: hide, type: deny, scope: {column: ")" +
         scope + R"("}}
)";
}

}  // namespace

TEST_CASE("split_column_scope splits after the third dot", "[policies][names]") {
  using Split = std::pair<std::string_view, std::string_view>;
  CHECK(tw::split_column_scope("c.s.t.col") == Split{"c.s.t", "col"});
  CHECK(tw::split_column_scope("c.s.t.c.1") == Split{"c.s.t", "c.1"});
  CHECK(tw::split_column_scope("c.s.t.") == Split{"c.s.t", ""});
  CHECK_FALSE(tw::split_column_scope("c.s.t").has_value());
  CHECK_FALSE(tw::split_column_scope("").has_value());
}

TEST_CASE("a policy scoped to a column whose name holds a dot reaches that column only", "[policies][names]") {
  const auto m = model_of(snapshot("c.s.t.c.1"));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  const auto& op = object(ps, "c.s.t");
  CHECK(denied_columns(op, user_index(*m, "ana")) == Names{"c.1"});
}

TEST_CASE("a column scope naming no column is still refused", "[policies][names]") {
  for (const std::string scope : {"c.s.t.c.2", "c.s.t", "c.s.t.c", "c.s.c.1"}) {
    INFO(scope);
    const auto errors = must_fail(snapshot(scope));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("policies[0].scope.column: unknown column") != std::string::npos);
  }
}
