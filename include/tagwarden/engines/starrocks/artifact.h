#pragma once
// The StarRocks artifact of a compile: the plan for an empty server, made
// without a server (StarRocks dialect, no masking policies, so gated columns
// coarsen), as a SQL script. `tagwarden plan --dsn` shows the plan against a
// live server instead.

#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

struct ArtifactText {
  std::string text;               ///< the SQL script, translation findings as comments at the top
  std::size_t statements = 0;     ///< statements, SET CATALOG not counted
  std::string error;              ///< set when the PolicySet cannot be rendered
  std::vector<Finding> findings;  ///< translation findings (coarsening), also reported by compile
};

/// Pure; the same PolicySet gives the same bytes. `masking` is the profile's key: "on" assumes a
/// server with masking and row access policies; "auto" (no server to probe) and "off" assume none.
/// `cache` (see RenderCache in plan.h) carries what the last render of the same profile computed;
/// same bytes either way. `max_roles_per_user` is the profile's key (PlanOptions).
ArtifactText render_artifact(const PolicySet& ps, std::string_view masking = "auto", RenderCache* cache = nullptr,
                             std::size_t max_roles_per_user = kDefaultMaxRolesPerUser);

}  // namespace tw::starrocks
