#pragma once
// Verifies a webhook: X-Tagwarden-Signature: sha256=<hex of HMAC-SHA256(secret, raw body)>
// and X-Tagwarden-Timestamp (Unix seconds or RFC 3339) within +-5 minutes.
// A signature seen before inside the window is a replay. Comparison is
// constant-time. A webhook carries no policy: it only makes a recompile due.

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace tw {

enum class WebhookVerdict { Accepted, MissingHeaders, BadTimestamp, Stale, BadSignature, Replayed };
const char* to_string(WebhookVerdict v);

class WebhookVerifier {
 public:
  explicit WebhookVerifier(std::string secret, std::chrono::seconds window = std::chrono::minutes(5));
  /// Thread-safe. `now` is Unix seconds.
  WebhookVerdict verify(std::string_view body, std::string_view signature_header, std::string_view timestamp_header,
                        std::int64_t now);
  /// What the headers alone decide, before the body is read: missing, an unreadable or stale
  /// timestamp, a signature that is not sha256=<64 hex digits>. Accepted when they may be good.
  WebhookVerdict check_headers(std::string_view signature_header, std::string_view timestamp_header,
                               std::int64_t now) const;
  /// hex HMAC-SHA256 of body, for clients and tests.
  static std::string sign(std::string_view secret, std::string_view body);

 private:
  std::string secret_;
  std::chrono::seconds window_;
  std::mutex mu_;
  std::deque<std::pair<std::int64_t, std::string>> seen_order_;
  std::unordered_set<std::string> seen_;
};

}  // namespace tw
