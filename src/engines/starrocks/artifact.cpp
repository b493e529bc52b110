#include "tagwarden/engines/starrocks/artifact.h"

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

ArtifactText render_artifact(const PolicySet& ps) {
  ArtifactText out;
  PlanRender r = render_plan(ps);
  if (!r.plan) {
    for (const auto& e : r.errors) out.error += (out.error.empty() ? "" : "; ") + e;
    return out;
  }
  const auto statements = diff_statements(*r.plan, LiveState{});
  std::vector<std::string> header = {
      "tagwarden StarRocks plan for profile " + ps.profile + " against an empty server (dialect starrocks, " +
          "masking policies off: gated columns coarsen)",
      "owned roles and policies start with " + r.plan->prefix + "; " + std::to_string(r.plan->desired.roles.size()) +
          " roles, " + std::to_string(statements.size()) + " statements"};
  for (const auto& f : r.plan->findings) header.push_back(std::string(to_string(f.severity)) + ": " + f.message);
  out.text = statements_text(*r.plan, statements, header);
  out.statements = statements.size();
  return out;
}

}  // namespace tw::starrocks
