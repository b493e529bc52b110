#include "tagwarden/compile/compiler.h"
#include "tagwarden/util/text.h"

namespace tw {

std::vector<Finding> snapshot_findings(const Model& model) {
  std::vector<Finding> out;
  std::vector<std::string> ungated;
  for (const auto& c : model.snapshot->classifications) {
    if (c.clearance.empty()) {
      ungated.push_back(c.name);
      continue;
    }
    std::vector<std::string> groups;
    for (const auto& row : c.clearance) {
      if (row.type == ClearanceRow::Type::Group) groups.push_back(row.name);
    }
    if (groups.size() == c.clearance.size()) {
      out.push_back({Severity::Warning,
                     "clearance_groups_only",
                     "clearance on " + c.name + " names only groups: not enforced in any engine",
                     "",
                     {c.name}});
    } else if (!groups.empty()) {
      out.push_back({Severity::Warning,
                     "clearance_group_not_enforced",
                     "clearance on " + c.name + " names group" + (groups.size() > 1 ? "s " : " ") + join_words(groups) +
                         ": group requirements are not enforced in engines (no group names reach Trino or StarRocks); "
                         "only direct holders of its roles are cleared there",
                     "",
                     {c.name}});
    }
  }
  if (!ungated.empty()) {
    out.push_back({Severity::Info, "classifications_without_clearance",
                   std::to_string(ungated.size()) + " classifications have no clearance: they gate nothing (" +
                       join_some(ungated) + ")",
                   "", ungated});
  }
  return out;
}

}  // namespace tw
