#include "tagwarden/engines/starrocks/artifact.h"

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

ArtifactText render_artifact(const PolicySet& ps, std::string_view masking, RenderCache* cache,
                             std::size_t max_roles_per_user) {
  ArtifactText out;
  const Capabilities caps = compile_time_capabilities(masking);
  PlanRender r = render_plan(ps, {Dialect::StarRocks, caps, max_roles_per_user}, cache);
  if (!r.plan) {
    for (const auto& e : r.errors) out.error += (out.error.empty() ? "" : "; ") + e;
    return out;
  }
  const std::size_t statements = empty_server_statements(*r.plan);
  std::vector<std::string> header = {
      "tagwarden StarRocks plan for profile " + ps.profile + " against an empty server (dialect starrocks, " +
          (caps.masking_policies ? std::string("masking and row access policies on (profile masking: on)")
                                 : std::string("masking policies off: gated columns, masks and row filters coarsen")) +
          ")",
      "owned roles and policies start with " + r.plan->prefix + "; " + std::to_string(r.plan->desired.roles.size()) +
          " roles, " + std::to_string(statements) + " statements"};
  for (const auto& f : r.plan->findings) header.push_back(std::string(to_string(f.severity)) + ": " + f.message);
  out.statements = statements;
  out.text = empty_server_script(*r.plan, header);
  out.findings = std::move(r.plan->findings);
  return out;
}

}  // namespace tw::starrocks
