#include "tagwarden/compile/explain.h"

#include "tagwarden/compile/filter_columns.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "../engines/trino/expressions.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/util/text.h"
#include "trino_view_reads.h"

namespace tw {
namespace {

TagClearance explain_tag(const Model& m, std::size_t user, const Classification& c) {
  const Snapshot& s = *m.snapshot;
  const User& u = s.users[user];
  TagClearance tc;
  tc.tag = c.name;
  bool any_role = false, cleared = false;
  for (const auto& row : c.clearance) {
    if (row.type == ClearanceRow::Type::Group) {
      const bool member = std::find(u.groups.begin(), u.groups.end(), row.name) != u.groups.end();
      tc.reasons.push_back("group " + row.name + ": " + (member ? "member" : "not a member") +
                           "; group requirement: not enforced in engines");
      continue;
    }
    any_role = true;
    if (m.direct_roles[user].count(row.name)) {
      cleared = true;
      tc.reasons.push_back("role " + row.name + ": held directly");
      continue;
    }
    std::string reason = "role " + row.name + ": not held";
    for (const auto& a : s.role_assignments) {
      if (a.role != row.name) continue;
      if (a.user && *a.user == u.name && a.expires_at && !(m.now < *a.expires_at)) {
        reason = "role " + row.name + ": expired at " + format_timestamp(*a.expires_at);
        break;
      }
      if (a.group && std::find(u.groups.begin(), u.groups.end(), *a.group) != u.groups.end() &&
          (!a.expires_at || m.now < *a.expires_at)) {
        reason = "role " + row.name + ": held through group " + *a.group + ": engines count only roles held directly";
      }
    }
    tc.reasons.push_back(reason);
  }
  tc.status = !any_role ? "Not enforced in engines" : cleared ? "Cleared" : "Not cleared";
  return tc;
}

// StarRocks: a read the server cannot enforce as the PolicySet decides (gated, denied or masked
// columns without masking policies, a row filter without row access policies) is coarsened to no
// SELECT on the whole object by the renderer; say so in the user's refusals.
void explain_starrocks(const PolicySet& ps, std::size_t user, const std::vector<Profile>& profiles,
                       ProfileExplanation& pe) {
  std::string masking = "auto";
  for (const auto& p : profiles) {
    if (p.name == ps.profile) masking = p.masking;
  }
  const starrocks::Capabilities caps = starrocks::compile_time_capabilities(masking);
  for (const auto& op : ps.objects) {
    const AccessClass* cls = op.class_of(user);
    if (!cls) continue;
    auto c = starrocks::coarsened_read(op, *cls, caps);
    if (!c) continue;
    const std::string object = op.engine_name.str();
    auto it =
        std::find_if(pe.refusals.begin(), pe.refusals.end(), [&](const Refusal& r) { return r.object == object; });
    if (it == pe.refusals.end()) {
      Refusal r;
      r.kind = "starrocks_coarsened";
      r.object = object;
      r.columns = c->columns;
      r.has_grant = true;
      PrivilegeSet removed = cls->granted;
      removed.remove(cls->access.privileges);
      r.withheld = removed.names();
      pe.refusals.push_back(std::move(r));
      it = pe.refusals.end() - 1;
    }
    PrivilegeSet withheld = c->withheld;
    for (const std::string& w : it->withheld) {
      if (auto p = parse_privilege(w)) withheld.add(*p);
    }
    it->withheld = withheld.names();
    it->engine_note = c->reason + "; on StarRocks (profile masking: " + masking +
                      ", decided without a server; `tagwarden plan --dsn` probes the server)";
  }
}

// Trino expands a view as it reads it (trino_view_reads.h): a base it may not read on the way is
// refused to whoever queries the view. The direct case, a DEFINER view whose own owner cannot read
// a base, is the one the definer_view_owner_* findings name and keeps their wording; a materialized
// view, a view nested in another, or a SECURITY INVOKER view whose reader cannot read a base is
// "view_read", naming each refused read and as whom Trino makes it.
void explain_view_reads(const Model& m, const PolicySet& ps, std::size_t user, ProfileExplanation& pe) {
  for (const auto& op : ps.objects) {
    const Object& o = m.snapshot->objects[op.object];
    if (o.kind == ObjectKind::Table) continue;
    const AccessClass* mine = op.class_of(user);
    if (!mine || !mine->access.privileges.has(Privilege::Select)) continue;  // refused anyway
    const std::vector<TrinoViewRead> reads = refused_trino_view_reads(m, ps, op, user);
    if (reads.empty()) continue;
    Refusal r;
    r.object = op.engine_name.str();
    r.has_grant = true;
    r.whole_object = std::any_of(reads.begin(), reads.end(), [](const TrinoViewRead& x) { return x.whole; });
    const bool direct_definer = o.kind == ObjectKind::View && o.view_security == ViewSecurity::Definer &&
                                std::all_of(reads.begin(), reads.end(), [&](const TrinoViewRead& x) {
                                  return x.via.size() == 1 && m.snapshot->users[x.reader].name == *o.owner;
                                });
    if (direct_definer) {
      std::vector<std::string> unreadable, partly;  // engine names; "base (columns)"
      for (const auto& x : reads) {
        if (x.whole)
          unreadable.push_back(x.base ? x.name() : x.name() + " (in a catalog the profile does not cover)");
        else
          partly.push_back(x.name() + " (" + join_words(x.columns) + ")");
      }
      r.kind = "definer_view_owner";
      r.reason = r.whole_object
                     ? "its owner " + *o.owner + " cannot read " + join_words(unreadable) +
                           ": Trino reads a DEFINER view as its owner, so it is refused to everybody"
                     : "every query of it that reads what its owner " + *o.owner +
                           " may not read fails: " + join_words(partly) + ": Trino reads a DEFINER view as its owner";
      pe.refusals.push_back(std::move(r));
      continue;
    }
    std::vector<std::string> items;  // "base as reader through views (columns)"
    for (const auto& x : reads) {
      if (r.whole_object && !x.whole) continue;  // the whole refusal is what the reader meets
      std::string item = x.name() + " as " + m.snapshot->users[x.reader].name;
      if (x.via.size() > 1) {
        std::vector<std::string> via;
        for (std::size_t i = 1; i < x.via.size(); ++i) via.push_back(x.via[i]->engine_name.str());
        item += " through " + join_words(via);
      }
      if (!x.whole) item += " (" + join_words(x.columns) + ")";
      const AccessClass* cls = x.base ? x.base->class_of(x.reader) : nullptr;
      if (!x.base) item += " (in a catalog the profile does not cover, refused to everybody)";
      if (x.whole && cls && cls->access.privileges.has(Privilege::Select))
        item += ", who may read it but not pass it on through a view (no GRANT_SELECT)";
      items.push_back(std::move(item));
    }
    const std::string how =
        "Trino reads a DEFINER view or a materialized view as its owner and a SECURITY INVOKER view as whoever "
        "reads it, views nested in it alike";
    r.kind = "view_read";
    r.reason = r.whole_object ? "Trino may not read " + join_words(items) + ", so every query of it fails: " + how
                              : "every query of it that reads " + join_words(items) + " fails: " + how;
    pe.refusals.push_back(std::move(r));
  }
}

// A row filter reading a column the user is refused, with nobody to run it as (compiler.cpp,
// evaluate_filters_as_owner): the decision keeps MODEL's column refusal, and Trino refuses more.
void explain_filter_refusals(const PolicySet& ps, std::size_t user, ProfileExplanation& pe) {
  for (const auto& op : ps.objects) {
    const AccessClass* mine = op.class_of(user);
    const std::string* reason = mine ? filter_refusal(*mine) : nullptr;
    if (!reason) continue;
    Refusal r;
    r.object = op.engine_name.str();
    r.has_grant = true;
    r.whole_object = true;
    r.kind = "row_filter";
    r.reason = "every query of it fails" + reason->substr(std::string_view(kFilterRefusesObject).size()) +
               " (Trino checks the columns a filter reads as the identity it runs as)";
    pe.refusals.push_back(std::move(r));
  }
}

// A mask of the whole object on an object that lists no columns (apply_policy_decisions): the
// engines mask by column name, so SELECT is withheld instead, on every engine.
void explain_unplaceable_masks(const PolicySet& ps, std::size_t user, ProfileExplanation& pe) {
  for (const auto& op : ps.objects) {
    const AccessClass* mine = op.class_of(user);
    const std::string* reason = mine ? mine->reason_starting(kMaskWithoutColumns) : nullptr;
    if (!reason) continue;
    Refusal r;
    r.object = op.engine_name.str();
    r.has_grant = true;
    r.whole_object = true;
    r.kind = "mask_without_columns";
    r.withheld = {"SELECT"};
    r.reason = *reason;
    pe.refusals.push_back(std::move(r));
  }
}

// The user's clearances and notes: the part of an explanation no profile changes.
Explanation explain_clearances(const Model& m, const std::string& name, std::size_t& user) {
  auto it = m.user_index.find(name);
  if (it == m.user_index.end()) throw std::invalid_argument("unknown user " + quote(name) + ": not in the snapshot");
  user = it->second;
  Explanation e;
  e.user = name;
  e.platform_admin = m.user(user).platform_admin;
  if (e.platform_admin)
    e.notes.push_back("platform admins are not exempt from clearances: only roles held directly count");
  for (const auto& c : m.snapshot->classifications) {
    if (!c.clearance.empty()) e.clearances.push_back(explain_tag(m, user, c));
  }
  return e;
}

ProfileExplanation explain_profile(const Model& m, const PolicySet& ps, std::size_t user,
                                   const std::map<Engine, ExpressionRenderer>& renderers,
                                   const std::vector<Profile>& profiles) {
  ProfileExplanation pe;
  pe.profile = ps.profile;
  pe.engine = ps.engine;
  pe.engine_user = ps.users[user].engine_name;
  pe.may_create =
      std::find(ps.create_restricted.begin(), ps.create_restricted.end(), user) == ps.create_restricted.end();
  pe.owns_new_names = std::any_of(ps.unlisted.begin(), ps.unlisted.end(), [&](const UnlistedRule& r) {
    return r.privileges_of(user).has(Privilege::Ownership);
  });
  for (const auto& op : ps.objects) {
    Refusal r;
    r.object = op.engine_name.str();
    std::set<std::string> tags;
    for (const auto& t : op.object_gates) {
      if (!m.is_cleared(user, t)) {
        r.whole_object = true;
        tags.insert(t);
      }
    }
    for (const auto& [col, col_tags] : op.column_gates) {
      bool refused = false;
      for (const auto& t : col_tags) {
        if (!m.is_cleared(user, t)) {
          refused = true;
          tags.insert(t);
        }
      }
      if (refused && !r.whole_object) r.columns.push_back(col);
    }
    if (tags.empty()) {
      // No gate of this object refuses the user; restrict_materialized_views may still take its
      // OWNERSHIP (Trino: with it they could drop the object and create a materialized view).
      const AccessClass* cls = op.class_of(user);
      if (!pe.may_create && ps.engine == Engine::Trino && cls && cls->granted.has(Privilege::Ownership) &&
          !cls->access.privileges.has(Privilege::Ownership)) {
        r.kind = "creation_restricted";
        r.has_grant = true;
        r.withheld = {"OWNERSHIP"};
        r.reason =
            "not cleared for every gated tag of the profile: OWNERSHIP would let them drop it and create a "
            "materialized view under its name (restrict_materialized_views)";
        pe.refusals.push_back(std::move(r));
      }
      continue;
    }
    if (r.whole_object) r.columns.clear();
    r.tags.assign(tags.begin(), tags.end());
    if (const AccessClass* cls = op.class_of(user)) {
      r.has_grant = true;
      PrivilegeSet removed = cls->granted;
      removed.remove(cls->access.privileges);
      r.withheld = removed.names();
    }
    pe.refusals.push_back(std::move(r));
  }
  explain_unplaceable_masks(ps, user, pe);
  if (ps.engine == Engine::StarRocks) explain_starrocks(ps, user, profiles, pe);
  if (ps.engine == Engine::Trino) {
    explain_view_reads(m, ps, user, pe);
    explain_filter_refusals(ps, user, pe);
  }
  for (const auto& op : ps.objects) {
    if (m.snapshot->policies.empty()) break;
    ObjectPolicies obj;
    obj.object = op.engine_name.str();
    obj.considered = judge_policies(m, op, user, PolicyReasons::WithRoles);
    if (obj.considered.empty()) continue;
    if (const AccessClass* cls = op.class_of(user)) obj.effective = cls->access;
    for (const auto& mk : obj.effective.masks) obj.masks.push_back(enforced_mask(ps.engine, mk));
    if (auto it = renderers.find(ps.engine); it != renderers.end()) obj.expressions = it->second(obj.effective);
    // Trino checks the filter's columns as this identity, not the reader's (docs/semantics.md).
    if (obj.effective.filter_as && obj.expressions.is_object())
      obj.expressions["trino_filter_runs_as"] = ps.users[*obj.effective.filter_as].engine_name;
    pe.policies.push_back(std::move(obj));
  }
  return pe;
}

}  // namespace

// How the engine enforces one effective mask. Both engines render hash, partial and full as string
// expressions and a typed NULL on a column of any other type (docs/semantics.md); asked of the
// renderers' own functions so explain cannot disagree with them.
EnforcedMask enforced_mask(Engine engine, const ColumnMask& mk) {
  EnforcedMask e{mk.column, mk.kind, mk.kind, mk.visible_chars, "", mk.fully_masked_through()};
  if (mk.kind == MaskKind::Null) return e;
  std::string type, rendered;
  if (engine == Engine::Trino) {
    type = trino::trino_type(mk.type);
    rendered = trino::mask_expression(mk);
  } else {
    type = starrocks::sql::mask_type(mk.type);
    if (type.empty()) return e;  // no masking policy can carry it: coarsened, listed in the refusals
    rendered = starrocks::sql::mask_expression(mk, "v", type);
  }
  if (rendered.rfind("CAST(NULL AS ", 0) != 0) return e;
  e.enforced_kind = MaskKind::Null;
  e.visible_chars = 0;
  e.fully_masked_through = 0;
  e.reason = std::string("a ") + to_string(mk.kind) + " mask cannot type-check against " + mk.column +
             ", a non-string column (" + type + "): " + (engine == Engine::Trino ? "Trino" : "StarRocks") +
             " applies a typed NULL, " + rendered;
  return e;
}

Explanation explain_user(const Model& m, const std::vector<PolicySet>& policy_sets, const std::string& name,
                         const std::map<Engine, ExpressionRenderer>& renderers, const std::vector<Profile>& profiles) {
  std::size_t user = 0;
  Explanation e = explain_clearances(m, name, user);
  for (const auto& ps : policy_sets) e.profiles.push_back(explain_profile(m, ps, user, renderers, profiles));
  return e;
}

Explanation explain_compiled(const Model& m, const std::vector<Profile>& profiles,
                             const std::vector<const ProfileCompile*>& compiled, const std::string& name,
                             const std::map<Engine, ExpressionRenderer>& renderers) {
  if (compiled.size() != profiles.size())
    throw std::logic_error("explain_compiled: one compile outcome per profile is needed");
  std::size_t user = 0;
  Explanation e = explain_clearances(m, name, user);
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const ProfileCompile& c = *compiled[i];
    if (c.policy_set) {
      e.profiles.push_back(explain_profile(m, *c.policy_set, user, renderers, profiles));
      continue;
    }
    ProfileExplanation pe;
    pe.profile = profiles[i].name;
    pe.engine = profiles[i].engine;
    pe.failed = true;
    pe.errors = c.errors;
    if (pe.errors.empty()) pe.errors.push_back("no policy set was produced");
    e.profiles.push_back(std::move(pe));
  }
  return e;
}

