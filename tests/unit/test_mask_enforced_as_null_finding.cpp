// Hash, partial and full masks are string expressions; on a column of another type (a date, a
// number, a boolean) both engines apply a typed NULL instead (MODEL §4 says so of dates and
// times). That fails closed, but only explain said so, user by user: a policy author whose partial
// mask reached a number was not told. The profile now reports it once, as the info finding
// mask_enforced_as_null naming each such column, its type and the masks' kinds (traceability
// audit: "an engine that cannot express a policy fails closed, with a finding").

#include <algorithm>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/compiler.h"

using namespace twtest;

namespace {

std::string snapshot(const std::string& policies,
                     const std::string& columns =
                         "[{name: s, type: varchar}, {name: N, type: bigint}, {name: d, type: date}, "
                         "{name: z, type: bigint}]") {
  return R"(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}]
objects:
  - name: c.s.t
    owner: ana
    columns: )" +
         columns + R"(
grants:
  - {principal: {user: ana}, object: c.s.t, privileges: [SELECT]}
policies:
)" + policies;
}

const tw::Finding* find(const std::vector<tw::Finding>& findings, const std::string& code) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const tw::Finding& f) { return f.code == code; });
  return it == findings.end() ? nullptr : &*it;
}

tw::Profile starrocks() {
  tw::Profile p;
  p.name = "sr";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"c"};
  return p;
}

}  // namespace

TEST_CASE("a string mask reaching a non-string column is reported as enforced as a typed NULL",
          "[findings][policies]") {
  const auto m =
      model_of(snapshot(R"(  - {name: p, type: column_mask, mask: partial, visible_chars: 2, scope: {object: c.s.t}}
  - {name: h, type: column_mask, mask: hash, scope: {column: c.s.t.N}}
  - {name: z, type: column_mask, mask: "null", scope: {column: c.s.t.z}}
)"));
  SECTION("Trino") {
    const tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"c"}, "tr"));
    REQUIRE(pc.errors.empty());
    const tw::Finding* f = find(pc.findings, "mask_enforced_as_null");
    REQUIRE(f != nullptr);
    CHECK(f->severity == tw::Severity::Info);
    CHECK(f->profile == "tr");
    // N and d: the strictest mask of N is the hash; z's own mask is null already; s is a string.
    CHECK(f->subjects == Names{"c.s.t.d", "c.s.t.n"});
    CHECK_THAT(f->message, Catch::StartsWith("2 masked columns on profile tr are not strings") &&
                               Catch::Contains("c.s.t.d (date): partial") && Catch::Contains("c.s.t.n (bigint): hash"));
  }
  SECTION("StarRocks") {
    const tw::ProfileCompile pc = tw::compile_profile(*m, starrocks());
    REQUIRE(pc.errors.empty());
    const tw::Finding* f = find(pc.findings, "mask_enforced_as_null");
    REQUIRE(f != nullptr);
    CHECK(f->subjects == Names{"c.s.t.N", "c.s.t.d"});
    CHECK_THAT(f->message, Catch::Contains("c.s.t.N (bigint): hash") && Catch::Contains("without them"));
  }
}

TEST_CASE("masks on string columns only, or null masks, are not reported", "[findings][policies]") {
  const auto m =
      model_of(snapshot(R"(  - {name: p, type: column_mask, mask: partial, visible_chars: 2, scope: {column: c.s.t.s}}
  - {name: z, type: column_mask, mask: "null", scope: {column: c.s.t.z}}
)"));
  CHECK(find(tw::compile_profile(*m, trino_profile({"c"}, "tr")).findings, "mask_enforced_as_null") == nullptr);
  CHECK(find(tw::compile_profile(*m, starrocks()).findings, "mask_enforced_as_null") == nullptr);
}

TEST_CASE("a mask on a column whose type Trino has no name for is a warning on Trino profiles",
          "[findings][policies]") {
  const std::string text =
      snapshot("  - {name: m, type: column_mask, mask: \"null\", scope: {object: c.s.t}}\n",
               R"y([{name: big, type: largeint}, {name: ok, type: "int(11)"}, {name: d, type: "datetime(3)"}])y");
  auto m = model_of(text);
  const tw::ProfileCompile trino = tw::compile_profile(*m, trino_profile({"c"}));
  REQUIRE(trino.policy_set);
  const tw::Finding* f = find(trino.findings, "trino_mask_type_unknown");
  REQUIRE(f);
  CHECK(f->severity == tw::Severity::Warning);
  CHECK(f->subjects == std::vector<std::string>{"c.s.t.big (largeint)"});
  CHECK(find(tw::compile_profile(*m, starrocks()).findings, "trino_mask_type_unknown") == nullptr);
}
