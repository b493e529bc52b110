// User lists are kept once per content, whether asked for as a list or as a bitmap, short or long.

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

#include "compile/user_lists.h"

namespace {

tw::UserLists::Bits bits_of(const tw::UserLists::List& users, std::size_t n) {
  tw::UserLists::Bits bits((n + 63) / 64, 0);
  for (std::size_t u : users) bits[u / 64] |= std::uint64_t{1} << (u % 64);
  return bits;
}

}  // namespace

TEST_CASE("a user list is one list per content, asked for by users or by bitmap", "[user_lists]") {
  for (const std::size_t n : {0, 1, 63, 64, 65, 200, 1000}) {
    INFO(n << " users");
    tw::UserLists lists(n);
    std::mt19937 rng(static_cast<unsigned>(n) + 1);
    std::map<tw::UserLists::List, const tw::UserLists::List*> seen;
    for (int i = 0; i < 400; ++i) {
      // Every density: empty, a few users (kept by index), most users (kept by bitmap).
      const double p = std::uniform_real_distribution<double>(0, 1)(rng) * (i % 3 == 0 ? 0.05 : 1.0);
      tw::UserLists::List users;
      for (std::size_t u = 0; u < n; ++u)
        if (std::bernoulli_distribution(p)(rng)) users.push_back(u);
      if (i % 7 == 0 && !seen.empty()) users = seen.begin()->first;  // asked for again
      const auto by_list = lists.get(users);
      const auto by_bits = lists.of_bits(bits_of(users, n));
      REQUIRE(*by_list == users);
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
