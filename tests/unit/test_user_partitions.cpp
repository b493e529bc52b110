// Users split by grants and clearance (compile/user_partitions.h) must be exactly the split a
// lookup per user gives: the partitions work on bitmaps of users, 64 to a word, so the random
// worlds here have user counts that end inside a word and tag sets from none to many.

#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "compile/user_partitions.h"
#include "helpers.h"

namespace {

using nlohmann::json;

json random_world(twtest::Dice& d, std::size_t users, std::size_t roles, std::size_t tags) {
  json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"objects", json::array()}};
  for (std::size_t u = 0; u < users; ++u) s["users"].push_back({{"name", "user" + std::to_string(u)}});
  for (std::size_t r = 0; r < roles; ++r) s["roles"].push_back("role" + std::to_string(r));
  s["role_assignments"] = json::array();
  std::set<std::pair<std::size_t, std::size_t>> seen;
  // Some roles held by almost everybody, some by a few: both kinds of split.
  for (std::size_t r = 0; r < roles; ++r) {
    const double share = d.coin(0.3) ? 0.9 : d.coin() ? 0.3 : 0.02;
    for (std::size_t u = 0; u < users; ++u) {
      if (!d.coin(share) || !seen.insert({r, u}).second) continue;
      json a = {{"role", "role" + std::to_string(r)}, {"user", "user" + std::to_string(u)}};
      if (d.coin(0.05)) a["expires_at"] = "2026-11-01T00:00:00Z";  // expired: not cleared
      s["role_assignments"].push_back(a);
    }
  }
  for (std::size_t t = 0; t < tags; ++t) {
    json c = {{"name", "tag" + std::to_string(t)}, {"level", 1}};
    c["clearance"] = json::array();
    std::set<std::size_t> clearing;  // none: a tag no role clears
    for (std::size_t rows = d.pick(3); rows > 0; --rows) clearing.insert(d.pick(roles));
    for (std::size_t r : clearing) c["clearance"].push_back({{"type", "role"}, {"name", "role" + std::to_string(r)}});
    s["classifications"].push_back(c);
  }
  return s;
}

struct Expected {
  tw::PrivilegeSet granted;
  std::vector<bool> cleared;
  std::vector<std::size_t> users;
};

// What a lookup per user gives: holders grouped by the union of their privileges, in
// privilege order, each group by its clearance flags for `tags`, in flag order.
std::vector<Expected> split_per_user(const tw::Model& m, const std::vector<tw::EngineGrant>& grants,
                                     const std::vector<std::size_t>& covering, const std::vector<std::size_t>& tags) {
  std::map<std::uint8_t, std::map<std::vector<bool>, std::vector<std::size_t>>> groups;
  for (std::size_t u = 0; u < m.snapshot->users.size(); ++u) {
    tw::PrivilegeSet privileges;
    for (std::size_t g : covering) {
      const auto& holders = grants[g].holders;
      if (std::find(holders.begin(), holders.end(), u) != holders.end()) privileges.add(grants[g].privileges);
    }
    if (privileges.empty()) continue;
    std::vector<bool> flags;
    for (std::size_t t : tags) flags.push_back(m.is_cleared(u, t));
    groups[privileges.bits()][flags].push_back(u);
  }
  std::vector<Expected> out;
  for (auto& [bits, by_flags] : groups) {
    for (auto& [flags, users] : by_flags) out.push_back({tw::PrivilegeSet(bits), flags, users});
  }
  return out;
}

}  // namespace

TEST_CASE("users split by clearance on bitmaps are split as a lookup per user splits them", "[partitions]") {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    twtest::Dice d(seed);
    const std::size_t users = 1 + d.pick(200);  // one word, several, and a last word part full
    const std::size_t roles = 2 + d.pick(8);
    const std::size_t tag_count = 1 + d.pick(80);  // over 64 tags too
    const auto model = twtest::model_of(random_world(d, users, roles, tag_count).dump());
    const tw::Model& m = *model;

    std::vector<tw::EngineGrant> grants;
    for (std::size_t g = 0; g < 6; ++g) {
      std::vector<std::size_t> holders;
      for (std::size_t u = 0; u < users; ++u) {
        if (d.coin(g == 0 ? 0.95 : 0.4)) holders.push_back(u);
      }
      grants.push_back(
          {{"cat", "s", "t" + std::to_string(g)}, holders, tw::PrivilegeSet(std::uint8_t(1 + d.pick(31)))});
    }
    tw::UserLists lists;
    tw::UserPartitions partitions(m, grants, lists);
    for (int ask = 0; ask < 25; ++ask) {
      std::vector<std::size_t> covering;
      for (std::size_t g = 0; g < grants.size(); ++g) {
        if (d.coin(0.4)) covering.push_back(g);
      }
      std::set<std::size_t> tag_set;
      for (std::size_t n = d.coin(0.1) ? tag_count : d.pick(6); n > 0; --n) tag_set.insert(d.pick(tag_count));
      const std::vector<std::size_t> tags(tag_set.begin(), tag_set.end());
      INFO("seed " << seed << ", ask " << ask << ": " << users << " users, " << tags.size() << " tags");

      const tw::GrantPartition& by_grants = partitions.by_grants(covering);
      const tw::ClearancePartition& split = partitions.by_clearance(by_grants, tags);
      const std::vector<Expected> expected = split_per_user(m, grants, covering, tags);
      REQUIRE(split.size() == expected.size());
      for (std::size_t i = 0; i < split.size(); ++i) {
        CHECK(split[i].granted == expected[i].granted);
        CHECK(split[i].cleared == expected[i].cleared);
        CHECK(split[i].users->indices() == expected[i].users);
      }
      // Asked again, the same partition (shared, not made again).
      CHECK(&partitions.by_clearance(by_grants, tags) == &split);
    }
  }
}
