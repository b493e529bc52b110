// Applying a plan on a StarRocks server that refuses a membership over its roles-per-user cap:
// a simulated server runs diff_statements one statement at a time, refusing GRANT role TO USER
// when the user would hold more roles than the cap (inherited roles and PUBLIC counted, as
// StarRocks' grantRoleToUser does), and every prefix is checked to give no user more than the
// old or the new plan. Moving between plans and caps must never be refused, nor widen.
#include <functional>
#include <random>

#include <catch2/catch.hpp>
#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/starrocks/plan.h"

using namespace srtest;
using nlohmann::json;
using namespace tw::starrocks;

namespace {

struct SimRole {
  std::map<std::string, std::set<std::string>> grants;  // catalog|target -> privs
  std::set<std::string> members, roles;
};
struct Sim {
  std::map<std::string, SimRole> roles;
};

std::vector<std::string> split_privs(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    auto c = s.find(", ", at);
    out.push_back(s.substr(at, c == std::string::npos ? std::string::npos : c - at));
    if (c == std::string::npos) break;
    at = c + 2;
  }
  return out;
}

// The roles `user` holds on `s` (and would with `extra` granted too), inherited ones and PUBLIC
// counted, as StarRocks counts them for its cap.
std::size_t roles_of(const Sim& s, const std::string& user, const std::string* extra = nullptr) {
  std::set<std::string> seen;
  std::function<void(const std::string&)> take = [&](const std::string& r) {
    if (!seen.insert(r).second) return;
    auto it = s.roles.find(r);
    if (it != s.roles.end())
      for (auto& p : it->second.roles) take(p);
  };
  for (auto& [n, r] : s.roles)
    if (r.members.count(user)) take(n);
  if (extra) take(*extra);
  return seen.size() + 1;  // PUBLIC
}

// Applies one statement; returns false when StarRocks would refuse it for the role cap.
bool apply(Sim& s, const Statement& st, std::size_t cap, std::string* why) {
  const std::string& q = st.sql;
  auto toks = tokenize(q);
  auto closure = [&](const std::string& user, const std::string* extra) { return roles_of(s, user, extra); };
  if (q.rfind("CREATE ROLE", 0) == 0) {
    s.roles[toks.back().text];
    return true;
  }
  if (q.rfind("DROP ROLE", 0) == 0) {
    const std::string n = toks.back().text;
    s.roles.erase(n);
    for (auto& [x, r] : s.roles) r.roles.erase(n);
    return true;
  }
  const bool grant = toks[0].text == "GRANT";
  if (toks[1].kind == Token::Kind::Ident) {  // role statement
    const std::string role = toks[1].text;
    if (toks[3].text == "ROLE") {
      if (grant)
        s.roles[toks[4].text].roles.insert(role);
      else
        s.roles[toks[4].text].roles.erase(role);
      return true;
    }
    if (toks[3].text == "USER") {
      const std::string user = toks[4].text;
      if (grant) {
        const std::size_t n = closure(user, &role);
        if (n > cap) {
          if (why) *why = user + " would hold " + std::to_string(n) + " roles > " + std::to_string(cap) + ": " + q;
          return false;
        }
        s.roles[role].members.insert(user);
      } else {
        s.roles[role].members.erase(user);
      }
      return true;
    }
    FAIL("unknown role statement " << q);
  }
  if (toks[0].text == "GRANT" || toks[0].text == "REVOKE") {
    const auto on = q.find(" ON ");
    const std::string privs = q.substr(toks[0].text.size() + 1, on - toks[0].text.size() - 1);
    const std::string sep = grant ? " TO ROLE " : " FROM ROLE ";
    const auto to = q.find(sep);
    REQUIRE(to != std::string::npos);
    std::string target = q.substr(on + 4, to - on - 4);
    const bool catalog_level = target.rfind("CATALOG ", 0) == 0;
    target = (catalog_level ? std::string() : st.catalog) + "|" + target;
    auto& role = s.roles[tokenize(q.substr(to + sep.size())).back().text];
    for (auto& p : split_privs(privs)) {
      if (grant)
        role.grants[target].insert(p);
      else
        role.grants[target].erase(p);
    }
    if (!grant && role.grants[target].empty()) role.grants.erase(target);
    return true;
  }
  return true;  // masks, policies: not simulated
}

