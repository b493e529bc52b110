// Secrets in the HTTP source's settings: credentials in source.url are refused at load,
// a query string is never shown, and a credential header's value comes from *_env / *_file.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "sources/http_source.h"
#include "tagwarden/config/profile.h"

namespace {

std::vector<std::string> errors_of(const std::string& daemon_part) {
  const tw::ConfigLoad r = tw::parse_config("profiles: [{name: t, engine: trino, catalogs: [a]}]\n" + daemon_part);
  return twtest::error_strings(r.errors);
}

bool mentions(const std::vector<std::string>& errors, const std::string& text) {
  for (const auto& e : errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a source.url with user:password@ is refused at load, without echoing it", "[config][secrets]") {
  const auto errors = errors_of("source: {url: \"http://svc:TopSecretPw123@127.0.0.1:9/snap.yaml\"}\n");
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("source.url: ") && Catch::Contains("token_env") &&
                            Catch::Contains("token_file"));
  CHECK_FALSE(mentions(errors, "TopSecretPw123"));
  CHECK(errors_of("source: {url: \"https://user@host/s.yaml\"}\n").size() == 1);
  // '@' after the authority is not userinfo
  CHECK(errors_of("source: {url: \"https://host/s.yaml?owner=a@b\"}\n").empty());
  CHECK(errors_of("source: {url: \"https://host/team@x/s.yaml\"}\n").empty());
}

TEST_CASE("credential headers need value_env or value_file; others may be literal", "[config][secrets]") {
  for (const std::string name : {"Authorization", "Cookie", "X-Api-Key", "Private-Token", "X-Auth-Token",
                                 "x-client-secret"}) {
    const auto errors = errors_of("source: {url: \"https://h/s\", headers: {" + name + ": \"Literal12345\"}}\n");
    INFO(name);
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith("source.headers." + name + ": ") && Catch::Contains("value_env"));
    CHECK_FALSE(mentions(errors, "Literal12345"));
  }
  CHECK(errors_of("source: {url: \"https://h/s\", headers: {X-Tenant: analytics}}\n").empty());
  CHECK(errors_of("source: {url: \"https://h/s\", headers: {X-Api-Key: {value_env: SOME_VAR}}}\n").empty());
  CHECK(errors_of("source: {url: \"https://h/s\", headers: {X-Api-Key: {value_file: /run/k}}}\n").empty());
  CHECK(errors_of("source: {url: \"https://h/s\", headers: {X-Api-Key: {}}}\n").size() == 1);
  CHECK(errors_of("source: {url: \"https://h/s\", headers: {\"Bad Name\": x}}\n").size() == 1);
  CHECK(errors_of("source: {url: \"https://h/s\", headers: {X-Tenant: \"a\\r\\nX-Evil: 1\"}}\n").size() == 1);
}

TEST_CASE("the HTTP source never shows a query string or userinfo", "[sources][secrets]") {
  CHECK(tw::redact_url("https://h:8443/api/snap.json?access_token=abc&x=1") == "https://h:8443/api/snap.json?<redacted>");
  CHECK(tw::redact_url("https://h/snap.json") == "https://h/snap.json");
  CHECK(tw::redact_url("http://u:pw@h/snap#frag") == "http://<redacted>@h/snap?<redacted>");
  tw::SourceSettings s;
  s.url = "http://127.0.0.1:9/snap.yaml?access_token=QueryTok456";  // discard port: connection refused
  s.retries = 0;
  s.timeout_ms = 1000;
  s.headers["X-Api-Key"] = "HeaderKey789abc";
  tw::HttpSource source(s);
  CHECK(source.describe() == "url http://127.0.0.1:9/snap.yaml?<redacted>");
  const tw::SourceFetch f = source.fetch();
  CHECK(f.status == tw::SourceFetch::Status::Failed);
  INFO(f.error);
  CHECK_THAT(f.error, Catch::Contains("http://127.0.0.1:9/snap.yaml?<redacted>"));
  CHECK(f.error.find("QueryTok456") == std::string::npos);
  CHECK(f.error.find("HeaderKey789abc") == std::string::npos);
}
