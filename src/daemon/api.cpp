#include "api.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_set>

#include <boost/asio/steady_timer.hpp>

#include "api_auth.h"
#include "log.h"
#include "tagwarden/engines/trino/opa.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/timestamp.h"

namespace tw {
namespace {

// What the sender should change, so a refused webhook says it (the log keeps the verdict only).
std::string webhook_refusal_hint(WebhookVerdict verdict, Timestamp now) {
  switch (verdict) {
    case WebhookVerdict::MissingHeaders:
      return "send X-Tagwarden-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook secret> "
             "and X-Tagwarden-Timestamp: <Unix seconds or RFC 3339>";
    case WebhookVerdict::BadTimestamp:
      return "X-Tagwarden-Timestamp must be Unix seconds or an RFC 3339 time with a zone";
    case WebhookVerdict::Stale:
      return "X-Tagwarden-Timestamp is more than 5 minutes from the server's time (" + format_timestamp(now) +
             "): send it when it is signed, and keep the clocks in sync";
    case WebhookVerdict::BadSignature:
      return "X-Tagwarden-Signature must be sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook secret>";
    case WebhookVerdict::Replayed:
      return "this timestamp and signature were already accepted";
    case WebhookVerdict::Accepted:
      break;
  }
  return "";
}

using nlohmann::json;

http::Response json_response(unsigned status, const json& body) {
  // A string that is not UTF-8 (a name or message copied from a refused snapshot or request
  // body) is sent with U+FFFD in its place: dumping strictly would throw, and the answer be a 500.
  return http::make_response(status, body.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}

http::Response error_response(unsigned status, const std::string& message) {
  return json_response(status, {{"error", message}});
}

// RFC 9110: a 405 says which methods the resource takes.
http::Response method_not_allowed(const char* allow, const std::string& message) {
  http::Response res = error_response(405, message);
  res.set(http::bhttp::field::allow, allow);
  return res;
}

std::string query_param(const std::string& target, const std::string& key) {
  const auto q = target.find('?');
  if (q == std::string::npos) return {};
  std::string rest = target.substr(q + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    const auto amp = rest.find('&', pos);
    const std::string pair = rest.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == key && eq != std::string::npos) {
      std::string raw = pair.substr(eq + 1), out;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '+') {
          out += ' ';
        } else if (raw[i] == '%' && i + 2 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[i + 1])) &&
                   std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
          out += static_cast<char>(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          out += raw[i];
        }
      }
      return out;
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return {};
}

std::string path_of(const std::string& target) { return target.substr(0, target.find('?')); }

// If-None-Match as RFC 9110 reads it: "*", or a list of entity tags compared weakly (W/ ignored).
bool etag_matches(std::string_view header, std::string_view etag) {
  for (std::size_t start = 0; start < header.size();) {
    std::size_t end = header.find(',', start);
    if (end == std::string_view::npos) end = header.size();
    std::string_view tag = header.substr(start, end - start);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag.rfind("W/", 0) == 0) tag.remove_prefix(2);
    if (tag == "*" || tag == etag) return true;
    start = end + 1;
  }
  return false;
}

const std::string kRulesPrefix = "/v1/profiles/", kRulesSuffix = "/trino-rules.json";

bool is_rules_path(const std::string& path) {
  return path.rfind(kRulesPrefix, 0) == 0 && path.size() > kRulesPrefix.size() + kRulesSuffix.size() &&
         path.compare(path.size() - kRulesSuffix.size(), kRulesSuffix.size(), kRulesSuffix) == 0;
}

// POST /v1/profiles/<name>/trino-opa/<endpoint>: Trino's OPA access control asks here.
const std::string kOpaInfix = "/trino-opa/";

struct OpaPath {
  std::string profile;
  std::string endpoint;
};

std::optional<OpaPath> opa_path(const std::string& path) {
  if (path.rfind(kRulesPrefix, 0) != 0) return std::nullopt;
  const auto infix = path.find(kOpaInfix, kRulesPrefix.size());
  if (infix == std::string::npos || infix == kRulesPrefix.size()) return std::nullopt;
  OpaPath out{path.substr(kRulesPrefix.size(), infix - kRulesPrefix.size()), path.substr(infix + kOpaInfix.size())};
  if (out.profile.find('/') != std::string::npos || out.endpoint.find('/') != std::string::npos) return std::nullopt;
  return out;
}

