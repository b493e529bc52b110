// ResumedSha256 (util/resumed_sha256.h): every digest is SHA-256 of the whole text, whatever the
// last text was, and only the bytes from the last state before the first difference are hashed.

#include "tagwarden/util/resumed_sha256.h"

#include <catch2/catch.hpp>
#include <random>

#include "tagwarden/util/sha256.h"

namespace {

std::shared_ptr<const std::string> shared(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

}  // namespace

TEST_CASE("a resumed digest is the SHA-256 of the whole text after any edit", "[resumed_sha256]") {
  std::mt19937 rng(20261203);
  for (const std::size_t stride : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
    tw::ResumedSha256 digests(stride);
    std::string text;
    for (int round = 0; round < 300; ++round) {
      std::string next = text;
      const std::size_t at = next.empty() ? 0 : rng() % (next.size() + 1);
      switch (rng() % 6) {
        case 0:  // one byte changed
          if (!next.empty()) next[std::min(at, next.size() - 1)] ^= 1;
          break;
        case 1:  // bytes inserted
          next.insert(at, std::string(1 + rng() % (3 * stride), static_cast<char>('a' + rng() % 26)));
          break;
        case 2:  // cut short, at a stride boundary when one is in reach
          next.resize(std::min(next.size(), (at / stride) * stride));
          break;
        case 3:  // appended
          next.append(std::string(rng() % (2 * stride + 2), 'z'));
          break;
        case 4:  // unchanged
          break;
        default:  // replaced whole
          next.assign(rng() % (5 * stride + 3), static_cast<char>('A' + rng() % 26));
          break;
      }
      text = next;
      INFO("stride " << stride << ", round " << round << ", size " << text.size());
      REQUIRE(digests.digest(shared(text)) == tw::sha256(text));
    }
  }
}

TEST_CASE("a resumed digest hashes only from the last state before the first change", "[resumed_sha256]") {
  tw::ResumedSha256 digests(1000);
  std::string text(10500, 'x');
  CHECK(digests.digest(shared(text)) == tw::sha256(text));
  CHECK(digests.last_hashed_bytes() == 10500);
  text[7200] = 'y';
  CHECK(digests.digest(shared(text)) == tw::sha256(text));
  CHECK(digests.last_hashed_bytes() == 10500 - 7000);
  text[200] = 'y';  // the state at 7000 of the last text no longer holds: from the start again
  CHECK(digests.digest(shared(text)) == tw::sha256(text));
  CHECK(digests.last_hashed_bytes() == 10500);
  auto same = shared(text);
  CHECK(digests.digest(same) == tw::sha256(text));
  CHECK(digests.last_hashed_bytes() == 500);  // only the tail after the last full stride
  CHECK(digests.digest(same) == tw::sha256(text));
}
