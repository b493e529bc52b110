#include "definer_views.h"

namespace tw {

bool reads_bases_as_owner(const Object& o) {
  return o.kind == ObjectKind::MaterializedView ||
         (o.kind == ObjectKind::View && o.view_security != ViewSecurity::Invoker);
}

const char* owner_read_kind(const Object& o) {
  return o.kind == ObjectKind::MaterializedView ? "materialized view" : "DEFINER view";
}

DefinerViews::DefinerViews(const Model& model, const PolicySet& ps) : m_(model) {
  for (const auto& op : ps.objects) by_object_[op.object] = &op;
}

std::optional<DefinerViewOwnerReach> DefinerViews::owner_reach(const ObjectPolicy& view) const {
  const Object& o = m_.snapshot->objects[view.object];
  if (!reads_bases_as_owner(o) || !o.owner) return std::nullopt;
  const auto owner = m_.user_index.find(*o.owner);
  if (owner == m_.user_index.end()) return std::nullopt;
  DefinerViewOwnerReach reach;
  reach.owner = owner->second;
  for (const auto& dep : o.depends_on) {
    const auto index = m_.object_index.find(dep);
    if (index == m_.object_index.end()) continue;
    const auto it = by_object_.find(index->second);
    if (it == by_object_.end()) {
      reach.outside.push_back(dep);
      continue;
    }
    const AccessClass* cls = it->second->class_of(reach.owner);
    if (!cls || !cls->access.privileges.has(Privilege::Select)) {
      reach.unreadable.push_back(it->second);
      if (!cls) reach.causes.push_back("no grant on " + dep);
    } else if (!cls->access.denied_columns.empty()) {
      reach.partly.emplace_back(it->second, cls->access.denied_columns);
    } else {
      continue;
    }
    if (cls) reach.causes.insert(reach.causes.end(), cls->reasons.begin(), cls->reasons.end());
  }
  return reach;
}

}  // namespace tw
