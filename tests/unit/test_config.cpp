// MODEL.md section 3: the profiles config.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/config/profile.h"

using Names = std::vector<std::string>;

namespace {

Names config_errors(const std::string& text) {
  tw::ConfigLoad r = tw::parse_config(text);
  CHECK_FALSE(r.config.has_value());
  return twtest::error_strings(r.errors);
}

tw::Config must_config(const std::string& text) {
  tw::ConfigLoad r = tw::parse_config(text);
  INFO(twtest::join_errors(r.errors));
  REQUIRE(r.errors.empty());
  REQUIRE(r.config.has_value());
  return *r.config;
}

}  // namespace

TEST_CASE("a minimal profile gets the documented defaults", "[config]") {
  const tw::Config c = must_config(R"(profiles:
  - {name: trino_main, engine: trino, catalogs: [demo_warehouse]}
)");
  REQUIRE(c.profiles.size() == 1);
  const tw::Profile& p = c.profiles[0];
  CHECK(p.name == "trino_main");
  CHECK(p.engine == tw::Engine::Trino);
  CHECK(p.catalogs == Names{"demo_warehouse"});
  CHECK(p.catalog_map.empty());
  CHECK(p.user_map.empty());
  CHECK(p.withhold_writes == true);
  CHECK(p.restrict_materialized_views == true);
  CHECK(p.max_policies_per_tag == 500);
  CHECK(p.max_roles_per_user == 64);
  CHECK_FALSE(p.rules_file.has_value());
}

TEST_CASE("every field of a profile is read, in YAML and JSON alike", "[config]") {
  const tw::Config yaml = must_config(R"(profiles:
  - name: sr
    engine: starrocks
    catalogs: [a, b]
    catalog_map: {a: engine_a}
    user_map: {farid.haddad: farid}
    withhold_writes: false
    restrict_materialized_views: false
    max_policies_per_tag: 42
    max_roles_per_user: 1024
  - name: t
    engine: trino
    catalogs: [a]
    rules_file: /tmp/rules.json
)");
  const tw::Config json = must_config(R"({"profiles": [
    {"name": "sr", "engine": "starrocks", "catalogs": ["a", "b"], "catalog_map": {"a": "engine_a"},
     "user_map": {"farid.haddad": "farid"}, "withhold_writes": false, "restrict_materialized_views": false,
     "max_policies_per_tag": 42, "max_roles_per_user": 1024},
    {"name": "t", "engine": "trino", "catalogs": ["a"], "rules_file": "/tmp/rules.json"}]})");
  REQUIRE(yaml.profiles.size() == 2);
  CHECK(yaml.profiles == json.profiles);
  const tw::Profile& p = yaml.profiles[0];
  CHECK(p.engine == tw::Engine::StarRocks);
  CHECK(p.catalogs == Names{"a", "b"});
  CHECK(p.catalog_map == std::map<std::string, std::string>{{"a", "engine_a"}});
  CHECK(p.user_map == std::map<std::string, std::string>{{"farid.haddad", "farid"}});
  CHECK_FALSE(p.withhold_writes);
  CHECK_FALSE(p.restrict_materialized_views);
  CHECK(p.max_policies_per_tag == 42);
  CHECK(p.max_roles_per_user == 1024);
  CHECK(yaml.profiles[1].rules_file == std::optional<std::string>("/tmp/rules.json"));
}

TEST_CASE("unknown keys are errors", "[config]") {
  CHECK(
      config_errors("profiles: [{name: p, engine: trino, catalogs: [a], withold_writes: false}]\n") ==
      Names{
          R"(profiles[0].withold_writes: unknown key "withold_writes" (expected one of: name, engine, catalogs, catalog_map, user_map, withhold_writes, restrict_materialized_views, max_policies_per_tag, max_roles_per_user, rules_file, access_control, dsn, password_file, dialect, masking))"});
  // The top-level key list grows with the daemon settings: check the error, not the hint.
  const Names top = config_errors("profiles: [{name: p, engine: trino, catalogs: [a]}]\nversion: 1\n");
  REQUIRE(top.size() == 1);
  CHECK_THAT(top[0], Catch::StartsWith(R"(version: unknown key "version" (expected one of: profiles)"));
}

