#pragma once
#include "last_content.h"
#include "tagwarden/sources/source.h"

namespace tw {

/// GETs the snapshot over HTTP(S) with libcurl: If-None-Match with the last
/// ETag, timeouts, retries with exponential backoff and full jitter on network
/// errors, 429 and 5xx; TLS verification on unless configured off.
/// The URL as it may be shown: "https://host/path?<redacted>" (query and userinfo hidden).
std::string redact_url(const std::string& url);

class HttpSource : public SnapshotSource {
 public:
  explicit HttpSource(SourceSettings settings);
  SourceFetch fetch() override;
  void reset() override;
  void refused() override { etag_.clear(); }
  /// "url <the URL without its query string>": query parameters may carry tokens.
  std::string describe() const override;

 private:
  /// `text` with the URL's query string, userinfo and every configured secret replaced.
  std::string redact(std::string text) const;
  SourceSettings settings_;
  std::string etag_;
  LastContent last_content_;
};

}  // namespace tw
