#!/usr/bin/env bash
# Installs what tagwarden needs to build and test, only when missing.
# Debian packages for the C++ build and the test services; Maven pulls the
# Trino jars for the oracle itself.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-all-dev nlohmann-json3-dev libsimdjson-dev libjemalloc-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev
  libmysqlcppconn-dev libspdlog-dev catch2 clang-format
  maven python3 curl mariadb-server mariadb-client wrk
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi
if ! ls /usr/lib/jvm 2>/dev/null | grep -q -E '(temurin-2[5-9]|java-2[5-9])'; then
  echo "install-deps: warning: no JDK 25 under /usr/lib/jvm; the Trino oracle and e2e test need one" >&2
fi