TEST_CASE("an unknown engine is an error", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: presto, catalogs: [a]}]\n") ==
        Names{R"(profiles[0].engine: unknown engine "presto" (expected trino or starrocks))"});
  CHECK(config_errors("profiles: [{name: p, engine: Trino, catalogs: [a]}]\n") ==
        Names{R"(profiles[0].engine: unknown engine "Trino" (expected trino or starrocks))"});
  CHECK(config_errors("profiles: [{name: p, catalogs: [a]}]\n") == Names{"profiles[0].engine: is required (a string)"});
}

TEST_CASE("duplicate profile names are an error", "[config]") {
  CHECK(config_errors(R"(profiles:
  - {name: p, engine: trino, catalogs: [a]}
  - {name: q, engine: trino, catalogs: [b]}
  - {name: p, engine: starrocks, catalogs: [c]}
)") == Names{R"(profiles[2].name: duplicate profile "p")"});
}

TEST_CASE("profile names are safe directory names", "[config]") {
  const Names errors = config_errors("profiles: [{name: ../etc, engine: trino, catalogs: [a]}]\n");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("profiles[0].name: ", 0) == 0);
  CHECK(config_errors("profiles: [{name: \"a/b\", engine: trino, catalogs: [a]}]\n").size() == 1);
}

TEST_CASE("catalogs are required, and catalog_map may only rename them", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino}]\n") ==
        Names{"profiles[0].catalogs: is required (the platform catalogs this profile covers)"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], catalog_map: {other: x}}]\n") ==
        Names{R"(profiles[0].catalog_map.other: maps catalog "other", which is not in this profile's catalogs)"});
}

TEST_CASE("two catalogs mapped to one engine catalog are an error", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: x, b: x}}]\n") ==
        Names{R"(profiles[0].catalog_map.b: two catalogs map to the engine catalog "x")"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: b}}]\n") ==
        Names{R"(profiles[0].catalog_map: catalog "b" collides with a renamed catalog)"});
  // A swap is fine: every engine catalog has one platform catalog.
  const tw::Config swap =
      must_config("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: b, b: a}}]\n");
  CHECK(swap.profiles[0].catalog_map.size() == 2);
}

// Trino lowercases catalog names (compiler.cpp engine_identifier), so on a
// Trino profile "X" and "x" are the same engine catalog. The compiler then
// silently merges two platform catalogs into one (map_catalogs de-duplicates
// ps.catalogs): grants on either reach the other's unlisted names.
TEST_CASE("two catalogs that reach one Trino catalog only through lowercasing are an error", "[config][bug]") {
  SECTION("through catalog_map") {
    const Names errors =
        config_errors("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: X, b: x}}]\n");
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::Contains("two catalogs map to the engine catalog"));
  }
  SECTION("through the catalogs list") {
    const Names errors = config_errors("profiles: [{name: p, engine: trino, catalogs: [Sales, sales]}]\n");
    CHECK(errors.size() == 1);
  }
}

TEST_CASE("other field checks", "[config]") {
  CHECK(config_errors("profiles: []\n") == Names{"profiles: must list at least one profile"});
  CHECK(config_errors("{}\n") == Names{"profiles: is required (a list)"});
  CHECK(config_errors("profiles: [{name: p, engine: starrocks, catalogs: [a], max_policies_per_tag: 0}]\n") ==
        Names{"profiles[0].max_policies_per_tag: must be between 1 and 1000000"});
  CHECK(config_errors("profiles: [{name: p, engine: starrocks, catalogs: [a], rules_file: /tmp/x}]\n") ==
        Names{"profiles[0].rules_file: only Trino profiles write a rules file"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], withhold_writes: \"no\"}]\n") ==
        Names{"profiles[0].withhold_writes: must be true or false, found a string"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a.b]}]\n") ==
        Names{R"(profiles[0].catalogs[0]: catalog "a.b" is not a catalog name)"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, a]}]\n") ==
        Names{R"(profiles[0].catalogs[1]: duplicate catalog "a")"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, \"*\"]}]\n") ==
        Names{R"(profiles[0].catalogs[1]: catalog "*" is not a catalog name)"});
  // No catalog would compile to deny-all for everyone: refused at load.
  CHECK(config_errors("profiles: [{name: p, engine: starrocks, catalogs: []}]\n") ==
        Names{"profiles[0].catalogs: names no catalog: list the platform catalogs this profile covers"});
}

