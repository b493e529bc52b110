#pragma once
// Helpers shared by the StarRocks unit tests (tests/unit/test_starrocks*.cpp)
// and the MariaDB integration tests. Header only.

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/model/load.h"

namespace srtest {

using tw::starrocks::Securable;

inline std::string source_path(const std::string& rel) { return std::string(TAGWARDEN_SOURCE_DIR) + "/" + rel; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline tw::Profile profile_from(const std::string& config_path, const std::string& name) {
  tw::ConfigLoad c = tw::load_config_file(config_path);
  REQUIRE(c.errors.empty());
  for (const auto& p : c.config->profiles) {
    if (p.name == name) return p;
  }
  FAIL("no profile " << name << " in " << config_path);
  return {};
}

inline std::shared_ptr<const tw::Model> model_from_file(const std::string& snapshot_path) {
  tw::SnapshotLoad s = tw::load_snapshot_file(snapshot_path);
  REQUIRE(s.errors.empty());
  return tw::build_model(std::make_shared<const tw::Snapshot>(std::move(*s.snapshot)), std::nullopt);
}

inline std::shared_ptr<const tw::Model> model_from_text(const std::string& text) {
  tw::SnapshotLoad s = tw::parse_snapshot(text);
  std::string all;
  for (const auto& e : s.errors) all += e.str() + "\n";
  INFO(all);
  REQUIRE(s.errors.empty());
  return tw::build_model(std::make_shared<const tw::Snapshot>(std::move(*s.snapshot)), std::nullopt);
}

inline tw::PolicySet compile_ok(const tw::Model& m, const tw::Profile& p) {
  tw::ProfileCompile pc = tw::compile_profile(m, p);
  std::string all;
  for (const auto& e : pc.errors) all += e + "\n";
  INFO(all);
  REQUIRE(pc.errors.empty());
  return std::move(*pc.policy_set);
}

inline tw::PolicySet demo_policy_set(const std::string& profile = "starrocks_main") {
  auto m = model_from_file(source_path("examples/demo/snapshot.yaml"));
  return compile_ok(*m, profile_from(source_path("examples/demo/starrocks-profiles.yaml"), profile));
}

/// Users u0, u1, ... given grants on the tables c.s.t0, c.s.t1, ... by a matrix: access[u][t] is 0
/// (nothing), 1 (SELECT) or 2 (SELECT and INSERT). Compiled for a StarRocks profile "capped" over
/// catalog c (StarRocks' internal catalog, or an external one), withhold_writes off.
inline tw::PolicySet matrix_policy_set(const std::vector<std::vector<int>>& access, bool external = false) {
  nlohmann::json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", nlohmann::json::array()}};
  const std::size_t tables = access.empty() ? 0 : access.front().size();
  for (std::size_t u = 0; u < access.size(); ++u) s["users"].push_back({{"name", "u" + std::to_string(u)}});
  for (std::size_t t = 0; t < tables; ++t) {
    const std::string object = "c.s.t" + std::to_string(t);
    s["objects"].push_back({{"name", object}, {"columns", {{{"name", "id"}, {"type", "bigint"}}}}});
    for (std::size_t u = 0; u < access.size(); ++u) {
      if (!access[u][t]) continue;
      nlohmann::json privileges = {"SELECT"};
      if (access[u][t] == 2) privileges.push_back("INSERT");
      s["grants"].push_back(
          {{"principal", {{"user", "u" + std::to_string(u)}}}, {"object", object}, {"privileges", privileges}});
    }
  }
  tw::Profile p;
  p.name = "capped";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"c"};
  if (!external) p.catalog_map = {{"c", "default_catalog"}};
  p.withhold_writes = false;
  auto m = model_from_text(s.dump());
  return compile_ok(*m, p);
}

/// An access matrix for matrix_policy_set: users in 1-3 random groups, each table read (1) or read
/// and written (2) by the users of 1-3 random groups. Users of the same groups need the same many
/// holder roles, as users of the same teams do. `moved` users (u0, u1, ...) are put in other groups.
inline std::vector<std::vector<int>> grouped_access(unsigned seed, int users, int groups, int tables, int moved = 0) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> in_group(users, std::vector<int>(groups, 0));
  for (auto& g : in_group) {
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) g[rng() % groups] = 1;
  }
  std::vector<std::vector<int>> access(users, std::vector<int>(tables, 0));
  std::vector<std::vector<int>> readers(tables, std::vector<int>(groups, 0));
  std::vector<int> privileges(tables);
  for (int t = 0; t < tables; ++t) {
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) readers[t][rng() % groups] = 1;
    privileges[t] = rng() % 5 == 0 ? 2 : 1;
  }
  for (int u = 0; u < moved && u < users; ++u) {
    in_group[u].assign(groups, 0);
    in_group[u][rng() % groups] = in_group[u][rng() % groups] = 1;
  }
  for (int t = 0; t < tables; ++t)
    for (int u = 0; u < users; ++u)
      for (int g = 0; g < groups; ++g)
        if (in_group[u][g] && readers[t][g]) access[u][t] = privileges[t];
  return access;
}

