// StarRocks row filters on FLOAT (real) columns compare with a FLOAT literal.
// StarRocks widens a FLOAT compared with a DOUBLE (or an integer) to DOUBLE, where
// 0.1 as a FLOAT (0.100000001490116...) is not 0.1: `score ne 0.1` would admit the
// rows holding 0.1 that Trino's `"score" <> REAL '0.1'` hides, and so would
// not_in, gt and lt. Before, the literal was CAST('0.1' AS DOUBLE) for every
// floating-point column.

#include <map>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"

using namespace srtest;
namespace sr = tw::starrocks;
using nlohmann::json;

namespace {

std::optional<std::string> rendered(const std::string& type, const std::string& op, const json& value) {
  json c = {{"column", "x"}, {"op", op}, {"type", type}};
  c[op == "in" || op == "not_in" ? "values" : "value"] = value;
  return sr::sql::filter_expression(c, {{"x", "tw_a0"}});
}

tw::Profile starrocks_profile() {
  tw::Profile p;
  p.name = "srp";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"c"};
  p.catalog_map = {{"c", "default_catalog"}};
  return p;
}

}  // namespace

TEST_CASE("starrocks: a float or real column compares with a FLOAT literal, a double column with a DOUBLE",
          "[starrocks][literal]") {
  SECTION("float and real, in every comparison") {
    for (const char* type : {"float", "real", "FLOAT", "Real"}) {
      INFO(type);
      CHECK(rendered(type, "ne", 0.1) == "`tw_a0` <> CAST('0.1' AS FLOAT)");
      CHECK(rendered(type, "gt", 0.1) == "`tw_a0` > CAST('0.1' AS FLOAT)");
      CHECK(rendered(type, "lt", -2.5) == "`tw_a0` < CAST('-2.5' AS FLOAT)");
      CHECK(rendered(type, "not_in", json::array({0.1, 0.2})) ==
            "`tw_a0` NOT IN (CAST('0.1' AS FLOAT), CAST('0.2' AS FLOAT))");
      // An integer too: 16777217 is no FLOAT; Trino coerces it to REAL (16777216), so does this.
      CHECK(rendered(type, "eq", 16777217) == "`tw_a0` = CAST('16777217' AS FLOAT)");
      CHECK(rendered(type, "in", json::array({1, 0.5})) == "`tw_a0` IN (CAST('1' AS FLOAT), CAST('0.5' AS FLOAT))");
    }
  }
  SECTION("double: unchanged") {
    for (const char* type : {"double", "DOUBLE"}) {
      INFO(type);
      CHECK(rendered(type, "ne", 0.1) == "`tw_a0` <> CAST('0.1' AS DOUBLE)");
      CHECK(rendered(type, "eq", 3) == "`tw_a0` = 3");
    }
  }
  SECTION("a value a float column cannot hold is still no rows") {
    CHECK(rendered("float", "ne", 1e300) == "FALSE");
    CHECK(rendered("real", "not_in", json::array({0.1, "x"})) == "FALSE");
    CHECK(rendered("double", "ne", 1e300) == "`tw_a0` <> CAST('1e+300' AS DOUBLE)");
  }
}

TEST_CASE("starrocks: the audit's float filter compiles to a FLOAT comparison in the row access policy",
          "[starrocks][literal]") {
  const std::string snapshot = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "ana"}, {"name": "etl"}], "roles": ["analyst"],
    "role_assignments": [{"role": "analyst", "user": "ana"}],
    "objects": [{"name": "c.s.t", "kind": "table", "owner": "etl",
                 "columns": [{"name": "score", "type": "float"}, {"name": "ratio", "type": "double"}]}],
    "grants": [{"principal": {"role": "analyst"}, "object": "c.*.*", "privileges": ["SELECT"]}],
    "policies": [{"name": "f", "type": "row_filter", "scope": {"object": "c.s.t"},
                  "condition": {"and": [{"column": "score", "op": "ne", "value": 0.1},
                                        {"column": "ratio", "op": "ne", "value": 0.1}]}}]})";
  auto m = model_from_text(snapshot);
  const sr::Plan plan = plan_ok(compile_ok(*m, starrocks_profile()), {sr::Dialect::StarRocks, {true, true}});
  REQUIRE(plan.desired.row_policies.size() == 1);
  const auto& p = plan.desired.row_policies.begin()->second;
  const std::string sql = sr::sql::create_row_policy(p);
  INFO(sql);
  std::map<std::string, std::string> argument_of;  // column -> tw_aN
  for (std::size_t i = 0; i < p.columns.size(); ++i) argument_of[p.columns[i].first] = sr::sql::row_argument(i);
  REQUIRE(argument_of.size() == 2);
  CHECK(sql.find("`" + argument_of.at("score") + "` FLOAT") != std::string::npos);
  CHECK(sql.find("`" + argument_of.at("score") + "` <> CAST('0.1' AS FLOAT)") != std::string::npos);
  CHECK(sql.find("`" + argument_of.at("ratio") + "` <> CAST('0.1' AS DOUBLE)") != std::string::npos);
  CHECK(sql.find("`" + argument_of.at("score") + "` <> CAST('0.1' AS DOUBLE)") == std::string::npos);
}
