// Statements -> the SQL script people read and `tagwarden apply` runs: phase comments, SET CATALOG
// where the catalog changes, one statement per line. And the script for an empty server written
// straight from the plan: the StarRocks artifact of every compile, where making each of its
// statements first (1.3 million at L, most of them inheritances) was a third of the render.

#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"

namespace tw::starrocks {
namespace {

// A comment line never ends early: control characters from names are written as \xNN.
void append_comment(std::string& out, std::string_view text) {
  static const char* hex = "0123456789abcdef";
  out += "-- ";
  std::size_t run = 0;  // start of the characters not yet appended
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x20 && u != 0x7f) continue;
    out.append(text, run, i - run);
    out += "\\x";
    out += hex[u >> 4];
    out += hex[u & 15];
    run = i + 1;
  }
  out.append(text, run);
  out += '\n';
}

std::string comment(std::string_view text) {
  std::string out;
  append_comment(out, text);
  return out;
}

std::string header(const std::vector<std::string>& header_comments) {
  std::string out;
  for (const auto& h : header_comments) append_comment(out, h);
  return out;
}

std::string nothing_to_do(const Plan& plan) {
  return comment("nothing to do: the server already holds what profile " + plan.profile + " owns");
}

// Writes statements as statements_text does: a phase comment when the phase changes, SET CATALOG
// when the statement's catalog is not the session's (switches_catalog, as apply runs them).
class ScriptWriter {
 public:
  ScriptWriter(std::string& out, Dialect d) : out_(out), d_(d) {}

  // Opens the statement's line: what comes before it, then the caller appends its SQL and calls end().
  void begin(Phase phase, std::string_view catalog) {
    if (phase_ != phase) {
      out_ += "-- ";
      out_ += to_string(phase);
      out_ += "\n";
      phase_ = phase;
    }
    if (switches_catalog(d_, catalog_, catalog)) {
      catalog_ = catalog;
      out_ += sql::set_catalog(catalog_);
      out_ += ";\n";
    }
  }
  void end() { out_ += ";\n"; }
  void statement(Phase phase, std::string_view catalog, std::string_view sql) {
    begin(phase, catalog);
    out_ += sql;
    end();
  }

 private:
  std::string& out_;
  Dialect d_;
  std::string catalog_{kInternalCatalog};
  std::optional<Phase> phase_;
};

}  // namespace

std::string statements_text(const Plan& plan, const std::vector<Statement>& statements,
                            const std::vector<std::string>& header_comments) {
  std::string out = header(header_comments);
  if (statements.empty()) return out + nothing_to_do(plan);
  // The script is hundreds of MB with masking policies: allocated once (phase and SET CATALOG lines
  // are few).
  std::size_t size = out.size() + 256;
  for (const auto& s : statements) size += s.sql.size() + 2;
  out.reserve(size);
  ScriptWriter w(out, plan.dialect);
  for (const auto& s : statements) w.statement(s.phase, s.catalog, s.sql);
  return out;
}

std::size_t empty_server_statements(const Plan& plan) {
  const OwnedState& want = plan.desired;
  std::size_t n = want.roles.size() + want.masks.size() + want.row_policies.size() + want.attachments.size();
  for (const auto& [object, names] : want.row_attachments) n += names.size();
  for (const auto& [name, role] : want.roles) {
    n += role.roles.size() + role.members.size();
    for (const auto& [on, privs] : role.grants) n += privs.empty() ? 0 : 1;  // diff_statements grants nothing
  }
  return n;
}

