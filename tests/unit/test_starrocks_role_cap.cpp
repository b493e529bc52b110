// StarRocks refuses a membership giving a user more than privilege_max_total_roles_per_user roles,
// inherited ones and PUBLIC counted: atom roles inherit within the profile's max_roles_per_user,
// through bundle roles or holding some holder roles' grants themselves (engines/starrocks/atom_roles.h).

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/starrocks/artifact.h"
#include "tagwarden/engines/starrocks/live_state.h"
#include "tagwarden/engines/starrocks/plan.h"

using namespace srtest;
using nlohmann::json;
using tw::starrocks::Dialect;
using tw::starrocks::diff_statements;
using tw::starrocks::LiveState;
using tw::starrocks::OwnedState;
using tw::starrocks::Plan;
using tw::starrocks::PlanOptions;
using tw::starrocks::Statement;

namespace {

// Users, each given SELECT (and on some tables INSERT) on a different random subset of tables, so
// that nearly every table has its own set of readers (a holder role) and every user many of them.
tw::PolicySet crowded_policy_set(unsigned seed, int users, int tables) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> access(users, std::vector<int>(tables, 0));
  for (int t = 0; t < tables; ++t) {
    for (int u = 0; u < users; ++u) {
      if (rng() % 2) continue;
      access[u][t] = rng() % 4 == 0 ? 2 : 1;
    }
  }
  return matrix_policy_set(access);
}

// The roles each user holds (memberships and every role they inherit), PUBLIC not counted.
std::map<std::string, std::size_t> roles_held(const OwnedState& s) {
  std::map<std::string, std::set<std::string>> held;
  std::function<void(std::set<std::string>&, const std::string&)> take = [&](std::set<std::string>& to,
                                                                             const std::string& role) {
    if (!to.insert(role).second) return;
    if (auto it = s.roles.find(role); it != s.roles.end())
      for (const auto& inherited : it->second.roles) take(to, inherited);
  };
  for (const auto& [name, role] : s.roles)
    for (const auto& u : role.members) take(held[u], name);
  std::map<std::string, std::size_t> out;
  for (const auto& [u, roles] : held) out[u] = roles.size();
  return out;
}

// The same, read from the statements of a diff against an empty server.
std::map<std::string, std::size_t> roles_held(const std::vector<Statement>& statements) {
  OwnedState s;
  for (const auto& st : statements) {
    const auto tokens = tokenize(st.sql);
    if (tokens.size() < 4 || tokens[0].text != "GRANT" || tokens[1].kind != Token::Kind::Ident) continue;
    const std::string& role = tokens[1].text;
    if (tokens[2].text == "TO" && tokens[3].text == "ROLE" && tokens.size() > 4) {
      s.roles[tokens[4].text].roles.insert(role);
    } else if (tokens[2].text == "TO" && tokens[3].text == "USER" && tokens.size() > 4) {
      s.roles[role].members.insert(tokens[4].text);
    }
  }
  return roles_held(s);
}

bool has_finding(const Plan& plan, const std::string& code) {
  for (const auto& f : plan.findings)
    if (f.code == code) return true;
  return false;
}

}  // namespace

