#pragma once
#include "tagwarden/sources/source.h"

namespace tw {

/// GETs the snapshot over HTTP(S) with libcurl: If-None-Match with the last
/// ETag, timeouts, retries with exponential backoff and full jitter on network
/// errors, 429 and 5xx; TLS verification on unless configured off.
class HttpSource : public SnapshotSource {
 public:
  explicit HttpSource(SourceSettings settings);
  SourceFetch fetch() override;
  void reset() override;
  std::string describe() const override;

 private:
  SourceSettings settings_;
  std::string etag_;
  std::string last_digest_;
};

}  // namespace tw
