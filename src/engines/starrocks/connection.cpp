// DSN and credentials, and the MySQL Connector/C++ (legacy 1.1 API) session.

#include "tagwarden/engines/starrocks/connection.h"

#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/resultset_metadata.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>

namespace tw::starrocks {
namespace {

std::optional<int> parse_int(std::string_view s, int min, int max) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < min || v > max) return std::nullopt;
  return v;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int v = 0;
    auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
    if (ec != std::errc() || p != s.data() + i + 3) return std::nullopt;
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
}

// Client errors that mean the session is gone: reconnect and re-read.
bool is_connection_lost(int code, const std::string& state) {
  switch (code) {
    case 1053:  // server shutdown in progress
    case 1927:  // connection killed (MariaDB)
    case 2002:
    case 2003:
    case 2006:  // server has gone away
    case 2013:  // lost connection during query
    case 2055:
      return true;
    default:
      return state.rfind("08", 0) == 0;
  }
}

SqlError convert(const sql::SQLException& e, const std::string& context) {
  const std::string state = e.getSQLStateCStr() ? e.getSQLStateCStr() : "";
  return SqlError(context + ": " + e.what() + " (error " + std::to_string(e.getErrorCode()) + ")", e.getErrorCode(),
                  is_connection_lost(e.getErrorCode(), state));
}

class MysqlConnection final : public Connection {
 public:
  MysqlConnection(ConnectionSettings s, Dialect d) : s_(std::move(s)), d_(d) { open(); }

  void execute(const std::string& sql) override {
    ensure_open();
    try {
      std::unique_ptr<sql::Statement> st(c_->createStatement());
      st->execute(sql);
      // Drain any result (SHOW statements run through execute()).
      while (st->getMoreResults()) {
      }
    } catch (const sql::SQLException& e) {
      throw convert(e, "statement failed");
    }
  }

  Rows query(const std::string& sql) override {
    ensure_open();
    try {
      std::unique_ptr<sql::Statement> st(c_->createStatement());
      std::unique_ptr<sql::ResultSet> rs(st->executeQuery(sql));
      Rows out;
      sql::ResultSetMetaData* meta = rs->getMetaData();
      const unsigned n = meta->getColumnCount();
      for (unsigned i = 1; i <= n; ++i) out.columns.push_back(std::string(meta->getColumnLabel(i)));
      while (rs->next()) {
        Row row;
        for (unsigned i = 1; i <= n; ++i) {
          if (rs->isNull(i)) {
            row.push_back(std::nullopt);
          } else {
            row.push_back(std::string(rs->getString(i)));
          }
        }
        out.rows.push_back(std::move(row));
      }
      return out;
    } catch (const sql::SQLException& e) {
      throw convert(e, "query failed");
    }
  }

  void reconnect() override {
    c_.reset();
    open();
  }

  std::string describe() const override { return s_.describe(); }

 private:
  void ensure_open() {
    if (!c_) throw SqlError("not connected to " + s_.describe(), 2006, true);
  }

  void open() {
    sql::ConnectOptionsMap o;
    const std::string host = s_.host.find(':') != std::string::npos ? "[" + s_.host + "]" : s_.host;
    o["hostName"] = sql::SQLString("tcp://" + host + ":" + std::to_string(s_.port));
    o["userName"] = sql::SQLString(s_.user);
    o["password"] = sql::SQLString(s_.password);
    o["OPT_CONNECT_TIMEOUT"] = s_.connect_timeout_s;
    o["OPT_READ_TIMEOUT"] = s_.read_timeout_s;
    o["OPT_WRITE_TIMEOUT"] = s_.write_timeout_s;
    o["OPT_RECONNECT"] = false;
    o["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    if (s_.tls == TlsMode::Required || s_.tls == TlsMode::VerifyCa || s_.tls == TlsMode::VerifyIdentity) {
      o["sslEnforce"] = true;
    }
    if (s_.tls == TlsMode::VerifyCa || s_.tls == TlsMode::VerifyIdentity) o["sslVerify"] = true;
    if (!s_.tls_ca.empty()) o["sslCA"] = sql::SQLString(s_.tls_ca);
    if (!s_.tls_cert.empty()) o["sslCert"] = sql::SQLString(s_.tls_cert);
    if (!s_.tls_key.empty()) o["sslKey"] = sql::SQLString(s_.tls_key);
    try {
      sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
      c_.reset(driver->connect(o));
    } catch (const sql::SQLException& e) {
      SqlError err = convert(e, "cannot connect to " + s_.describe());
      const bool refused = err.code() == 1044 || err.code() == 1045 || err.code() == 1698;  // access denied
      throw SqlError(err.what(), err.code(), !refused);
    }
    if (s_.tls == TlsMode::Required) require_encrypted_session();
    if (d_ == Dialect::MySQL) {
      // sql::literal escapes backslashes, which needs backslash escapes on.
      execute("SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '')");
    }
  }

