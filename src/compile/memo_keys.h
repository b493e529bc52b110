#pragma once
// The compile memo's keys. An object's decision reads the object, a small context
// every object shares (engine, users, catalogs, classifications), the grants that
// cover it, who is cleared for each of its gated tags, and access policies when
// one reaches it. Each part is hashed once per compile and an object's key names
// only the parts it reads, so a membership change re-decides only the objects
// whose grants or gates it moves.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "grant_patterns.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/config/profile.h"

namespace tw {

class MemoKeys {
 public:
  MemoKeys(const Model& model, const Profile& profile, const std::vector<EngineGrant>& grants,
           const std::vector<std::size_t>& policy_key, const std::vector<std::string>& policy_key_text);

  /// What every object's decision reads.
  std::string context(const PolicySet& ps, const std::map<std::string, std::string>& catalog_names) const;
  /// Every grant: the rules for unlisted names read these.
  std::string grants() const;
  /// One object's key: `covering` are its grants, `gated` its gated tags (indices, sorted),
  /// `reached` whether an access policy's scope reaches it, `view_owners` the owners of
  /// views that read it (user indices, sorted).
  /// `restricted`: who may not create on the profile, when a covering grant gives OWNERSHIP there
  /// (they lose it); empty otherwise.
  std::string object(const ObjectPolicy& op, const std::vector<std::size_t>& covering,
                     const std::vector<std::size_t>& gated, bool reached, const std::vector<std::size_t>& view_owners,
                     std::string_view restricted);

 private:
  const std::string& grant(std::size_t g);
  const std::string& clearance(std::size_t tag);
  /// The grants covering an object, as one key: objects of a schema mostly share their covering
  /// grants, and a key of keys keeps each object's own key short.
  const std::string& covering(const std::vector<std::size_t>& grants);
  const std::string& policies();

  const Model& m_;
  const Profile& p_;
  const std::vector<EngineGrant>& grants_;
  const std::vector<std::size_t>& policy_key_;
  const std::vector<std::string>& policy_key_text_;
  std::vector<std::optional<std::string>> grant_keys_;
  std::vector<std::optional<std::string>> clearance_keys_;
  std::optional<std::string> policies_key_;
  struct IndexListHash {
    std::size_t operator()(const std::vector<std::size_t>& v) const {
      return std::hash<std::string_view>{}(
          std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(std::size_t)));
    }
  };
  /// By the grants' indices: a hash, not an ordered map, whose lookups compared whole lists
  /// (2 % of an L profile's compile). Objects come sorted, so the last list asked is mostly
  /// asked again.
  std::unordered_map<std::vector<std::size_t>, std::string, IndexListHash> covering_keys_;
  const std::pair<const std::vector<std::size_t>, std::string>* last_covering_ = nullptr;
};

}  // namespace tw
