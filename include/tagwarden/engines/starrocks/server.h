#pragma once
// Opening a server for plan and apply: DSN + password -> a session, with
// connect retries and backoff, and the probe of what the server can do.

#include <memory>
#include <optional>
#include <string>

#include "tagwarden/engines/starrocks/connection.h"
#include "tagwarden/engines/starrocks/live_state.h"

namespace tw::starrocks {

struct ServerSession {
  ConnectionSettings settings;
  std::unique_ptr<Connection> connection;
  Probe probe;
};

struct OpenResult {
  std::optional<ServerSession> session;
  std::string error;
  bool invalid_input = false;  ///< the DSN or password source is wrong (not the server)
};

/// Parses the DSN, resolves the password (TAGWARDEN_STARROCKS_PASSWORD, else password_file),
/// connects (retrying with backoff as the DSN says) and probes the server. Never throws.
OpenResult open_server(const std::string& dsn, const std::optional<std::string>& password_file, Dialect dialect,
                       const std::string& profile);

}  // namespace tw::starrocks
