#include "daemon_settings.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace tw {
namespace {

// A secret is given as NAME_env (an environment variable) or NAME_file (a file
// whose content, without a trailing newline, is the secret), never inline.
std::string read_secret(EntryReader& e, const std::string& base, bool required, bool resolve) {
  auto env = e.string(base + "_env", false);
  auto file = e.string(base + "_file", false);
  if (env && file) {
    e.error(e.path(base + "_env"), "give " + base + "_env or " + base + "_file, not both");
    return {};
  }
  if (!resolve) {
    if (required && !env && !file) e.error(e.path(), "needs " + base + "_env or " + base + "_file");
    return {};
  }
  if (env) {
    const char* v = std::getenv(env->c_str());
    if (!v || !*v) {
      e.error(e.path(base + "_env"), "environment variable " + *env + " is not set or empty");
      return {};
    }
    return v;
  }
  if (file) {
    std::ifstream in(*file, std::ios::binary);
    std::ostringstream ss;
    if (!in || !(ss << in.rdbuf())) {
      e.error(e.path(base + "_file"), "cannot read the secret file " + *file);
      return {};
    }
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (s.empty()) e.error(e.path(base + "_file"), "the secret file " + *file + " is empty");
    return s;
  }
  if (required) e.error(e.path(), "needs " + base + "_env or " + base + "_file");
  return {};
}

// A header whose value is a credential by its name: Authorization, Cookie, X-Api-Key,
// X-Auth-Token, Private-Token... Its value must come from value_env / value_file.
bool secret_header(std::string_view name) {
  std::string lower(name);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word :
       {"auth", "cookie", "token", "key", "secret", "password", "passwd", "session", "credential", "signature"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

// RFC 9110 token characters: a header name that cannot smuggle a second header line.
bool header_name_ok(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos)) return false;
  }
  return true;
}

// The source URL must not carry credentials: it is shown in /v1/status, logs and error
// answers. Messages never echo the URL.
void check_source_url(EntryReader& e, const std::string& url) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    e.error("source.url", "must start with http:// or https://");
    return;
  }
  const std::size_t start = url.find("://") + 3;
  const std::string authority = url.substr(start, url.find_first_of("/?#", start) - start);
  if (authority.find('@') != std::string::npos) {
    e.error("source.url",
            "must not carry credentials (user:password@host): the URL is shown in /v1/status and logs. Remove "
            "them and give the token with source.token_env or source.token_file (sent as Authorization: Bearer), "
            "or a header with source.headers.<name>.value_env / value_file");
  }
  if (url.find_first_of("\r\n \t") != std::string::npos)
    e.error("source.url", "must not contain spaces or line breaks");
}

// A listener address as the daemon binds it (src/daemon/http_server.cpp parse_endpoint):
// IPv4:port, [IPv6]:port or :port (all IPv4 interfaces); names are not resolved.
// Port 0 asks the kernel for a free port.
struct ListenAddress {
  bool v6 = false;
  std::string address;  // canonical text (inet_ntop)
  int port = 0;
  bool unspecified() const { return address == "0.0.0.0" || address == "::"; }
};

std::optional<ListenAddress> read_listen(EntryReader& e, const std::string& key, const std::string& text) {
  const std::string path = "server." + key;
  const auto colon = text.rfind(':');
  if (text.empty() && key == "rules_listen") {
    e.error(path, "is empty: give host:port, or leave rules_listen out to serve the rules on server.listen");
    return std::nullopt;
  }
  if (colon == std::string::npos) {
    e.error(path, "must be host:port, e.g. 127.0.0.1:8181 or [::1]:8181");
    return std::nullopt;
  }
  const std::string port = text.substr(colon + 1);
  std::string host = text.substr(0, colon);
  ListenAddress out;
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    e.error(path, "the port must be a number from 0 to 65535 (0: any free port), e.g. 127.0.0.1:8181");
    return std::nullopt;
  }
  out.port = std::stoi(port);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    out.v6 = true;
  }
  if (host.empty() && !out.v6) host = "0.0.0.0";
  std::string scope;  // [fe80::1%eth0]: asio takes a zone, inet_pton does not
  if (const auto pct = host.find('%'); out.v6 && pct != std::string::npos && pct + 1 < host.size()) {
    scope = host.substr(pct);
    host.resize(pct);
  }
  unsigned char bytes[16];
  char canonical[INET6_ADDRSTRLEN];
  const int family = out.v6 ? AF_INET6 : AF_INET;
  if (inet_pton(family, host.c_str(), bytes) != 1 || !inet_ntop(family, bytes, canonical, sizeof canonical)) {
    e.error(path, host.find(':') != std::string::npos && !out.v6
                      ? "an IPv6 address is written in brackets, e.g. [::1]:8181"
                      : "the host must be an IP address (names are not resolved), e.g. 127.0.0.1:8181");
    return std::nullopt;
  }
  out.address = canonical + scope;
  return out;
}

