#include "webhook_verifier.h"
#include "tagwarden/util/text.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "tagwarden/model/timestamp.h"

namespace tw {

const char* to_string(WebhookVerdict v) {
  switch (v) {
    case WebhookVerdict::Accepted:
      return "accepted";
    case WebhookVerdict::MissingHeaders:
      return "missing_headers";
    case WebhookVerdict::BadTimestamp:
      return "bad_timestamp";
    case WebhookVerdict::Stale:
      return "stale";
    case WebhookVerdict::BadSignature:
      return "bad_signature";
    case WebhookVerdict::Replayed:
      return "replayed";
  }
  return "?";
}

WebhookVerifier::WebhookVerifier(std::string secret, std::chrono::seconds window)
    : secret_(std::move(secret)), window_(window) {}

std::string WebhookVerifier::sign(std::string_view secret, std::string_view body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &len);
  return hex_lower(mac, len);
}

namespace {

struct HeaderReading {
  WebhookVerdict verdict = WebhookVerdict::Accepted;
  std::int64_t timestamp = 0;
  std::string signature;  ///< lowercase hex
};

HeaderReading refused(WebhookVerdict verdict) {
  HeaderReading out;
  out.verdict = verdict;
  return out;
}

HeaderReading read_headers(std::string_view signature, std::string_view timestamp, std::int64_t now,
                           std::chrono::seconds window) {
  HeaderReading out;
  if (signature.empty() || timestamp.empty()) return refused(WebhookVerdict::MissingHeaders);
  bool numeric = timestamp.size() <= 12;
  for (char c : timestamp) numeric = numeric && c >= '0' && c <= '9';
  if (numeric) {
    out.timestamp = std::stoll(std::string(timestamp));
  } else if (auto t = parse_timestamp(timestamp)) {
    out.timestamp = t->seconds;
  } else {
    return refused(WebhookVerdict::BadTimestamp);
  }
  if (out.timestamp < now - window.count() || out.timestamp > now + window.count())
    return refused(WebhookVerdict::Stale);
  constexpr std::string_view kPrefix = "sha256=";
  if (signature.substr(0, kPrefix.size()) != kPrefix) return refused(WebhookVerdict::BadSignature);
  out.signature = std::string(signature.substr(kPrefix.size()));
  for (char& c : out.signature) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.signature.size() != 64 || out.signature.find_first_not_of("0123456789abcdef") != std::string::npos)
    return refused(WebhookVerdict::BadSignature);
  return out;
}

}  // namespace

WebhookVerdict WebhookVerifier::check_headers(std::string_view signature, std::string_view timestamp,
                                              std::int64_t now) const {
  return read_headers(signature, timestamp, now, window_).verdict;
}

WebhookVerdict WebhookVerifier::verify(std::string_view body, std::string_view signature, std::string_view timestamp,
                                       std::int64_t now) {
  const HeaderReading read = read_headers(signature, timestamp, now, window_);
  if (read.verdict != WebhookVerdict::Accepted) return read.verdict;
  const std::int64_t ts = read.timestamp;
  const std::string& given = read.signature;
  const std::string expected = sign(secret_, body);
  if (given.size() != expected.size() || CRYPTO_memcmp(given.data(), expected.data(), expected.size()) != 0) {
    return WebhookVerdict::BadSignature;
  }
  std::lock_guard lock(mu_);
  while (!seen_order_.empty() && seen_order_.front().first < now - 2 * window_.count()) {
    seen_.erase(seen_order_.front().second);
    seen_order_.pop_front();
  }
  // Keyed by the instant, not its spelling: "1796040000", "01796040000" and the same second in
  // RFC 3339 are one delivery. (The signature covers the body only, as documented.)
  const std::string key = std::to_string(ts) + "|" + expected;
  if (!seen_.insert(key).second) return WebhookVerdict::Replayed;
  seen_order_.emplace_back(now, key);
  return WebhookVerdict::Accepted;
}

}  // namespace tw