TEST_CASE("all config errors are reported at once", "[config]") {
  const Names errors = config_errors(R"(profiles:
  - {name: p, engine: presto, catalogs: [a], catalog_map: {z: y}}
  - {name: p, engine: trino, catalogs: [b], bogus: 1}
)");
  CHECK(
      errors ==
      Names{
          R"(profiles[0].engine: unknown engine "presto" (expected trino or starrocks))",
          R"(profiles[0].catalog_map.z: maps catalog "z", which is not in this profile's catalogs)",
          R"(profiles[1].bogus: unknown key "bogus" (expected one of: name, engine, catalogs, catalog_map, user_map, withhold_writes, restrict_materialized_views, max_policies_per_tag, max_roles_per_user, rules_file, access_control, dsn, password_file, dialect, masking))",
          R"(profiles[1].name: duplicate profile "p")"});
}

TEST_CASE("the demo profiles config loads", "[config]") {
  tw::ConfigLoad r = tw::load_config_file(TAGWARDEN_SOURCE_DIR "/examples/demo/profiles.yaml");
  INFO(twtest::join_errors(r.errors));
  REQUIRE(r.config.has_value());
  REQUIRE(r.config->profiles.size() == 1);
  CHECK(r.config->profiles[0].name == "trino_main");
  CHECK(r.config->profiles[0].catalogs == Names{"demo_warehouse"});
  tw::ConfigLoad missing = tw::load_config_file("/nonexistent/profiles.yaml");
  REQUIRE(missing.errors.size() == 1);
  CHECK_THAT(missing.errors[0].str(), Catch::Contains("/nonexistent/profiles.yaml"));
}

namespace {

tw::ConfigLoad resolved(const std::string& text) { return tw::parse_config(text, true); }

bool mentions(const Names& errors, const std::string& needle) {
  for (const auto& e : errors) {
    if (e.find(needle) != std::string::npos) return true;
  }
  return false;
}

// A file holding `content`, removed at the end of the test.
struct SecretFile {
  std::string path;
  explicit SecretFile(const std::string& content) {
    char tmpl[] = "/tmp/tw-config-secret-XXXXXX";
    const int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    path = tmpl;
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    close(fd);
  }
  ~SecretFile() { unlink(path.c_str()); }
  SecretFile(const SecretFile&) = delete;
  SecretFile& operator=(const SecretFile&) = delete;
};

const char* const kTrinoProfile = "profiles: [{name: p, engine: trino, catalogs: [a]}]\n";

}  // namespace

// The daemon logs a StarRocks profile's DSN and shows it in /v1/status; `plan` and
// `apply` refuse a password in --dsn (parse_dsn), and the config now does the same.
TEST_CASE("a StarRocks dsn with a password is refused at load, without echoing it", "[config]") {
  const Names errors = config_errors(R"(profiles:
  - {name: t, engine: trino, catalogs: [a]}
  - {name: sr, engine: starrocks, catalogs: [b], dsn: "mysql://tw:hunter2@host:9030/"}
)");
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("profiles[1].dsn: ") && Catch::Contains("must not carry a password"));
  CHECK_FALSE(mentions(errors, "hunter2"));
  // An empty password still carries the separator, and so is refused too.
  CHECK(config_errors("profiles: [{name: sr, engine: starrocks, catalogs: [b], dsn: \"mysql://tw:@h\"}]\n").size() ==
        1);
  // The rest of parse_dsn's checks apply too, and their messages do not quote the DSN.
  const Names port =
      config_errors("profiles: [{name: sr, engine: starrocks, catalogs: [b], dsn: \"mysql://tw@h:99999\"}]\n");
  CHECK(port == Names{"profiles[0].dsn: the DSN's port must be 1-65535"});
  const Names option = config_errors(
      "profiles: [{name: sr, engine: starrocks, catalogs: [b], dsn: \"mysql://tw@h?password=hunter2\"}]\n");
  REQUIRE(option.size() == 1);
  CHECK_FALSE(mentions(option, "hunter2"));
  const Names scheme =
      config_errors("profiles: [{name: sr, engine: starrocks, catalogs: [b], dsn: \"http://x@h:9030\"}]\n");
  REQUIRE(scheme.size() == 1);
  CHECK_THAT(scheme[0], Catch::StartsWith("profiles[0].dsn: "));
  // What the daemon's open_server accepts loads.
  const tw::Config ok = must_config(R"(profiles:
  - {name: a, engine: starrocks, catalogs: [b], dsn: "mysql://tw@host:9030?tls=required"}
  - {name: c, engine: starrocks, catalogs: [d], dsn: "starrocks://tw@[::1]:9030"}
  - {name: e, engine: starrocks, catalogs: [f]}
)");
  CHECK(ok.profiles[0].dsn == "mysql://tw@host:9030?tls=required");
  CHECK(ok.profiles[2].dsn.empty());
}

