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

/// Trino's `access-control.name` the profile serves: file-based rules, or OPA decisions.
enum class TrinoAccessControl { File, Opa };
const char* to_string(TrinoAccessControl access_control);

struct Profile {
  std::string name;
  Engine engine = Engine::Trino;
  std::vector<std::string> catalogs;               ///< platform catalogs it covers
  std::map<std::string, std::string> catalog_map;  ///< platform catalog -> engine catalog
  std::map<std::string, std::string> user_map;     ///< platform user -> engine user
  bool withhold_writes = true;
  bool restrict_materialized_views = true;
  int max_policies_per_tag = 500;  ///< StarRocks only
  /// StarRocks only: the most roles a user may hold, as the server's privilege_max_total_roles_per_user
  /// counts them (64 by default there): a user's atom role inherits within it.
  int max_roles_per_user = 64;
  std::optional<std::string> rules_file;  ///< Trino: also write the rules here (atomically)
  /// Trino: how Trino asks. file (the default): the rules document, and the OPA decisions beside it.
  /// opa: the decisions only; no rules document is rendered (at L it is 1 GB and half the build).
  TrinoAccessControl access_control = TrinoAccessControl::File;
  std::string dsn;                           ///< StarRocks: the daemon applies to this server (mysql://user@host:port)
  std::optional<std::string> password_file;  ///< StarRocks: else TAGWARDEN_STARROCKS_PASSWORD
  std::string dialect = "starrocks";         ///< StarRocks: starrocks, or mysql (tests on MariaDB)
  std::string masking = "auto";              ///< StarRocks: auto (probe), on or off
  bool operator==(const Profile&) const = default;
};

/// Where the daemon reads the snapshot: a file, or an HTTP(S) endpoint.
struct SourceSettings {
  std::string file;  ///< exactly one of file / url
  std::string url;
  std::map<std::string, std::string> headers;  ///< extra request headers; secret values resolved from *_env / *_file
  std::string bearer_token;                    ///< resolved from token_env / token_file; never logged
  int timeout_ms = 10000;
  int retries = 3;       ///< extra attempts after the first
  int backoff_ms = 500;  ///< first retry delay; doubles, with full jitter
  std::string ca_file;
  bool verify_tls = true;
  bool operator==(const SourceSettings&) const = default;
};

struct ApiToken {
  std::string name;
  std::string token;                ///< resolved secret; never logged
  std::vector<std::string> scopes;  ///< read recompile validate admin
  bool operator==(const ApiToken&) const = default;
};

struct ServerSettings {
  std::string listen = "127.0.0.1:8181";  ///< host:port of the API (and rules, unless rules_listen is set)
  std::string rules_listen;               ///< optional: serve the rules endpoint only on this address
  bool rules_require_token = false;       ///< rules endpoint needs a token with scope read
  std::size_t max_connections = 512;      ///< open connections per listener; see http::Listener for the cap
  std::size_t validate_max_body = std::size_t(64) << 20;  ///< POST /v1/validate body limit (bytes)
  bool operator==(const ServerSettings&) const = default;
};

/// Settings of `tagwarden serve`; the one-shot commands ignore them.
struct DaemonSettings {
  SourceSettings source;
  ServerSettings server;
  std::string state_dir = "/var/lib/tagwarden";
  int reconcile_interval_s = 300;
  std::string webhook_secret;  ///< resolved; empty = webhook disabled (answers 503)
  std::size_t webhook_max_body = 1 << 20;
  int webhook_wait_ms = 10000;  ///< how long a webhook waits for its recompile
  std::vector<ApiToken> tokens;
  bool operator==(const DaemonSettings&) const = default;
};

struct Config {
  std::vector<Profile> profiles;
  DaemonSettings daemon;
};

struct ConfigLoad {
  std::optional<Config> config;
  std::vector<ValidationError> errors;
};

/// Parses and validates a config (YAML or JSON); never throws for bad input.
/// Daemon secrets (env / file) are read only when resolve_secrets is true, so
/// one-shot commands run where the daemon's secrets are absent.
ConfigLoad parse_config(std::string_view text, bool resolve_secrets = false);
ConfigLoad load_config_file(const std::string& path, bool resolve_secrets = false);

}  // namespace tw
