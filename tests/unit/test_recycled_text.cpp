// TextRecycler (util/recycled_text.h): a buffer comes back only once nobody reads it, and a
// document still read keeps its bytes while later renders of the profile write elsewhere.

#include "tagwarden/util/recycled_text.h"

#include <catch2/catch.hpp>

namespace {

std::string text_of(std::size_t n, char c) { return std::string(n, c); }

}  // namespace

TEST_CASE("a shared text's buffer comes back once every copy is gone", "[recycled_text]") {
  tw::TextRecycler r;
  CHECK(r.take().capacity() < 64);  // nothing shared yet: a new, empty string
  auto shared = r.share(text_of(100000, 'a'));
  const char* data = shared->data();
  {
    auto reader = shared;  // still read (e.g. an HTTP response being written)
    shared.reset();
    std::string other = r.take();
    CHECK(other.data() != data);
    CHECK(*reader == text_of(100000, 'a'));
  }
  std::string again = r.take();
  CHECK(again.empty());
  CHECK(again.data() == data);
  CHECK(again.capacity() >= 100000);
  CHECK(r.take().capacity() < 64);  // handed out once only
}

TEST_CASE("only the last two texts are held for reuse", "[recycled_text]") {
  tw::TextRecycler r;
  const char* first = nullptr;
  std::vector<const char*> last_two;
  {
    auto a = r.share(text_of(50000, 'a'));
    auto b = r.share(text_of(50000, 'b'));
    auto c = r.share(text_of(50000, 'c'));
    first = a->data();
    last_two = {b->data(), c->data()};
  }
  std::string one = r.take();
  std::string two = r.take();
  CHECK(one.data() == last_two[0]);
  CHECK(two.data() == last_two[1]);
  CHECK(one.data() != first);
  CHECK(r.take().capacity() < 64);
}
