#pragma once
// Loading one snapshot after another, as the daemon does after each webhook. Most of a new
// snapshot is the last one's text: an entry of users, role_assignments or objects whose text is
// byte for byte an entry of the last valid snapshot is taken as it was read then, and checked
// again only for what it refers to outside itself (names it must not duplicate, the users,
// roles and classifications it names). Everything else is read as parse_snapshot() reads it.
//
// The outcome is always parse_snapshot()'s for the same text: the same Snapshot, and on any
// error the text is read again by parse_snapshot(), whose errors (all of them, in document
// order) are the ones returned.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tagwarden/model/load.h"

namespace tw {

class SnapshotLoader {
 public:
  struct Result {
    std::shared_ptr<const Snapshot> snapshot;  ///< null when errors is not empty
    std::vector<ValidationError> errors;
    bool incremental = false;        ///< read against the last valid snapshot
    std::size_t reused_entries = 0;  ///< entries taken from the last valid snapshot
    std::size_t read_entries = 0;    ///< entries of users, role_assignments and objects read afresh
    /// What the loader kept of the text before (its copy and index, megabytes at scale), replaced
    /// by this one. Freed with the Result, or later by a caller that holds it: the daemon drops it
    /// once every profile is served, so the free is not on the webhook-to-served path.
    std::shared_ptr<const void> retired;
  };

  SnapshotLoader();
  ~SnapshotLoader();
  SnapshotLoader(const SnapshotLoader&) = delete;
  SnapshotLoader& operator=(const SnapshotLoader&) = delete;

  /// The last valid snapshot stays the base when `text` is invalid.
  Result load(std::string_view text);
  /// The same, keeping `text` as the base's copy: with kSpareCapacity bytes of capacity past its
  /// end (read_file's spare_capacity), the text is read where it is, not copied (54 MB at L).
  Result load(std::string&& text);
  Result load(const char* text) { return load(std::string_view(text)); }
  /// Capacity past the text's end the parser reads (simdjson's padding).
  static const std::size_t kSpareCapacity;
  /// Forgets the last valid snapshot: the next text is read whole.
  void reset();

 private:
  struct Layout;
  struct Base;
  Result read_against_base(const Layout& layout);
  /// Keeps `padded` and `snapshot` as the base of the next read; the base replaced goes to `retired`.
  void remember(std::string&& padded, const Layout* layout, std::shared_ptr<const Snapshot> snapshot,
                std::shared_ptr<const void>& retired);

  struct Reader;
  std::unique_ptr<Reader> reader_;  ///< simdjson's On-Demand parser, kept for its buffers
  std::unique_ptr<Base> base_;
};

}  // namespace tw