TEST_CASE("two API tokens with one secret are refused, naming the second, never the secret", "[config]") {
  const std::string secret = "same-secret-0123456789";
  setenv("TW_CONFIG_TEST_TOKEN_DUP", secret.c_str(), 1);
  setenv("TW_CONFIG_TEST_TOKEN_OTHER", "other-secret-0123456789", 1);
  const SecretFile file(secret + "\n");  // the trailing newline is not part of the secret
  const std::string text = std::string(kTrinoProfile) + R"(tokens:
  - {name: ops, token_env: TW_CONFIG_TEST_TOKEN_DUP, scopes: [admin]}
  - {name: other, token_env: TW_CONFIG_TEST_TOKEN_OTHER, scopes: [read]}
  - {name: ci, token_file: ")" +
                           file.path + R"(", scopes: [validate]}
  - {name: ci2, token_file: ")" +
                           file.path + R"(", scopes: [read]}
)";
  const tw::ConfigLoad r = resolved(text);
  CHECK_FALSE(r.config.has_value());
  const Names errors = twtest::error_strings(r.errors);
  CHECK(errors == Names{R"(tokens[2]: has the same secret as tokens[0] ("ops"): every token needs its own secret)",
                        R"(tokens[3]: has the same secret as tokens[0] ("ops"): every token needs its own secret)"});
  CHECK_FALSE(mentions(errors, secret));
  // One-shot commands do not read the daemon's secrets, so they cannot compare them.
  CHECK(tw::parse_config(text).config.has_value());
  // Distinct secrets load, each with its own scopes.
  const tw::ConfigLoad ok = resolved(std::string(kTrinoProfile) + R"(tokens:
  - {name: ops, token_env: TW_CONFIG_TEST_TOKEN_DUP, scopes: [admin]}
  - {name: other, token_env: TW_CONFIG_TEST_TOKEN_OTHER, scopes: [read]}
)");
  INFO(twtest::join_errors(ok.errors));
  REQUIRE(ok.config.has_value());
  CHECK(ok.config->daemon.tokens.size() == 2);
  unsetenv("TW_CONFIG_TEST_TOKEN_DUP");
  unsetenv("TW_CONFIG_TEST_TOKEN_OTHER");
}

TEST_CASE("a Trino rules_file must name a file", "[config]") {
  for (const char* bad : {"\"\"", "/var/lib/tagwarden/", "rules/.", "/tmp/..", "."}) {
    INFO(bad);
    CHECK(config_errors(std::string("profiles: [{name: t, engine: trino, catalogs: [a]}, "
                                    "{name: p, engine: trino, catalogs: [b], rules_file: ") +
                        bad + "}]\n") ==
          Names{"profiles[1].rules_file: must name a file (it is empty or ends in a directory)"});
  }
  for (const char* good : {"rules.json", "/etc/trino/rules.json", "./rules.json", "/tmp/.rules"}) {
    INFO(good);
    const tw::Config c =
        must_config(std::string("profiles: [{name: p, engine: trino, catalogs: [a], rules_file: \"") + good + "\"}]\n");
    CHECK(c.profiles[0].rules_file == std::optional<std::string>(good));
  }
}