using Eff = std::map<std::string, std::map<std::string, std::set<std::string>>>;
Eff eff(const Sim& s) {
  Eff out;
  std::function<void(std::map<std::string, std::set<std::string>>&, const std::string&, int)> give =
      [&](auto& to, const std::string& n, int depth) {
        auto it = s.roles.find(n);
        if (it == s.roles.end() || depth > 16) return;
        for (auto& [o, p] : it->second.grants) to[o].insert(p.begin(), p.end());
        for (auto& r : it->second.roles) give(to, r, depth + 1);
      };
  for (auto& [n, r] : s.roles)
    for (auto& u : r.members) give(out[u], n, 0);
  return out;
}

std::size_t max_roles(const Sim& s) {
  std::size_t most = 0;
  std::set<std::string> users;
  for (auto& [n, r] : s.roles) users.insert(r.members.begin(), r.members.end());
  for (auto& u : users) most = std::max(most, roles_of(s, u));
  return most;
}

Sim from_empty(const Plan& p) {
  Sim s;
  for (const auto& st : diff_statements(p, LiveState{})) REQUIRE(apply(s, st, SIZE_MAX, nullptr));
  return s;
}

struct Outcome {
  std::size_t widened = 0, refused = 0;
  bool converged = true;
  std::string first_refusal, first_widening;
};

// Applies diff(next, old.desired) from old's state: checks each prefix, counts refusals at `server_cap`.
Outcome transition(const Plan& old, const Plan& next, std::size_t server_cap, const LiveState* base = nullptr) {
  Sim s = from_empty(old);
  const Eff a = eff(s), b = eff(from_empty(next));
  LiveState live = base ? *base : LiveState{};
  live.owned = old.desired;
  Outcome o;
  for (const auto& st : diff_statements(next, live)) {
    std::string why;
    if (!apply(s, st, server_cap, &why)) {
      ++o.refused;
      if (o.first_refusal.empty()) o.first_refusal = why;
      continue;  // apply_plan: a refused widening is reported, the run goes on
    }
    for (auto& [u, objs] : eff(s)) {
      for (auto& [obj, privs] : objs) {
        for (auto& p : privs) {
          bool ok = false;
          if (auto x = a.find(u); x != a.end())
            if (auto y = x->second.find(obj); y != x->second.end()) ok = ok || y->second.count(p);
          if (auto x = b.find(u); x != b.end())
            if (auto y = x->second.find(obj); y != x->second.end()) ok = ok || y->second.count(p);
          if (!ok) {
            ++o.widened;
            if (o.first_widening.empty()) o.first_widening = u + " " + obj + " " + p + " after " + st.sql;
          }
        }
      }
    }
  }
  o.converged = eff(s) == b;
  return o;
}

// Twins: users 2p and 2p+1 get the same random grants (atoms of two); `extra` gives user 0 one more table.
tw::PolicySet twins(unsigned seed, int pairs, int tables, bool extra, bool external = false) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> access(2 * pairs, std::vector<int>(tables + 1, 0));
  for (int t = 0; t < tables; ++t) {
    for (int p = 0; p < pairs; ++p) {
      if (rng() % 2) continue;
      const int v = rng() % 4 == 0 ? 2 : 1;
      access[2 * p][t] = access[2 * p + 1][t] = v;
    }
  }
  if (extra) access[0][tables] = 1;
  return matrix_policy_set(access, external);
}

// Random grants where users come in groups sharing most grants; `flip` flips some single-user grants.
tw::PolicySet mutated(unsigned seed, int users, int tables, unsigned flip_seed, int flips, bool external) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> have(users, std::vector<int>(tables, 0));
  for (int t = 0; t < tables; ++t)
    for (int g = 0; g < users; g += 3) {
      int v = rng() % 3;  // 0 none, 1 select, 2 select+insert
      for (int u = g; u < std::min(users, g + 3); ++u) have[u][t] = v;
    }
  std::mt19937 f(flip_seed);
  for (int i = 0; i < flips; ++i) {
    int u = f() % users, t = f() % tables;
    have[u][t] = (have[u][t] + 1 + f() % 2) % 3;
  }
  return matrix_policy_set(have, external);
}

