#include "digest.h"

#include <openssl/evp.h>

#include <stdexcept>

#include "tagwarden/util/text.h"

namespace tw {

Digest::Digest() { buffer_.reserve(4096); }

Digest& Digest::add(std::string_view field) {
  add(static_cast<std::uint64_t>(field.size()));
  buffer_.append(field);
  return *this;
}

Digest& Digest::add(std::uint64_t number) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(number >> (8 * i));
  buffer_.append(bytes, sizeof bytes);
  return *this;
}

std::string Digest::finish() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(buffer_.data(), buffer_.size(), md, &n, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256 failed");
  buffer_.clear();
  return hex_lower(md, n);
}

}  // namespace tw
