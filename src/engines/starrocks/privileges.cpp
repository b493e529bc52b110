#include "privileges.h"

namespace tw::starrocks {

Securable object_securable(const ObjectPolicy& op, Dialect d) {
  Securable s;
  s.catalog = op.engine_name.catalog;
  s.database = op.engine_name.schema;
  s.name = op.engine_name.table;
  if (d == Dialect::StarRocks) {
    if (op.kind == ObjectKind::View) s.kind = Securable::Kind::View;
    if (op.kind == ObjectKind::MaterializedView) s.kind = Securable::Kind::MaterializedView;
  }
  return s;
}

// OWNERSHIP has no equivalent on an existing object: ALTER and DROP (and
// REFRESH on materialized views) carry it. StarRocks views and materialized
// views take no INSERT, UPDATE or DELETE, so those are not granted there.
std::set<std::string> engine_privileges(PrivilegeSet p, Securable::Kind kind) {
  std::set<std::string> out;
  const bool writable = kind == Securable::Kind::Table;
  if (p.has(Privilege::Select)) out.insert("SELECT");
  if (writable && p.has(Privilege::Insert)) out.insert("INSERT");
  if (writable && p.has(Privilege::Update)) out.insert("UPDATE");
  if (writable && p.has(Privilege::Delete)) out.insert("DELETE");
  if (p.has(Privilege::Ownership)) {
    out.insert("ALTER");
    out.insert("DROP");
    if (kind == Securable::Kind::MaterializedView) out.insert("REFRESH");
  }
  return out;
}

std::vector<CreationPrivilege> creation_privileges(Dialect d) {
  if (d == Dialect::MySQL) return {{"CREATE", false}, {"CREATE VIEW", false}};  // MySQL has no materialized views
  return {{"CREATE TABLE", false}, {"CREATE VIEW", false}, {"CREATE MATERIALIZED VIEW", true}};
}

}  // namespace tw::starrocks