TEST_CASE("an API token cannot be the webhook secret", "[config]") {
  // Whoever sends webhooks holds the webhook secret; as an admin token it would also open
  // /v1/validate, /v1/explain and /v1/recompile to them (accepted before; ops audit).
  const std::string secret = "shared-webhook-and-token-0123";
  setenv("TW_CONFIG_TEST_SHARED", secret.c_str(), 1);
  setenv("TW_CONFIG_TEST_OWN", "own-token-secret-0123456789", 1);
  const tw::ConfigLoad r = resolved(std::string(kTrinoProfile) + R"(webhook: {secret_env: TW_CONFIG_TEST_SHARED}
tokens:
  - {name: ops, token_env: TW_CONFIG_TEST_SHARED, scopes: [admin]}
)");
  CHECK_FALSE(r.config.has_value());
  const Names errors = twtest::error_strings(r.errors);
  CHECK(errors == Names{"tokens[0]: has the same secret as the webhook: give the token its own secret"});
  CHECK_FALSE(mentions(errors, secret));
  const tw::ConfigLoad ok = resolved(std::string(kTrinoProfile) + R"(webhook: {secret_env: TW_CONFIG_TEST_SHARED}
tokens:
  - {name: ops, token_env: TW_CONFIG_TEST_OWN, scopes: [admin]}
)");
  INFO(twtest::join_errors(ok.errors));
  CHECK(ok.config.has_value());
  unsetenv("TW_CONFIG_TEST_SHARED");
  unsetenv("TW_CONFIG_TEST_OWN");
}

TEST_CASE("two profiles cannot share a rules_file", "[config]") {
  // The file would hold whichever profile published last: with withhold_writes: false on the
  // second, Trino reading the first's file could get writes the first withholds (found by the
  // ops audit; the evaluator allowed etl_svc INSERT on the Confidential invoices table under the
  // second profile's rules and refused it under the first's).
  const std::string a = "profiles: [{name: a, engine: trino, catalogs: [x], rules_file: ";
  const std::string b = "}, {name: b, engine: trino, catalogs: [x], withhold_writes: false, rules_file: ";
  for (const auto& [first, second] :
       std::vector<std::pair<std::string, std::string>>{{"/etc/trino/rules.json", "/etc/trino/rules.json"},
                                                        {"/etc/trino/rules.json", "/etc/trino/./sub/../rules.json"},
                                                        {"rules.json", "./rules.json"}}) {
    INFO(first << " / " << second);
    CHECK(config_errors(a + first + b + second + "}]\n") ==
          Names{R"(profiles[1].rules_file: is also profile "a"'s rules_file: each profile needs its own file, or )"
                R"(Trino may read the other profile's rules)"});
  }
  const tw::Config c = must_config(a + "/etc/trino/a.json" + b + "/etc/trino/b.json}]\n");
  CHECK(c.profiles[1].rules_file == std::optional<std::string>("/etc/trino/b.json"));
}

