#pragma once
// What a profile's artifact depends on besides the snapshot, as one digest: stored with the
// daemon's last good artifact, so that a restart serves it only to the same settings. (An
// artifact of `access_control: opa` restored for a profile switched to file mode was served
// as its rules document, which Trino refuses to load.)

#include <string>

#include "tagwarden/config/profile.h"

namespace tw {

/// SHA-256 hex over the settings that change what a profile compiles to: engine, catalogs,
/// catalog_map, user_map, withhold_writes, restrict_materialized_views, max_policies_per_tag,
/// max_roles_per_user, access_control, dialect and masking. Not its name, rules_file, dsn or
/// password_file, which say where the artifact goes, not what it is.
std::string profile_settings_digest(const Profile& profile);

}  // namespace tw