// A GET of what a profile serves: 304 when If-None-Match names it, else body(). The ETag is the
// artifact's digest, or "deny-all" while nothing good is served (`served` null).
template <typename Body>
http::Response served_response(const http::Exchange& ex, const PublishedArtifact* served, Body body) {
  const std::string etag = served ? "\"" + served->artifact.sha256 + "\"" : "\"deny-all\"";
  const auto if_none_match = ex.request[http::bhttp::field::if_none_match];
  http::Response res = etag_matches(std::string_view(if_none_match.data(), if_none_match.size()), etag)
                           ? http::make_response(304, "")
                           : body();
  res.set(http::bhttp::field::etag, etag);
  res.set(http::bhttp::field::cache_control, "no-cache");
  res.set("X-Tagwarden-Ready", served ? "true" : "false");
  if (served) res.set("X-Tagwarden-Version", std::to_string(served->version));
  return res;
}

// GET /v1/profiles/<name>/trino-opa/decisions: which compile the decisions come from (version,
// digest; an ETag for conditional polls), without asking one.
const std::string kOpaServed = "decisions";

// A batch names every table of a schema or every column of a table: far more than a rules poll.
constexpr std::size_t kOpaMaxBody = 16 * 1024 * 1024;

// Trino sends every key once. A body with a key twice is refused, not read by its last
// occurrence: a proxy in front that read the first "user" would log one identity while the
// decision went to another (audit 32 F8). The snapshot loaders refuse duplicates too.
json parse_without_duplicate_keys(const std::string& body, std::string& duplicate) {
  // A SAX pass for the duplicates, then the parse: nlohmann's parse with a callback looks through
  // the parent of every object that ends, quadratic in an array of objects (a 15 MiB batch of
  // them took 35 s). The keys of each open object: Trino's objects have a few, looked through in
  // order; one with many (a hostile body) moves them to a hash set.
  struct Keys {
    std::vector<std::string> few;
    std::unordered_set<std::string> many;
    bool insert(std::string key) {
      if (!many.empty()) return many.insert(std::move(key)).second;
      if (std::find(few.begin(), few.end(), key) != few.end()) return false;
      few.push_back(std::move(key));
      if (few.size() > 16) {
        many.insert(std::make_move_iterator(few.begin()), std::make_move_iterator(few.end()));
        few.clear();
      }
      return true;
    }
  };
  struct DuplicateKeys : nlohmann::json_sax<json> {
    std::vector<Keys> open;
    std::string& duplicate;
    explicit DuplicateKeys(std::string& d) : duplicate(d) {}
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
      open.emplace_back();
      return true;
    }
    bool key(string_t& key) override {
      if (!open.back().insert(key) && duplicate.empty()) duplicate = key;
      return true;
    }
    bool end_object() override {
      open.pop_back();
      return true;
    }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
      return false;  // not JSON: the parse below says where
    }
  };
  DuplicateKeys sax(duplicate);
  json::sax_parse(body, &sax);
  return json::parse(body);
}

}  // namespace

// One thread that runs jobs in order, with a bounded number waiting: slow work (validate
// compiles a whole snapshot) never occupies the HTTP threads that Trino's rules polls need.
class Worker {
 public:
  explicit Worker(std::size_t max_waiting) : max_waiting_(max_waiting), thread_([this] { run(); }) {}
  ~Worker() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();  // a job that runs finishes; those waiting are dropped with the server
  }
  /// False when max_waiting jobs already wait.
  bool submit(std::function<void()> job) {
    {
      std::lock_guard lock(mu_);
      if (queue_.size() >= max_waiting_) return false;
      queue_.push_back(std::move(job));
    }
    cv_.notify_one();
    return true;
  }
  std::size_t max_waiting() const { return max_waiting_; }

 private:
  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  const std::size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

