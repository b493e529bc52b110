#include "starrocks_prelude.h"

#include <iostream>

namespace tw::cli {

namespace sr = tw::starrocks;

void add_starrocks_options(po::options_description& desc, bool apply) {
  desc.add_options()("help,h", "show this help")("snapshot", po::value<std::string>()->required(),
                                                 "governance snapshot, JSON or YAML")(
      "config", po::value<std::string>()->required(), "profiles config, YAML or JSON")(
      "profile", po::value<std::string>()->required(),
      apply ? "the StarRocks profile to apply" : "the StarRocks profile to plan");
  desc.add_options()("dsn", po::value<std::string>(),
                     apply ? "the server: mysql://user@host:port[?options]; default: the profile's `dsn` key"
                           : "plan against this live server: mysql://user@host:port[?options] (the profile's "
                             "`dsn` is not used: without --dsn the plan is for an empty server)")(
      "password-file", po::value<std::string>(),
      "file whose first line is the password (TAGWARDEN_STARROCKS_PASSWORD wins); default: the profile's "
      "`password_file` key")("dialect", po::value<std::string>(),
                             "starrocks or mysql; default: the profile's `dialect` key (starrocks when unset)")(
      "masking", po::value<std::string>(),
      "masking and row access policies: auto (probe the server), on, off; default: the profile's `masking` key "
      "(auto without a server = off)")("now", po::value<std::string>(),
                                       "judge expiry at this RFC 3339 time instead of generated_at");
  if (apply)
    desc.add_options()("fail-on-drift", po::bool_switch(),
                       "exit 1 when grants made outside tagwarden exceed the policy");
  desc.add_options()("output", po::value<std::string>()->default_value("text"),
                     apply ? "summary format: text or json" : "text (a SQL script) or json");
}

int starrocks_prelude(const po::variables_map& vm, bool apply, StarRocksPrelude& out) {
  const char* nothing = apply ? " (nothing was applied; the server keeps its grants)" : "";
  out.format = vm["output"].as<std::string>();
  const StarRocksFlags flags{optional_string(vm, "dialect"), optional_string(vm, "masking"), optional_string(vm, "dsn"),
                             optional_string(vm, "password-file")};
  const auto& requested = flags.masking;
  bool bad = false;
  if (out.format != "text" && out.format != "json") {
    std::cerr << "error: --output " << out.format << ": give text or json\n";
    bad = true;
  }
  if (flags.dialect && !sr::parse_dialect(*flags.dialect)) {
    std::cerr << "error: --dialect " << *flags.dialect << ": give starrocks or mysql\n";
    bad = true;
  }
  if (requested && *requested != "auto" && *requested != "on" && *requested != "off") {
    std::cerr << "error: --masking " << *requested << ": give auto, on or off\n";
    bad = true;
  }
  if (bad) return kExitInvalidInput;
  out.inputs = load_inputs(vm);
  if (!out.inputs) return kExitInvalidInput;
  out.profile = out.inputs->config.profiles.front();
  if (out.profile.engine != Engine::StarRocks) {
    std::cerr << "error: profile " << out.profile.name << " is a " << to_string(out.profile.engine)
              << " profile; plan and apply are for StarRocks profiles\n";
    return kExitInvalidInput;
  }
  out.settings = resolve_starrocks_settings(flags, out.profile, apply);
  const auto dialect = sr::parse_dialect(out.settings.dialect);
  if (!dialect) {  // the config loader accepts only what parse_dialect knows; kept for safety
    std::cerr << "error: profile " << out.profile.name << ": unknown dialect " << out.settings.dialect << "\n";
    return kExitInvalidInput;
  }
  if (apply && !out.settings.dsn) {
    std::cerr << "error: apply needs a server: --dsn mysql://user@host:port, or a `dsn` key in profile "
              << out.profile.name << "\n";
    return kExitInvalidInput;
  }
  out.compiled = compile_profile(*out.inputs->model, out.profile);
  if (!out.compiled.policy_set) {
    std::cerr << "profile " << out.profile.name << " FAILED" << nothing << ":\n";
    for (const auto& e : out.compiled.errors) std::cerr << "  " << e << "\n";
    return kExitProfileFailed;
  }
  const std::string& masking = out.settings.masking;
  sr::Capabilities caps;
  if (const auto& dsn = out.settings.dsn) {
    sr::OpenResult opened = sr::open_server(*dsn, out.settings.password_file, *dialect, out.profile.name);
    if (!opened.session) {
      std::cerr << "error: " << opened.error << "\n";
      return opened.invalid_input ? kExitInvalidInput : kExitOutputFailed;
    }
    out.server = std::move(opened.session);
    caps = out.server->probe.capabilities;
    // plan --dsn shows what apply would run against this server: the same refusal, the same
    // capabilities (it showed masking policies apply refuses to create, and row access policies
    // apply coarsens, when the server lacks them).
    if (masking == "on" && !caps.masking_policies) {
      std::cerr << "error: " << (requested ? "--masking on" : "profile masking: on") << ", but "
                << out.server->settings.describe()
                << " does not implement masking policies (SHOW MASKING POLICIES failed)\n";
      return kExitInvalidInput;
    }
    if (masking == "on") caps = {true, caps.row_access_policies};
    if (masking == "off") caps = {};
  } else {
    caps = sr::compile_time_capabilities(masking);
  }
  // Against a server, its own roles-per-user setting bounds the plan when it is lower.
  sr::RolesCap roles{static_cast<std::size_t>(out.profile.max_roles_per_user), std::nullopt};
  if (out.server) roles = sr::roles_cap_for(out.server->probe, roles.cap, out.profile.name);
  sr::PlanRender rendered = sr::render_plan(*out.compiled.policy_set, {*dialect, caps, roles.cap});
  if (!rendered.plan) {
    std::cerr << "profile " << out.profile.name << " cannot be rendered" << nothing << ":\n";
    for (const auto& e : rendered.errors) std::cerr << "  " << e << "\n";
    return kExitProfileFailed;
  }
  if (roles.lowered) rendered.plan->findings.push_back(*roles.lowered);
  out.plan = std::move(rendered.plan);
  return -1;
}

}  // namespace tw::cli
