#include "tagwarden/compile/model.h"

#include "tagwarden/compile/access_policies.h"
#include "tagwarden/util/text.h"

#include <algorithm>
#include <functional>
#include <future>
#include <map>

namespace tw {

namespace {

bool unexpired(const RoleAssignment& a, Timestamp now) { return !a.expires_at || now < *a.expires_at; }

// Object names, and what each object inherits through depends_on.
void index_objects(const Snapshot& s, Model& m) {
  m.object_index.reserve(s.objects.size());
  for (std::size_t i = 0; i < s.objects.size(); ++i) m.object_index[s.objects[i].name.str()] = i;
  // Tags inherited through depends_on, transitively; validation refused cycles.
  m.object_tags.assign(s.objects.size(), {});
  m.object_bases.assign(s.objects.size(), {});
  std::vector<int> state(s.objects.size(), 0);
  std::function<void(std::size_t)> resolve = [&](std::size_t i) {
    if (state[i] == 2) return;
    state[i] = 2;
    const Object& o = s.objects[i];
    auto& tags = m.object_tags[i];
    auto& bases = m.object_bases[i];
    tags.insert(o.tags.begin(), o.tags.end());
    for (const auto& dep : o.depends_on) {
      const std::size_t j = m.object_index.at(dep);
      resolve(j);
      tags.insert(m.object_tags[j].begin(), m.object_tags[j].end());
      for (const auto& c : s.objects[j].columns) tags.insert(c.tags.begin(), c.tags.end());
      bases.push_back(j);
      bases.insert(bases.end(), m.object_bases[j].begin(), m.object_bases[j].end());
    }
    std::sort(bases.begin(), bases.end());
    bases.erase(std::unique(bases.begin(), bases.end()), bases.end());
  };
  for (std::size_t i = 0; i < s.objects.size(); ++i) resolve(i);
  m.gated_columns.assign(s.objects.size(), {});
  for (std::size_t i = 0; i < s.objects.size(); ++i) {
    const Columns& columns = s.objects[i].columns;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::vector<std::string> gates;
      for (const auto& t : columns[c].tags) {
        if (m.engine_gated[m.tag_index.at(t)]) gates.push_back(t);
      }
      if (gates.empty()) continue;
      std::sort(gates.begin(), gates.end());
      m.gated_columns[i].emplace_back(c, std::move(gates));
    }
  }
  m.gated_tags.assign(s.objects.size(), {});
  for (std::size_t i = 0; i < s.objects.size(); ++i) {
    auto& tags = m.gated_tags[i];
    for (const auto& t : m.object_tags[i]) {
      const std::size_t k = m.tag_index.at(t);
      if (m.engine_gated[k]) tags.push_back(k);
    }
    for (const auto& [c, gates] : m.gated_columns[i]) {
      for (const auto& t : gates) tags.push_back(m.tag_index.at(t));
    }
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  }
  for (std::size_t i = 0; i < s.objects.size(); ++i) {
    const Object& o = s.objects[i];
    const bool unfoldable = has_context_dependent_lowercase(o.name.catalog) ||
                            has_context_dependent_lowercase(o.name.schema) ||
                            has_context_dependent_lowercase(o.name.table) || o.columns.any_context_dependent_name();
    if (unfoldable) m.unfoldable_objects.push_back(i);
  }
  m.policy_reached.assign(s.objects.size(), false);
  if (!s.policies.empty()) {
    for (std::size_t i = 0; i < s.objects.size(); ++i) m.policy_reached[i] = any_policy_reaches(m, i);
  }
}

}  // namespace

RoleSet::RoleSet(std::vector<std::string_view> roles) : roles_(std::move(roles)) {
  std::sort(roles_.begin(), roles_.end());
  roles_.erase(std::unique(roles_.begin(), roles_.end()), roles_.end());
}

bool RoleSet::count(std::string_view role) const { return std::binary_search(roles_.begin(), roles_.end(), role); }

std::optional<Timestamp> Model::next_expiry() const {
  std::optional<Timestamp> next;
  for (const auto& a : snapshot->role_assignments) {
    if (a.expires_at && now < *a.expires_at && (!next || *a.expires_at < *next)) next = a.expires_at;
  }
  return next;
}

std::shared_ptr<const Model> build_model(std::shared_ptr<const Snapshot> snapshot, std::optional<Timestamp> now) {
  auto m = std::make_shared<Model>();
  m->snapshot = snapshot;
  m->now = now.value_or(snapshot->generated_at);
  const Snapshot& s = *snapshot;
  // The objects' half (names, inherited tags, bases) and the users' half (roles, clearance) read
  // the snapshot only and write members of their own: on the daemon's path, where the other
  // core is idle until the profiles are built, they are worked out side by side.
  m->tag_index.reserve(s.classifications.size());
  for (std::size_t i = 0; i < s.classifications.size(); ++i) m->tag_index[s.classifications[i].name] = i;
  m->engine_gated.resize(s.classifications.size());
  for (std::size_t t = 0; t < s.classifications.size(); ++t) {
    for (const auto& row : s.classifications[t].clearance) {
      if (row.type == ClearanceRow::Type::Role) m->engine_gated[t] = true;
    }
  }
  // Both halves read tag_index and engine_gated from here on, and neither writes them.
  auto objects_half = std::async(std::launch::async, [&s, &m = *m] { index_objects(s, m); });  // joins if we throw
  m->user_index.reserve(s.users.size());
  for (std::size_t i = 0; i < s.users.size(); ++i) m->user_index[s.users[i].name] = i;

  std::vector<std::vector<std::string_view>> direct(s.users.size());
  for (const auto& a : s.role_assignments) {
    if (!a.user || !unexpired(a, m->now)) continue;
    direct[m->user_index.at(*a.user)].push_back(a.role);
  }
  std::vector<std::vector<std::string_view>> any = direct;
  std::map<std::string, std::vector<std::size_t>> group_members;
  for (std::size_t u = 0; u < s.users.size(); ++u) {
    for (const auto& g : s.users[u].groups) group_members[g].push_back(u);
  }
  for (const auto& a : s.role_assignments) {
    if (!a.group || !unexpired(a, m->now)) continue;
    if (auto it = group_members.find(*a.group); it != group_members.end()) {
      for (std::size_t u : it->second) any[u].push_back(a.role);
    }
  }
  m->direct_roles.reserve(s.users.size());
  m->any_roles.reserve(s.users.size());
  for (std::size_t u = 0; u < s.users.size(); ++u) {
    m->direct_roles.emplace_back(std::move(direct[u]));
    m->any_roles.emplace_back(std::move(any[u]));
    for (const auto& role : m->direct_roles[u]) m->role_holders[role].push_back(u);  // users in order
  }

  // From each role row to its direct, unexpired holders: users x tags lookups cost 45 ms at M.
  m->cleared_users.assign(s.classifications.size(), std::vector<std::uint64_t>((s.users.size() + 63) / 64, 0));
  for (std::size_t t = 0; t < s.classifications.size(); ++t) {
    for (const auto& row : s.classifications[t].clearance) {
      if (row.type != ClearanceRow::Type::Role) continue;
      if (auto it = m->role_holders.find(row.name); it != m->role_holders.end()) {
        for (std::size_t u : it->second) {
          m->cleared_users[t][u / 64] |= std::uint64_t{1} << (u % 64);
        }
      }
    }
  }

  objects_half.get();  // rethrows what the objects' half threw
  return m;
}

}  // namespace tw
