// The access diff /v1/validate answers with: a name listed on one side only is judged on the
// other side by that side's rules for unlisted names, as the engine would judge it.

#include <catch2/catch.hpp>
#include <string>

#include "daemon/policy_diff.h"
#include "helpers.h"

namespace {

// ana and bo are analysts (SELECT on lake.sales.*); only ana is cleared for Confidential.
std::string snapshot(const std::string& objects) {
  return R"({
  "version": 1, "generated_at": "2026-11-30T12:00:00Z",
  "users": [{"name": "ana"}, {"name": "bo"}],
  "roles": ["analyst", "steward"],
  "role_assignments": [{"role": "analyst", "user": "ana"}, {"role": "analyst", "user": "bo"},
                       {"role": "steward", "user": "ana"}],
  "classifications": [{"name": "Confidential", "clearance": [{"type": "role", "name": "steward"}]}],
  "objects": [)" +
         objects +
         R"(],
  "grants": [{"principal": {"role": "analyst"}, "object": "lake.sales.*", "privileges": ["SELECT"]}],
  "policies": []
})";
}

const std::string kOrders = R"({"name": "lake.sales.orders", "kind": "table", "tags": ["Confidential"],
                                "columns": [{"name": "id", "type": "bigint"}]})";
const std::string kItems = R"({"name": "lake.sales.items", "kind": "table",
                               "columns": [{"name": "id", "type": "bigint"}]})";

tw::PolicySet compile(const std::string& objects) {
  auto model = twtest::model_of(snapshot(objects));
  return twtest::must_compile(*model, twtest::trino_profile({"lake"}));
}

nlohmann::json changes(const tw::PolicySet& before, const tw::PolicySet& after) {
  return tw::diff_policy(&before, "", after, "")["changes"];
}

nlohmann::json find_change(const nlohmann::json& changes, const std::string& user, const std::string& object) {
  for (const auto& c : changes) {
    if (c["user"] == user && c["object"] == object) return c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("policy diff: a name no longer listed is judged by the proposal's rules for unlisted names") {
  const tw::PolicySet before = compile(kOrders + "," + kItems);
  const tw::PolicySet after = compile(kItems);  // orders is no longer listed: the broad grant reaches it
  const auto c = changes(before, after);
  INFO(c.dump(1));
  // bo was refused orders (Confidential, not cleared); unlisted, the analyst grant gives it to him.
  const auto bo = find_change(c, "bo", "lake.sales.orders");
  REQUIRE(bo.is_object());
  CHECK(bo["gained"] == nlohmann::json::array({"SELECT"}));
  CHECK_FALSE(bo.contains("lost"));
  // ana keeps SELECT through the broad grant: no change at all.
  CHECK(find_change(c, "ana", "lake.sales.orders").is_null());
  CHECK(c.size() == 1);
}

TEST_CASE("policy diff: a name newly listed is judged before by the rules for unlisted names in force") {
  const tw::PolicySet before = compile(kItems);  // orders unlisted: both analysts read it
  const tw::PolicySet after = compile(kOrders + "," + kItems);
  const auto c = changes(before, after);
  INFO(c.dump(1));
  const auto bo = find_change(c, "bo", "lake.sales.orders");
  REQUIRE(bo.is_object());
  CHECK(bo["lost"] == nlohmann::json::array({"SELECT"}));
  CHECK_FALSE(bo.contains("gained"));
  CHECK(find_change(c, "ana", "lake.sales.orders").is_null());
  CHECK(c.size() == 1);
}

TEST_CASE("policy diff: an identical proposal changes nothing; nothing in force means everything is gained") {
  const tw::PolicySet ps = compile(kOrders + "," + kItems);
  CHECK(changes(ps, ps).empty());
  const auto from_nothing = tw::diff_policy(nullptr, "", ps, "");
  CHECK(from_nothing["access_changes"] == 3);  // ana: orders, items; bo: items
  const auto unknown = tw::diff_policy(nullptr, "", ps, "", 500, false);
  CHECK(unknown["access_changes"].is_null());
  CHECK(unknown["changes"].is_null());
}
