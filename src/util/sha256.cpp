#include "tagwarden/util/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace tw {

std::string sha256(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256 failed");
  return std::string(reinterpret_cast<const char*>(md), n);
}

}  // namespace tw
