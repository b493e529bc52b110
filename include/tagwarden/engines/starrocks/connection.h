#pragma once
// A session with a StarRocks (or MySQL/MariaDB) server over the MySQL
// protocol. The applier only sees this interface; tests wrap it to cut the
// connection at a chosen statement.

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

enum class TlsMode { Disabled, Preferred, Required, VerifyCa, VerifyIdentity };

struct ConnectionSettings {
  std::string host = "127.0.0.1";
  int port = 9030;
  std::string user = "root";
  std::string password;  ///< never printed
  TlsMode tls = TlsMode::Preferred;
  std::string tls_ca;  ///< CA bundle for verify-ca / verify-identity
  std::string tls_cert;
  std::string tls_key;
  int connect_timeout_s = 10;
  int read_timeout_s = 60;
  int write_timeout_s = 60;
  int retries = 3;       ///< reconnect attempts after a lost connection
  int backoff_ms = 500;  ///< first reconnect delay; doubles each attempt
  /// mysql://user@host:port; never the password.
  std::string describe() const;
};

struct DsnParse {
  std::optional<ConnectionSettings> settings;
  std::string error;
};

/// mysql://user@host:port[?tls=disabled|preferred|required|verify-ca|verify-identity&tls-ca=PATH&tls-cert=PATH
/// &tls-key=PATH&connect-timeout=S&read-timeout=S&write-timeout=S&retries=N&backoff-ms=MS]. A password in the
/// DSN is refused: it would end up in shell history and process lists.
DsnParse parse_dsn(std::string_view dsn);

/// The password: TAGWARDEN_STARROCKS_PASSWORD if set, else the first line of `file` when given, else empty.
/// Returns nullopt and sets error when the file cannot be read.
std::optional<std::string> resolve_password(const std::optional<std::string>& file, std::string& error);

std::optional<TlsMode> parse_tls_mode(std::string_view text);

/// A failed statement. connection_lost: the session is gone (reconnect and re-read); otherwise the server refused.
class SqlError : public std::runtime_error {
 public:
  SqlError(const std::string& what, int code, bool connection_lost)
      : std::runtime_error(what), code_(code), lost_(connection_lost) {}
  int code() const { return code_; }
  bool connection_lost() const { return lost_; }

 private:
  int code_;
  bool lost_;
};

using Row = std::vector<std::optional<std::string>>;

struct Rows {
  std::vector<std::string> columns;
  std::vector<Row> rows;
};

class Connection {
 public:
  virtual ~Connection() = default;
  /// Runs one statement that returns no rows. Throws SqlError.
  virtual void execute(const std::string& sql) = 0;
  /// Runs one query and returns every row. Throws SqlError.
  virtual Rows query(const std::string& sql) = 0;
  /// Opens a fresh session (the catalog is back to the default). Throws SqlError.
  virtual void reconnect() = 0;
  /// mysql://user@host:port; never the password.
  virtual std::string describe() const = 0;
};

/// Connects with MySQL Connector/C++. The MySQL dialect's session runs with
/// backslash escapes on (sql::literal relies on it). Throws SqlError.
std::unique_ptr<Connection> connect(const ConnectionSettings& settings, Dialect dialect);

}  // namespace tw::starrocks
