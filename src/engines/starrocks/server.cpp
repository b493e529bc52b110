#include "tagwarden/engines/starrocks/server.h"

#include <chrono>
#include <thread>

namespace tw::starrocks {

OpenResult open_server(const std::string& dsn, const std::optional<std::string>& password_file, Dialect dialect,
                       const std::string& profile) {
  OpenResult out;
  DsnParse parsed = parse_dsn(dsn);
  if (!parsed.settings) {
    out.error = "--dsn: " + parsed.error;
    out.invalid_input = true;
    return out;
  }
  ServerSession session;
  session.settings = std::move(*parsed.settings);
  std::string error;
  auto password = resolve_password(password_file, error);
  if (!password) {
    out.error = error;
    out.invalid_input = true;
    return out;
  }
  session.settings.password = std::move(*password);
  int delay = session.settings.backoff_ms;
  for (int attempt = 0; attempt <= session.settings.retries; ++attempt) {
    try {
      if (attempt > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        delay *= 2;
      }
      session.connection = connect(session.settings, dialect);
      session.probe = probe_server(*session.connection, dialect, profile);
      out.session = std::move(session);
      return out;
    } catch (const SqlError& e) {
      out.error = e.what();
      if (!e.connection_lost()) break;
    }
  }
  return out;
}

}  // namespace tw::starrocks
