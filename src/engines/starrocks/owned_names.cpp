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

}  // namespace tw::starrocks
