#include "owned_names.h"

#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

std::string owner_prefix(std::string_view profile) {
  return "tw_" + sha256_hex("tagwarden-profile\n" + std::string(profile)).substr(0, 8) + "_";
}

std::string hash16(const std::vector<std::string>& parts) {
  std::string joined;
  for (const auto& p : parts) {
    joined += p;
    joined += '\0';
  }
  return sha256_hex(joined).substr(0, 16);
}

bool owned_shape(std::string_view name, std::string_view kind_prefix) {
  if (name.size() != kind_prefix.size() + 16 || name.substr(0, kind_prefix.size()) != kind_prefix) return false;
  for (char c : name.substr(kind_prefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool owned_role(std::string_view role, std::string_view prefix) {
  const std::string p(prefix);
  return owned_shape(role, p + "r") || owned_shape(role, p + "a");
}

}  // namespace tw::starrocks
