// A StarRocks finding names how many distinct engine users some access classes hold, and the first
// 20 by name. UserSets counts them on a bitmap of users when each user has an engine name of their
// own and the lists are long, else by marking ranks: both must give what counting the names gives.

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engines/starrocks/user_sets.h"
#include "tagwarden/util/text.h"

namespace {

tw::PolicySet users_named(const std::vector<std::string>& engine_names) {
  tw::PolicySet ps;
  for (std::size_t i = 0; i < engine_names.size(); ++i)
    ps.users.push_back({"platform" + std::to_string(i), engine_names[i]});
  return ps;
}

// What the finding says, from the names themselves.
std::pair<std::size_t, std::string> expected(const tw::PolicySet& ps,
                                             const std::vector<std::vector<std::size_t>>& lists) {
  std::set<std::string> names;
  for (const auto& l : lists)
    for (std::size_t u : l) names.insert(ps.users[u].engine_name);
  std::vector<std::string> words;
  for (const auto& n : names) {
    if (words.size() == 20) break;
    words.push_back(n);
  }
  if (names.size() > 20) words.push_back(std::to_string(names.size() - 20) + " more");
  return {names.size(), tw::join_words(words)};
}

void check_counts(const std::vector<std::string>& engine_names, std::mt19937& rng) {
  const tw::PolicySet ps = users_named(engine_names);
  tw::starrocks::UserSets sets(ps, nullptr);
  std::vector<tw::starrocks::UserSets::Lists> alive;  // counts are keyed by list address, as in a render
  for (int round = 0; round < 200; ++round) {
    std::vector<std::vector<std::size_t>> lists(1 + rng() % 4);
    tw::starrocks::UserSets::Lists ptrs;
    for (auto& l : lists) {
      // From a few users to nearly all of them, so both ways of counting are taken.
      const std::size_t per_mille = std::vector<std::size_t>{2, 20, 200, 900}[rng() % 4];
      for (std::size_t u = 0; u < ps.users.size(); ++u) {
        if (rng() % 1000 < per_mille) l.push_back(u);
      }
      ptrs.push_back(std::make_shared<const tw::UserList>(tw::UserList::of_indices(l)));
    }
    const auto [count, some] = expected(ps, lists);
    alive.push_back(ptrs);
    const auto& got = sets.user_count(ptrs);
    CHECK(got.count == count);
    CHECK(got.some == some);
  }
}

}  // namespace

TEST_CASE("starrocks user counts: distinct engine names and the first 20 by name", "[starrocks][user_count]") {
  std::mt19937 rng(20261205);
  std::vector<std::string> names;
  for (int i = 0; i < 700; ++i) names.push_back("user" + std::to_string((i * 7919) % 1000));
  SECTION("one engine name per user") { check_counts(names, rng); }
  SECTION("several platform users mapped to one engine name") {
    for (std::size_t i = 0; i < names.size(); i += 3) names[i] = names[(i * 31) % names.size()];
    check_counts(names, rng);
  }
}