// The order is diff_statements' against LiveState{}: every wanted item is one statement, and the
// lists it groups by catalog (prepare, tighten, widen grants) are written one catalog at a time, in
// the order of the catalogs' names, keeping their order within each.
std::string empty_server_script(const Plan& plan, const std::vector<std::string>& header_comments) {
  const OwnedState& want = plan.desired;
  const Dialect d = plan.dialect;
  std::string out = header(header_comments);
  const std::size_t header_size = out.size();
  auto catalog_of = [&](const Securable& s) -> std::string_view {
    return d == Dialect::StarRocks && s.kind != Securable::Kind::Catalog ? std::string_view(s.catalog)
                                                                         : std::string_view();
  };
  std::set<std::string_view> catalogs = {std::string_view()};
  for (const auto& [name, m] : want.masks) catalogs.insert(catalog_of(m.object));
  for (const auto& [name, p] : want.row_policies) catalogs.insert(catalog_of(p.object));
  for (const auto& [object, names] : want.row_attachments) catalogs.insert(catalog_of(object));
  for (const auto& [column, name] : want.attachments) catalogs.insert(catalog_of(column.first));
  // The grants by catalog in one walk (most plans have one or two catalogs, some a million grants).
  using Grant = std::pair<const std::string*, const std::pair<const Securable, std::set<std::string>>*>;
  std::map<std::string_view, std::vector<Grant>> grants;
  std::size_t size = 0;
  for (const auto& [name, role] : want.roles) {
    for (const auto& grant : role.grants) {
      if (grant.second.empty()) continue;  // diff_statements grants nothing
      auto [it, fresh] = grants.try_emplace(catalog_of(grant.first));
      if (fresh) catalogs.insert(it->first);
      it->second.emplace_back(&name, &grant);
      size += 2 * name.size() + 64;
    }
    for (const auto& inherited : role.roles) size += inherited.size() + name.size() + 22;
    size += role.members.size() * (name.size() + 40) + name.size() + 30;
  }
  out.reserve(out.size() + size);

  ScriptWriter w(out, d);
  for (std::string_view catalog : catalogs) {
    if (catalog.empty()) {
      for (const auto& [name, role] : want.roles) w.statement(Phase::Prepare, "", sql::create_role(d, name));
    }
    for (const auto& [name, m] : want.masks) {
      if (catalog_of(m.object) == catalog) w.statement(Phase::Prepare, catalog, sql::create_mask(m));
    }
    for (const auto& [name, p] : want.row_policies) {
      if (catalog_of(p.object) == catalog) w.statement(Phase::Prepare, catalog, sql::create_row_policy(p));
    }
  }
  for (std::string_view catalog : catalogs) {
    for (const auto& [object, names] : want.row_attachments) {
      if (catalog_of(object) != catalog) continue;
      for (const auto& name : names)
        w.statement(Phase::Tighten, catalog, sql::add_row_policy(want.row_policies.at(name)));
    }
    for (const auto& [column, name] : want.attachments) {
      if (catalog_of(column.first) == catalog) w.statement(Phase::Tighten, catalog, sql::set_mask(column, name));
    }
  }
  // A plan holds a few distinct privilege sets: each one's list is written once.
  std::vector<std::pair<const std::set<std::string>*, std::string>> lists;
  auto list_of = [&](const std::set<std::string>& privileges) -> const std::string& {
    for (const auto& [set, text] : lists) {
      if (*set == privileges) return text;
    }
    return lists.emplace_back(&privileges, sql::privileges_text(privileges)).second;
  };
  for (const auto& [catalog, in_catalog] : grants) {
    for (const auto& [role, grant] : in_catalog) {
      w.begin(Phase::Widen, catalog);
      sql::append_grant_privileges(out, d, list_of(grant->second), grant->first, *role);
      w.end();
    }
  }
  for (const auto& [name, role] : want.roles) {
    for (const auto& inherited : role.roles) {
      w.begin(Phase::Widen, "");
      sql::append_grant_role_to_role(out, d, inherited, name);
      w.end();
    }
  }
  for (const auto& [name, role] : want.roles) {
    for (const auto& user : role.members) w.statement(Phase::Widen, "", sql::grant_role(d, name, user));
  }
  if (out.size() == header_size) out += nothing_to_do(plan);
  return out;
}

}  // namespace tw::starrocks