// Applies diff(next, old) on a server with `server_cap`: never wider than old or next, no membership
// refused, and the server ends holding next.
void check_transition(const Plan& old, const Plan& next, std::size_t server_cap) {
  const Outcome o = transition(old, next, server_cap);
  INFO(o.first_refusal);
  INFO(o.first_widening);
  CHECK(o.widened == 0);
  CHECK(o.refused == 0);
  CHECK(o.converged);
}
}  // namespace

TEST_CASE("starrocks apply across caps on one PolicySet: never wider, never refused, converged") {
  for (unsigned seed = 0; seed < 2; ++seed) {
    for (bool ext : {false, true}) {
      const auto ps = twins(seed, 6, 50, false, ext);
      const std::vector<std::size_t> caps = {1000000, 2, 3, 5, 64};
      for (auto c1 : caps) {
        for (auto c2 : caps) {
          if (c1 == c2) continue;
          const Plan a = plan_ok(ps, {Dialect::StarRocks, {}, c1});
          const Plan b = plan_ok(ps, {Dialect::StarRocks, {}, c2});
          INFO("seed " << seed << " external " << ext << " cap " << c1 << " -> " << c2);
          CHECK(max_roles(from_empty(b)) <= c2);
          check_transition(a, b, std::max(c1, c2));  // a server whose cap allows both plans' memberships
        }
      }
    }
  }
}

TEST_CASE("starrocks apply: a user moving to another atom role at the cap leaves the old one while tightening") {
  // Pairs of users with the same grants on 300 tables (atoms of two, over the cap); u0 gets one
  // table more, so u1 and u0 each move to a new atom role. At a cap of 3 an atom inherits one holder
  // role and holds the others' grants: a user holds exactly 3 roles. Kept in the old role until
  // cleanup, u1 would hold both when widen grants the new one: 4 roles or more, refused, and then
  // none at all.
  const auto before = twins(1, 10, 300, false), after = twins(1, 10, 300, true);
  const Plan a = plan_ok(before, {Dialect::StarRocks, {}, 3});
  const Plan b = plan_ok(after, {Dialect::StarRocks, {}, 3});
  REQUIRE(max_roles(from_empty(a)) == 3);
  check_transition(a, b, 3);
  LiveState live;
  live.owned = a.desired;
  bool left_while_tightening = false;
  for (const auto& st : diff_statements(b, live)) {
    if (st.phase == Phase::Tighten && st.sql.rfind("REVOKE `", 0) == 0 && st.sql.find("'u1'") != std::string::npos)
      left_while_tightening = true;
  }
  CHECK(left_while_tightening);
  // With room for both roles (a raised server), u1 keeps the old role until cleanup, as before.
  const Plan roomy = plan_ok(after, {Dialect::StarRocks, {}, 1000000});
  const Plan roomy_before = plan_ok(before, {Dialect::StarRocks, {}, 1000000});
  live.owned = roomy_before.desired;
  for (const auto& st : diff_statements(roomy, live)) {
    if (st.phase == Phase::Tighten) CHECK(st.sql.find("'u1'") == std::string::npos);
  }
}

TEST_CASE("starrocks apply: random policy changes across caps are never refused nor wider") {
  for (unsigned seed = 0; seed < 3; ++seed) {
    const bool ext = seed % 2;
    const auto base = mutated(seed, 12, 60, 0, 0, ext);
    for (unsigned fs = 1; fs <= 3; ++fs) {
      const auto next = mutated(seed, 12, 60, fs, 1 + fs * 2, ext);
      for (std::size_t c1 : {3, 6, 1000000}) {
        for (std::size_t c2 : {3, 6, 1000000}) {
          const Plan a = plan_ok(base, {Dialect::StarRocks, {}, c1});
          const Plan b = plan_ok(next, {Dialect::StarRocks, {}, c2});
          for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
            INFO("seed " << seed << " flips " << fs << " caps " << c1 << "/" << c2);
            check_transition(*x, *y, std::max(c1, c2));
          }
        }
      }
    }
  }
}

