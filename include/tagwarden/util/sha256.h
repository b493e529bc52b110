#pragma once
// SHA-256 through OpenSSL, for every digest the project takes (artifacts, memo keys, entry texts).

#include <string>
#include <string_view>

namespace tw {

/// The 32 bytes of SHA-256(data); throws std::runtime_error when OpenSSL fails (never a shared empty value).
std::string sha256(std::string_view data);

}  // namespace tw
