#pragma once
// The daemon's HTTP API: routes, scopes and answers. Decides nothing about
// access to data; it reads the Daemon's published state.
//
//   GET  /healthz /readyz                                 no token
//   GET  /v1/profiles/<name>/trino-rules.json             no token unless server.rules_require_token
//   POST /v1/webhook                                      HMAC signature, not a token
//   GET  /v1/status /v1/findings /v1/explain?user= /metrics   scope read
//   POST /v1/recompile                                    scope recompile
//   POST /v1/validate                                     scope validate
// admin implies every scope.

#include <memory>

#include "daemon.h"
#include "http_server.h"
#include "webhook_verifier.h"

namespace tw {

class Api {
 public:
  Api(Daemon& daemon, boost::asio::io_context& io);
  /// Handler for a listener; `rules_only` listeners answer only health and rules.
  http::Handler handler(bool rules_only);
  http::BodyLimit body_limit() const;

 private:
  void handle(http::Exchange&& ex, const http::Respond& respond, bool rules_only);
  void webhook(http::Exchange&& ex, const http::Respond& respond);
  http::Response rules(const http::Exchange& ex, const std::string& profile);

  Daemon& daemon_;
  boost::asio::io_context& io_;
  DaemonSettings settings_;
  std::unique_ptr<WebhookVerifier> verifier_;
};

}  // namespace tw
