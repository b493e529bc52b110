// A class of users that access policies tell apart is split by outcome (MODEL.md section 4):
// policies are judged once per policy key and object, and the class's users dealt out to the
// outcomes. Every user must land in the outcome of their own key, each list sorted, and the
// users a row filter cannot be satisfied for must all be reported, whichever class they are in.

#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

using nlohmann::json;

// 150 users (three words of a bitmap): a third in EU, a third in US, a third without a region.
// Every fourth is cleared for pii, which gates t's email column, so t's users are in two
// classes before the row filter splits them again. Half of those without a region are loaders,
// whose grants set them apart: a class the filter cannot be satisfied for as a whole.
json snapshot() {
  json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", {"analyst", "pii_reader", "loader"}}};
  for (int i = 0; i < 150; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "u%03d", i);
    json user = {{"name", name}};
    if (i % 3 != 2) user["attributes"] = {{"region", i % 3 == 0 ? "EU" : "US"}};
    s["users"].push_back(user);
    s["role_assignments"].push_back({{"role", "analyst"}, {"user", name}});
    if (i % 4 == 0) s["role_assignments"].push_back({{"role", "pii_reader"}, {"user", name}});
    if (i % 6 == 2) s["role_assignments"].push_back({{"role", "loader"}, {"user", name}});
  }
  s["classifications"] = {{{"name", "pii"}, {"level", 2}, {"clearance", {{{"type", "role"}, {"name", "pii_reader"}}}}}};
  const json region = {{"name", "region"}, {"type", "varchar"}};
  s["objects"] = {{{"name", "w.s.t"},
                   {"kind", "table"},
                   {"domain", "sales"},
                   {"columns", {region, {{"name", "email"}, {"type", "varchar"}, {"tags", {"pii"}}}}}},
                  {{"name", "w.s.o"}, {"kind", "table"}, {"domain", "sales"}, {"columns", {region}}},
                  {{"name", "w.s.free"}, {"kind", "table"}, {"columns", {region}}}};
  s["grants"] = {{{"principal", {{"role", "analyst"}}}, {"object", "w.*.*"}, {"privileges", {"SELECT"}}},
                 {{"principal", {{"role", "loader"}}}, {"object", "w.*.*"}, {"privileges", {"INSERT"}}}};
  s["policies"] = {{{"name", "by_region"},
                    {"type", "row_filter"},
                    {"scope", {{"domain", "sales"}}},
                    {"condition", {{"column", "region"}, {"op", "eq"}, {"value", {{"$user", "attributes.region"}}}}}}};
  return s;
}

}  // namespace

TEST_CASE("a class split by policy outcome keeps every user in their own outcome", "[policies]") {
  const auto m = model_of(snapshot().dump());
  const tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"w"}));
  REQUIRE(pc.errors.empty());
  REQUIRE(pc.policy_set);
  const tw::PolicySet& ps = *pc.policy_set;

  for (const char* name : {"w.s.t", "w.s.o", "w.s.free"}) {
    INFO(name);
    const tw::ObjectPolicy& op = object(ps, name);
    std::size_t listed = 0;
    for (const auto& cls : op.classes) {
      CHECK(std::is_sorted(cls.users->begin(), cls.users->end()));
      listed += cls.users->size();
    }
    CHECK(listed == 150);  // each user in one class
    for (std::size_t u = 0; u < 150; ++u) {
      INFO("user " << u);
      const tw::AccessClass* cls = op.class_of(u);
      REQUIRE(cls != nullptr);
      CHECK(cls->access.privileges.has(tw::Privilege::Select));
      const bool gated = std::string(name) == "w.s.t" && u % 4 != 0;
      CHECK(cls->access.denied_columns == (gated ? Names{"email"} : Names{}));
      const std::string& filter = cls->access.row_filter;
      if (std::string(name) == "w.s.free") {
        CHECK(filter.empty());
      } else if (u % 3 == 2) {
        CHECK(json::parse(filter) == json({{"false", true}}));
      } else {
        CHECK(json::parse(filter).at("value") == (u % 3 == 0 ? "EU" : "US"));
      }
    }
  }

  std::set<std::string> expected;
  for (int i = 2; i < 150; i += 3) expected.insert(m->snapshot->users[static_cast<std::size_t>(i)].name);
  bool reported = false;
  for (const auto& f : pc.findings) {
    if (f.code != "row_filter_unsatisfiable") continue;
    reported = true;
    CHECK(std::set<std::string>(f.subjects.begin(), f.subjects.end()) == expected);
    CHECK(f.subjects.size() == expected.size());
  }
  CHECK(reported);
}