nlohmann::json to_json(const Explanation& e) {
  using nlohmann::json;
  json clearances = json::array();
  for (const auto& c : e.clearances)
    clearances.push_back({{"tag", c.tag}, {"status", c.status}, {"reasons", c.reasons}});
  json profiles = json::array();
  for (const auto& p : e.profiles) {
    if (p.failed) {
      profiles.push_back(
          {{"profile", p.profile}, {"engine", to_string(p.engine)}, {"status", "failed"}, {"errors", p.errors}});
      continue;
    }
    json refusals = json::array();
    for (const auto& r : p.refusals) {
      json j = {{"object", r.object},       {"whole_object", r.whole_object}, {"columns", r.columns}, {"tags", r.tags},
                {"has_grant", r.has_grant}, {"withheld", r.withheld},         {"kind", r.kind}};
      if (!r.engine_note.empty()) j["engine_note"] = r.engine_note;
      if (!r.reason.empty()) j["reason"] = r.reason;
      refusals.push_back(std::move(j));
    }
    json policies = json::array();
    for (const auto& o : p.policies) {
      json considered = json::array();
      for (const auto& d : o.considered) {
        json c = {{"policy", d.policy}, {"type", to_string(d.type)}, {"applies", d.applies}, {"reason", d.reason}};
        if (!d.columns.empty() && d.type != PolicyType::RowFilter) c["columns"] = d.columns;
        if (d.applies && d.type == PolicyType::RowFilter) c["condition"] = d.filter;
        considered.push_back(std::move(c));
      }
      json masks = json::array();
      // As enforced: "mask" is what the engine applies; where that is not the policy's kind,
      // "policy_mask" is and "reason" says why.
      for (const auto& mk : o.masks) {
        json j = {{"column", mk.column}, {"mask", to_string(mk.enforced_kind)}};
        if (mk.enforced_kind == MaskKind::Partial) j["visible_chars"] = mk.visible_chars;
        if (mk.enforced_kind == MaskKind::Partial && mk.fully_masked_through > mk.visible_chars)
          j["fully_masked_through"] = mk.fully_masked_through;
        if (mk.enforced_kind != mk.policy_kind) {
          j["policy_mask"] = to_string(mk.policy_kind);
          j["reason"] = mk.reason;
        }
        masks.push_back(std::move(j));
      }
      json effective = {{"privileges", o.effective.privileges.names()},
                        {"denied_columns", o.effective.denied_columns},
                        {"masks", masks},
                        {"row_filter", o.effective.row_filter.empty() ? json() : json::parse(o.effective.row_filter)}};
      json entry = {{"object", o.object}, {"policies", considered}, {"effective", effective}};
      if (!o.expressions.is_null()) entry["engine_expressions"] = o.expressions;
      policies.push_back(std::move(entry));
    }
    // Creating needs OWNERSHIP of the new name, from a grant; the materialized-view rule takes it
    // away on Trino, and on StarRocks only CREATE MATERIALIZED VIEW.
    const bool creates_mvs = p.owns_new_names && p.may_create;
    const bool creates_tables_views = p.engine == Engine::StarRocks ? p.owns_new_names : creates_mvs;
    profiles.push_back({{"profile", p.profile},
                        {"engine", to_string(p.engine)},
                        {"status", "ok"},
                        {"engine_user", p.engine_user},
                        {"creation_restricted", !p.may_create},
                        {"may_create_tables_views", creates_tables_views},
                        {"may_create_materialized_views", creates_mvs},
                        {"may_create_tables_views_mvs", creates_tables_views && creates_mvs},
                        {"refused", refusals},
                        {"access_policies", policies}});
  }
  return {{"user", e.user},
          {"platform_admin", e.platform_admin},
          {"clearances", clearances},
          {"profiles", profiles},
          {"notes", e.notes}};
}