Api::Api(Daemon& daemon, boost::asio::io_context& io)
    : daemon_(daemon),
      io_(io),
      settings_(daemon.settings()),
      large_bodies_(std::make_shared<http::BodyBudget>(std::max(kOpaMaxBody, settings_.webhook_max_body))),
      validate_worker_(std::make_unique<Worker>(2)),
      explain_worker_(std::make_unique<Worker>(8)) {
  if (!settings_.webhook_secret.empty()) verifier_ = std::make_unique<WebhookVerifier>(settings_.webhook_secret);
}

Api::~Api() = default;

http::ListenerOptions Api::listener_options() const {
  http::ListenerOptions options;
  const std::size_t webhook = settings_.webhook_max_body, validate = settings_.server.validate_max_body;
  options.limit = [webhook, validate](const http::bhttp::request_header<>& h) -> std::size_t {
    const std::string path = path_of(std::string(h.target()));
    if (path == "/v1/webhook") return webhook;
    if (path == "/v1/validate") return validate;  // a whole proposed snapshot (server.validate_max_body_bytes)
    if (opa_path(path)) return kOpaMaxBody;
    return 64 * 1024;
  };
  options.gate = [this](const http::bhttp::request_header<>& h, const std::string& listener) {
    return refuse(h, listener == "rules", nullptr);
  };
  options.max_connections = settings_.server.max_connections;
  // Open to anyone who reaches the port, and read whole before they are judged: an OPA batch
  // (parsed, it takes about 20 times its size) and a webhook (its signature covers the body).
  // Bodies over 64 KiB of these share 16 MiB; a validate needs a token before its body is read.
  options.budget = large_bodies_;
  options.budgeted = [](const http::bhttp::request_header<>& h) {
    const std::string path = path_of(std::string(h.target()));
    return path == "/v1/webhook" || opa_path(path).has_value();
  };
  return options;
}

std::optional<http::Response> Api::refuse(const http::bhttp::request_header<>& header, bool rules_only,
                                          std::string* who) const {
  const auto method = header.method();
  const std::string path = path_of(std::string(header.target()));
  const bool get = method == http::bhttp::verb::get || method == http::bhttp::verb::head;
  const bool post = method == http::bhttp::verb::post;
  const auto authorization = header[http::bhttp::field::authorization];
  const auto check = [&](const std::string& scope) -> std::optional<http::Response> {
    ApiAuth auth(daemon_.settings().tokens);
    std::string name;
    switch (auth.check(std::string_view(authorization.data(), authorization.size()), scope, &name)) {
      case AuthResult::Unauthenticated:
        return error_response(401, "a bearer token with scope " + scope + " (or admin) is required");
      case AuthResult::Forbidden:
        return error_response(403, "token \"" + name + "\" lacks scope " + scope);
      case AuthResult::Allowed:
        break;
    }
    if (who) *who = name;
    return std::nullopt;
  };

  if (path == "/healthz" || path == "/readyz") return std::nullopt;
  if (is_rules_path(path)) {
    if (!get) return method_not_allowed("GET, HEAD", "use GET");
    if (!settings_.server.rules_listen.empty() && !rules_only) {
      return error_response(404, "rules are served on the rules listener only (server.rules_listen)");
    }
    if (settings_.server.rules_require_token) return check("read");
    return std::nullopt;
  }
  if (const auto opa = opa_path(path)) {
    // Decisions are the rules document asked one at a time: served and guarded as it is.
    if (opa->endpoint == kOpaServed) {
      if (!get) return method_not_allowed("GET, HEAD", "use GET");
    } else if (!post) {
      return method_not_allowed("POST", "use POST (Trino's OPA access control sends {\"input\": ...})");
    }
    if (!settings_.server.rules_listen.empty() && !rules_only) {
      return error_response(404, "decisions are served on the rules listener only (server.rules_listen)");
    }
    if (settings_.server.rules_require_token) return check("read");
    return std::nullopt;
  }
  if (rules_only) return error_response(404, "this listener serves only /healthz, /readyz, rules and decisions");
  if (path == "/v1/webhook") {
    if (!post) return method_not_allowed("POST", "use POST");
    // Signed over its body, so verified after reading it (webhook.max_body_bytes); what its
    // headers alone decide (missing, stale, malformed) is refused before the body is read.
    if (verifier_) {
      const auto verdict =
          verifier_->check_headers(std::string(header["X-Tagwarden-Signature"]),
                                   std::string(header["X-Tagwarden-Timestamp"]), daemon_.now().seconds);
      if (verdict != WebhookVerdict::Accepted) {
        daemon_.count_webhook(to_string(verdict));
        log::warn("webhook_refused", {{"verdict", to_string(verdict)}});
        return error_response(401, std::string("webhook refused: ") + to_string(verdict) + ": " +
                                       webhook_refusal_hint(verdict, daemon_.now()));
      }
    }
    return std::nullopt;
  }
  if (path == "/v1/status" || path == "/v1/findings" || path == "/v1/explain" || path == "/metrics") {
    return get ? check("read") : method_not_allowed("GET, HEAD", "use GET");
  }
  if (path == "/v1/recompile") return post ? check("recompile") : method_not_allowed("POST", "use POST");
  if (path == "/v1/validate") return post ? check("validate") : method_not_allowed("POST", "use POST");
  return error_response(
      404, "no such endpoint: " +
               std::string(method == http::bhttp::verb::unknown ? std::string(header.method_string())
                                                                : std::string(http::bhttp::to_string(method))) +
               " " + path);
}

