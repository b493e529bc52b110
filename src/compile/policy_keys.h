#pragma once
// What access policies can see of a user: whether each policy applies to or exempts
// them, and every $user value a row filter binds. Users with the same key get the
// same policy decisions on every object, so the compiler judges each key once.

#include <cstddef>
#include <string>
#include <vector>

#include "tagwarden/compile/model.h"

namespace tw {

struct PolicyKeys {
  std::vector<std::size_t> of_user;  ///< per user: the id of their key; empty when there are no policies
  std::vector<std::string> text;     ///< per id: the key itself, for the compile memo
};

/// The policy key of every user in the model.
PolicyKeys policy_keys(const Model& model);
/// The same, worked out once per model (thread-safe) and shared by every profile's compile.
const PolicyKeys& shared_policy_keys(const Model& model);

}  // namespace tw