std::string to_text(const Explanation& e) {
  std::ostringstream out;
  out << "User " << e.user << (e.platform_admin ? " (platform admin)" : "") << "\n";
  for (const auto& n : e.notes) out << "  note: " << n << "\n";
  out << "\nClearances (engine enforcement):\n";
  if (e.clearances.empty()) out << "  no classification has a clearance\n";
  for (const auto& c : e.clearances) {
    out << "  " << c.tag << ": " << c.status << "\n";
    for (const auto& r : c.reasons) out << "      - " << r << "\n";
  }
  for (const auto& p : e.profiles) {
    if (p.failed) {
      out << "\nProfile " << p.profile << " (" << to_string(p.engine)
          << "): failed to compile, nothing of this snapshot is enforced from it (what was last deployed for it, "
             "if anything, stays in force):\n";
      for (const auto& err : p.errors) out << "      - " << err << "\n";
      continue;
    }
    out << "\nProfile " << p.profile << " (engine user " << p.engine_user << "):\n";
    if (!p.may_create && p.engine == Engine::Trino)
      out << "  may not create tables, views or materialized views (not cleared for every gated tag)\n";
    if (!p.may_create && p.engine == Engine::StarRocks)
      out << "  may not create materialized views (not cleared for every gated tag; tables and views as granted)\n";
    if (p.refusals.empty()) out << "  nothing refused by a clearance\n";
    for (const auto& r : p.refusals) {
      if (r.kind == "definer_view_owner" || r.kind == "view_read" || r.kind == "row_filter" ||
          r.kind == "creation_restricted") {
        if (r.kind == "creation_restricted") {
          out << "  withheld OWNERSHIP of " << r.object << " on Trino: " << r.reason << "\n";
          continue;
        }
        out << "  refused " << r.object << (r.whole_object ? "" : " in part") << " on Trino: " << r.reason << "\n";
        continue;
      }
      if (r.kind == "mask_without_columns") {
        out << "  refused " << r.object << ": " << r.reason << "\n";
        continue;
      }
      out << "  refused "
          << (r.whole_object || r.columns.empty() ? r.object : r.object + " columns " + join_words(r.columns));
      if (!r.tags.empty()) out << " (" << join_words(r.tags) << ")";
      if (!r.has_grant) out << " [no grant either]";
      if (!r.withheld.empty()) out << " withheld: " << join_words(r.withheld);
      out << "\n";
      if (!r.engine_note.empty()) out << "      " << r.engine_note << "\n";
    }
    for (const auto& o : p.policies) {
      out << "  access policies on " << o.object << ":\n";
      for (const auto& d : o.considered) {
        out << "      " << (d.applies ? "[applies] " : "[not applied] ") << d.policy << " (" << to_string(d.type)
            << "): " << d.reason << "\n";
      }
      for (const auto& mk : o.masks) {
        if (mk.enforced_kind != mk.policy_kind)
          out << "      mask on " << mk.column << " enforced as " << to_string(mk.enforced_kind) << ": " << mk.reason
              << "\n";
      }
      if (o.expressions.is_object()) {
        for (const auto& [k, v] : o.expressions.items()) out << "      enforced " << k << ": " << v.dump() << "\n";
      }
    }
  }
  return out.str();
}

}  // namespace tw