http::Handler Api::handler(bool rules_only) {
  return [this, rules_only](http::Exchange&& ex, http::Respond respond) { handle(std::move(ex), respond, rules_only); };
}

http::Response Api::rules(const http::Exchange& ex, const std::string& profile) {
  const auto kind = daemon_.kind_of(profile);
  if (!kind) return error_response(404, "unknown profile \"" + profile + "\"");
  if (kind->engine != Engine::Trino)
    return error_response(404, "profile \"" + profile + "\" is not a Trino profile: it has no Trino rules");
  // Trino in file mode fails every check on a 404: closed, and the answer says why.
  if (kind->access_control == TrinoAccessControl::Opa)
    return error_response(404, "profile \"" + profile +
                                   "\" has access_control: opa: it renders no rules document; configure Trino with "
                                   "access-control.name=opa and opa.policy.uri=<this server>/v1/profiles/" +
                                   profile + "/trino-opa/allow (docs/trino-opa.md), or set access_control: file");
  auto published = daemon_.published(profile);
  // The body is never copied: a 200 shares the published bytes (at L a rules document is
  // 1 GB, and a poll that copied it took a core and a gigabyte), a matching conditional GET
  // sends nothing.
  return served_response(ex, published.get(), [&] {
    // Never a 404 or an empty document: Trino would fail every check, or allow everything.
    return published ? http::make_response(200, published->artifact.bytes)
                     : http::make_response(200, trino::deny_all_rules().text);
  });
}

http::Response Api::opa_served(const http::Exchange& ex, const std::string& profile) {
  const auto kind = daemon_.kind_of(profile);
  if (!kind) return error_response(404, "unknown profile \"" + profile + "\"");
  if (kind->engine != Engine::Trino)
    return error_response(404, "profile \"" + profile + "\" is not a Trino profile: it answers no Trino decisions");
  auto published = daemon_.published(profile);
  const PublishedArtifact* answering = published && published->opa ? published.get() : nullptr;
  return served_response(ex, answering, [&] {
    json body = {{"profile", profile}, {"access_control", to_string(kind->access_control)}, {"ready", !!answering}};
    if (answering) {
      body["version"] = answering->version;
      body["sha256"] = answering->artifact.sha256;
      body["published_at"] = answering->published_at;
    } else {
      body["message"] = "no good compile is served: every decision is a refusal";
    }
    return json_response(200, body);
  });
}