TEST_CASE("server.listen and server.rules_listen are host:port, and not one address", "[config]") {
  const auto server_errors = [](const std::string& server) {
    return config_errors(std::string(kTrinoProfile) + "server: " + server + "\n");
  };
  const std::string port_error = "the port must be a number from 0 to 65535 (0: any free port), e.g. 127.0.0.1:8181";
  CHECK(server_errors("{listen: garbage}") ==
        Names{"server.listen: must be host:port, e.g. 127.0.0.1:8181 or [::1]:8181"});
  CHECK(server_errors("{listen: \"127.0.0.1\"}") ==
        Names{"server.listen: must be host:port, e.g. 127.0.0.1:8181 or [::1]:8181"});
  CHECK(server_errors("{listen: \"127.0.0.1:99999\"}") == Names{"server.listen: " + port_error});
  CHECK(server_errors("{listen: \"127.0.0.1:\"}") == Names{"server.listen: " + port_error});
  CHECK(server_errors("{listen: \"127.0.0.1:80x\"}") == Names{"server.listen: " + port_error});
  CHECK(server_errors("{listen: \"127.0.0.1:-1\"}") == Names{"server.listen: " + port_error});
  CHECK(server_errors("{listen: \"localhost:8181\"}") ==
        Names{"server.listen: the host must be an IP address (names are not resolved), e.g. 127.0.0.1:8181"});
  CHECK(server_errors("{listen: \"::1:8181\"}") ==
        Names{"server.listen: an IPv6 address is written in brackets, e.g. [::1]:8181"});
  CHECK(server_errors("{listen: \"127.0.0.1:8182\", rules_listen: \"256.0.0.1:8181\"}") ==
        Names{"server.rules_listen: the host must be an IP address (names are not resolved), e.g. 127.0.0.1:8181"});
  CHECK(server_errors("{rules_listen: \"\"}") ==
        Names{"server.rules_listen: is empty: give host:port, or leave rules_listen out to serve the rules on "
              "server.listen"});
  // One address for both listeners: the second bind would fail (exit 3) after the first.
  const std::string same =
      "server.rules_listen: is the address of server.listen (127.0.0.1:8181): give the rules listener its own "
      "port, or leave rules_listen out";
  CHECK(server_errors("{listen: \"127.0.0.1:8181\", rules_listen: \"127.0.0.1:8181\"}") == Names{same});
  CHECK(server_errors("{rules_listen: \"127.0.0.1:8181\"}") == Names{same});  // listen's default
  CHECK(server_errors("{listen: \"127.0.0.1:8181\", rules_listen: \"0.0.0.0:8181\"}") == Names{same});
  CHECK(server_errors("{listen: \"127.0.0.1:8181\", rules_listen: \"[::]:8181\"}") == Names{same});
  CHECK(server_errors("{listen: \"[::1]:8181\", rules_listen: \"[0::1]:8181\"}").size() == 1);
  // What the daemon binds loads: port 0 (any free port, as the daemon tests use), IPv6, all interfaces.
  for (const char* good :
       {"{listen: \"127.0.0.1:0\", rules_listen: \"127.0.0.1:0\"}", "{listen: 127.0.0.1:0}",
        "{listen: \"0.0.0.0:8182\", rules_listen: \"0.0.0.0:8181\"}",
        "{listen: \"[::1]:8181\", rules_listen: \"127.0.0.1:8181\"}",
        "{listen: \"0.0.0.0:8181\", rules_listen: \"[::1]:8181\"}",
        "{listen: \"127.0.0.1:8181\", rules_listen: \"127.0.0.2:8181\"}",
        "{listen: \":8181\", rules_listen: \"[fe80::1%lo]:8182\"}", "{listen: \"127.0.0.1:65535\"}"}) {
    INFO(good);
    const tw::Config c = must_config(std::string(kTrinoProfile) + "server: " + good + "\n");
    CHECK_FALSE(c.daemon.server.listen.empty());
  }
}

// The rules open `system` read-only and a profile's catalogs in full: a profile catalog that is
// Trino's system catalog would give its users all of it.
TEST_CASE("a Trino profile catalog cannot be the system catalog", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [system]}]\n") ==
        Names{R"(profiles[0].catalogs: catalog "system" would be Trino's built-in system catalog, which tagwarden )"
              R"(opens read-only to the snapshot's users: map it to another engine catalog name (catalog_map))"});
  const Names mapped = config_errors("profiles: [{name: p, engine: trino, catalogs: [a], catalog_map: {a: SYSTEM}}]\n");
  REQUIRE(mapped.size() == 1);
  CHECK_THAT(mapped[0], Catch::StartsWith("profiles[0].catalog_map.a: catalog \"a\" would be Trino's built-in system"));
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], catalog_map: {a: x.y}}]\n") ==
        Names{R"(profiles[0].catalog_map.a: engine catalog "x.y" is not a catalog name)"});
  // Mapped away, a platform catalog named system is fine; StarRocks has no such catalog.
  CHECK(must_config("profiles: [{name: p, engine: trino, catalogs: [system], catalog_map: {system: sys2}}]\n")
            .profiles.size() == 1);
  CHECK(must_config("profiles: [{name: p, engine: starrocks, catalogs: [system]}]\n").profiles.size() == 1);
}

