#include "tagwarden/engines/starrocks/withdraw.h"

#include "tagwarden/engines/starrocks/live_state.h"

namespace tw::starrocks {

ApplyResult withdraw_memberships(Connection& connection, Dialect dialect, const std::string& profile,
                                 const ApplyOptions& options) {
  // A plan with no objects and no users reads only the owned roles (their grants, members and the
  // roles they inherit); the desired state is that, without members, so the diff is only revocations.
  Plan withdrawn;
  withdrawn.profile = profile;
  withdrawn.dialect = dialect;
  withdrawn.prefix = owner_prefix(profile);
  try {
    withdrawn.desired = read_live_state(connection, withdrawn).state.owned;
  } catch (const SqlError& e) {
    ApplyResult r;
    r.attempts = 1;
    r.errors.push_back(std::string("reading the roles tagwarden owns failed: ") + e.what());
    return r;
  }
  for (auto& [name, role] : withdrawn.desired.roles) role.members.clear();
  return apply_plan(withdrawn, connection, options);
}

}  // namespace tw::starrocks
