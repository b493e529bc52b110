#pragma once
// The privilege mapping: what a listed object is on the server, and which engine privileges
// carry a PolicySet privilege set there.

#include <set>
#include <string>
#include <vector>

#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

/// The securable of a listed object: views and materialized views keep their kind in StarRocks only.
Securable object_securable(const ObjectPolicy& op, Dialect d);

/// The engine privileges that carry a PolicySet privilege set on one object.
std::set<std::string> engine_privileges(PrivilegeSet p, Securable::Kind kind);

/// A privilege on a database that lets a user create objects in it.
struct CreationPrivilege {
  std::string name;
  bool materialized_view = false;  ///< creates materialized views: withheld from create_restricted
};

/// The privileges on a database that let a user create tables, views and materialized views in it.
std::vector<CreationPrivilege> creation_privileges(Dialect d);

}  // namespace tw::starrocks
