// DSN parsing and password resolution for the StarRocks applier (engines/starrocks/connection.h).

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>

#include "tagwarden/engines/starrocks/connection.h"
#include "tagwarden/engines/starrocks/live_state.h"

namespace sr = tw::starrocks;

TEST_CASE("starrocks DSN: user, host, port and options") {
  auto d = sr::parse_dsn("mysql://tagwarden@fe.internal:9031");
  REQUIRE(d.settings.has_value());
  CHECK(d.settings->user == "tagwarden");
  CHECK(d.settings->host == "fe.internal");
  CHECK(d.settings->port == 9031);
  CHECK(d.settings->describe() == "mysql://tagwarden@fe.internal:9031");

  d = sr::parse_dsn(
      "starrocks://a%40b@[::1]?tls=verify-ca&tls-ca=/etc/ca.pem&connect-timeout=3&retries=0&backoff-ms=5");
  REQUIRE(d.settings.has_value());
  CHECK(d.settings->user == "a@b");
  CHECK(d.settings->host == "::1");
  CHECK(d.settings->port == 9030);
  CHECK(d.settings->tls == sr::TlsMode::VerifyCa);
  CHECK(d.settings->tls_ca == "/etc/ca.pem");
  CHECK(d.settings->connect_timeout_s == 3);
  CHECK(d.settings->retries == 0);
  CHECK(d.settings->backoff_ms == 5);
  CHECK(d.settings->describe() == "mysql://a@b@[::1]:9030");

  for (const char* bad : {"postgres://u@h:1", "mysql://u:secret@h:1", "mysql://u@h:0", "mysql://u@h:99999",
                          "mysql://u@h/db", "mysql://u@h?tls=maybe", "mysql://u@h?tls=verify-ca", "mysql://u@h?x=1",
                          "mysql://u@h?retries=-1", "mysql://@h", "mysql://u@"}) {
    INFO(bad);
    auto r = sr::parse_dsn(bad);
    CHECK_FALSE(r.settings.has_value());
    CHECK_FALSE(r.error.empty());
  }
  // The password never appears in an error or a description.
  CHECK(sr::parse_dsn("mysql://u:hunter2@h:1").error.find("hunter2") == std::string::npos);
}

TEST_CASE("starrocks password: environment first, then the file's first line") {
  const std::string file = "/tmp/tagwarden-test-password-" + std::to_string(::getpid());
  std::ofstream(file) << "from-file\r\nsecond line\n";
  std::string error;
  ::unsetenv("TAGWARDEN_STARROCKS_PASSWORD");
  CHECK(sr::resolve_password(file, error) == std::optional<std::string>("from-file"));
  CHECK(sr::resolve_password(std::nullopt, error) == std::optional<std::string>(""));
  CHECK_FALSE(sr::resolve_password(file + ".missing", error).has_value());
  CHECK(error.find("cannot read") != std::string::npos);
  ::setenv("TAGWARDEN_STARROCKS_PASSWORD", "from-env", 1);
  CHECK(sr::resolve_password(file, error) == std::optional<std::string>("from-env"));
  ::unsetenv("TAGWARDEN_STARROCKS_PASSWORD");
  std::remove(file.c_str());
}

TEST_CASE("starrocks user identities as SHOW USERS and sys.role_edges print them") {
  using P = std::pair<std::string, std::string>;
  CHECK(sr::parse_user_identity("'root'@'%'") == P{"root", "%"});
  CHECK(sr::parse_user_identity(" 'o'brien'@'10.0.0.1' ") == P{"o'brien", "10.0.0.1"});
  CHECK(sr::parse_user_identity("'a'@'b'@'%'") == P{"a'@'b", "%"});
  CHECK_FALSE(sr::parse_user_identity("root@%").has_value());
  CHECK_FALSE(sr::parse_user_identity("").has_value());
}