// True when both cannot be bound at once: the same address and port, or a wildcard
// over the other's address ([::] takes IPv4 too on a dual-stack host). Port 0 never clashes.
bool same_listener(const ListenAddress& a, const ListenAddress& b) {
  if (a.port == 0 || a.port != b.port) return false;
  if (a.v6 == b.v6 && a.address == b.address) return true;
  const auto covers = [](const ListenAddress& w, const ListenAddress& o) { return w.unspecified() && (w.v6 || !o.v6); };
  return covers(a, b) || covers(b, a);
}

}  // namespace

std::optional<long long> parse_duration_ms(JsonValue value) {
  // Every duration is kept in an int of milliseconds (or seconds): beyond the bound the
  // cast wrapped (reconcile_interval: 2147483648 became a negative interval, a pass on
  // every turn of the loop) and 20 digits threw from std::stoll with no path.
  if (value.is_integer()) {
    const long long s = value.integer();
    return s >= 0 && s <= kMaxDurationMs / 1000 ? std::optional<long long>(s * 1000) : std::nullopt;
  }
  if (!value.is_string()) return std::nullopt;
  static const std::regex re(R"(^\s*([0-9]{1,12})\s*(ms|s|m|h)?\s*$)");
  std::smatch m;
  const std::string s(value.string());
  if (!std::regex_match(s, m, re)) return std::nullopt;
  const long long n = std::stoll(m[1].str());  // at most 12 digits: no overflow below
  const std::string unit = m[2].matched ? m[2].str() : "s";
  const long long ms = unit == "ms" ? n : unit == "s" ? n * 1000 : unit == "m" ? n * 60000 : n * 3600000;
  return ms <= kMaxDurationMs ? std::optional<long long>(ms) : std::nullopt;
}

