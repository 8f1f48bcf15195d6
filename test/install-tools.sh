#!/usr/bin/env bash
# npm's pretest: the real tools some suites run, from Debian's packages. Installs the
# missing ones when it can (root with apt-get); otherwise fails naming them.
set -euo pipefail
declare -A packages=([promtool]=prometheus [prometheus-alertmanager]=prometheus-alertmanager [mkfifo]=coreutils
  [prometheus-blackbox-exporter]=prometheus-blackbox-exporter [javac]=openjdk-17-jdk-headless
  [chromium]=chromium)
missing=()
for binary in "${!packages[@]}"; do
  command -v "$binary" >/dev/null 2>&1 || missing+=("${packages[$binary]}")
done
# Tomcat 10 has no binary on the PATH: test/servers runs its Bootstrap from the package.
[ -f /usr/share/tomcat10/bin/bootstrap.jar ] || missing+=(tomcat10)
[ -f /usr/share/jetty9/start.jar ] || missing+=(jetty9)
# PostgreSQL 15's server binaries are not on the PATH either: test/store starts them itself.
[ -f /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages for the test suites: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "the test suites need these Debian packages, and this user cannot install them: ${missing[*]}" >&2
echo "install them (apt-get install ${missing[*]}) and run npm test again" >&2
exit 1
