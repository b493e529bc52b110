// `tagwarden plan` / `apply`: a flag overrides, otherwise the profile's dialect, masking, dsn and
// password_file are used (src/cli/starrocks_settings.h).

#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "cli/starrocks_settings.h"
#include "tagwarden/config/profile.h"

namespace {

tw::Profile mysql_profile() {
  tw::ConfigLoad c = tw::parse_config(R"(profiles:
  - name: my
    engine: starrocks
    catalogs: [wh]
    dialect: mysql
    masking: "off"
    dsn: mysql://applier@db.internal:3306
    password_file: /etc/tagwarden/db.pw
)");
  REQUIRE(c.errors.empty());
  REQUIRE(c.config);
  return c.config->profiles.at(0);
}

}  // namespace

TEST_CASE("plan and apply take the profile's keys when no flag is given", "[cli]") {
  const tw::Profile p = mysql_profile();
  const auto apply = tw::cli::resolve_starrocks_settings({}, p, true);
  CHECK(apply.dialect == "mysql");
  CHECK(apply.masking == "off");
  CHECK(apply.dsn == std::optional<std::string>("mysql://applier@db.internal:3306"));
  CHECK(apply.dsn_from_profile);
  CHECK(apply.password_file == std::optional<std::string>("/etc/tagwarden/db.pw"));

  // plan is a dry run: it connects only to a server named with --dsn.
  const auto plan = tw::cli::resolve_starrocks_settings({}, p, false);
  CHECK(plan.dialect == "mysql");
  CHECK(plan.masking == "off");
  CHECK_FALSE(plan.dsn);
  CHECK_FALSE(plan.dsn_from_profile);
  CHECK(plan.password_file == std::optional<std::string>("/etc/tagwarden/db.pw"));
}

TEST_CASE("a flag overrides the profile's key", "[cli]") {
  const tw::Profile p = mysql_profile();
  const tw::cli::StarRocksFlags flags{"starrocks", "on", "mysql://root@fe:9030", "/tmp/pw"};
  for (bool apply : {true, false}) {
    INFO("apply " << apply);
    const auto s = tw::cli::resolve_starrocks_settings(flags, p, apply);
    CHECK(s.dialect == "starrocks");
    CHECK(s.masking == "on");
    CHECK(s.dsn == std::optional<std::string>("mysql://root@fe:9030"));
    CHECK_FALSE(s.dsn_from_profile);
    CHECK(s.password_file == std::optional<std::string>("/tmp/pw"));
  }
  // One flag overrides one key; the others stay the profile's.
  tw::cli::StarRocksFlags only_dialect;
  only_dialect.dialect = "starrocks";
  const auto s = tw::cli::resolve_starrocks_settings(only_dialect, p, true);
  CHECK(s.dialect == "starrocks");
  CHECK(s.masking == "off");
  CHECK(s.dsn_from_profile);
}

TEST_CASE("a profile without the keys gets the defaults: starrocks, auto, no server", "[cli]") {
  tw::ConfigLoad c = tw::parse_config("profiles:\n  - {name: sr, engine: starrocks, catalogs: [wh]}\n");
  REQUIRE(c.config);
  const tw::Profile& p = c.config->profiles.at(0);
  for (bool apply : {true, false}) {
    const auto s = tw::cli::resolve_starrocks_settings({}, p, apply);
    CHECK(s.dialect == "starrocks");
    CHECK(s.masking == "auto");
    CHECK_FALSE(s.dsn);  // apply then refuses: it needs --dsn or the profile's dsn
    CHECK_FALSE(s.password_file);
  }
}
