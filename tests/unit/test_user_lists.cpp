// User lists are kept once per content, whether asked for as a list or as a bitmap, short or long.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

#include "compile/user_lists.h"

namespace {

tw::UserLists::Bits bits_of(const std::vector<std::size_t>& users, std::size_t n) {
  tw::UserLists::Bits bits((n + 63) / 64, 0);
  for (std::size_t u : users) bits[u / 64] |= std::uint64_t{1} << (u % 64);
  return bits;
}

}  // namespace

TEST_CASE("a user list is one list per content, asked for by users or by bitmap", "[user_lists]") {
  for (const std::size_t n : {0, 1, 63, 64, 65, 200, 1000}) {
    INFO(n << " users");
    tw::UserLists lists;
    std::mt19937 rng(static_cast<unsigned>(n) + 1);
    std::map<std::vector<std::size_t>, const tw::UserList*> seen;
    for (int i = 0; i < 400; ++i) {
      // Every density: empty, a few users (kept by index), most users (kept by bitmap).
      const double p = std::uniform_real_distribution<double>(0, 1)(rng) * (i % 3 == 0 ? 0.05 : 1.0);
      std::vector<std::size_t> users;
      for (std::size_t u = 0; u < n; ++u)
        if (std::bernoulli_distribution(p)(rng)) users.push_back(u);
      if (i % 7 == 0 && !seen.empty()) users = seen.begin()->first;  // asked for again
      const auto by_list = lists.get(users);
      const auto by_bits = lists.of_bits(bits_of(users, n));
      REQUIRE(by_list->indices() == users);
      REQUIRE(by_bits.get() == by_list.get());
      const auto [it, fresh] = seen.emplace(users, by_list.get());
      REQUIRE(it->second == by_list.get());  // the same content: the same list
      if (fresh) {
        for (const auto& [other, list] : seen) {
          if (other != users) REQUIRE(list != by_list.get());  // other content: another list
        }
      }
    }
  }
}

TEST_CASE("a user list holds its users in the smaller form and behaves as their sorted vector", "[user_lists]") {
  std::mt19937 rng(7);
  std::vector<std::vector<std::size_t>> samples = {{}, {0}, {63}, {64}, {0, 1, 2}, {5, 70, 200}};
  for (int i = 0; i < 300; ++i) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 700)(rng);
    const double p = std::uniform_real_distribution<double>(0, 1)(rng) * (i % 2 ? 0.04 : 1.0);
    std::vector<std::size_t> users;
    for (std::size_t u = 0; u < n; ++u)
      if (std::bernoulli_distribution(p)(rng)) users.push_back(u);
    samples.push_back(users);
  }
  std::vector<tw::UserList> lists;
  for (const auto& users : samples) {
    INFO(users.size() << " users");
    const tw::UserList l = tw::UserList::of_indices(users);
    const tw::UserList b = tw::UserList::of_bits(bits_of(users, users.empty() ? 0 : users.back() + 130));
    REQUIRE(l.indices() == users);
    REQUIRE(b.indices() == users);
    REQUIRE(l.size() == users.size());
    REQUIRE(l == b);
    REQUIRE(l.bytes() == b.bytes());
    // Never larger than 32-bit indices, and a bitmap once that is smaller.
    REQUIRE(l.bytes().size() <= users.size() * 4);
    if (!users.empty() && users.size() > 2 * (users.back() / 64 + 1))
      REQUIRE(l.bytes().size() == (users.back() / 64 + 1) * 8);
    const std::size_t top = users.empty() ? 10 : users.back() + 10;
    for (std::size_t u = 0; u < top; ++u) REQUIRE(l.contains(u) == std::binary_search(users.begin(), users.end(), u));
    lists.push_back(l);
  }
  // Ordered and compared as the vectors they replace: classes are sorted by their users.
  for (std::size_t i = 0; i < samples.size(); i += 7) {
    for (std::size_t j = 0; j < samples.size(); j += 5) {
      REQUIRE((lists[i] < lists[j]) == (samples[i] < samples[j]));
      REQUIRE((lists[i] == lists[j]) == (samples[i] == samples[j]));
    }
  }
}
