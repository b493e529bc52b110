#include "memo_keys.h"

#include "tagwarden/model/object_digest.h"
#include "tagwarden/util/digest.h"

namespace tw {

namespace {

void add_grant(Digest& d, const EngineGrant& g) {
  d.add(g.pattern.catalog).add(g.pattern.schema).add(g.pattern.table).add(std::uint64_t{g.privileges.bits()});
  d.add(std::string_view(reinterpret_cast<const char*>(g.holders.data()), g.holders.size() * sizeof(std::size_t)));
}

}  // namespace

MemoKeys::MemoKeys(const Model& model, const Profile& profile, const std::vector<EngineGrant>& grants,
                   const std::vector<std::size_t>& policy_key, const std::vector<std::string>& policy_key_text)
    : m_(model),
      p_(profile),
      grants_(grants),
      policy_key_(policy_key),
      policy_key_text_(policy_key_text),
      grant_keys_(grants.size()),
      clearance_keys_(model.snapshot->classifications.size()) {}

std::string MemoKeys::context(const PolicySet& ps, const std::map<std::string, std::string>& catalog_names) const {
  const Snapshot& s = *m_.snapshot;
  Digest d;
  d.add(std::string_view(to_string(p_.engine))).add(std::uint64_t{p_.withhold_writes});
  d.add(ps.users.size());
  for (const auto& u : ps.users) d.add(u.platform_name).add(u.engine_name);  // reasons name platform users
  for (const auto& [platform, engine] : catalog_names) d.add(platform).add(engine);
  d.add(s.classifications.size());
  for (std::size_t t = 0; t < s.classifications.size(); ++t) {
    const auto& c = s.classifications[t];
    d.add(c.name).add(std::uint64_t{m_.engine_gated[t]}).add(static_cast<std::uint64_t>(c.level.value_or(-1)));
  }
  return d.finish();
}

std::string MemoKeys::grants() const {
  Digest d;
  d.add(grants_.size());
  for (const auto& g : grants_) add_grant(d, g);
  return d.finish();
}

std::string MemoKeys::object(const ObjectPolicy& op, const std::vector<std::size_t>& covering,
                             const std::vector<std::size_t>& gated, bool reached,
                             const std::vector<std::size_t>& view_owners, std::string_view restricted) {
  const Object& o = m_.snapshot->objects[op.object];
  Digest d;
  // The object itself: its content's digest, kept by the loader across snapshots for an entry
  // read unchanged, or else worked out here.
  const auto& entry_digests = m_.snapshot->object_entry_digests;
  d.add(entry_digests.size() == m_.snapshot->objects.size() ? entry_digests[op.object] : object_content_digest(o));
  // Policies scoped to a base (by name, column or domain) reach the view: what names them is read.
  d.add(m_.object_bases[op.object].size());
  for (const std::size_t b : m_.object_bases[op.object]) {
    const Object& base = m_.snapshot->objects[b];
    d.add(base.name.catalog).add(base.name.schema).add(base.name.table).add(base.domain.value_or("\\n"));
  }
  d.add(m_.object_tags[op.object].size());
  for (const auto& x : m_.object_tags[op.object]) d.add(x);
  d.add(this->covering(covering));
  d.add(gated.size());
  for (std::size_t t : gated) d.add(t).add(clearance(t));
  d.add(reached ? policies() : std::string_view("unreached"));
  d.add(view_owners.size());
  for (std::size_t u : view_owners) d.add(u);
  d.add(restricted);
  return d.finish();
}

const std::string& MemoKeys::grant(std::size_t g) {
  if (!grant_keys_[g]) {
    Digest d;
    add_grant(d, grants_[g]);
    grant_keys_[g] = d.finish();
  }
  return *grant_keys_[g];
}

const std::string& MemoKeys::covering(const std::vector<std::size_t>& grants) {
  if (last_covering_ && last_covering_->first == grants) return last_covering_->second;
  auto it = covering_keys_.find(grants);
  if (it == covering_keys_.end()) {
    Digest d;
    d.add(grants.size());
    for (std::size_t g : grants) d.add(grant(g));
    it = covering_keys_.emplace(grants, d.finish()).first;
  }
  last_covering_ = &*it;
  return it->second;
}

const std::string& MemoKeys::clearance(std::size_t tag) {
  if (!clearance_keys_[tag]) {
    // Who is cleared, as the model's bitmap: the user count tells a last word's unused bits apart.
    const std::vector<std::uint64_t>& cleared = m_.cleared_users[tag];
    clearance_keys_[tag] = Digest()
                               .add(m_.snapshot->users.size())
                               .add(std::string_view(reinterpret_cast<const char*>(cleared.data()),
                                                     cleared.size() * sizeof(std::uint64_t)))
                               .finish();
  }
  return *clearance_keys_[tag];
}

// Policies, and what they can see of each user: whether each applies to or exempts them,
// and the values their filters bind (the keys' content, not only how they partition users).
const std::string& MemoKeys::policies() {
  if (!policies_key_) {
    Digest d;
    d.add(m_.snapshot->policies.size());
    for (const auto& p : m_.snapshot->policies) {
      d.add(p.name).add(std::uint64_t{p.enabled}).add(static_cast<std::uint64_t>(p.type));
      d.add(static_cast<std::uint64_t>(p.mask)).add(static_cast<std::uint64_t>(p.visible_chars));
      d.add(static_cast<std::uint64_t>(p.scope.kind)).add(p.scope.name).add(static_cast<std::uint64_t>(p.scope.level));
      for (const auto* set : {&p.applies_to, &p.exempt}) {
        d.add(set->roles.size());
        for (const auto& r : set->roles) d.add(r);
        d.add(set->users.size());
        for (const auto& u : set->users) d.add(u);
      }
      d.add(p.condition.dump());
    }
    d.add(policy_key_.size());
    for (std::size_t k : policy_key_) d.add(k);
    for (const auto& text : policy_key_text_) d.add(text);
    policies_key_ = d.finish();
  }
  return *policies_key_;
}

}  // namespace tw
