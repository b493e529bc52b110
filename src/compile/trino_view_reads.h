#pragma once
// What Trino reads, and as whom, when one user queries a listed view or materialized view: it
// expands views as it meets them. A DEFINER view and a materialized view read their bases as
// their owner, with GRANT_SELECT asked of the owner (checkCanCreateViewWithSelectFromColumns)
// unless the owner is the one reading; an INVOKER view reads them as whoever reads it, under the
// same check. Nested views repeat this, so a base two views down may be read as an owner the
// reader never hears of. Judged on the compiled decisions (gates, policies, grants, GRANT_SELECT)
// so explain says what Trino does with the rules, not what the snapshot meant.

#include <string>
#include <vector>

#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {

/// One read of a base Trino makes on the way and refuses, wholly or for some columns.
struct TrinoViewRead {
  const ObjectPolicy* base = nullptr;  ///< nullptr for a base outside the profile (`outside`)
  std::string outside;     ///< platform name of a base in a catalog the profile does not cover: refused to all
  std::size_t reader = 0;  ///< model user index: as whom Trino reads the base
  std::vector<const ObjectPolicy*> via;  ///< the views expanded to reach it, outermost first
  bool with_grant_select = false;        ///< Trino asks the reader for GRANT_SELECT there
  bool whole = false;                    ///< refused outright; else only `columns`
  std::string name() const { return base ? base->engine_name.str() : outside; }
  std::vector<std::string> columns;  ///< engine columns refused (when not whole)
};

/// The refused reads of `user` querying `view` (every column of it), for a user whose own class
/// on the view holds SELECT. Empty for a table, or when every read succeeds.
std::vector<TrinoViewRead> refused_trino_view_reads(const Model& model, const PolicySet& ps, const ObjectPolicy& view,
                                                    std::size_t user);

}  // namespace tw
