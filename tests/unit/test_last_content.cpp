// A source says Unchanged only for a body byte for byte the last one fetched.

#include <catch2/catch.hpp>
#include <string>

#include "sources/last_content.h"

TEST_CASE("a body is unchanged only when every byte is the last body's", "[sources]") {
  tw::LastContent last;
  const std::string a(100000, 'x');
  CHECK_FALSE(last.same_as_last(a));  // nothing fetched before
  CHECK(last.same_as_last(a));
  std::string b = a;
  b[54321] = 'y';  // one byte
  CHECK_FALSE(last.same_as_last(b));
  CHECK(last.same_as_last(b));
  CHECK_FALSE(last.same_as_last(b + " "));  // one byte more
  CHECK_FALSE(last.same_as_last(b));        // one byte fewer
  CHECK_FALSE(last.same_as_last(""));
  CHECK(last.same_as_last(""));  // an empty body fetched twice is unchanged
  last.forget();
  CHECK_FALSE(last.same_as_last(""));  // forgotten: the next body is new
}
