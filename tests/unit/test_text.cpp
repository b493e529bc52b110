// join_some (util/text.h): bounded messages about many users.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tagwarden/util/text.h"

TEST_CASE("join_some names a few and counts the rest") {
  using tw::join_some;
  CHECK(join_some({}) == "");
  CHECK(join_some({"a"}) == "a");
  CHECK(join_some({"a", "b", "c"}, 3) == "a, b and c");
  CHECK(join_some({"a", "b", "c", "d"}, 2) == "a, b and 2 more");
  std::vector<std::string> many(5000, "u");
  const std::string text = join_some(many);
  CHECK(text.size() < 200);
  CHECK(text.substr(text.size() - 13) == "and 4980 more");
}