TEST_CASE("starrocks atom roles inherit within max_roles_per_user and give the same privileges") {
  for (unsigned seed = 0; seed < 6; ++seed) {
    const tw::PolicySet ps = crowded_policy_set(seed, 12, 60);
    for (Dialect d : {Dialect::StarRocks, Dialect::MySQL}) {
      const Plan open = plan_ok(ps, {d, {}, 1000000});
      std::size_t most = 0;
      for (const auto& [u, n] : roles_held(open.desired)) most = std::max(most, n);
      REQUIRE(most > 10);  // the snapshot is crowded enough to need the cap
      CHECK_FALSE(has_finding(open, "starrocks_roles_capped"));
      for (std::size_t cap : {2, 3, 5, 10}) {
        INFO("seed " << seed << ", dialect " << to_string(d) << ", max_roles_per_user " << cap);
        const Plan capped = plan_ok(ps, {d, {}, cap});
        CHECK(effective(capped.desired) == effective(open.desired));
        for (const auto& [u, n] : roles_held(capped.desired)) {
          INFO("user " << u);
          CHECK(n + 1 <= cap);  // + PUBLIC
        }
        CHECK(has_finding(capped, "starrocks_roles_capped"));
        // Holder roles stay shared where they fit: only a cap of 2 (PUBLIC and one role) leaves none.
        bool inherits = false;
        for (const auto& [name, role] : capped.desired.roles) inherits = inherits || !role.roles.empty();
        CHECK(inherits == (cap > 2));
        // A holder role every atom took the grants of is not made: nobody would hold it.
        std::set<std::string> inherited;
        for (const auto& [name, role] : capped.desired.roles) inherited.insert(role.roles.begin(), role.roles.end());
        for (const auto& [name, role] : capped.desired.roles) {
          INFO("role " << name);
          CHECK((!role.members.empty() || inherited.count(name)));
        }
        REQUIRE(capped.access.size() == open.access.size());
        for (const auto& [object, holdings] : open.access) {
          const auto& other = capped.access.at(object);
          REQUIRE(other.size() == holdings.size());
          for (std::size_t i = 0; i < holdings.size(); ++i) {
            CHECK(*other[i].users == *holdings[i].users);
            CHECK(*other[i].privileges == *holdings[i].privileges);
          }
        }
      }
    }
  }
}

TEST_CASE("starrocks atom roles over the cap share bundle roles and fill their places") {
  for (unsigned seed = 0; seed < 4; ++seed) {
    const tw::PolicySet ps = matrix_policy_set(grouped_access(seed, 40, 8, 200));
    const Plan open = plan_ok(ps, {Dialect::StarRocks, {}, 1000000});
    for (std::size_t cap : {5, 8, 14}) {
      INFO("seed " << seed << ", max_roles_per_user " << cap);
      const Plan capped = plan_ok(ps, {Dialect::StarRocks, {}, cap});
      REQUIRE(has_finding(capped, "starrocks_roles_capped"));
      CHECK(effective(capped.desired) == effective(open.desired));
      for (const auto& [u, n] : roles_held(capped.desired)) CHECK(n + 1 <= cap);
      std::map<std::string, std::size_t> inheriting;  // role -> roles inheriting it
      for (const auto& [name, role] : capped.desired.roles)
        for (const auto& r : role.roles) ++inheriting[r];
      const std::set<std::string> bundles = bundle_roles(capped, open);
      for (const auto& name : bundles) {
        INFO("bundle role " << name);
        const auto& role = capped.desired.roles.at(name);
        CHECK(name.compare(0, capped.prefix.size() + 1, capped.prefix + "r") == 0);  // owned by every version
        CHECK(role.members.empty());
        CHECK(role.roles.empty());     // StarRocks counts inherited roles transitively
        CHECK(inheriting[name] >= 2);  // a part only one atom needs is copied into it
        std::size_t items = 0;         // it holds the grants of two holder roles or more
        for (const auto& [on, privileges] : role.grants) items += privileges.size();
        CHECK(items >= 2);
      }
      if (cap > 5) CHECK_FALSE(bundles.empty());  // two groups for five roles: parts are rarely shared
      // An atom copies grants only when it inherits as many roles as it may.
      for (const auto& [name, atom] : capped.desired.roles) {
        if (name.compare(0, capped.prefix.size() + 1, capped.prefix + "a") != 0 || atom.grants.empty()) continue;
        INFO("atom role " << name);
        CHECK(atom.roles.size() == cap - 2);
      }
    }
  }
}

