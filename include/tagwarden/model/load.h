#pragma once
// Loading a snapshot: text (JSON or YAML) -> validated Snapshot, or every error
// at once, each naming the path of the offending entry.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/model/snapshot.h"

namespace tw {

struct ValidationError {
  std::string path;     ///< e.g. objects[3].columns[1].tags[0]; empty for the document itself
  std::string message;  ///< e.g. unknown classification "PIII"
  std::string str() const { return path.empty() ? message : path + ": " + message; }
  bool operator==(const ValidationError&) const = default;
};

struct SnapshotLoad {
  std::optional<Snapshot> snapshot;     ///< set only when errors is empty
  std::vector<ValidationError> errors;  ///< in document order
};

/// Parses and validates; never throws for bad input.
SnapshotLoad parse_snapshot(std::string_view text);
/// Reads the file, then parse_snapshot(); a read failure is one error.
SnapshotLoad load_snapshot_file(const std::string& path);

}  // namespace tw