http::Response Api::opa_decision(const http::Exchange& ex, const std::string& profile, const std::string& name) {
  const auto kind = daemon_.kind_of(profile);
  if (!kind) return error_response(404, "unknown profile \"" + profile + "\"");
  if (kind->engine != Engine::Trino)
    return error_response(404, "profile \"" + profile + "\" is not a Trino profile: it answers no Trino decisions");
  const std::optional<trino::OpaEndpoint> endpoint = trino::opa_endpoint_named(name);
  if (!endpoint) {
    return error_response(404, "no such decision endpoint \"" + name +
                                   "\": use allow, batch, row-filters, column-mask or batch-column-masks");
  }
  json body;
  std::string duplicate;
  try {
    body = parse_without_duplicate_keys(ex.request.body(), duplicate);
  } catch (const json::parse_error& e) {
    count_opa(profile, name, "bad_request");
    return error_response(400, std::string("the body is not JSON: ") + e.what());
  }
  if (!duplicate.empty()) {
    count_opa(profile, name, "bad_request");
    return error_response(400, "the body has the key \"" + duplicate + "\" twice in one object: send each once");
  }
  auto published = daemon_.published(profile);
  const bool ready = published && published->opa;
  http::Response res;
  try {
    // Until a good compile is served (or after it was withdrawn), every decision is a refusal.
    res = json_response(200, ready ? published->opa->answer(*endpoint, body) : trino::OpaDecider::deny_all(*endpoint));
  } catch (const trino::OpaBadRequest& e) {
    count_opa(profile, name, "bad_request");
    return error_response(400, std::string("not a request of Trino's OPA access control: ") + e.what());
  }
  count_opa(profile, name, ready ? "answered" : "deny_all");
  res.set("X-Tagwarden-Ready", ready ? "true" : "false");
  if (ready) res.set("X-Tagwarden-Version", std::to_string(published->version));
  return res;
}

void Api::count_opa(const std::string& profile, const std::string& endpoint, const char* outcome) {
  std::lock_guard lock(opa_counts_mu_);
  ++opa_counts_["{profile=\"" + profile + "\",endpoint=\"" + endpoint + "\",outcome=\"" + outcome + "\"}"];
}

std::string Api::opa_metrics() const {
  std::string m =
      "# HELP tagwarden_opa_requests_total Decision requests of Trino's OPA access control, by outcome: answered, "
      "deny_all (no good compile served), bad_request.\n# TYPE tagwarden_opa_requests_total counter\n";
  std::lock_guard lock(opa_counts_mu_);
  for (const auto& [labels, n] : opa_counts_)
    m += "tagwarden_opa_requests_total" + labels + " " + std::to_string(n) + "\n";
  return m;
}

