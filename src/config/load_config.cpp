#include <filesystem>
#include <map>
#include <set>

#include "daemon_settings.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/config/rules_file_clashes.h"
#include "tagwarden/engines/starrocks/connection.h"
#include "tagwarden/model/document.h"
#include "tagwarden/model/entry_reader.h"
#include "tagwarden/util/text.h"

namespace tw {

const char* to_string(Engine engine) { return engine == Engine::Trino ? "trino" : "starrocks"; }
const char* to_string(TrinoAccessControl access_control) {
  return access_control == TrinoAccessControl::Opa ? "opa" : "file";
}

namespace {

bool safe_profile_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' || name[0] == '-') return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// A rules_file is written atomically (a temporary file renamed over it): it must
// name a file, not be empty nor end in a directory ("dir/", "dir/.", "..").
bool names_a_file(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string last = slash == std::string::npos ? path : path.substr(slash + 1);
  return !last.empty() && last != "." && last != "..";
}

std::map<std::string, std::string> read_name_map(EntryReader& e, std::string_view key, std::string_view what) {
  std::map<std::string, std::string> out;
  const std::optional<JsonValue> m = e.mapping(key, false);
  if (!m) return out;
  for (const auto& [from_key, to] : m->sorted_members()) {
    const std::string from(from_key);
    const std::string p = key_path(e.path(key), from);
    if (!to.is_string()) {
      e.error(p, "must map to a " + std::string(what) + " name (a string)");
      continue;
    }
    std::vector<ValidationError> errs;
    std::vector<ValidationError>* sink = &errs;
    const std::string target(to.string());
    if (check_name(from, p, what, *sink) && check_name(target, p, what, *sink)) out[from] = target;
    for (auto& err : errs) e.error(err.path, err.message);
  }
  return out;
}

}  // namespace

ConfigLoad parse_config(std::string_view text, bool resolve_secrets) {
  ConfigLoad out;
  DocumentParse doc = parse_document(text);
  if (!doc.errors.empty()) {
    for (auto& [path, message] : doc.errors) out.errors.push_back({path, message});
    return out;
  }
  auto& errors = out.errors;
  Config config;
  EntryReader top(doc.value(), "", errors,
                  {"profiles", "source", "server", "state_dir", "reconcile_interval", "webhook", "tokens"});
  read_daemon_settings(top, config.daemon, resolve_secrets);
  if (const std::optional<JsonValue> list = top.array("profiles", true)) {
    if (list->size() == 0) top.error("profiles", "must list at least one profile");
    std::set<std::string> names;
    // Each rules_file has one writer: two profiles naming one file would leave in it whichever
    // published last, so Trino reading it could get the other profile's (wider) rules.
    std::map<std::string, std::string> rules_files;  // normalized path -> the profile naming it
    for (const auto [i, item] : list->indexed()) {
      EntryReader e(item, "profiles", i, errors,
                    {"name", "engine", "catalogs", "catalog_map", "user_map", "withhold_writes",
                     "restrict_materialized_views", "max_policies_per_tag", "max_roles_per_user", "rules_file",
                     "access_control", "dsn", "password_file", "dialect", "masking"});
      if (!e.is_mapping()) continue;
      Profile p;
      if (auto name = e.string("name", true)) {
        if (!safe_profile_name(*name)) {
          e.error(e.path("name"),
                  "profile names use letters, digits, '_', '-' and '.', at most 64, and are used as directory names");
        } else if (lowercase_identifier(*name) == "findings.json") {
          // compile writes DIR/<profile>/ and DIR/findings.json side by side: the profile's directory
          // would take the findings file's place (compared without case, for case-folding file systems).
          e.error(e.path("name"), "profile name \"" + *name +
                                      "\" collides with the findings file compile writes next to the profile "
                                      "directories (DIR/findings.json); choose another name");
        } else if (!names.insert(*name).second) {
          e.error(e.path("name"), "duplicate profile \"" + *name + "\"");
        }
        p.name = *name;
      }
      if (auto engine = e.string("engine", true)) {
        if (*engine == "trino") {
          p.engine = Engine::Trino;
        } else if (*engine == "starrocks") {
          p.engine = Engine::StarRocks;
        } else {
          e.error(e.path("engine"), "unknown engine \"" + *engine + "\" (expected trino or starrocks)");
        }
      }
      if (!e.has("catalogs")) e.error(e.path("catalogs"), "is required (the platform catalogs this profile covers)");
      const std::size_t errors_before = e.errors().size();
      p.catalogs = e.string_list("catalogs", "catalog");
      // An empty list compiles to deny-all for everyone: a locked-out engine, said at load instead.
      const bool whole_list = e.errors().size() == errors_before;  // else entries were dropped: no index
      if (e.has("catalogs") && p.catalogs.empty() && whole_list)
        e.error(e.path("catalogs"), "names no catalog: list the platform catalogs this profile covers");
      for (std::size_t i = 0; i < p.catalogs.size(); ++i) {
        const std::string& c = p.catalogs[i];
        if (c.find('.') != std::string::npos || c == "*")
          e.error(e.path("catalogs") + (whole_list ? "[" + std::to_string(i) + "]" : ""),
                  "catalog \"" + c + "\" is not a catalog name");
      }
      p.catalog_map = read_name_map(e, "catalog_map", "catalog");
      // Trino folds catalog names to lowercase: two catalogs that fold to one would merge.
      std::map<std::string, std::pair<std::string, std::string>> folded;  // folded -> (catalog, unfolded)
      for (const auto& c : p.catalogs) {
        auto it = p.catalog_map.find(c);
        const std::string raw = it == p.catalog_map.end() ? c : it->second;
        const std::string target = p.engine == Engine::Trino ? lowercase_identifier(raw) : raw;
        if (it != p.catalog_map.end() && (raw.find('.') != std::string::npos || raw == "*" || raw.empty())) {
          e.error(key_path(e.path("catalog_map"), c), "engine catalog \"" + raw + "\" is not a catalog name");
        }
        // The rules open `system` read-only and every profile catalog in full: a profile catalog
        // named system would give its users all of Trino's system catalog (its procedures too).
        if (p.engine == Engine::Trino && target == "system") {
          e.error(it == p.catalog_map.end() ? e.path("catalogs") : key_path(e.path("catalog_map"), c),
                  "catalog \"" + c +
                      "\" would be Trino's built-in system catalog, which tagwarden opens read-only "
                      "to the snapshot's users: map it to another engine catalog name (catalog_map)");
        }
        if (auto [at, fresh] = folded.emplace(target, std::make_pair(c, raw)); !fresh && at->second.second != raw) {
          e.error(e.path("catalogs"), "two catalogs map to the engine catalog \"" + target +
                                          "\" once Trino lowercases names: \"" + at->second.first + "\" and \"" + c +
                                          "\"");
        }
      }
      std::set<std::string> targets;
      for (const auto& [from, to] : p.catalog_map) {
        if (std::find(p.catalogs.begin(), p.catalogs.end(), from) == p.catalogs.end()) {
          e.error(key_path(e.path("catalog_map"), from),
                  "maps catalog \"" + from + "\", which is not in this profile's catalogs");
        }
        if (!targets.insert(to).second) {
          e.error(key_path(e.path("catalog_map"), from), "two catalogs map to the engine catalog \"" + to + "\"");
        }
      }
      for (const auto& c : p.catalogs) {
        if (!p.catalog_map.count(c) && targets.count(c)) {
          e.error(e.path("catalog_map"), "catalog \"" + c + "\" collides with a renamed catalog");
        }
      }
      p.user_map = read_name_map(e, "user_map", "user");
      p.withhold_writes = e.boolean("withhold_writes").value_or(true);
      p.restrict_materialized_views = e.boolean("restrict_materialized_views").value_or(true);
      // Only StarRocks needs one policy per tagged column; on a Trino profile the key would
      // look like a limit that is enforced and is not.
      if (e.has("max_policies_per_tag") && p.engine != Engine::StarRocks)
        e.error(e.path("max_policies_per_tag"), "only StarRocks profiles have max_policies_per_tag");
      if (auto limit = e.integer("max_policies_per_tag")) {
        if (*limit < 1 || *limit > 1000000) e.error(e.path("max_policies_per_tag"), "must be between 1 and 1000000");
        p.max_policies_per_tag = static_cast<int>(*limit);
      }
      if (e.has("max_roles_per_user") && p.engine != Engine::StarRocks)
        e.error(e.path("max_roles_per_user"), "only StarRocks profiles have max_roles_per_user");
      if (auto limit = e.integer("max_roles_per_user")) {
        // PUBLIC and the user's own tagwarden role are two of them.
        if (*limit < 2 || *limit > 1000000)
          e.error(e.path("max_roles_per_user"),
                  "must be between 2 and 1000000: set it to the server's privilege_max_total_roles_per_user");
        p.max_roles_per_user = static_cast<int>(*limit);
      }
      if (auto file = e.string("rules_file", false)) {
        if (p.engine != Engine::Trino) {
          e.error(e.path("rules_file"), "only Trino profiles write a rules file");
        } else if (!names_a_file(*file)) {
          e.error(e.path("rules_file"), "must name a file (it is empty or ends in a directory)");
        } else {
          const auto [it, inserted] = rules_files.emplace(file_identity(*file), p.name);
          if (!inserted) {
            e.error(e.path("rules_file"), "is also profile \"" + it->second +
                                              "\"'s rules_file: each profile needs its own file, or Trino may read "
                                              "the other profile's rules");
          }
        }
        p.rules_file = *file;
      }
      if (auto mode = e.string("access_control", false)) {
        if (p.engine != Engine::Trino) {
          e.error(e.path("access_control"), "only Trino profiles have access_control (file or opa)");
        } else if (*mode == "opa") {
          p.access_control = TrinoAccessControl::Opa;
          // Trino in file mode would read this file, and the profile renders no rules for it.
          if (p.rules_file)
            e.error(e.path("rules_file"),
                    "a profile with access_control: opa has no rules document to write: Trino asks the daemon "
                    "(opa.policy.uri); remove rules_file, or set access_control: file");
        } else if (*mode != "file") {
          e.error(e.path("access_control"),
                  "must be file (Trino reads the rules document) or opa (Trino asks the "
                  "daemon's decision endpoints)");
        }
      }
      for (const char* key : {"dsn", "password_file", "dialect", "masking"}) {
        if (e.has(key) && p.engine != Engine::StarRocks)
          e.error(e.path(key), "only StarRocks profiles have " + std::string(key));
      }
      p.dsn = e.string("dsn", false).value_or("");
      // The check `plan` and `apply` make (a password in the DSN is refused): the daemon
      // logs the DSN and shows it in /v1/status. parse_dsn's messages never echo the DSN.
      if (!p.dsn.empty() && p.engine == Engine::StarRocks) {
        if (const starrocks::DsnParse dsn = starrocks::parse_dsn(p.dsn); !dsn.settings)
          e.error(e.path("dsn"), dsn.error);
      }
      p.password_file = e.string("password_file", false);
      p.dialect = e.string("dialect", false).value_or("starrocks");
      if (p.dialect != "starrocks" && p.dialect != "mysql") e.error(e.path("dialect"), "must be starrocks or mysql");
      p.masking = e.string("masking", false).value_or("auto");
      if (p.masking != "auto" && p.masking != "on" && p.masking != "off")
        e.error(e.path("masking"), "must be auto, on or off");
      config.profiles.push_back(std::move(p));
    }
  }
  if (errors.empty()) {
    const std::vector<OwnedPath> daemon_paths = {
        {config.daemon.source.file, "the daemon's source.file", false},
        // All of it: its artifacts, and serve.lock, which a rules file renamed over would unlock.
        {config.daemon.state_dir, "the daemon's state_dir", true}};
    for (auto& clash : rules_file_clashes(config, daemon_paths)) errors.push_back(std::move(clash));
  }
  if (errors.empty()) out.config = std::move(config);
  return out;
}

ConfigLoad load_config_file(const std::string& path, bool resolve_secrets) {
  try {
    ConfigLoad out = parse_config(read_file(path), resolve_secrets);
    if (out.config) {
      out.errors = rules_file_clashes(*out.config, {{path, "this config file", false}});
      if (!out.errors.empty()) out.config.reset();
    }
    return out;
  } catch (const std::exception& e) {
    ConfigLoad out;
    out.errors.push_back({"", e.what()});
    return out;
  }
}

}  // namespace tw
