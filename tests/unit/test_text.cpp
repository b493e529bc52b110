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

TEST_CASE("one_line keeps a snapshot's key from forging the next error line", "[bug]") {
  // An unknown key "x\nerror: fake" was printed as two "error:" lines.
  using tw::one_line;
  CHECK(one_line("x: unknown key \"x\nerror: fake\"") == "x: unknown key \"x\\u000Aerror: fake\"");
  CHECK(one_line("role \"r\u2028x\u2029y\" \u2027\u202A") == "role \"r\\u2028x\\u2029y\" \u2027\u202A");
  CHECK(one_line(std::string("a\0b\r\x1b[2J\x7f", 9)) == "a\\u0000b\\u000D\\u001B[2J\\u007F");
  CHECK(one_line("c\xC2\x85"
                 "d") == "c\\u0085d");                                                          // C1 NEL
  CHECK(one_line("caf\xC3\xA9 \xC2\xA0 \xE2\x80\xA7") == "caf\xC3\xA9 \xC2\xA0 \xE2\x80\xA7");  // text stays
  CHECK(one_line("tab\tend") == "tab\\u0009end");
}
