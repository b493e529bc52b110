#pragma once
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
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
  const std::unordered_map<std::string, std::string>& objects_by_lower;  ///< lowercased name -> name
};

/// The error for a reference to an object the snapshot does not list. One that differs from a
/// listed object's name only in case says which: references name objects exactly as listed,
/// though two names differing only in case are one object. Else `otherwise` follows.
std::string unknown_object(const std::string& name, const std::unordered_map<std::string, std::string>& by_lower,
                           std::string_view otherwise = "");

/// Validates `policies` (a list), recording errors with their paths.
std::vector<Policy> read_policies(JsonValue list, const PolicyReferences& refs, std::vector<ValidationError>& errors);

}  // namespace tw