TEST_CASE("starrocks apply: users moving between groups over the cap, with bundle roles, are never refused nor wider") {
  for (unsigned seed = 0; seed < 2; ++seed) {
    const bool ext = seed % 2;
    const auto base = matrix_policy_set(grouped_access(seed, 24, 8, 80), ext);
    for (int moved : {1, 4}) {
      const auto next = matrix_policy_set(grouped_access(seed, 24, 8, 80, moved), ext);
      for (std::size_t c1 : {8, 1000000}) {
        for (std::size_t c2 : {8, 14}) {
          const Plan a = plan_ok(base, {Dialect::StarRocks, {}, c1});
          const Plan b = plan_ok(next, {Dialect::StarRocks, {}, c2});
          CHECK_FALSE(bundle_roles(b, plan_ok(next, {Dialect::StarRocks, {}, 1000000})).empty());
          for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
            INFO("seed " << seed << " moved " << moved << " caps " << c1 << "/" << c2);
            check_transition(*x, *y, std::max(c1, c2));
          }
        }
      }
    }
  }
}

TEST_CASE("starrocks apply: the rebuild around a foreign mask fits the cap and is never refused nor wider") {
  const tw::PolicySet ps = demo_policy_set("starrocks_main");
  for (std::size_t c1 : {2, 3, 4, 1000000}) {
    for (std::size_t c2 : {2, 3, 4, 1000000}) {
      const Plan a = plan_ok(ps, {Dialect::StarRocks, {true, true}, c1});
      const Plan b = plan_ok(ps, {Dialect::StarRocks, {true, true}, c2});
      REQUIRE_FALSE(b.desired.attachments.empty());
      for (const auto& [column, policy] : b.desired.attachments) {
        LiveState foreign;
        foreign.foreign_masks.insert(column);
        Sim target;
        for (const auto& st : diff_statements(b, foreign)) REQUIRE(apply(target, st, SIZE_MAX, nullptr));
        INFO("caps " << c1 << " -> " << c2 << ", foreign mask on " << column.first.str() << "." << column.second);
        CHECK(max_roles(target) <= c2);
        Sim s = from_empty(a);
        const Eff ea = eff(s), eb = eff(target);
        LiveState live = foreign;
        live.owned = a.desired;
        std::size_t widened = 0, refused = 0;
        for (const auto& st : diff_statements(b, live)) {
          if (!apply(s, st, std::max(c1, c2), nullptr)) {
            ++refused;
            continue;
          }
          for (auto& [u, objects] : eff(s)) {
            for (auto& [object, privileges] : objects) {
              for (auto& p : privileges) {
                const bool ok = (ea.count(u) && ea.at(u).count(object) && ea.at(u).at(object).count(p)) ||
                                (eb.count(u) && eb.at(u).count(object) && eb.at(u).at(object).count(p));
                if (!ok) ++widened;
              }
            }
          }
        }
        CHECK(widened == 0);
        CHECK(refused == 0);
      }
    }
  }
}

TEST_CASE("starrocks apply: a user moving from a holder role to an atom role inheriting it keeps it until cleanup") {
  // u0 reads t0 alone (a member of the holder role of t0); then u0 also reads t1 with u1, so u0's
  // atom role inherits both holder roles. u0 reads t0 before and after: leaving t0's holder role
  // while tightening took that read away until widen granted the atom (docs/starrocks.md).
  const auto before = matrix_policy_set({{1, 0}, {0, 1}}), after = matrix_policy_set({{1, 1}, {0, 1}});
  const Plan a = plan_ok(before, {Dialect::StarRocks, {}, 1000000});
  const Plan b = plan_ok(after, {Dialect::StarRocks, {}, 1000000});
  check_transition(a, b, 1000000);
  LiveState live;
  live.owned = a.desired;
  bool revoked_in_cleanup = false;
  for (const auto& st : diff_statements(b, live)) {
    INFO(st.sql);
    if (st.sql.rfind("REVOKE `", 0) != 0 || st.sql.find("'u0'") == std::string::npos) continue;
    CHECK(st.phase == Phase::Cleanup);
    revoked_in_cleanup = true;
  }
  CHECK(revoked_in_cleanup);
}
