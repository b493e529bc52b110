// Each operation is decided as FileBasedSystemAccessControl decides it on the document
// render_rules writes: catalogs open to known users (system read-only), no schema owner, the
// table rules of the PolicySet (listed objects, then unlisted patterns, then system.jdbc, then
// nothing), queries executed by anyone, no impersonation, no system information, session
// properties free, built-in functions only. The comments name the file-based check mirrored, and
// the one place this is stricter than the file-based rules (table procedures).
#include <algorithm>
#include <unordered_set>

#include "expressions.h"
#include "tagwarden/engines/trino/opa.h"
#include "tagwarden/util/text.h"

namespace tw::trino {

using nlohmann::json;

namespace {

const std::string kInformationSchema = "information_schema";

const json& member(const json& object, const char* key, const std::string& where) {
  if (!object.is_object()) throw OpaBadRequest(where + " must be an object");
  auto it = object.find(key);
  if (it == object.end()) throw OpaBadRequest(where + "." + key + " is missing");
  return *it;
}

const std::string& text(const json& object, const char* key, const std::string& where) {
  const json& v = member(object, key, where);
  if (!v.is_string()) throw OpaBadRequest(where + "." + key + " must be a string");
  return v.get_ref<const std::string&>();
}

std::vector<std::string> texts(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_array()) throw OpaBadRequest(where + "." + key + " must be a list of strings");
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) throw OpaBadRequest(where + "." + key + " must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

// Names are compared as Trino writes them in the rules document, lowercased. Trino lowercases
// every name before it asks, so this changes no answer it can get; a request that did not would
// otherwise miss a lowercase deny (a column "IBAN" is "iban"), or an object's own rules and fall
// to a broader pattern.
std::string trino_name(const json& object, const char* key, const std::string& where) {
  return lowercase_identifier(text(object, key, where));
}

// The columns of an operation on columns: the plugin always sends the key (an empty list for
// count(*)); without it the decision would be guessed, so the body is refused instead.
std::vector<std::string> columns_of(const json& table, const std::string& where) {
  if (!table.contains("columns")) throw OpaBadRequest(where + ".columns is required (a list of strings)");
  std::vector<std::string> columns = texts(table, "columns", where);
  for (auto& c : columns) c = lowercase_identifier(c);
  return columns;
}

QualifiedName table_name(const json& resource, const std::string& where) {
  const json& table = member(resource, "table", where);
  return {trino_name(table, "catalogName", where + ".table"), trino_name(table, "schemaName", where + ".table"),
          trino_name(table, "tableName", where + ".table")};
}

enum class Check {
  Deny,               // nobody: no schema owner, no impersonation, no system information, roles, grants...
  Allow,              // anybody: executing queries, system session properties
  Catalog,            // canAccessCatalog(READ_ONLY) on resource.catalog
  CatalogOfProperty,  // checkCanSetCatalogSessionProperty: canAccessCatalog(READ_ONLY)
  SchemaAccess,       // checkAnySchemaAccess on resource.schema
  AnyTable,           // checkAnyTablePermission
  FilterTable,        // isSchemaOwner (never) || checkAnyTablePermission
  FilterColumn,       // filterColumns, one column
  Select,             // checkCanSelectFromColumns
  ViewOwnerSelect,    // checkCanCreateViewWithSelectFromColumns
  Insert,
  Delete,
  Update,
  Ownership,
  OwnershipRename,  // OWNERSHIP on resource and targetResource
  Function,         // canExecuteFunction / filterFunctions / checkCanExecuteProcedure: system.builtin only
};

const std::unordered_map<std::string_view, Check>& checks() {
  static const std::unordered_map<std::string_view, Check> table = {
      {"ExecuteQuery", Check::Allow},
      {"SetSystemSessionProperty", Check::Allow},
      // CALL: the document has no procedures section, so only system.builtin (checkProcedurePermission
      // with the rule ALLOW_BUILTIN).
      {"ExecuteProcedure", Check::Function},
      // ALTER TABLE ... EXECUTE (optimize, expire_snapshots, ...) rewrites or drops a table's data.
      // The file-based rules make no check at all, not even the catalog's; here it is what ALTER
      // TABLE is, OWNERSHIP, so it is refused to unknown users, outside the profile's catalogs,
      // and on gated tables to the uncleared (withhold_writes).
      {"ExecuteTableProcedure", Check::Ownership},
      // Viewing and killing: the document gives "execute" only; Trino lets owners see their own.
      {"ViewQueryOwnedBy", Check::Deny},
      {"FilterViewQueryOwnedBy", Check::Deny},
      {"KillQueryOwnedBy", Check::Deny},
      {"ImpersonateUser", Check::Deny},
      {"ReadSystemInformation", Check::Deny},
      {"WriteSystemInformation", Check::Deny},
      {"AccessCatalog", Check::Catalog},
      {"FilterCatalogs", Check::Catalog},
      {"ShowSchemas", Check::Catalog},
      {"CreateCatalog", Check::Deny},
      {"DropCatalog", Check::Deny},
      {"SetCatalogSessionProperty", Check::CatalogOfProperty},
      {"CreateSchema", Check::Deny},
      {"DropSchema", Check::Deny},
      {"RenameSchema", Check::Deny},
      {"SetSchemaAuthorization", Check::Deny},
      {"ShowCreateSchema", Check::Deny},
      {"FilterSchemas", Check::SchemaAccess},
      {"ShowTables", Check::SchemaAccess},
      {"ShowFunctions", Check::SchemaAccess},
      {"ShowColumns", Check::AnyTable},
      {"FilterTables", Check::FilterTable},
      {"FilterColumns", Check::FilterColumn},
      {"SelectFromColumns", Check::Select},
      {"CreateViewWithSelectFromColumns", Check::ViewOwnerSelect},
      {"InsertIntoTable", Check::Insert},
      {"DeleteFromTable", Check::Delete},
      {"TruncateTable", Check::Delete},
      {"UpdateTableColumns", Check::Update},
      {"RefreshMaterializedView", Check::Update},
      {"ShowCreateTable", Check::Ownership},
      {"CreateTable", Check::Ownership},
      {"DropTable", Check::Ownership},
      {"SetTableProperties", Check::Ownership},
      {"SetTableComment", Check::Ownership},
      {"SetViewComment", Check::Ownership},
      {"SetColumnComment", Check::Ownership},
      {"AddColumn", Check::Ownership},
      {"DropColumn", Check::Ownership},
      {"RenameColumn", Check::Ownership},
      {"AlterColumn", Check::Ownership},
      {"CreateView", Check::Ownership},
      {"DropView", Check::Ownership},
      {"CreateMaterializedView", Check::Ownership},
      {"DropMaterializedView", Check::Ownership},
      {"SetMaterializedViewProperties", Check::Ownership},
      {"RenameTable", Check::OwnershipRename},
      {"RenameView", Check::OwnershipRename},
      {"RenameMaterializedView", Check::OwnershipRename},
      // Also need an authorization rule, and the document has none.
      {"SetTableAuthorization", Check::Deny},
      {"SetViewAuthorization", Check::Deny},
      {"ExecuteFunction", Check::Function},
      {"FilterFunctions", Check::Function},
      {"CreateViewWithExecuteFunction", Check::Function},
  };
  return table;
}

}  // namespace

std::optional<OpaEndpoint> opa_endpoint_named(std::string_view segment) {
  if (segment == "allow") return OpaEndpoint::Allow;
  if (segment == "batch") return OpaEndpoint::Batch;
  if (segment == "row-filters") return OpaEndpoint::RowFilters;
  if (segment == "column-mask") return OpaEndpoint::ColumnMask;
  if (segment == "batch-column-masks") return OpaEndpoint::BatchColumnMasks;
  return std::nullopt;
}

// The first table rule of the document that matches a known user and a table.
struct OpaDecider::TableRule {
  PrivilegeSet privileges;
  bool grant_select = false;
  const Access* access = nullptr;  ///< a listed object's: columns, masks, filter
  bool any() const { return !privileges.empty() || grant_select; }
  bool can_select(const std::vector<std::string>& columns) const {
    if (!privileges.has(Privilege::Select) && !grant_select) return false;
    if (!access) return true;
    for (const auto& c : columns) {
      if (std::binary_search(access->denied_columns.begin(), access->denied_columns.end(), c)) return false;
    }
    return true;
  }
};

struct OpaDecider::Request {
  std::string operation;
  std::optional<std::size_t> user;  ///< nullopt: a user the snapshot does not know
};

OpaDecider::OpaDecider(std::shared_ptr<const PolicySet> ps) : ps_(std::move(ps)) {
  users_.reserve(ps_->users.size());
  for (std::size_t i = 0; i < ps_->users.size(); ++i) users_.emplace(ps_->users[i].engine_name, i);
}

std::optional<std::size_t> OpaDecider::user_index(const std::string& name) const {
  auto it = users_.find(name);
  if (it == users_.end()) return std::nullopt;
  return it->second;
}

// canAccessCatalog: the profile's catalogs ("all") and system ("read-only"), to known users only.
bool OpaDecider::catalog_allows(std::optional<std::size_t> user, const std::string& catalog, bool write) const {
  if (!user) return false;
  if (std::binary_search(ps_->catalogs.begin(), ps_->catalogs.end(), catalog)) return true;
  return catalog == "system" && !write;
}

const ObjectPolicy* OpaDecider::object(const QualifiedName& name) const {
  auto it = std::lower_bound(ps_->objects.begin(), ps_->objects.end(), name,
                             [](const ObjectPolicy& op, const QualifiedName& n) { return op.engine_name < n; });
  if (it == ps_->objects.end() || it->engine_name != name) return nullptr;
  return &*it;
}

OpaDecider::TableRule OpaDecider::table_rule(std::size_t user, const QualifiedName& name) const {
  TableRule rule;
  if (const ObjectPolicy* op = object(name)) {
    if (const AccessClass* cls = op->class_of(user)) {
      rule.privileges = cls->access.privileges;
      rule.grant_select = cls->access.grant_select;
      rule.access = &cls->access;
    }
    return rule;
  }
  rule.privileges = ps_->unlisted_access(user, name);
  if (rule.privileges.empty() && name.catalog == "system" && name.schema == "jdbc")
    rule.privileges.add(Privilege::Select);
  return rule;
}

// checkAnySchemaAccess: the catalog, and a privilege on something in the schema: a listed
// object, a name an unlisted pattern covers, system.jdbc, or the built-in functions.
bool OpaDecider::any_schema_access(std::optional<std::size_t> user, const std::string& catalog,
                                   const std::string& schema) const {
  if (!catalog_allows(user, catalog, false)) return false;
  if (catalog == "system" && (schema == "jdbc" || schema == "builtin")) return true;
  // information_schema is a schema like the others here, as in the file-based rules: listed to
  // whoever holds something a rule covering it gives (its tables are readable, FilterTable).
  const QualifiedName first{catalog, schema, ""};
  auto it = std::lower_bound(ps_->objects.begin(), ps_->objects.end(), first,
                             [](const ObjectPolicy& op, const QualifiedName& n) { return op.engine_name < n; });
  for (; it != ps_->objects.end() && it->engine_name.catalog == catalog && it->engine_name.schema == schema; ++it) {
    if (const AccessClass* cls = it->class_of(*user);
        cls && (!cls->access.privileges.empty() || cls->access.grant_select))
      return true;
  }
  // Names no listed object takes: any fresh name, and each table a pattern names in this schema.
  // Each is decided as Trino decides it, by the most specific pattern covering it.
  const auto grants_on = [&](const std::string& table) {
    const QualifiedName name{catalog, schema, table};
    return !object(name) && !ps_->unlisted_access(*user, name).empty();
  };
  if (grants_on("")) return true;  // no object or pattern names the empty table
  for (const auto& rule : ps_->unlisted) {
    if (rule.pattern.catalog != catalog || (rule.pattern.schema != "*" && rule.pattern.schema != schema)) continue;
    if (rule.pattern.table == "*") continue;  // decides fresh names too: asked above
    // Only a pattern holding the user can be the one that grants them its table.
    if (!rule.privileges_of(*user).empty() && grants_on(rule.pattern.table)) return true;
  }
  return false;
}

bool OpaDecider::allowed(const Request& request, const json& resource, const json* target) const {
  auto found = checks().find(request.operation);
  if (found == checks().end()) return false;  // an operation this version does not know: refused
  const std::string where = "input.action.resource";
  const auto table_check = [&](Privilege privilege) {
    const QualifiedName name = table_name(resource, where);
    const bool write = privilege != Privilege::Select;
    if (!catalog_allows(request.user, name.catalog, write)) return false;
    if (name.schema == kInformationSchema) return true;
    return table_rule(*request.user, name).privileges.has(privilege);
  };
  switch (found->second) {
    case Check::Deny:
      return false;
    case Check::Allow:
      return true;
    case Check::Catalog:
      return catalog_allows(request.user, trino_name(member(resource, "catalog", where), "name", where + ".catalog"),
                            false);
    case Check::CatalogOfProperty:
      return catalog_allows(request.user,
                            trino_name(member(resource, "catalogSessionProperty", where), "catalogName",
                                       where + ".catalogSessionProperty"),
                            false);
    case Check::SchemaAccess: {
      const json& schema = member(resource, "schema", where);
      return any_schema_access(request.user, trino_name(schema, "catalogName", where + ".schema"),
                               trino_name(schema, "schemaName", where + ".schema"));
    }
    case Check::AnyTable:
    case Check::FilterTable: {
      const QualifiedName name = table_name(resource, where);
      if (!catalog_allows(request.user, name.catalog, false)) return false;
      if (name.schema == kInformationSchema) return true;
      return table_rule(*request.user, name).any();
    }
    case Check::FilterColumn: {
      const QualifiedName name = table_name(resource, where);
      if (!catalog_allows(request.user, name.catalog, false)) return false;
      if (name.schema == kInformationSchema) return true;
      const TableRule rule = table_rule(*request.user, name);
      if (!rule.any()) return false;
      PrivilegeSet others = rule.privileges;
      others.remove(Privilege::Select);
      if (!others.empty() || !rule.access) return true;  // privileges beyond SELECT show every column
      for (const auto& c : columns_of(member(resource, "table", where), where + ".table")) {
        if (std::binary_search(rule.access->denied_columns.begin(), rule.access->denied_columns.end(), c)) return false;
      }
      return true;
    }
    case Check::Select:
    case Check::ViewOwnerSelect: {
      const bool view_owner = found->second == Check::ViewOwnerSelect;
      const QualifiedName name = table_name(resource, where);
      if (!catalog_allows(request.user, name.catalog, view_owner)) return false;
      if (name.schema == kInformationSchema) return true;
      const TableRule rule = table_rule(*request.user, name);
      if (!rule.can_select(columns_of(member(resource, "table", where), where + ".table"))) return false;
      return !view_owner || rule.grant_select;
    }
    case Check::Insert:
      return table_check(Privilege::Insert);
    case Check::Delete:
      return table_check(Privilege::Delete);
    case Check::Update:
      return table_check(Privilege::Update);
    case Check::Ownership:
      return table_check(Privilege::Ownership);
    case Check::OwnershipRename: {
      if (!table_check(Privilege::Ownership)) return false;
      if (!target) throw OpaBadRequest("input.action.targetResource is missing");
      const QualifiedName name = table_name(*target, "input.action.targetResource");
      if (!catalog_allows(request.user, name.catalog, true)) return false;
      if (name.schema == kInformationSchema) return true;
      return table_rule(*request.user, name).privileges.has(Privilege::Ownership);
    }
    case Check::Function: {
      const json& function = member(resource, "function", where);
      const std::string catalog = trino_name(function, "catalogName", where + ".function");
      const std::string schema = trino_name(function, "schemaName", where + ".function");
      return catalog_allows(request.user, catalog, false) && catalog == "system" && schema == "builtin";
    }
  }
  return false;
}

json OpaDecider::deny_all(OpaEndpoint endpoint) {
  switch (endpoint) {
    case OpaEndpoint::Allow:
      return {{"result", false}};
    case OpaEndpoint::ColumnMask:
      return {{"result", nullptr}};
    case OpaEndpoint::Batch:
    case OpaEndpoint::RowFilters:
    case OpaEndpoint::BatchColumnMasks:
      return {{"result", json::array()}};
  }
  return {{"result", false}};
}

json OpaDecider::answer(OpaEndpoint endpoint, const json& body) const {
  const json& input = member(body, "input", "body");
  const json& context = member(input, "context", "input");
  const json& action = member(input, "action", "input");
  Request request;
  request.operation = text(action, "operation", "input.action");
  request.user = user_index(text(member(context, "identity", "input.context"), "user", "input.context.identity"));

  // Each endpoint is asked by the plugin for its own operations only; another is no body it sends.
  const auto expect_operation = [&](std::initializer_list<std::string_view> operations) {
    if (std::find(operations.begin(), operations.end(), request.operation) != operations.end()) return;
    std::string list;
    for (const auto& o : operations) list += (list.empty() ? "" : ", ") + std::string(o);
    throw OpaBadRequest("input.action.operation " + request.operation + " is not asked at this endpoint (" + list +
                        ")");
  };
  switch (endpoint) {
    case OpaEndpoint::Allow: {
      static const json none = json::object();
      auto resource = action.find("resource"), target = action.find("targetResource");
      const bool absent = resource == action.end() || resource->is_null();
      if (!absent && !resource->is_object()) throw OpaBadRequest("input.action.resource must be an object");
      if (target != action.end() && !target->is_object())
        throw OpaBadRequest("input.action.targetResource must be an object");
      if (request.operation == "SetSystemSessionProperty")  // as the plugin sends it, even though it allows all
        text(member(absent ? none : *resource, "systemSessionProperty", "input.action.resource"), "name",
             "input.action.resource.systemSessionProperty");
      return {{"result", allowed(request, absent ? none : *resource, target == action.end() ? nullptr : &*target)}};
    }
    case OpaEndpoint::Batch: {
      expect_operation({"FilterCatalogs", "FilterSchemas", "FilterTables", "FilterColumns", "FilterFunctions",
                        "FilterViewQueryOwnedBy"});
      const json& resources = member(action, "filterResources", "input.action");
      if (!resources.is_array()) throw OpaBadRequest("input.action.filterResources must be a list");
      for (std::size_t i = 0; i < resources.size(); ++i) {
        if (!resources[i].is_object())
          throw OpaBadRequest("input.action.filterResources[" + std::to_string(i) + "] must be an object");
      }
      json result = json::array();
      if (request.operation == "FilterColumns") {
        // One resource, the table, holding all its columns; the indices are of those columns. The
        // plugin asks per table (filterColumns): more than one is no body it could have sent.
        if (resources.size() != 1)
          throw OpaBadRequest("input.action.filterResources of FilterColumns must hold exactly one table");
        std::size_t index = 0;
        for (std::size_t i = 0; i < resources.size(); ++i) {
          const std::string where = "input.action.filterResources[" + std::to_string(i) + "]";
          json one = resources[i];
          const std::vector<std::string> columns =
              texts(member(resources[i], "table", where), "columns", where + ".table");
          for (const auto& column : columns) {
            one["table"]["columns"] = json::array({column});
            if (allowed(request, one, nullptr)) result.push_back(index);
            ++index;
          }
        }
        return {{"result", result}};
      }
      for (std::size_t i = 0; i < resources.size(); ++i) {
        if (allowed(request, resources[i], nullptr)) result.push_back(i);
      }
      return {{"result", result}};
    }
    case OpaEndpoint::RowFilters: {
      expect_operation({"GetRowFilters"});
      json result = json::array();
      const QualifiedName name = table_name(member(action, "resource", "input.action"), "input.action.resource");
      if (!request.user || name.schema == kInformationSchema) return {{"result", result}};
      const TableRule rule = table_rule(*request.user, name);
      if (rule.access && !rule.access->row_filter.empty()) {
        json filter = {{"expression", filter_expression(rule.access->row_filter)}};
        if (rule.access->filter_as) filter["identity"] = ps_->users[*rule.access->filter_as].engine_name;
        result.push_back(std::move(filter));
      }
      return {{"result", result}};
    }
    case OpaEndpoint::ColumnMask:
    case OpaEndpoint::BatchColumnMasks: {
      expect_operation({"GetColumnMask"});
      const auto mask_of = [&](const json& resource, const std::string& where) -> json {
        const json& column = member(resource, "column", where);
        const QualifiedName name{trino_name(column, "catalogName", where + ".column"),
                                 trino_name(column, "schemaName", where + ".column"),
                                 trino_name(column, "tableName", where + ".column")};
        const std::string column_name = trino_name(column, "columnName", where + ".column");
        text(column, "columnType", where + ".column");  // always sent; a mask is cast to it
        if (!request.user || name.schema == kInformationSchema) return nullptr;
        const TableRule rule = table_rule(*request.user, name);
        if (!rule.access) return nullptr;
        for (const auto& m : rule.access->masks) {
          if (m.column == column_name) return {{"expression", mask_expression(m)}};
        }
        return nullptr;
      };
      if (endpoint == OpaEndpoint::ColumnMask) {
        return {{"result", mask_of(member(action, "resource", "input.action"), "input.action.resource")}};
      }
      const json& resources = member(action, "filterResources", "input.action");
      if (!resources.is_array()) throw OpaBadRequest("input.action.filterResources must be a list");
      json result = json::array();
      for (std::size_t i = 0; i < resources.size(); ++i) {
        json mask = mask_of(resources[i], "input.action.filterResources[" + std::to_string(i) + "]");
        if (!mask.is_null()) result.push_back({{"index", i}, {"viewExpression", std::move(mask)}});
      }
      return {{"result", result}};
    }
  }
  return deny_all(endpoint);
}

}  // namespace tw::trino
