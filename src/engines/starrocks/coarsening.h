#pragma once
// Coarsening: a class of readers whose access this server cannot enforce as is (a column it
// cannot mask, a row filter it cannot enforce) loses SELECT on the whole object rather than
// reading more than it may. render_plan decides per class here; coarsened_read (plan.h) gives
// explain the same answer.

#include <string>
#include <vector>

#include "object_columns.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

/// Why one class cannot keep SELECT on this server (coarsened), or "" when it can.
/// columns/policies receive what makes it coarsen, for the findings.
struct Coarsening {
  std::string reason;
  std::vector<std::string> columns;         // gated, denied or masked columns that cannot be masked here
  std::vector<std::string> gate_columns;    // of those, the clearance-gated ones (denied as gated)
  std::vector<std::string> policy_columns;  // of those, the ones an access policy masks or denies
  bool policies = false;                    // access-policy masks, denied columns or row filter
  bool gates = false;                       // clearance-gated columns
  /// UPDATE and DELETE go with SELECT: StarRocks checks only them on the target table, so their
  /// WHERE would read what the coarsening withholds (and the affected-row count would tell).
  PrivilegeSet writes_withheld;
};

/// What a class keeps on this server: its access, less SELECT, UPDATE and DELETE when it coarsens.
PrivilegeSet kept_privileges(const AccessClass& cls, const Coarsening& c);

/// Whether `cls` of `op` coarsens on a server with `caps`, and why.
Coarsening coarsening(const ObjectPolicy& op, const AccessClass& cls, const Capabilities& caps, TypeCache& types);

}  // namespace tw::starrocks
