#pragma once
// The daemon's HTTP API: routes, scopes and answers. Decides nothing about
// access to data; it reads the Daemon's published state.
//
//   GET  /healthz /readyz                                 no token
//   GET  /v1/profiles/<name>/trino-rules.json             no token unless server.rules_require_token
//   POST /v1/profiles/<name>/trino-opa/<endpoint>         the same (Trino's OPA access control asks here)
//   POST /v1/webhook                                      HMAC signature, not a token
//   GET  /v1/status /v1/findings /v1/explain?user= /metrics   scope read
//   POST /v1/recompile                                    scope recompile
//   POST /v1/validate                                     scope validate
// admin implies every scope. Tokens and scopes are checked from the request's
// header, before its body is read (ListenerOptions::gate). Validate and explain
// run on worker threads of their own, never on the HTTP threads that serve rules.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "daemon.h"
#include "http_server.h"
#include "webhook_verifier.h"

namespace tw {

class Worker;

class Api {
 public:
  Api(Daemon& daemon, boost::asio::io_context& io);
  ~Api();
  /// Handler for a listener; `rules_only` listeners answer only health and rules.
  http::Handler handler(bool rules_only);
  /// Body limits per path, the authorization gate and the connection cap of a listener.
  http::ListenerOptions listener_options() const;
  /// The name serve_command.cpp uses; the same as listener_options().
  http::ListenerOptions body_limit() const { return listener_options(); }

 private:
  /// The answer to a request that must be refused from its header alone (unknown endpoint,
  /// missing token, missing scope, rules on the wrong listener), or nullopt; `who` gets the token's name.
  std::optional<http::Response> refuse(const http::bhttp::request_header<>& header, bool rules_only,
                                       std::string* who) const;
  void handle(http::Exchange&& ex, const http::Respond& respond, bool rules_only);
  void webhook(http::Exchange&& ex, const http::Respond& respond);
  http::Response rules(const http::Exchange& ex, const std::string& profile);
  /// POST /v1/profiles/<profile>/trino-opa/<endpoint>: one request of Trino's OPA access control.
  http::Response opa_served(const http::Exchange& ex, const std::string& profile);
  http::Response opa_decision(const http::Exchange& ex, const std::string& profile, const std::string& endpoint);

  Daemon& daemon_;
  boost::asio::io_context& io_;
  DaemonSettings settings_;
  std::unique_ptr<WebhookVerifier> verifier_;
  /// Prometheus lines counting OPA decision requests by profile, endpoint and outcome.
  std::string opa_metrics() const;
  void count_opa(const std::string& profile, const std::string& endpoint, const char* outcome);

  mutable std::mutex opa_counts_mu_;
  std::map<std::string, std::uint64_t> opa_counts_;  ///< labels -> requests
  /// Large bodies of the open endpoints (OPA batches, webhooks) held at once: 16 MiB in all (or
  /// webhook.max_body_bytes, when larger).
  std::shared_ptr<http::BodyBudget> large_bodies_;
  std::unique_ptr<Worker> validate_worker_;  ///< one validate at a time, two waiting; more get 503
  std::unique_ptr<Worker> explain_worker_;
};

}  // namespace tw
