#pragma once
// What the incremental loader hands the validator: for the users, role_assignments and objects
// lists, which entries are taken from the last valid snapshot and which are read afresh.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tagwarden/model/json_value.h"
#include "tagwarden/model/load.h"

namespace tw {

struct ReusePlan {
  static constexpr std::size_t kFresh = SIZE_MAX;
  struct Section {
    /// Per entry, in document order: its index in the last snapshot's list, or kFresh.
    std::vector<std::size_t> slots;
    /// The entries marked kFresh, in document order, as one list.
    std::optional<JsonValue> fresh;
  };
  const Snapshot* previous = nullptr;
  Section users, role_assignments, objects;
};

/// Validates a parsed snapshot document. With a plan, the users, role_assignments and objects lists
/// come from it, and `doc` holds them empty or not at all.
SnapshotLoad validate_snapshot(JsonValue doc, const ReusePlan* plan);

}  // namespace tw
