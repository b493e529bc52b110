#include "policies.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "owned_names.h"
#include "tagwarden/compile/filter_columns.h"
#include "tagwarden/engines/starrocks/sql.h"

namespace tw::starrocks {

namespace {

using Rank = UserSets::Rank;

// Policy cases while they are built: users as ranks.
struct RankCase {
  std::string expression;
  std::vector<Rank> users;
};

void add_case(std::vector<RankCase>& cases, std::string expression, const std::vector<Rank>& users) {
  auto it = std::find_if(cases.begin(), cases.end(), [&](const RankCase& c) { return c.expression == expression; });
  if (it == cases.end()) {
    cases.push_back({std::move(expression), users});
  } else {
    it->users.insert(it->users.end(), users.begin(), users.end());
  }
}

std::vector<PolicyCase> finish_cases(std::vector<RankCase>& cases, const UserSets& users) {
  std::sort(cases.begin(), cases.end(),
            [](const RankCase& a, const RankCase& b) { return a.expression < b.expression; });
  std::vector<PolicyCase> out;
  out.reserve(cases.size());
  for (auto& c : cases) {
    std::sort(c.users.begin(), c.users.end());
    out.push_back({std::move(c.expression), users.names_of(c.users)});
  }
  return out;
}

}  // namespace

std::set<std::string> add_mask_policies(const ObjectPolicy& op, const Securable& obj, const Readers& readers,
                                        const UserSets& users, TypeCache& types, Plan& plan) {
  std::set<std::string> unmaskable;
  std::set<std::string> columns;
  for (const auto& [col, tags] : op.column_gates) columns.insert(col);
  for (const auto& cls : op.classes) {
    columns.insert(cls.access.denied_columns.begin(), cls.access.denied_columns.end());
    for (const auto& m : cls.access.masks) columns.insert(m.column);
  }
  const std::string arg = sql::ident("tw_value");
  for (const auto& col : columns) {
    const std::string type = column_type(op, col, types);
    if (type.empty()) {
      if (gated_column(op, col)) unmaskable.insert(col);
      continue;
    }
    std::vector<Rank> cleared;
    std::vector<RankCase> masked;
    for (std::size_t i = 0; i < readers.classes.size(); ++i) {
      const AccessClass* cls = readers.classes[i];
      const auto& denied = cls->access.denied_columns;
      if (std::find(denied.begin(), denied.end(), col) != denied.end()) continue;
      const auto& class_users = readers.ranks[i];
      auto mk = std::find_if(cls->access.masks.begin(), cls->access.masks.end(),
                             [&](const ColumnMask& x) { return x.column == col; });
      if (mk == cls->access.masks.end()) {
        cleared.insert(cleared.end(), class_users.begin(), class_users.end());
      } else {
        add_case(masked, sql::mask_expression(*mk, arg, type), class_users);
      }
    }
    std::sort(cleared.begin(), cleared.end());
    MaskPolicy m{"", obj, col, type, users.names_of(cleared), finish_cases(masked, users)};
    const std::string body = sql::mask_body(arg, type, m.cleared, m.masked);
    m.name = plan.prefix + "m" + hash16({obj.catalog, obj.database, obj.name, col, type, body});
    plan.desired.attachments[{obj, col}] = m.name;
    plan.desired.masks[m.name] = std::move(m);
  }
  return unmaskable;
}

void add_row_policy(const ObjectPolicy& op, const Securable& obj, const Readers& readers, const UserSets& users,
                    TypeCache& types, Plan& plan) {
  std::set<std::string> columns;
  bool any = false;
  std::vector<nlohmann::json> parsed;
  parsed.reserve(readers.classes.size());
  for (const AccessClass* cls : readers.classes) {
    if (cls->access.row_filter.empty()) {
      parsed.push_back(nlohmann::json{{"true", true}});
      continue;
    }
    any = true;
    parsed.push_back(nlohmann::json::parse(cls->access.row_filter));
    auto cols = filter_columns(parsed.back());
    columns.insert(cols.begin(), cols.end());
  }
  // A gate or a deny policy that withholds SELECT from a reader the grants reach withholds the
  // object from views the snapshot does not list too: StarRocks checks no privilege on a view's
  // bases, so only a row access policy (FALSE for everyone but the readers) covers them.
  const bool withheld =
      !op.object_gates.empty() || std::any_of(op.classes.begin(), op.classes.end(), [](const AccessClass& c) {
        return c.granted.has(Privilege::Select) && !c.access.privileges.has(Privilege::Select);
      });
  if (!any && !withheld) return;
  RowPolicy p{"", obj, {}, {}};
  if (columns.empty()) {  // the grammar needs one argument: the first column that can be typed
    for (const auto& c : op.columns) {
      if (!column_type(op, c, types).empty()) {
        columns.insert(c);
        break;
      }
    }
    // No column a policy can take: nothing to write it on (the grammar needs an argument). Readers
    // whose filter needs one were coarsened (renderable_filter), and the uncleared of a gate hold
    // no SELECT; what is lost is the FALSE for everyone else, which would cover views the
    // snapshot does not list: say so.
    if (columns.empty()) {
      plan.findings.push_back(
          {Severity::Warning,
           "starrocks_row_policy_without_column",
           obj.str() + " is gated, denied or filtered but has no column a row access policy can take (" +
               (op.columns.empty() ? std::string("the snapshot lists none") : "none of its types can be written") +
               "): it gets no row access policy, so views the snapshot does not list over it are not covered; "
               "list its columns with their types",
           plan.profile,
           {op.engine_name.str()}});
      return;
    }
  }
  std::map<std::string, std::string> args;
  for (const auto& c : columns) {
    args[c] = sql::row_argument(p.columns.size());
    p.columns.emplace_back(c, column_type(op, c, types));
  }
  std::vector<RankCase> cases;
  for (std::size_t i = 0; i < readers.classes.size(); ++i) {
    auto e = sql::filter_expression(parsed[i], args);
    // coarsening() already withdrew SELECT from every class whose filter cannot be rendered
    add_case(cases, e ? std::move(*e) : std::string("FALSE"), readers.ranks[i]);
  }
  p.cases = finish_cases(cases, users);
  std::vector<std::string> parts = {obj.catalog, obj.database, obj.name};
  for (const auto& [c, t] : p.columns) {
    parts.push_back(c);
    parts.push_back(t);
  }
  parts.push_back(sql::create_row_policy(p));
  p.name = plan.prefix + "p" + hash16(parts);
  plan.desired.row_attachments[obj].insert(p.name);
  plan.desired.row_policies[p.name] = std::move(p);
}

}  // namespace tw::starrocks
