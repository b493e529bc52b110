#pragma once
// Where the daemon gets the snapshot text. A source only fetches bytes; it
// never parses or decides. A failed fetch changes nothing downstream.

#include <memory>
#include <string>

#include "tagwarden/config/profile.h"

namespace tw {

struct SourceFetch {
  enum class Status { Changed, Unchanged, Failed };
  Status status = Status::Failed;
  std::string body;   ///< set when Changed
  std::string error;  ///< set when Failed: what happened and what to check
  int attempts = 0;
};

class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;
  /// Blocking; safe to call from one thread at a time. Unchanged means the
  /// source reports the same content as the last Changed fetch.
  virtual SourceFetch fetch() = 0;
  /// Cheap check for the file watcher: true when a fetch may return Changed.
  virtual bool maybe_changed() { return false; }
  /// Forget what was seen, so the next fetch returns Changed (after a config reload).
  virtual void reset() = 0;
  /// The body the last fetch answered was refused (not a valid snapshot). A source that asks
  /// conditionally asks for the whole body next time: an upstream that answers "not modified" to
  /// the validator of a refused body (one it sent with the valid body's ETag) would otherwise keep
  /// the daemon on the refusal after it recovered.
  virtual void refused() {}
  virtual std::string describe() const = 0;
};

std::unique_ptr<SnapshotSource> make_source(const SourceSettings& settings);

}  // namespace tw
