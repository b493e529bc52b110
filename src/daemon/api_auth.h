#pragma once
// Bearer tokens with scopes (read, recompile, validate, admin). admin implies
// every scope. Tokens are compared by their SHA-256 in constant time so neither
// content nor length leaks through timing.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/config/profile.h"

namespace tw {

enum class AuthResult { Allowed, Unauthenticated, Forbidden };

class ApiAuth {
 public:
  explicit ApiAuth(const std::vector<ApiToken>& tokens);
  /// `authorization` is the raw header value ("Bearer ..."), possibly empty.
  AuthResult check(std::string_view authorization, std::string_view scope, std::string* token_name = nullptr) const;

 private:
  struct Entry {
    std::string name;
    std::string digest;
    std::vector<std::string> scopes;
  };
  std::vector<Entry> entries_;
};

}  // namespace tw
