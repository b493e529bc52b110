// A class's users are grouped by policy key, in order of each key's first user. Long lists are
// grouped on bitmaps of each key's users, short ones by a pass over the list: both must give the
// groups the pass gives.

#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "compile/policy_judgements.h"
#include "helpers.h"

namespace {

const char* kEmpty = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users: []
roles: []
role_assignments: []
classifications: []
objects: []
grants: []
policies: []
)yaml";

}  // namespace

TEST_CASE("policy groups: keys in order of first appearance, long lists and short", "[policy_groups]") {
  auto m = twtest::model_of(kEmpty);  // groups_of reads only the keys
  std::mt19937 rng(5122026);
  for (const std::size_t key_count : {1, 3, 9}) {
    tw::PolicyKeys keys;
    const std::size_t users = 3000;
    for (std::size_t k = 0; k < key_count; ++k) keys.text.push_back("key" + std::to_string(k));
    // Skewed: most users share the first keys, a few hold the last ones.
    for (std::size_t u = 0; u < users; ++u) keys.of_user.push_back(std::min<std::size_t>(rng() % 16, key_count - 1));
    tw::PolicyJudgements judgements(*m, keys);
    for (int round = 0; round < 60; ++round) {
      const std::size_t per_mille = std::vector<std::size_t>{1, 30, 300, 1000}[rng() % 4];
      std::vector<std::size_t> members;
      for (std::size_t u = 0; u < users; ++u) {
        if (rng() % 1000 < per_mille) members.push_back(u);
      }
      auto list = std::make_shared<const tw::UserList>(tw::UserList::of_indices(members));
      std::vector<std::size_t> want_keys, want_first;
      for (std::size_t u : members) {
        if (std::find(want_keys.begin(), want_keys.end(), keys.of_user[u]) != want_keys.end()) continue;
        want_keys.push_back(keys.of_user[u]);
        want_first.push_back(u);
      }
      const tw::PolicyGroups& got = judgements.groups_of(list);
      CHECK(got.keys == want_keys);
      CHECK(got.first == want_first);
    }
  }
}
