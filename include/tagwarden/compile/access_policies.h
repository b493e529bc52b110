#pragma once
// Access policies (MODEL.md section 4) judged for one principal on one object:
// which apply and why, which were considered and did not, and the combined
// effect (deny wins; strictest mask; row filters ANDed; anything that cannot
// be satisfied for the principal becomes no rows). Pure.

#include <string>
#include <vector>

#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {

struct PolicyDecision {
  std::string policy;
  PolicyType type = PolicyType::ColumnMask;
  bool applies = false;
  std::string reason;                ///< why it applies, or why not
  std::vector<std::string> columns;  ///< engine columns it reaches (masks, column deny)
  bool whole_object = false;         ///< deny of the object / row filter of the object
  MaskKind mask = MaskKind::Full;    ///< masks
  int visible_chars = 0;             ///< partial masks
  nlohmann::json filter;             ///< row filters: the resolved condition
  bool unsatisfiable = false;        ///< row filters: fails closed to no rows
};

/// Every enabled policy whose scope reaches the object, judged for `user`.
std::vector<PolicyDecision> judge_policies(const Model& m, const ObjectPolicy& op, std::size_t user);

/// Folds the decisions into `ua.access` (which already reflects clearances) and its reasons.
void apply_policy_decisions(const std::vector<PolicyDecision>& decisions, const ObjectPolicy& op, UserAccess& ua);

/// Canonical text of a resolved condition, for comparing and keying classes.
std::string canonical(const nlohmann::json& condition);

}  // namespace tw