TEST_CASE("durations are bounded, so that none wraps around an int", "[config][bug]") {
  // reconcile_interval: 2147483648 (seconds) was cast to a negative int (a pass on every turn
  // of the daemon's loop), 2147483648ms of source.timeout too, and 20 digits threw from
  // std::stoll: one error "stoll" with no path.
  const std::string head = "profiles: [{name: p, engine: trino, catalogs: [c]}]\n";
  const tw::Config ok = must_config(head +
                                    "reconcile_interval: 576h\nsource: {file: s.yaml, timeout: 2073600000ms, "
                                    "backoff: 34560m}\n");
  CHECK(ok.daemon.reconcile_interval_s == 24 * 24 * 3600);
  CHECK(ok.daemon.source.timeout_ms == 2073600000);
  CHECK(ok.daemon.source.backoff_ms == 2073600000);
  CHECK(must_config(head + "reconcile_interval: 2073600\n").daemon.reconcile_interval_s == 2073600);
  const std::string interval = "reconcile_interval: must be a duration of at least 1s and at most 576h, e.g. 5m";
  for (const char* v : {"2147483648", "2073601", "9223372036854775807", "18446744073709551615", "577h",
                        "99999999999999999999s", "2562047788015216h", "\"0003000000000000s\""}) {
    INFO(v);
    CHECK(config_errors(head + "reconcile_interval: " + v + "\n") == Names{interval});
  }
  CHECK(config_errors(head + "source: {file: s.yaml, timeout: 2147483648ms, backoff: 3000000s}\n") ==
        Names{"source.timeout: must be a duration of at least 100ms and at most 576h, e.g. 10s",
              "source.backoff: must be a duration of at most 576h, e.g. 500ms"});
}

TEST_CASE("max_policies_per_tag is a StarRocks key: refused on a Trino profile", "[config][bug]") {
  // It was silently accepted on a Trino profile, which never counts policies: a limit that
  // looks enforced and is not.
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], max_policies_per_tag: 10}]\n") ==
        Names{"profiles[0].max_policies_per_tag: only StarRocks profiles have max_policies_per_tag"});
  CHECK(must_config("profiles: [{name: p, engine: starrocks, catalogs: [a], max_policies_per_tag: 10}]\n")
            .profiles[0]
            .max_policies_per_tag == 10);
}

TEST_CASE("max_roles_per_user is a StarRocks key of at least 2 (PUBLIC and the user's own role)", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], max_roles_per_user: 64}]\n") ==
        Names{"profiles[0].max_roles_per_user: only StarRocks profiles have max_roles_per_user"});
  for (const char* bad : {"1", "0", "-3", "1000001"}) {
    CHECK(config_errors(std::string("profiles: [{name: p, engine: starrocks, catalogs: [a], max_roles_per_user: ") +
                        bad + "}]\n") ==
          Names{"profiles[0].max_roles_per_user: must be between 2 and 1000000: set it to the server's "
                "privilege_max_total_roles_per_user"});
  }
  CHECK(must_config("profiles: [{name: p, engine: starrocks, catalogs: [a], max_roles_per_user: 2}]\n")
            .profiles[0]
            .max_roles_per_user == 2);
}

TEST_CASE("a profile named findings.json is refused: compile writes DIR/findings.json", "[config][bug]") {
  // compile created DIR/findings.json/ for the profile, then failed to write the findings file
  // over that directory (exit 3 after a partial write).
  for (const char* name : {"findings.json", "Findings.JSON"}) {
    INFO(name);
    CHECK(config_errors(std::string("profiles: [{name: \"") + name + "\", engine: trino, catalogs: [a]}]\n") ==
          Names{std::string("profiles[0].name: profile name \"") + name +
                "\" collides with the findings file compile writes next to the profile directories "
                "(DIR/findings.json); choose another name"});
  }
  CHECK(must_config("profiles: [{name: findings.json2, engine: trino, catalogs: [a]}]\n").profiles.size() == 1);
}