  // The client library does not refuse a server that cannot do TLS when no certificate is to be
  // verified (found by the audit: tls=required connected in clear to a MariaDB without TLS, and
  // apply sent its GRANTs so). A server that reports an empty cipher for this session is refused;
  // one that reports none at all is taken at the library's word (tls=verify-ca is enforced there).
  void require_encrypted_session() {
    Rows status;
    try {
      status = query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    } catch (const SqlError&) {
      return;  // not reported by this server
    }
    for (const auto& row : status.rows) {
      if (row.size() >= 2 && (!row[1] || row[1]->empty())) {
        c_.reset();
        throw SqlError("cannot connect to " + s_.describe() +
                           ": the session is not encrypted and tls=required; enable TLS on the server, or use "
                           "tls=preferred to allow an unencrypted session",
                       2026, false);
      }
    }
  }

  ConnectionSettings s_;
  Dialect d_;
  std::unique_ptr<sql::Connection> c_;
};

}  // namespace

std::string ConnectionSettings::describe() const {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "mysql://" + user + "@" + h + ":" + std::to_string(port);
}

std::optional<TlsMode> parse_tls_mode(std::string_view t) {
  if (t == "disabled") return TlsMode::Disabled;
  if (t == "preferred") return TlsMode::Preferred;
  if (t == "required") return TlsMode::Required;
  if (t == "verify-ca") return TlsMode::VerifyCa;
  if (t == "verify-identity") return TlsMode::VerifyIdentity;
  return std::nullopt;
}

DsnParse parse_dsn(std::string_view dsn) {
  DsnParse out;
  ConnectionSettings s;
  std::string_view rest;
  for (std::string_view scheme : {"mysql://", "starrocks://"}) {
    if (dsn.substr(0, scheme.size()) == scheme) rest = dsn.substr(scheme.size());
  }
  if (rest.empty()) {
    out.error = "a DSN looks like mysql://user@host:port (starrocks:// is accepted too)";
    return out;
  }
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) {
    out.error = "a DSN names no database: mysql://user@host:port";
    return out;
  }
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    if (userinfo.find(':') != std::string_view::npos) {
      out.error =
          "a DSN must not carry a password: put it in a file named by the profile's password_file (or "
          "--password-file), or set TAGWARDEN_STARROCKS_PASSWORD";
      return out;
    }
    auto user = percent_decode(userinfo);
    if (!user || user->empty()) {
      out.error = "the DSN's user is empty or badly percent-encoded";
      return out;
    }
    s.user = *user;
    rest = rest.substr(at + 1);
  }
  std::string_view host = rest, port;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) {
      out.error = "unclosed [ in the DSN's host";
      return out;
    }
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        out.error = "expected :port after the DSN's [host]";
        return out;
      }
      port = after.substr(1);
    }
  } else if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty()) {
    out.error = "the DSN names no host";
    return out;
  }
  s.host = std::string(host);
  if (!port.empty()) {
    auto p = parse_int(port, 1, 65535);
    if (!p) {
      out.error = "the DSN's port must be 1-65535";
      return out;
    }
    s.port = *p;
  }
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    auto eq = kv.find('=');
    std::string_view key = kv.substr(0, eq);
    auto value = percent_decode(eq == std::string_view::npos ? std::string_view() : kv.substr(eq + 1));
    if (!value) {
      out.error = "DSN option " + std::string(key) + " is badly percent-encoded";
      return out;
    }
    auto number = [&](int& field, int min, int max) {
      if (auto v = parse_int(*value, min, max)) {
        field = *v;
        return true;
      }
      out.error = "DSN option " + std::string(key) + " must be a number from " + std::to_string(min) + " to " +
                  std::to_string(max);
      return false;
    };
    if (key == "tls") {
      auto m = parse_tls_mode(*value);
      if (!m) {
        out.error = "DSN option tls is one of disabled, preferred, required, verify-ca, verify-identity";
        return out;
      }
      s.tls = *m;
    } else if (key == "tls-ca") {
      s.tls_ca = *value;
    } else if (key == "tls-cert") {
      s.tls_cert = *value;
    } else if (key == "tls-key") {
      s.tls_key = *value;
    } else if (key == "connect-timeout") {
      if (!number(s.connect_timeout_s, 1, 3600)) return out;
    } else if (key == "read-timeout") {
      if (!number(s.read_timeout_s, 1, 86400)) return out;
    } else if (key == "write-timeout") {
      if (!number(s.write_timeout_s, 1, 86400)) return out;
    } else if (key == "retries") {
      if (!number(s.retries, 0, 100)) return out;
    } else if (key == "backoff-ms") {
      if (!number(s.backoff_ms, 0, 600000)) return out;
    } else {
      out.error = "unknown DSN option " + std::string(key);
      return out;
    }
  }
  if ((s.tls == TlsMode::VerifyCa || s.tls == TlsMode::VerifyIdentity) && s.tls_ca.empty()) {
    out.error = "tls=verify-ca and tls=verify-identity need tls-ca=PATH";
    return out;
  }
  out.settings = std::move(s);
  return out;
}

std::optional<std::string> resolve_password(const std::optional<std::string>& file, std::string& error) {
  if (const char* env = std::getenv("TAGWARDEN_STARROCKS_PASSWORD")) return std::string(env);
  if (!file) return std::string();
  std::ifstream in(*file);
  if (!in) {
    error = "cannot read the password file " + *file;
    return std::nullopt;
  }
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  return line;
}

std::unique_ptr<Connection> connect(const ConnectionSettings& settings, Dialect dialect) {
  return std::make_unique<MysqlConnection>(settings, dialect);
}

}  // namespace tw::starrocks