void Api::handle(http::Exchange&& ex, const http::Respond& respond, bool rules_only) {
  // The gate already refused these before reading the body; checked again here so that a
  // handler used without the gate is no weaker.
  std::string who;
  if (auto refused = refuse(ex.request.base(), rules_only, &who)) return respond(std::move(*refused));
  const std::string target(ex.request.target());
  const std::string path = path_of(target);

  if (path == "/healthz") {
    const bool get = ex.request.method() == http::bhttp::verb::get || ex.request.method() == http::bhttp::verb::head;
    return respond(get ? json_response(200, {{"status", "alive"}}) : method_not_allowed("GET, HEAD", "use GET"));
  }
  if (path == "/readyz") {
    if (ex.request.method() != http::bhttp::verb::get && ex.request.method() != http::bhttp::verb::head)
      return respond(method_not_allowed("GET, HEAD", "use GET"));
    std::vector<std::string> missing;
    const bool ready = daemon_.ready(&missing);
    // Degraded is not unready: the last good artifacts stay in force and Trino must keep
    // reading them, so the status stays 200; the body says why they may lag (reasons only:
    // this endpoint is open, the details are in /v1/status).
    return respond(json_response(
        ready ? 200 : 503,
        {{"ready", ready}, {"profiles_without_good_artifact", missing}, {"degraded", daemon_.degraded()}}));
  }
  if (is_rules_path(path)) {
    const std::string profile =
        path.substr(kRulesPrefix.size(), path.size() - kRulesPrefix.size() - kRulesSuffix.size());
    return respond(rules(ex, profile));
  }
  if (auto opa = opa_path(path)) {
    if (opa->endpoint == kOpaServed) return respond(opa_served(ex, opa->profile));
    return respond(opa_decision(ex, opa->profile, opa->endpoint));
  }
  if (path == "/v1/webhook") return webhook(std::move(ex), respond);
  if (path == "/v1/status") return respond(json_response(200, daemon_.status()));
  if (path == "/v1/findings") return respond(json_response(200, {{"findings", daemon_.findings()}}));
  if (path == "/metrics") {
    return respond(http::make_response(200, daemon_.metrics() + opa_metrics(), "text/plain; version=0.0.4"));
  }
  if (path == "/v1/explain") {
    const std::string user = query_param(target, "user");
    if (user.empty()) return respond(error_response(400, "give ?user=<platform user name>"));
    const bool queued = explain_worker_->submit([this, user, respond] {
      try {
        respond(json_response(200, daemon_.explain(user)));
      } catch (const std::invalid_argument& e) {
        respond(error_response(404, e.what()));
      } catch (const std::runtime_error& e) {
        respond(error_response(503, e.what()));
      } catch (const std::exception& e) {
        respond(error_response(500, "internal error"));
      }
    });
    if (!queued) {
      auto res = error_response(503, "explain is busy (" + std::to_string(explain_worker_->max_waiting()) +
                                         " requests wait): retry after the time in Retry-After");
      res.set(http::bhttp::field::retry_after, "2");
      return respond(std::move(res));
    }
    return;
  }
  if (path == "/v1/validate") {
    // Off the HTTP threads: a validate compiles a whole snapshot, and rules GETs must not wait for it.
    auto body = std::make_shared<std::string>(std::move(ex.request.body()));
    const bool queued = validate_worker_->submit([this, body, respond] {
      try {
        auto [status, answer] = daemon_.validate(*body);
        respond(json_response(status, answer));
      } catch (const std::exception& e) {
        log::error("validate_failed", {{"error", e.what()}});
        respond(error_response(500, "internal error while validating; see the daemon's log"));
      }
    });
    if (!queued) {
      log::warn("validate_busy", {{"token", who}});
      auto res = error_response(503, "validate is busy: one validation runs and " +
                                         std::to_string(validate_worker_->max_waiting()) +
                                         " wait; retry after the time in Retry-After");
      res.set(http::bhttp::field::retry_after, "5");
      return respond(std::move(res));
    }
    return;
  }
  // POST /v1/recompile: answers after the pass it caused.
  log::info("recompile_requested", {{"token", who}});
  daemon_.request("api_recompile by " + who, [respond](const ReconcileOutcome& outcome) {
    respond(json_response(outcome.ok() ? 200 : 422, outcome.to_json()));
  });
}

void Api::webhook(http::Exchange&& ex, const http::Respond& respond) {
  if (!verifier_) {
    daemon_.count_webhook("disabled");
    return respond(error_response(503, "webhook disabled: configure webhook.secret_env or webhook.secret_file"));
  }
  const auto verdict = verifier_->verify(ex.request.body(), std::string(ex.request["X-Tagwarden-Signature"]),
                                         std::string(ex.request["X-Tagwarden-Timestamp"]), daemon_.now().seconds);
  if (verdict != WebhookVerdict::Accepted) {
    daemon_.count_webhook(to_string(verdict));
    log::warn("webhook_refused", {{"verdict", to_string(verdict)}, {"remote", ex.remote}});
    const unsigned status = verdict == WebhookVerdict::Replayed ? 409 : 401;
    return respond(error_response(status, std::string("webhook refused: ") + to_string(verdict) + ": " +
                                              webhook_refusal_hint(verdict, daemon_.now())));
  }
  daemon_.count_webhook("accepted");
  // Answer after the recompile, or after wait_timeout with 202, whichever comes first.
  auto answered = std::make_shared<std::atomic<bool>>(false);
  auto once = [answered, respond](http::Response res) {
    if (!answered->exchange(true)) respond(std::move(res));
  };
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(settings_.webhook_wait_ms));
  timer->async_wait([once, timer](const boost::system::error_code& ec) {
    if (!ec) once(json_response(202, {{"accepted", true}, {"message", "recompile still running; see /v1/status"}}));
  });
  auto& io = io_;
  daemon_.request("webhook", [once, timer, &io](const ReconcileOutcome& outcome) {
    once(json_response(outcome.ok() ? 200 : 422, outcome.to_json()));
    boost::asio::post(io, [timer] { timer->cancel(); });
  });
}

}  // namespace tw
