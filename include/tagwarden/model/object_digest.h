#pragma once
// A digest of an object's content, the same however the snapshot was written (JSON or YAML,
// spacing, key order): memo keys and the OPA manifest's decisions digest rest on it, and a
// digest of the entry's text made the daemon's manifest differ from compile's for one snapshot.

#include <string>

#include "tagwarden/model/snapshot.h"

namespace tw {

/// Hex SHA-256 over every field of the object, length-prefixed: equal digests, equal objects.
std::string object_content_digest(const Object& object);

}  // namespace tw
