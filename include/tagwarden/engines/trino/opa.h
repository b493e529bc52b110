#pragma once
// PolicySet -> answers to Trino's OPA access control (access-control.name=opa). Instead of a
// rules document Trino re-parses and scans (998 MB at the L scale), Trino asks for each decision
// over HTTP, and the daemon answers it from the PolicySet it already holds.
//
// The answers are those Trino's file-based access control gives for the rules document
// rendered from the same PolicySet (render_rules): the same catalog, table, column, mask and
// row-filter decisions, operation by operation; tests/trino-opa proves it with Trino's own
// OpaAccessControl against Trino's own FileBasedSystemAccessControl. An operation this file
// does not name is refused. Pure: the same PolicySet and request give the same answer.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tagwarden/compile/policy_set.h"

namespace tw::trino {

/// The four policy URIs of Trino's OPA plugin, and its batched one.
enum class OpaEndpoint {
  Allow,             ///< opa.policy.uri: one decision, {"result": bool}
  Batch,             ///< opa.policy.batched-uri: {"result": [indices of allowed filterResources]}
  RowFilters,        ///< opa.policy.row-filters-uri: {"result": [{"expression", "identity"?}]}
  ColumnMask,        ///< opa.policy.column-masking-uri: {"result": {"expression", "identity"?} | null}
  BatchColumnMasks,  ///< opa.policy.batch-column-masking-uri: {"result": [{"index", "viewExpression"}]}
};

/// The endpoint a URL path segment names ("allow", "batch", "row-filters", "column-mask",
/// "batch-column-masks"), or nullopt.
std::optional<OpaEndpoint> opa_endpoint_named(std::string_view segment);

/// A request body Trino's OPA plugin could not have sent; the HTTP answer is 400.
struct OpaBadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class OpaDecider {
 public:
  explicit OpaDecider(std::shared_ptr<const PolicySet> ps);

  /// {"result": ...} for one request body ({"input": {"context": ..., "action": ...}}).
  /// Throws OpaBadRequest when a field the operation needs is missing or mistyped.
  nlohmann::json answer(OpaEndpoint endpoint, const nlohmann::json& body) const;

  /// What is answered while no good compile is served: every operation refused, no rows.
  static nlohmann::json deny_all(OpaEndpoint endpoint);

  const PolicySet& policy_set() const { return *ps_; }

 private:
  struct TableRule;
  struct Request;
  /// `target`: action.targetResource, for renames.
  bool allowed(const Request& request, const nlohmann::json& resource, const nlohmann::json* target) const;
  std::optional<std::size_t> user_index(const std::string& name) const;
  bool catalog_allows(std::optional<std::size_t> user, const std::string& catalog, bool write) const;
  TableRule table_rule(std::size_t user, const QualifiedName& name) const;
  bool any_schema_access(std::optional<std::size_t> user, const std::string& catalog, const std::string& schema) const;
  const ObjectPolicy* object(const QualifiedName& name) const;

  std::shared_ptr<const PolicySet> ps_;
  std::unordered_map<std::string, std::size_t> users_;  ///< engine name -> index into ps_->users
};

}  // namespace tw::trino
