#pragma once
// Shared helpers for the unit tests (header only: tests/unit/*.cpp are globbed).

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/model/load.h"

namespace twtest {

inline std::string join_errors(const std::vector<tw::ValidationError>& errors) {
  std::string all;
  for (const auto& e : errors) all += e.str() + "\n";
  return all;
}

inline std::vector<std::string> error_strings(const std::vector<tw::ValidationError>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.str());
  return out;
}

/// Every field of two snapshots read from texts that mean the same.
inline void same_snapshot(const tw::Snapshot& a, const tw::Snapshot& b) {
  CHECK(a.version == b.version);
  CHECK(a.generated_at == b.generated_at);
  CHECK(a.users == b.users);
  CHECK(a.roles == b.roles);
  CHECK(a.role_assignments == b.role_assignments);
  CHECK(a.classifications == b.classifications);
  CHECK(a.objects == b.objects);
  CHECK(a.grants == b.grants);
  CHECK(a.policies == b.policies);
}

/// Seeded choices for tests that generate snapshots and changes.
struct Dice {
  std::mt19937 rng;
  explicit Dice(unsigned seed) : rng(seed) {}
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng); }
};

/// Parses a snapshot that must be valid; fails the test with every error otherwise.
inline std::shared_ptr<const tw::Snapshot> must_parse(const std::string& text) {
  tw::SnapshotLoad r = tw::parse_snapshot(text);
  INFO(join_errors(r.errors));
  REQUIRE(r.errors.empty());
  REQUIRE(r.snapshot.has_value());
  return std::make_shared<const tw::Snapshot>(std::move(*r.snapshot));
}

/// The errors of a snapshot that must be invalid.
inline std::vector<std::string> must_fail(const std::string& text) {
  tw::SnapshotLoad r = tw::parse_snapshot(text);
  REQUIRE_FALSE(r.snapshot.has_value());
  REQUIRE_FALSE(r.errors.empty());
  return error_strings(r.errors);
}

inline std::shared_ptr<const tw::Model> model_of(const std::string& text,
                                                 std::optional<tw::Timestamp> now = std::nullopt) {
  return tw::build_model(must_parse(text), now);
}

inline tw::Profile trino_profile(std::vector<std::string> catalogs, std::string name = "trino_main") {
  tw::Profile p;
  p.name = std::move(name);
  p.engine = tw::Engine::Trino;
  p.catalogs = std::move(catalogs);
  return p;
}

/// Compiles a profile that must compile without errors.
inline tw::PolicySet must_compile(const tw::Model& m, const tw::Profile& p) {
  tw::ProfileCompile pc = tw::compile_profile(m, p);
  std::string all;
  for (const auto& e : pc.errors) all += e + "\n";
  INFO(all);
  REQUIRE(pc.errors.empty());
  REQUIRE(pc.policy_set.has_value());
  return std::move(*pc.policy_set);
}

inline const tw::ObjectPolicy* find_object(const tw::PolicySet& ps, const std::string& engine_name) {
  for (const auto& op : ps.objects) {
    if (op.engine_name.str() == engine_name) return &op;
  }
  return nullptr;
}

inline const tw::ObjectPolicy& object(const tw::PolicySet& ps, const std::string& engine_name) {
  const tw::ObjectPolicy* op = find_object(ps, engine_name);
  INFO("object " << engine_name);
  REQUIRE(op != nullptr);
  return *op;
}

inline std::size_t user_index(const tw::Model& m, const std::string& name) {
  INFO("user " << name);
  REQUIRE(m.user_index.count(name) == 1);
  return m.user_index.at(name);
}

inline const tw::AccessClass* find_access(const tw::ObjectPolicy& op, std::size_t user) { return op.class_of(user); }

/// Privileges after gates as names ("SELECT", ...); empty when the user holds no grant on it.
inline std::vector<std::string> privs(const tw::ObjectPolicy& op, std::size_t user) {
  const tw::AccessClass* ua = find_access(op, user);
  return ua ? ua->access.privileges.names() : std::vector<std::string>{};
}

inline std::vector<std::string> denied_columns(const tw::ObjectPolicy& op, std::size_t user) {
  const tw::AccessClass* ua = find_access(op, user);
  return ua ? ua->access.denied_columns : std::vector<std::string>{};
}

inline std::vector<std::string> granted(const tw::ObjectPolicy& op, std::size_t user) {
  const tw::AccessClass* ua = find_access(op, user);
  return ua ? ua->granted.names() : std::vector<std::string>{};
}

using Names = std::vector<std::string>;

}  // namespace twtest