/// The bundle roles of `capped`: the roles `open` (the same PolicySet with the cap raised) does not
/// have. Holder and atom role names depend on their users only, so both plans share them.
inline std::set<std::string> bundle_roles(const tw::starrocks::Plan& capped, const tw::starrocks::Plan& open) {
  std::set<std::string> out;
  for (const auto& [name, role] : capped.desired.roles)
    if (!open.desired.roles.count(name)) out.insert(name);
  return out;
}

inline tw::starrocks::Plan plan_ok(const tw::PolicySet& ps, tw::starrocks::PlanOptions o = {}) {
  auto r = tw::starrocks::render_plan(ps, o);
  std::string all;
  for (const auto& e : r.errors) all += e + "\n";
  INFO(all);
  REQUIRE(r.plan.has_value());
  return std::move(*r.plan);
}

using Effective = std::map<std::string, std::map<Securable, std::set<std::string>>>;

/// What each user holds through the roles of an owned state.
inline Effective effective(const tw::starrocks::OwnedState& s) {
  Effective out;
  // A role gives its grants and those of the roles it inherits (transitively).
  std::function<void(std::map<Securable, std::set<std::string>>&, const std::string&, int)> give =
      [&](std::map<Securable, std::set<std::string>>& to, const std::string& name, int depth) {
        auto it = s.roles.find(name);
        if (it == s.roles.end() || depth > 16) return;
        for (const auto& [on, privs] : it->second.grants) to[on].insert(privs.begin(), privs.end());
        for (const auto& p : it->second.roles) give(to, p, depth + 1);
      };
  for (const auto& [name, role] : s.roles) {
    for (const auto& u : role.members) give(out[u], name, 0);
  }
  return out;
}

/// Only the grants on listed objects (drops catalog USAGE and database CREATE grants).
inline Effective on_objects(const Effective& e) {
  Effective out;
  for (const auto& [u, m] : e) {
    for (const auto& [on, privs] : m) {
      if (on.kind != Securable::Kind::Catalog && on.kind != Securable::Kind::Database && !privs.empty()) {
        out[u][on] = privs;
      }
    }
  }
  return out;
}

/// A token of MySQL/StarRocks SQL: a backticked identifier, a string literal (decoded) or bare text.
struct Token {
  enum class Kind { Ident, String, Bare } kind;
  std::string text;
  bool operator==(const Token&) const = default;
};

/// Splits SQL into tokens; fails the test on an unterminated quote.
inline std::vector<Token> tokenize(const std::string& sql) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == ' ' || c == '\n' || c == '\t') {
      ++i;
    } else if (c == '`') {
      std::string t;
      ++i;
      for (;;) {
        INFO(sql);
        REQUIRE(i < sql.size());
        if (sql[i] == '`') {
          if (i + 1 < sql.size() && sql[i + 1] == '`') {
            t += '`';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t += sql[i++];
      }
      out.push_back({Token::Kind::Ident, t});
    } else if (c == '\'') {
      std::string t;
      ++i;
      for (;;) {
        INFO(sql);
        REQUIRE(i < sql.size());
        if (sql[i] == '\\') {
          REQUIRE(i + 1 < sql.size());
          const char e = sql[i + 1];
          t += e == '0' ? '\0' : e;
          i += 2;
        } else if (sql[i] == '\'') {
          if (i + 1 < sql.size() && sql[i + 1] == '\'') {
            t += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        } else {
          t += sql[i++];
        }
      }
      out.push_back({Token::Kind::String, t});
    } else {
      std::string t;
      while (i < sql.size() && sql[i] != ' ' && sql[i] != '\n' && sql[i] != '\t' && sql[i] != '`' && sql[i] != '\'') {
        t += sql[i++];
      }
      out.push_back({Token::Kind::Bare, t});
    }
  }
  return out;
}

}  // namespace srtest
