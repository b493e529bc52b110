#pragma once
// SHA-256 over length-prefixed fields: two different field lists never feed the
// hash the same bytes. Used to key compile memos.

#include <cstdint>
#include <string>
#include <string_view>

namespace tw {

class Digest {
 public:
  Digest();
  Digest& add(std::string_view field);
  Digest& add(std::uint64_t number);
  /// Hex of the hash of everything added; the digest is spent afterwards.
  std::string finish();

 private:
  // Memo keys add thousands of short fields per object; one hashing call per key
  // instead of two per field made the keys of an unchanged M profile ~4x cheaper.
  std::string buffer_;
};

}  // namespace tw
