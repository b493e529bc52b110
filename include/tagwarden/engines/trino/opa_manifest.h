#pragma once
// What a Trino profile with `access_control: opa` publishes instead of a rules document: a small
// manifest of the decisions the daemon answers from. Its digest covers every input the decisions
// read (the compile memo's keys and the profile's settings), so it changes whenever an answer may,
// and the artifact's version, ETag, state and "served" signal work as they do for a rules document.
// Rendering the rules is what this saves: at L, 1 GB and about half of the profile's build.
// Pure: the same PolicySet, profile and memo give the same bytes.

#include <cstddef>
#include <string>

#include "tagwarden/compile/compile_memo.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/config/profile.h"

namespace tw::trino {

struct OpaManifest {
  std::string text;                ///< JSON, one line
  std::size_t access_classes = 0;  ///< over every listed object: what `rules` counts for such a profile
};

OpaManifest render_opa_manifest(const PolicySet& ps, const Profile& profile, const CompileMemo& memo);

}  // namespace tw::trino