TEST_CASE("starrocks diff rebuilding roles around a foreign mask keeps within max_roles_per_user") {
  const tw::PolicySet ps = demo_policy_set("starrocks_main");
  const Plan plan = plan_ok(ps, {Dialect::StarRocks, {true}, 3});
  REQUIRE_FALSE(plan.desired.attachments.empty());
  LiveState live;
  live.foreign_masks.insert(plan.desired.attachments.begin()->first);
  const auto statements = diff_statements(plan, live);
  const auto held = roles_held(statements);
  REQUIRE_FALSE(held.empty());
  for (const auto& [u, n] : held) {
    INFO("user " << u);
    CHECK(n + 1 <= 3);
  }
  // Without the cap the same rebuild has users over it, so the check above can fail.
  std::size_t most = 0;
  for (const auto& [u, n] : roles_held(diff_statements(plan_ok(ps, {Dialect::StarRocks, {true}, 1000000}), live)))
    most = std::max(most, n);
  CHECK(most + 1 > 3);
}

TEST_CASE("the StarRocks artifact takes the profile's max_roles_per_user") {
  const tw::PolicySet ps = crowded_policy_set(3, 12, 60);
  const auto open = tw::starrocks::render_artifact(ps, "auto", nullptr, 1000000);
  const auto capped = tw::starrocks::render_artifact(ps, "auto", nullptr, 5);
  CHECK(capped.text != open.text);
  CHECK(capped.text.find("starrocks_roles_capped") == std::string::npos);  // findings are comments by message
  CHECK(capped.text.find("within max_roles_per_user = 5") != std::string::npos);
  CHECK(open.text.find("max_roles_per_user") == std::string::npos);
}

TEST_CASE("starrocks: the server's privilege_max_total_roles_per_user bounds a plan made against it") {
  using tw::starrocks::parse_max_roles_per_user;
  using tw::starrocks::Probe;
  using tw::starrocks::roles_cap_for;
  using tw::starrocks::Rows;
  // ADMIN SHOW FRONTEND CONFIG LIKE '...' as StarRocks answers it.
  Rows rows;
  rows.columns = {"Key", "AliasNames", "Value", "Type", "IsMutable", "Comment"};
  rows.rows = {{"privilege_max_total_roles_per_user", "[]", "64", "int", "true", ""}};
  CHECK(parse_max_roles_per_user(rows) == std::optional<std::size_t>(64));
  rows.rows[0][2] = "1000";
  CHECK(parse_max_roles_per_user(rows) == std::optional<std::size_t>(1000));
  for (const char* bad : {"", "-1", "64x", "99999999999"}) {
    rows.rows[0][2] = bad;
    CHECK_FALSE(parse_max_roles_per_user(rows).has_value());
  }
  rows.rows[0][0] = "privilege_max_role_depth";
  rows.rows[0][2] = "16";
  CHECK_FALSE(parse_max_roles_per_user(rows).has_value());
  CHECK_FALSE(parse_max_roles_per_user(Rows{}).has_value());

  Probe probe;  // not readable (no OPERATE privilege, or MySQL): the profile's key is trusted
  auto cap = roles_cap_for(probe, 64, "sr");
  CHECK(cap.cap == 64);
  CHECK_FALSE(cap.lowered.has_value());
  probe.max_roles_per_user = 128;  // raised on the server, not in the profile: the profile's
  CHECK(roles_cap_for(probe, 64, "sr").cap == 64);
  probe.max_roles_per_user = 32;  // lower on the server: the server's, with a warning
  cap = roles_cap_for(probe, 64, "sr");
  CHECK(cap.cap == 32);
  REQUIRE(cap.lowered.has_value());
  CHECK(cap.lowered->code == "starrocks_roles_cap_lowered");
  CHECK(cap.lowered->severity == tw::Severity::Warning);
  CHECK(cap.lowered->message.find("is 32, below the profile's max_roles_per_user (64)") != std::string::npos);
  probe.max_roles_per_user = 0;  // a server that allows no role at all still gets PUBLIC and one
  CHECK(roles_cap_for(probe, 64, "sr").cap == 2);
}
