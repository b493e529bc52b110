#include "tagwarden/util/sha256.h"

#include <stdexcept>

#include "sha256_md.h"

namespace tw {

// SHA-256 fetched from the provider once. EVP_sha256() makes OpenSSL 3 look the implementation
// up (under a lock) on every digest: half the time of a 300-byte digest, and a compile takes one
// such digest per object for its memo keys.
const EVP_MD* sha256_md() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched ? fetched : EVP_sha256();
  }();
  return md;
}

std::string sha256(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), md, &n, sha256_md(), nullptr) != 1)
    throw std::runtime_error("sha256 failed");
  return std::string(reinterpret_cast<const char*>(md), n);
}

}  // namespace tw
