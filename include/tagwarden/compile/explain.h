#pragma once
// Why one user is or is not cleared for each gated tag, and what each profile
// refuses them. Reads decisions from the PolicySets; re-derives nothing.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <functional>
#include <map>

#include "tagwarden/compile/access_policies.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {

struct TagClearance {
  std::string tag;
  std::string status;                ///< "Cleared", "Not cleared", "Not enforced in engines"
  std::vector<std::string> reasons;  ///< one per clearance row
};

struct Refusal {
  /// What refuses it: "clearance" (a gate the user is not cleared for; on StarRocks perhaps
  /// widened by the engine, see engine_note), "starrocks_coarsened" (no gate of the user's, the
  /// StarRocks translation withholds SELECT), "definer_view_owner" (Trino reads a DEFINER view as
  /// its owner, who cannot read what it reads: refused to everybody, see reason), "view_read"
  /// (any other read Trino refuses while it expands the view: a materialized view's owner, a view
  /// nested in it, a SECURITY INVOKER view's reader; see reason), "creation_restricted" (Trino:
  /// OWNERSHIP of a listed object withheld from a user not cleared for every gated tag of the
  /// profile, restrict_materialized_views; no gate of the object is involved), "mask_without_columns"
  /// (any engine: a mask of the whole object, which lists no columns to mask: SELECT withheld).
  std::string kind = "clearance";
  std::string object;                 ///< engine name
  bool whole_object = false;          ///< a gate on the object (own or inherited)
  std::vector<std::string> columns;   ///< gated columns refused (when not the whole object)
  std::vector<std::string> tags;      ///< the gated tags the user is not cleared for
  bool has_grant = false;             ///< whether grants would otherwise give access
  std::vector<std::string> withheld;  ///< privileges removed by the gates (and by the engine's translation)
  std::string engine_note;            ///< why the engine withholds more than the PolicySet (StarRocks coarsening)
  std::string reason;  ///< definer_view_owner, view_read, creation_restricted, mask_without_columns: why it is refused
};

/// One effective mask as the engine enforces it: hash, partial and full masks are string
/// expressions, so on a non-string column both engines apply a typed NULL instead.
struct EnforcedMask {
  std::string column;                     ///< engine column name
  MaskKind policy_kind = MaskKind::Full;  ///< the strictest applying policy's kind
  MaskKind enforced_kind = MaskKind::Full;
  int visible_chars = 0;         ///< partial only
  std::string reason;            ///< why enforced_kind differs from policy_kind; empty when equal
  int fully_masked_through = 0;  ///< partial only: values this short show only '****'
};

/// How `engine` enforces one effective mask: on a non-string column (dates, numbers, booleans)
/// the hash, partial and full masks are a typed NULL, with the reason. Asked of the renderers'
/// own functions, so explain and the findings cannot disagree with them.
EnforcedMask enforced_mask(Engine engine, const ColumnMask& mask);

/// The access policies that reach one object for the user: the simulator.
struct ObjectPolicies {
  std::string object;                      ///< engine name
  std::vector<PolicyDecision> considered;  ///< applied and not applied, with reasons
  Access effective;                        ///< as decided (after clearances and policies)
  std::vector<EnforcedMask> masks;         ///< effective.masks as the engine enforces them, same order
  nlohmann::json expressions;              ///< engine expressions, when a renderer was given
};

/// Renders the effective masks and filter of one access as the engine will enforce them.
using ExpressionRenderer = std::function<nlohmann::json(const Access&)>;

struct ProfileExplanation {
  std::string profile;
  Engine engine = Engine::Trino;
  bool failed = false;              ///< the profile did not compile: nothing is enforced from it
  std::vector<std::string> errors;  ///< why, when failed (everything below is then empty)
  std::vector<ObjectPolicies> policies;
  std::string engine_user;
  std::vector<Refusal> refusals;
  bool may_create = true;       ///< false when the materialized-view rule applies
  bool owns_new_names = false;  ///< some unlisted-name rule gives the user OWNERSHIP: creation is granted somewhere
};

struct Explanation {
  std::string user;
  bool platform_admin = false;
  std::vector<TagClearance> clearances;
  std::vector<ProfileExplanation> profiles;
  std::vector<std::string> notes;
};

/// Throws std::invalid_argument when the user is not in the snapshot.
/// `profiles` (optional) gives engine settings a PolicySet does not carry: for StarRocks the
/// `masking` key, which decides whether a gated, masked or filtered read coarsens to no SELECT
/// (a profile not given is taken as masking: auto, i.e. no masking without a server).
Explanation explain_user(const Model& model, const std::vector<PolicySet>& policy_sets, const std::string& user,
                         const std::map<Engine, ExpressionRenderer>& renderers = {},
                         const std::vector<Profile>& profiles = {});

/// explain_user over the outcome of compiling `profiles` (`compiled[i]` is `profiles[i]`'s), in
/// config order: a profile that failed to compile appears too, `failed` with its errors, instead
/// of being left out as if it refused nothing. Throws std::invalid_argument for an unknown user.
Explanation explain_compiled(const Model& model, const std::vector<Profile>& profiles,
                             const std::vector<const ProfileCompile*>& compiled, const std::string& user,
                             const std::map<Engine, ExpressionRenderer>& renderers = {});

nlohmann::json to_json(const Explanation& e);
std::string to_text(const Explanation& e);

}  // namespace tw
