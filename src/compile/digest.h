#pragma once
// Incremental SHA-256 over length-prefixed fields: two different field lists
// never feed the hash the same bytes. Used to key compile memos.

#include <openssl/evp.h>

#include <cstdint>
#include <memory>
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
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace tw
