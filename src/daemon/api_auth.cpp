#include "api_auth.h"

#include <openssl/crypto.h>

#include <algorithm>

#include "tagwarden/engines/registry.h"

namespace tw {

ApiAuth::ApiAuth(const std::vector<ApiToken>& tokens) {
  for (const auto& t : tokens) entries_.push_back({t.name, sha256_hex(t.token), t.scopes});
}

AuthResult ApiAuth::check(std::string_view authorization, std::string_view scope, std::string* token_name) const {
  // The scheme is case-insensitive (RFC 7235 §2.1): "bearer" is Bearer too. The token is not.
  constexpr std::string_view kBearer = "bearer ";
  if (authorization.size() <= kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), authorization.begin(),
                  [](char want, char got) { return want == (got >= 'A' && got <= 'Z' ? got - 'A' + 'a' : got); })) {
    return AuthResult::Unauthenticated;
  }
  const std::string digest = sha256_hex(authorization.substr(kBearer.size()));
  const Entry* match = nullptr;
  for (const auto& e : entries_) {
    // Every entry is compared, so the time taken does not reveal which matched.
    if (CRYPTO_memcmp(e.digest.data(), digest.data(), digest.size()) == 0) match = &e;
  }
  if (!match) return AuthResult::Unauthenticated;
  if (token_name) *token_name = match->name;
  const bool allowed = std::any_of(match->scopes.begin(), match->scopes.end(),
                                   [&](const std::string& s) { return s == "admin" || s == scope; });
  return allowed ? AuthResult::Allowed : AuthResult::Forbidden;
}

}  // namespace tw
