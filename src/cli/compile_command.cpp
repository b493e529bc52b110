#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

#include "commands.h"
#include "common.h"
#include "options.h"
#include "progress.h"
#include "tagwarden/config/rules_file_clashes.h"
#include "tagwarden/publish/atomic_file.h"

namespace tw::cli {
namespace {

// More builders than profiles or cores only costs memory; a bigger number is a typo.
constexpr long long kMaxJobs = 256;

const char* kUsage =
    "usage: tagwarden compile --snapshot S --config C --out DIR [--profile P] [--now T] [--emit-policyset] "
    "[--output text|json] [--jobs N] [--timings]";

const char* kTeaching = R"(Compiles the governance snapshot S for every engine profile in C (or only P) and
writes, for each Trino profile, DIR/<profile>/rules.json: a Trino file-based
access control document to use as security.config-file (a profile with
access_control: opa writes DIR/<profile>/trino-opa.json instead: no rules, a
digest of the decisions `tagwarden serve` answers Trino's OPA access control
from, which changes whenever an answer may); for each StarRocks
profile, DIR/<profile>/plan.sql: the statements that would make an empty server
hold the profile (masking per the profile's `masking` key; `tagwarden plan
--dsn` diffs against a live server, `tagwarden apply` runs it). DIR/findings.json
holds the findings (errors, warnings and info: a failed profile's reasons are
profile_failed errors, as `tagwarden findings` prints them) and each profile's
outcome. A Trino profile with a rules_file key gets its rules.json written there
too, so never compile a config whose rules_file a running daemon writes. Every
file is replaced whole (a temporary file, fsync, rename): a reader never sees a
partial one.

Nothing is written for a profile that fails, and no file is written at all when
the snapshot or config is invalid: every error is printed with the path of the
offending entry, e.g.
  objects[3].columns[1].tags[0]: unknown classification "PIII"

Role expiry is judged at the snapshot's generated_at, or at --now when given.

On a terminal, progress lines go to stderr as the work goes (reading, each
profile as it is built, writing); never when stderr is a file or a pipe.

--timings adds where the time went (wall clock, milliseconds): reading and
validating the snapshot, building the model, and per profile deciding,
rendering and writing; a "timings" object in --output json, a last line in
text. They are never written to findings.json, whose bytes depend only on the
inputs.

Exit codes: 0 every profile compiled; 1 at least one profile failed (the others
were written); 2 invalid snapshot, config or arguments (nothing written);
3 an output could not be written (nothing was replaced: every file under --out
and every rules_file keeps what the last compile wrote).
With --output json a refused input or an unwritten output is one JSON document
on stdout too: {"profile", "ok": false, "exit_code", "errors"} (the errors also
go to stderr).

Example:
  tagwarden compile --snapshot examples/demo/snapshot.yaml \
      --config examples/demo/profiles.yaml --out out/)";

}  // namespace

int run_compile(const std::vector<std::string>& args) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("snapshot", po::value<std::string>()->required(),
                                                 "governance snapshot, JSON or YAML")(
      "config", po::value<std::string>()->required(), "profiles config, YAML or JSON")(
      "out", po::value<std::string>()->required(), "output directory")("profile", po::value<std::string>(),
                                                                       "compile only this profile")(
      "now", po::value<std::string>(), "judge expiry at this RFC 3339 time instead of generated_at")(
      "emit-policyset", po::bool_switch(), "also write DIR/<profile>/policyset.json (the engine-neutral decisions)")(
      "output", po::value<std::string>()->default_value("text"), "summary format: text or json")(
      "jobs", po::value<long long>()->default_value(0),
      "profiles built at once (0: one per core; at most 256); more is faster and needs more memory")(
      "timings", po::bool_switch(), "report where the time went (stdout only, never findings.json)");
  po::variables_map vm;
  if (int rc = parse_options(args, desc, kUsage, kTeaching, vm); rc >= 0) return rc;
  if (const long long jobs = vm["jobs"].as<long long>(); jobs < 0 || jobs > kMaxJobs) {
    std::cerr << "error: --jobs must be 0 (one per core) to " << kMaxJobs << ", not " << jobs << "\n";
    return kExitInvalidInput;
  }
  const std::string format = vm["output"].as<std::string>();
  if (format != "text" && format != "json") {
    std::cerr << "error: --output must be text or json\n";
    return kExitInvalidInput;
  }
  const auto started = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  const bool json_output = format == "json";
  Progress progress;
  progress.say("reading " + vm["snapshot"].as<std::string>() + " and " + vm["config"].as<std::string>());
  auto inputs = load_inputs_or_report(vm, json_output);
  if (!inputs) return kExitInvalidInput;
  {
    // What this run reads and writes besides the rules_files: none of them may be one.
    const std::string out = vm["out"].as<std::string>();
    std::vector<OwnedPath> owned = {
        {vm["snapshot"].as<std::string>(), "the snapshot (--snapshot)", false},
        {(std::filesystem::path(out) / "findings.json").string(), "--out's findings.json", false}};
    for (const auto& p : inputs->config.profiles) {
      for (const char* file : {"rules.json", "trino-opa.json", "plan.sql", "policyset.json"})
        owned.push_back({(std::filesystem::path(out) / p.name / file).string(),
                         "a file compile writes under --out for profile " + p.name, false});
    }
    const auto clashes = rules_file_clashes(inputs->config, owned);
    if (!clashes.empty()) {
      // As every other refused input is printed: the file the entry is in, and the count.
      std::string text;
      for (const auto& c : clashes) text += "error: " + vm["config"].as<std::string>() + ": " + c.str() + "\n";
      std::cerr << text << clashes.size() << (clashes.size() == 1 ? " error" : " errors") << "; nothing was compiled\n";
      return json_output ? print_json_failure(optional_string(vm, "profile"), kExitInvalidInput, text)
                         : kExitInvalidInput;
    }
  }
  const std::size_t total = inputs->config.profiles.size();
  const bool timed = vm["timings"].as<bool>();
  nlohmann::json timings = {{"snapshot_ms", inputs->snapshot_ms}, {"model_ms", inputs->model_ms}};

  const std::string out_dir = vm["out"].as<std::string>();
  const bool emit_policyset = vm["emit-policyset"].as<bool>();
  const auto build_started = std::chrono::steady_clock::now();
  progress.say("building " + std::to_string(total) + " profile" + (total == 1 ? "" : "s"));
  // Each profile is written as soon as it is built and its PolicySet and artifact dropped: at L
  // they are hundreds of MB each, and holding every profile's until the last was built was most
  // of the peak. The summaries and findings.json still come in config order, at the end.
  std::map<std::string, nlohmann::json> written;  // profile -> its summary, timings in "write_ms"
  // Every file is staged (written and synced beside its path) as its profile is built, and all are
  // renamed into place only when every write succeeded: a failed write (a full disk, an unwritable
  // rules_file) leaves --out and every rules_file as the last compile left them, never a mix of
  // two compiles that findings.json describes only half of.
  std::vector<StagedFile> staged;
  std::optional<std::string> write_error;
  const auto built = report_built(progress, total);
  auto write_out = [&](CompiledProfile& cp) {
    built(cp);
    if (write_error || !cp.result.policy_set || !cp.artifact) return;
    try {
      const PolicySet& ps = *cp.result.policy_set;
      const std::string dir = (std::filesystem::path(out_dir) / cp.profile.name).string();
      if (emit_policyset) staged.emplace_back(dir + "/policyset.json", to_json(ps).dump(1) + "\n");
      const Artifact& a = *cp.artifact;
      const auto write_started = std::chrono::steady_clock::now();
      staged.emplace_back(dir + "/" + a.filename, *a.bytes);
      if (cp.profile.rules_file) staged.emplace_back(*cp.profile.rules_file, *a.bytes);
      nlohmann::json summary = {{"name", cp.profile.name}, {"engine", to_string(cp.profile.engine)}};
      // Relative to --out (the folder holding findings.json): the same inputs give the same
      // findings.json bytes however --out is spelled.
      summary["artifact"] = cp.profile.name + "/" + a.filename;
      summary["rules"] = a.rules;
      summary["bytes"] = a.bytes->size();
      summary["sha256"] = a.sha256;
      summary["status"] = "ok";
      if (cp.profile.engine == Engine::Trino) summary["access_control"] = to_string(cp.profile.access_control);
      summary["objects"] = ps.objects.size();
      summary["users"] = ps.users.size();
      summary["write_ms"] = since(write_started);
      written[cp.profile.name] = std::move(summary);
      cp.result.policy_set.reset();
      cp.result.memo.reset();  // the daemon's, for its next pass: a one-shot compile has none
      cp.artifact.reset();
    } catch (const std::exception& e) {
      write_error = e.what();
    }
  };
  auto compiled = compile_all(*inputs, static_cast<std::size_t>(vm["jobs"].as<long long>()), write_out);
  progress.say("writing " + out_dir);
  timings["build_ms"] = since(build_started);
  timings["profiles"] = nlohmann::json::object();

  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : snapshot_findings(*inputs->model)) findings.push_back(to_json(f));
  nlohmann::json profiles = nlohmann::json::array();
  int rc = kExitOk;
  try {
    if (write_error)
      throw std::runtime_error(*write_error +
                               "; nothing was replaced: --out and every rules_file hold what the last compile wrote");
    for (const auto& cp : compiled) {
      // The same findings `tagwarden findings` prints, a failed profile's profile_failed errors too.
      for (const auto& f : outcome_findings(cp)) findings.push_back(to_json(f));
      nlohmann::json& profile_timings = timings["profiles"][cp.profile.name];
      profile_timings = {{"compile_ms", cp.compile_ms}, {"render_ms", cp.render_ms}};
      const auto w = written.find(cp.profile.name);
      if (w == written.end()) {
        nlohmann::json summary = {{"name", cp.profile.name}, {"engine", to_string(cp.profile.engine)}};
        summary["status"] = "failed";
        summary["errors"] = cp.result.errors;
        rc = kExitProfileFailed;
        profiles.push_back(summary);
        continue;
      }
      nlohmann::json summary = w->second;
      profile_timings["write_ms"] = summary["write_ms"];
      summary.erase("write_ms");
      profiles.push_back(std::move(summary));
    }
    nlohmann::json doc = {
        {"generated_at", format_timestamp(inputs->model->now)}, {"profiles", profiles}, {"findings", findings}};
    staged.emplace_back((std::filesystem::path(out_dir) / "findings.json").string(), doc.dump(1) + "\n");
    for (std::size_t i = 0; i < staged.size(); ++i) {
      try {
        staged[i].commit();
      } catch (const std::exception& e) {
        // A rename in a folder just written to fails only when the folder changed under us.
        std::string done;
        for (std::size_t j = 0; j < i; ++j) done += (j ? ", " : "") + staged[j].path();
        throw std::runtime_error(std::string(e.what()) + "; already replaced: " + (done.empty() ? "none" : done) +
                                 "; compile again");
      }
    }
    timings["total_ms"] = since(started);
    if (format == "json") {
      if (timed) doc["timings"] = timings;
      std::cout << doc.dump(1) << "\n";
      return rc;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    // A script reading --output json gets one document for this failure too, not an empty stdout.
    return json_output ? print_json_failure(optional_string(vm, "profile"), kExitOutputFailed, e.what())
                       : kExitOutputFailed;
  }

  std::map<std::string, int> by_severity;
  for (const auto& f : findings) by_severity[f["severity"].get<std::string>()]++;
  std::size_t failed = 0;
  for (const auto& p : profiles) failed += p["status"] == "failed";
  std::cout << "compiled " << profiles.size() - failed << " of " << profiles.size() << " profile"
            << (profiles.size() == 1 ? "" : "s") << " at " << format_timestamp(inputs->model->now) << "\n";
  for (const auto& p : profiles) {
    const std::string name = p["name"];
    if (p["status"] == "failed") {
      std::cout << "  " << name << " (" << p["engine"].get<std::string>() << "): FAILED\n";
      for (const auto& e : p["errors"]) std::cout << "      " << e.get<std::string>() << "\n";
    } else {
      // A StarRocks artifact counts statements (plan.sql), a Trino one rules (rules.json), an
      // OPA-only Trino profile the access classes its decisions are read from (trino-opa.json).
      const bool starrocks = p["engine"] == to_string(Engine::StarRocks);
      const bool opa = p.value("access_control", "") == "opa";
      std::cout << "  " << name << " (" << p["engine"].get<std::string>() << "): " << p["rules"]
                << (starrocks ? " statements over "
                    : opa     ? " access classes (decisions only) over "
                              : " rules over ")
                << p["objects"] << " objects, " << p["bytes"] << " bytes -> "
                << (std::filesystem::path(out_dir) / p["artifact"].get<std::string>()).string() << "\n";
    }
  }
  std::cout << "findings: " << by_severity["error"] << " errors, " << by_severity["warning"] << " warnings, "
            << by_severity["info"] << " info -> " << (std::filesystem::path(out_dir) / "findings.json").string()
            << "\n";
  for (const auto& f : findings) {
    std::cout << "  [" << f["severity"].get<std::string>() << "] " << f["message"].get<std::string>() << "\n";
  }
  if (timed) {
    auto ms = [](const nlohmann::json& v) { return std::to_string(static_cast<long long>(v.get<double>() + 0.5)); };
    std::cout << "timings (ms): snapshot " << ms(timings["snapshot_ms"]) << ", model " << ms(timings["model_ms"])
              << ", profiles " << ms(timings["build_ms"]);
    for (const auto& [name, t] : timings["profiles"].items()) {
      std::cout << " (" << name << ": decide " << ms(t["compile_ms"]) << ", render " << ms(t["render_ms"]);
      if (t.contains("write_ms")) std::cout << ", write " << ms(t["write_ms"]);
      std::cout << ")";
    }
    std::cout << ", total " << ms(timings["total_ms"]) << "\n";
  }
  return rc;
}

}  // namespace tw::cli
