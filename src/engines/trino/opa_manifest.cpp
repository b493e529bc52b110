#include "tagwarden/engines/trino/opa_manifest.h"

#include <nlohmann/json.hpp>

#include "tagwarden/util/digest.h"

namespace tw::trino {

namespace {

// Every input of the decisions: the profile's settings and the memo's decisions key, which is
// what the previous build's artifact is reused on (registry.cpp), so equal digests mean equal answers.
std::string decisions_digest(const Profile& profile, const CompileMemo& memo) {
  Digest d;
  d.add("tagwarden opa decisions 1").add(profile.name);
  d.add(profile.catalogs.size());
  for (const auto& c : profile.catalogs) d.add(c);
  d.add(profile.catalog_map.size());
  for (const auto& [from, to] : profile.catalog_map) d.add(from).add(to);
  d.add(profile.user_map.size());
  for (const auto& [from, to] : profile.user_map) d.add(from).add(to);
  d.add(std::uint64_t(profile.withhold_writes)).add(std::uint64_t(profile.restrict_materialized_views));
  d.add(memo.decisions_key());
  return d.finish();
}

}  // namespace

OpaManifest render_opa_manifest(const PolicySet& ps, const Profile& profile, const CompileMemo& memo) {
  OpaManifest out;
  for (const auto& op : ps.objects) out.access_classes += op.classes.size();
  const nlohmann::ordered_json manifest = {
      {"profile", ps.profile},
      {"engine", "trino"},
      {"access_control", "opa"},
      {"decisions", decisions_digest(profile, memo)},
      {"objects", ps.objects.size()},
      {"access_classes", out.access_classes},
      {"unlisted_rules", ps.unlisted.size()},
      {"users", ps.users.size()},
      {"note",
       "this profile has no rules document: Trino's OPA access control asks "
       "/v1/profiles/" +
           ps.profile + "/trino-opa/{allow,batch,row-filters,column-mask,batch-column-masks}"},
  };
  out.text = manifest.dump() + "\n";
  return out;
}

}  // namespace tw::trino