void read_daemon_settings(EntryReader& top, DaemonSettings& out, bool resolve_secrets) {
  if (const std::optional<JsonValue> src = top.mapping("source", false)) {
    EntryReader e(*src, "source", top.errors(),
                  {"file", "url", "headers", "token_env", "token_file", "timeout", "retries", "backoff", "ca_file",
                   "verify_tls"});
    out.source.file = e.string("file", false).value_or("");
    out.source.url = e.string("url", false).value_or("");
    if (out.source.file.empty() == out.source.url.empty()) e.error("source", "give exactly one of file or url");
    if (!out.source.url.empty()) check_source_url(e, out.source.url);
    // headers: {X-Tenant: analytics, X-Api-Key: {value_env: VAR}}. A literal value is refused for a
    // header whose name says it is a credential (Authorization, Cookie, *Token, *Key, ...).
    if (const std::optional<JsonValue> h = e.mapping("headers", false)) {
      for (const auto& [k, v] : h->sorted_members()) {
        const std::string path = key_path("source.headers", k);
        if (!header_name_ok(k)) {
          e.error(path, "is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)");
          continue;
        }
        if (v.is_object()) {
          EntryReader he(v, path, top.errors(), {"value_env", "value_file"});
          std::string value = read_secret(he, "value", true, resolve_secrets);
          if (value.find_first_of("\r\n") != std::string::npos) {
            e.error(path, "the secret value contains a line break");
          } else {
            out.source.headers[std::string(k)] = std::move(value);
          }
        } else if (!v.is_string()) {
          e.error(path, "must be a string, or {value_env: VARIABLE} / {value_file: PATH} for a secret value");
        } else if (secret_header(k)) {
          e.error(path,
                  "looks like a credential, so its value must not be written in the config (it is a secret): "
                  "give {value_env: VARIABLE} or {value_file: PATH}, or use source.token_env / token_file "
                  "for a bearer token");
        } else if (std::string_view(v.string()).find_first_of("\r\n") != std::string_view::npos) {
          e.error(path, "must not contain a line break");
        } else {
          out.source.headers[std::string(k)] = std::string(v.string());
        }
      }
    }
    out.source.bearer_token = read_secret(e, "token", false, resolve_secrets);
    if (e.has("timeout")) {
      auto ms = parse_duration_ms(*src->find("timeout"));
      if (!ms || *ms < 100)
        e.error("source.timeout", "must be a duration of at least 100ms and at most 576h, e.g. 10s");
      else
        out.source.timeout_ms = static_cast<int>(*ms);
    }
    if (e.has("backoff")) {
      auto ms = parse_duration_ms(*src->find("backoff"));
      if (!ms)
        e.error("source.backoff", "must be a duration of at most 576h, e.g. 500ms");
      else
        out.source.backoff_ms = static_cast<int>(*ms);
    }
    if (auto r = e.integer("retries")) {
      if (*r < 0 || *r > 20)
        e.error("source.retries", "must be between 0 and 20");
      else
        out.source.retries = static_cast<int>(*r);
    }
    out.source.ca_file = e.string("ca_file", false).value_or("");
    out.source.verify_tls = e.boolean("verify_tls").value_or(true);
  }
  if (const std::optional<JsonValue> srv = top.mapping("server", false)) {
    EntryReader e(*srv, "server", top.errors(),
                  {"listen", "rules_listen", "rules_require_token", "max_connections", "validate_max_body_bytes"});
    out.server.listen = e.string("listen", false).value_or(out.server.listen);
    const std::optional<std::string> rules_listen = e.string("rules_listen", false);
    out.server.rules_listen = rules_listen.value_or("");
    const std::optional<ListenAddress> api = read_listen(e, "listen", out.server.listen);
    const std::optional<ListenAddress> rules =
        rules_listen ? read_listen(e, "rules_listen", *rules_listen) : std::nullopt;
    if (api && rules && same_listener(*api, *rules)) {
      e.error("server.rules_listen", "is the address of server.listen (" + out.server.listen +
                                         "): give the rules listener its own port, or leave rules_listen out");
    }
    out.server.rules_require_token = e.boolean("rules_require_token").value_or(false);
    if (auto n = e.integer("max_connections")) {
      if (*n < 1 || *n > 100000)
        e.error("server.max_connections", "must be between 1 and 100000 (default 512; per listener)");
      else
        out.server.max_connections = static_cast<std::size_t>(*n);
    }
    if (auto n = e.integer("validate_max_body_bytes")) {
      if (*n < 1024 || *n > (std::int64_t(1) << 30))
        e.error("server.validate_max_body_bytes", "must be between 1024 and 1073741824 (default 67108864, 64 MiB)");
      else
        out.server.validate_max_body = static_cast<std::size_t>(*n);
    }
  }
  if (auto dir = top.string("state_dir", false)) out.state_dir = *dir;
  if (top.has("reconcile_interval")) {
    auto ms = parse_duration_ms(*top.raw().find("reconcile_interval"));
    if (!ms || *ms < 1000)
      top.error("reconcile_interval", "must be a duration of at least 1s and at most 576h, e.g. 5m");
    else
      out.reconcile_interval_s = static_cast<int>(*ms / 1000);
  }
  if (const std::optional<JsonValue> wh = top.mapping("webhook", false)) {
    EntryReader e(*wh, "webhook", top.errors(), {"secret_env", "secret_file", "max_body_bytes", "wait_timeout"});
    out.webhook_secret = read_secret(e, "secret", true, resolve_secrets);
    // Empty: read_secret said why (not set, unreadable, missing); a second error would only repeat it.
    if (resolve_secrets && !out.webhook_secret.empty() && out.webhook_secret.size() < 16) {
      e.error("webhook", "the webhook secret must be at least 16 bytes");
    }
    if (auto n = e.integer("max_body_bytes")) {
      if (*n < 16 || *n > (64 << 20))
        e.error("webhook.max_body_bytes", "must be between 16 and 67108864");
      else
        out.webhook_max_body = static_cast<std::size_t>(*n);
    }
    if (e.has("wait_timeout")) {
      auto ms = parse_duration_ms(*wh->find("wait_timeout"));
      if (!ms)
        e.error("webhook.wait_timeout", "must be a duration of at most 576h, e.g. 10s");
      else
        out.webhook_wait_ms = static_cast<int>(*ms);
    }
  }
  if (const std::optional<JsonValue> tokens = top.array("tokens", false)) {
    static const std::vector<std::string> kScopes = {"read", "recompile", "validate", "admin"};
    std::vector<std::size_t> token_paths;  // the index in tokens of each of out.tokens
    for (const auto [i, item] : tokens->indexed()) {
      EntryReader e(item, "tokens", i, top.errors(), {"name", "token_env", "token_file", "scopes"});
      if (!e.is_mapping()) continue;
      ApiToken t;
      t.name = e.string("name", true).value_or("");
      t.token = read_secret(e, "token", true, resolve_secrets);
      if (resolve_secrets && !t.token.empty() && t.token.size() < 16)
        e.error(e.path(), "tokens must be at least 16 bytes");
      t.scopes = e.string_list("scopes", "scope");
      for (const auto& s : t.scopes) {
        if (std::find(kScopes.begin(), kScopes.end(), s) == kScopes.end()) {
          e.error(e.path("scopes"), "unknown scope \"" + s + "\" (expected read, recompile, validate or admin)");
        }
      }
      // A request is matched to a token by its secret: two equal secrets would share
      // the last one's scopes. The message names the other token, never the secret.
      if (!t.token.empty()) {
        for (std::size_t j = 0; j < out.tokens.size(); ++j) {
          if (out.tokens[j].token == t.token) {
            e.error(e.path(), "has the same secret as " + index_path("tokens", token_paths[j]) + " (\"" +
                                  out.tokens[j].name + "\"): every token needs its own secret");
            break;
          }
        }
      }
      // The webhook secret is held by whoever sends webhooks (the governance platform): as a
      // token it would also give that sender this token's API scopes.
      if (!t.token.empty() && t.token == out.webhook_secret) {
        e.error(e.path(), "has the same secret as the webhook: give the token its own secret");
      }
      token_paths.push_back(i);
      out.tokens.push_back(std::move(t));
    }
  }
}

}  // namespace tw
