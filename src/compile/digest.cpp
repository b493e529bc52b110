#include "digest.h"
#include "tagwarden/util/text.h"

#include <stdexcept>

namespace tw {

Digest::Digest() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256 init failed");
}

Digest& Digest::add(std::string_view field) {
  add(static_cast<std::uint64_t>(field.size()));
  EVP_DigestUpdate(ctx_.get(), field.data(), field.size());
  return *this;
}

Digest& Digest::add(std::uint64_t number) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(number >> (8 * i));
  EVP_DigestUpdate(ctx_.get(), bytes, sizeof bytes);
  return *this;
}

std::string Digest::finish() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx_.get(), md, &n);
  return hex_lower(md, n);
}

}  // namespace tw
