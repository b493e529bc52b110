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
  if (apply) {
    desc.add_options()("dsn", po::value<std::string>()->required(), "the server: mysql://user@host:port[?options]");
  } else {
    desc.add_options()("dsn", po::value<std::string>(),
                       "plan against this live server: mysql://user@host:port[?options]");
  }
  desc.add_options()("password-file", po::value<std::string>(), "file whose first line is the password (env wins)")(
      "dialect", po::value<std::string>()->default_value("starrocks"), "starrocks or mysql")(
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
  const auto requested = optional_string(vm, "masking");
  const auto dialect = sr::parse_dialect(vm["dialect"].as<std::string>());
  if ((out.format != "text" && out.format != "json") || !dialect ||
      (requested && *requested != "auto" && *requested != "on" && *requested != "off")) {
    std::cerr << "error: --output is text or json, --dialect starrocks or mysql, --masking auto, on or off\n";
    return kExitInvalidInput;
  }
  out.inputs = load_inputs(vm);
  if (!out.inputs) return kExitInvalidInput;
  out.profile = out.inputs->config.profiles.front();
  if (out.profile.engine != Engine::StarRocks) {
    std::cerr << "error: profile " << out.profile.name << " is a " << to_string(out.profile.engine)
              << " profile; plan and apply are for StarRocks profiles\n";
    return kExitInvalidInput;
  }
  out.compiled = compile_profile(*out.inputs->model, out.profile);
  if (!out.compiled.policy_set) {
    std::cerr << "profile " << out.profile.name << " FAILED" << nothing << ":\n";
    for (const auto& e : out.compiled.errors) std::cerr << "  " << e << "\n";
    return kExitProfileFailed;
  }
  const std::string masking = requested.value_or(out.profile.masking);
  sr::Capabilities caps;
  if (auto dsn = optional_string(vm, "dsn")) {
    sr::OpenResult opened = sr::open_server(*dsn, optional_string(vm, "password-file"), *dialect, out.profile.name);
    if (!opened.session) {
      std::cerr << "error: " << opened.error << "\n";
      return opened.invalid_input ? kExitInvalidInput : kExitOutputFailed;
    }
    out.server = std::move(opened.session);
    caps = out.server->probe.capabilities;
    if (apply && masking == "on" && !caps.masking_policies) {
      std::cerr << "error: --masking on, but " << out.server->settings.describe()
                << " does not implement masking policies (SHOW MASKING POLICIES failed)\n";
      return kExitInvalidInput;
    }
    if (masking == "on") caps = {true, caps.row_access_policies || !apply};
    if (masking == "off") caps = {};
  } else {
    caps = sr::compile_time_capabilities(masking);
  }
  sr::PlanRender rendered = sr::render_plan(*out.compiled.policy_set, {*dialect, caps});
  if (!rendered.plan) {
    std::cerr << "profile " << out.profile.name << " cannot be rendered" << nothing << ":\n";
    for (const auto& e : rendered.errors) std::cerr << "  " << e << "\n";
    return kExitProfileFailed;
  }
  out.plan = std::move(rendered.plan);
  return -1;
}

}  // namespace tw::cli
