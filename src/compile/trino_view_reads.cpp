#include "trino_view_reads.h"

#include <algorithm>
#include <map>

namespace tw {
namespace {

class Walk {
 public:
  Walk(const Model& m, const PolicySet& ps) : m_(m) {
    for (const auto& op : ps.objects) by_object_[op.object] = &op;
  }

  // Trino analyses `view` as `identity` (the session user of that level) and reads its bases.
  void expand(const ObjectPolicy& view, std::size_t identity, bool owner_check, std::vector<const ObjectPolicy*> via) {
    if (std::find(via.begin(), via.end(), &view) != via.end()) return;  // the loader refuses cycles; be safe
    const Object& o = m_.snapshot->objects[view.object];
    if (o.kind == ObjectKind::Table) return;
    via.push_back(&view);
    std::size_t reader = identity;
    bool check = owner_check;
    // analyzeView: a view with an owner (DEFINER, or a materialized view) runs as its owner, and
    // wraps the access control in ViewAccessControl unless the owner is the session user.
    if (o.kind == ObjectKind::MaterializedView || o.view_security != ViewSecurity::Invoker) {
      if (!o.owner) return;  // no owner known: the findings say tagwarden cannot tell
      const auto owner = m_.user_index.find(*o.owner);
      if (owner == m_.user_index.end()) return;
      reader = owner->second;
      if (reader != identity) check = true;
    }
    for (const auto& dep : o.depends_on) {
      const auto index = m_.object_index.find(dep);
      if (index == m_.object_index.end()) continue;
      const auto it = by_object_.find(index->second);
      if (it == by_object_.end()) {  // a catalog the profile's rules refuse to everybody
        TrinoViewRead read{nullptr, dep, reader, via, check, true, {}};
        refused.push_back(std::move(read));
        continue;
      }
      const ObjectPolicy& base = *it->second;
      const AccessClass* cls = base.class_of(reader);
      TrinoViewRead read{&base, {}, reader, via, check, false, {}};
      if (!cls || !cls->access.privileges.has(Privilege::Select) || (check && !cls->access.grant_select)) {
        read.whole = true;
        refused.push_back(std::move(read));
        continue;  // refused here: nothing below it is read
      }
      if (!cls->access.denied_columns.empty()) {
        read.columns = cls->access.denied_columns;
        refused.push_back(std::move(read));
      }
      expand(base, reader, check, via);
    }
  }

  std::vector<TrinoViewRead> refused;

 private:
  const Model& m_;
  std::map<std::size_t, const ObjectPolicy*> by_object_;
};

}  // namespace

std::vector<TrinoViewRead> refused_trino_view_reads(const Model& model, const PolicySet& ps, const ObjectPolicy& view,
                                                    std::size_t user) {
  Walk walk(model, ps);
  walk.expand(view, user, false, {});
  return std::move(walk.refused);
}

}  // namespace tw
