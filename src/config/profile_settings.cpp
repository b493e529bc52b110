#include "tagwarden/config/profile_settings.h"

#include <nlohmann/json.hpp>

#include "tagwarden/engines/registry.h"

namespace tw {

std::string profile_settings_digest(const Profile& p) {
  // nlohmann's object keeps its keys sorted, so the text (and the digest) is canonical.
  const nlohmann::json settings = {{"engine", to_string(p.engine)},
                                   {"catalogs", p.catalogs},
                                   {"catalog_map", p.catalog_map},
                                   {"user_map", p.user_map},
                                   {"withhold_writes", p.withhold_writes},
                                   {"restrict_materialized_views", p.restrict_materialized_views},
                                   {"max_policies_per_tag", p.max_policies_per_tag},
                                   {"max_roles_per_user", p.max_roles_per_user},
                                   {"access_control", to_string(p.access_control)},
                                   {"dialect", p.dialect},
                                   {"masking", p.masking}};
  return sha256_hex(settings.dump());
}

}  // namespace tw
