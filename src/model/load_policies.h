#pragma once
#include <map>
#include <set>
#include <unordered_set>

#include "tagwarden/model/entry_reader.h"
#include "tagwarden/model/snapshot.h"

namespace tw {

/// What policies may reference, from the rest of the snapshot.
struct PolicyReferences {
  const std::unordered_set<std::string>& roles;
  const std::unordered_set<std::string>& users;
  const std::unordered_set<std::string>& tags;
  const std::vector<Object>& objects;
};

/// Validates `policies` (a list), recording errors with their paths.
std::vector<Policy> read_policies(JsonValue list, const PolicyReferences& refs, std::vector<ValidationError>& errors);

}  // namespace tw
