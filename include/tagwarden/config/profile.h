#pragma once
// Engine profiles (MODEL.md section 3): one engine target each.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tagwarden/model/load.h"

namespace tw {

enum class Engine { Trino, StarRocks };
const char* to_string(Engine engine);

struct Profile {
  std::string name;
  Engine engine = Engine::Trino;
  std::vector<std::string> catalogs;                ///< platform catalogs it covers
  std::map<std::string, std::string> catalog_map;   ///< platform catalog -> engine catalog
  std::map<std::string, std::string> user_map;      ///< platform user -> engine user
  bool withhold_writes = true;
  bool restrict_materialized_views = true;
  int max_policies_per_tag = 500;                   ///< StarRocks only
  std::optional<std::string> rules_file;            ///< Trino: also write the rules here (atomically)
  bool operator==(const Profile&) const = default;
};

struct Config {
  std::vector<Profile> profiles;
};

struct ConfigLoad {
  std::optional<Config> config;
  std::vector<ValidationError> errors;
};

/// Parses and validates a profiles config (YAML or JSON); never throws for bad input.
ConfigLoad parse_config(std::string_view text);
ConfigLoad load_config_file(const std::string& path);

}  // namespace tw
