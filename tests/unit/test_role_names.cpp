// The roles a StarRocks role inherits: a sorted set of names, shared with other sets when added
// as shared names, compared and searched by value.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tagwarden/engines/starrocks/role_names.h"

using tw::starrocks::RoleNames;

namespace {
std::vector<std::string> listed(const RoleNames& names) { return {names.begin(), names.end()}; }
}  // namespace

TEST_CASE("role names stay sorted and distinct whatever order they come in", "[starrocks][role_names]") {
  RoleNames names;
  CHECK(names.insert(std::string("tw_r2")));
  CHECK(names.insert(std::string("tw_r0")));
  CHECK(names.insert(std::string("tw_r9")));
  CHECK(names.insert(std::string("tw_r1")));
  CHECK_FALSE(names.insert(std::string("tw_r0")));
  CHECK_FALSE(names.insert(std::make_shared<const std::string>("tw_r9")));
  CHECK(listed(names) == std::vector<std::string>{"tw_r0", "tw_r1", "tw_r2", "tw_r9"});
  CHECK(names.size() == 4);
  CHECK(names.contains("tw_r1"));
  CHECK_FALSE(names.contains("tw_r3"));
  CHECK(names.count("tw_r2") == 1);
  CHECK(names.find("tw_r3") == names.end());
  CHECK(*names.find("tw_r2") == "tw_r2");
  CHECK(names.erase("tw_r1") == 1);
  CHECK(names.erase("tw_r1") == 0);
  CHECK(listed(names) == std::vector<std::string>{"tw_r0", "tw_r2", "tw_r9"});
  CHECK(names == RoleNames{"tw_r9", "tw_r2", "tw_r0"});
  CHECK_FALSE(names == RoleNames{"tw_r0", "tw_r2"});
  CHECK_FALSE(names == RoleNames{"tw_r0", "tw_r2", "tw_r8"});
  names.clear();
  CHECK(names.empty());
}

TEST_CASE("role names added as shared names share their strings", "[starrocks][role_names]") {
  const auto holder = std::make_shared<const std::string>("tw_c45c3f69_r05da898bdd458c14");
  RoleNames a, b;
  a.insert(holder);
  b.insert(holder);
  CHECK(&*a.begin() == holder.get());
  CHECK(&*b.begin() == holder.get());
  CHECK(a == b);
  RoleNames copy = a;
  CHECK(&*copy.begin() == holder.get());
}
