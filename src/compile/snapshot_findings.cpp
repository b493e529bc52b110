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
  // A view carries the tags of what it reads only through depends_on (MODEL section 2): one that
  // lists nothing reads as ungated, whatever it selects from. Not refused (a view may read only
  // what the snapshot does not list), but said, as an incomplete export would leave it.
  std::vector<std::string> views;
  for (const auto& o : model.snapshot->objects) {
    if (o.kind != ObjectKind::Table && o.depends_on.empty()) views.push_back(o.name.str());
  }
  if (!views.empty()) {
    out.push_back({Severity::Warning, "views_without_dependencies",
                   std::to_string(views.size()) +
                       (views.size() == 1 ? " view lists no depends_on, so it carries only its own tags"
                                          : " views list no depends_on, so they carry only their own tags") +
                       ": a view over a gated object reads as ungated; list every object a view reads (" +
                       join_some(views) + ")",
                   "", views});
  }
  return out;
}

}  // namespace tw
