#include "tagwarden/engines/starrocks/artifact.h"

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

ArtifactText render_artifact(const PolicySet& ps, std::string_view masking) {
  ArtifactText out;
  const Capabilities caps = compile_time_capabilities(masking);
  PlanRender r = render_plan(ps, {Dialect::StarRocks, caps});
  if (!r.plan) {
    for (const auto& e : r.errors) out.error += (out.error.empty() ? "" : "; ") + e;
    return out;
  }
  const auto statements = diff_statements(*r.plan, LiveState{});
  std::vector<std::string> header = {
      "tagwarden StarRocks plan for profile " + ps.profile + " against an empty server (dialect starrocks, " +
          (caps.masking_policies ? std::string("masking and row access policies on (profile masking: on)")
                                 : std::string("masking policies off: gated columns, masks and row filters coarsen")) +
          ")",
      "owned roles and policies start with " + r.plan->prefix + "; " + std::to_string(r.plan->desired.roles.size()) +
          " roles, " + std::to_string(statements.size()) + " statements"};
  for (const auto& f : r.plan->findings) header.push_back(std::string(to_string(f.severity)) + ": " + f.message);
  out.text = statements_text(*r.plan, statements, header);
  out.statements = statements.size();
  out.findings = r.plan->findings;
  return out;
}

}  // namespace tw::starrocks
