#include "tagwarden/util/digest.h"

#include "tagwarden/util/sha256.h"
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
  const std::string digest = sha256(buffer_);
  buffer_.clear();
  return hex_lower(reinterpret_cast<const unsigned char*>(digest.data()), digest.size());
}

}  // namespace tw