TEST_CASE("access_control: file or opa, on Trino profiles only, and opa writes no rules file", "[config]") {
  auto loaded = tw::parse_config(
      "profiles: [{name: a, engine: trino, catalogs: [x]}, {name: b, engine: trino, catalogs: [x], access_control: "
      "opa}, {name: c, engine: trino, catalogs: [x], access_control: file}]\n");
  REQUIRE(loaded.config);
  CHECK(loaded.config->profiles[0].access_control == tw::TrinoAccessControl::File);
  CHECK(loaded.config->profiles[1].access_control == tw::TrinoAccessControl::Opa);
  CHECK(loaded.config->profiles[2].access_control == tw::TrinoAccessControl::File);
  CHECK(config_errors("profiles: [{name: s, engine: starrocks, catalogs: [x], access_control: opa}]\n") ==
        Names{"profiles[0].access_control: only Trino profiles have access_control (file or opa)"});
  CHECK(config_errors("profiles: [{name: t, engine: trino, catalogs: [x], access_control: OPA}]\n") ==
        Names{"profiles[0].access_control: must be file (Trino reads the rules document) or opa (Trino asks the "
              "daemon's decision endpoints)"});
  const Names both = config_errors(
      "profiles: [{name: t, engine: trino, catalogs: [x], access_control: opa, rules_file: /tmp/r.json}]\n");
  REQUIRE(both.size() == 1);
  CHECK_THAT(both[0], Catch::StartsWith("profiles[0].rules_file: a profile with access_control: opa has no rules"));
}

TEST_CASE("a rules_file may not be a file tagwarden reads or another profile's, however it is spelled", "[config]") {
  // Publishing replaces the rules_file whole: on the daemon's snapshot or its own config it
  // destroys the input; through a symlinked directory two profiles share one file, and Trino
  // reads whichever published last.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tw-rules-file-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "alias");
  const std::string d = dir.string();
  CHECK(config_errors("source: {file: " + d +
                      "/real/snap.json}\nprofiles:\n"
                      "  - {name: t, engine: trino, catalogs: [a], rules_file: " +
                      d + "/alias/snap.json}\n") ==
        Names{"profiles[0].rules_file: is the daemon's source.file: publishing the rules would overwrite it; name a "
              "file of the profile's own"});
  CHECK(config_errors("profiles:\n  - {name: t, engine: trino, catalogs: [a], rules_file: " + d +
                      "/real/r.json}\n  - {name: u, engine: trino, catalogs: [b], rules_file: " + d +
                      "/alias/r.json}\n") ==
        Names{"profiles[1].rules_file: is also profile \"t\"'s rules_file: each profile needs its own file, or Trino "
              "may read the other profile's rules"});
  CHECK(config_errors("state_dir: " + d +
                      "/alias\nprofiles:\n  - {name: t, engine: trino, catalogs: [a], rules_file: " + d +
                      "/real/profiles/t/rules.json}\n") ==
        Names{"profiles[0].rules_file: is under the daemon's state_dir: publishing the rules would overwrite it; name "
              "a file of the profile's own"});
  // Its root too: a rules file renamed over serve.lock would let a second daemon start (found by the audit).
  CHECK(config_errors("state_dir: " + d +
                      "/alias\nprofiles:\n  - {name: t, engine: trino, catalogs: [a], rules_file: " + d +
                      "/real/serve.lock}\n") ==
        Names{"profiles[0].rules_file: is under the daemon's state_dir: publishing the rules would overwrite it; name "
              "a file of the profile's own"});
  const std::string config_path = d + "/real/tw.yaml";
  {
    std::ofstream(config_path) << "profiles:\n  - {name: t, engine: trino, catalogs: [a], rules_file: " << d
                               << "/alias/tw.yaml}\n";
  }
  const tw::ConfigLoad own = tw::load_config_file(config_path);
  CHECK_FALSE(own.config.has_value());
  CHECK(twtest::error_strings(own.errors) ==
        Names{"profiles[0].rules_file: is this config file: publishing the rules would overwrite it; name a file of "
              "the profile's own"});
  must_config("source: {file: " + d +
              "/real/snap.json}\nprofiles:\n  - {name: t, engine: trino, catalogs: [a], "
              "rules_file: " +
              d + "/real/rules.json}\n");
  fs::remove_all(dir);
}
