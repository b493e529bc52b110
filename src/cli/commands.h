#pragma once
#include <string>
#include <vector>

namespace tw::cli {

int run_compile(const std::vector<std::string>& args);
int run_explain(const std::vector<std::string>& args);
int run_findings(const std::vector<std::string>& args);
int run_serve(const std::vector<std::string>& args);
int run_plan(const std::vector<std::string>& args);
int run_apply(const std::vector<std::string>& args);

}  // namespace tw::cli
