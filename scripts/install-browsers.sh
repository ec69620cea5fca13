#!/usr/bin/env bash
# The browsers the browser tests drive, from Debian's packages (never a downloaded browser):
# Chromium; Firefox ESR; WebKitGTK's MiniBrowser and WebDriver, run under Xvfb (fixtures/browsers.js).
# Installs what is missing when it can (root, or sudo without a password, and apt-get); otherwise it
# fails at once with one line naming what to install. `npm test` and `.ci/run` both run it.
set -uo pipefail
missing=()
for program_package in chromium:chromium firefox-esr:firefox-esr WebKitWebDriver:webkit2gtk-driver xvfb-run:xvfb; do
  command -v "${program_package%%:*}" >/dev/null 2>&1 || missing+=("${program_package#*:}")
done
((${#missing[@]})) || exit 0

fail() {
  echo "jsprof tests: the browser tests need ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]} ($1)" >&2
  exit 1
}
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found"
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  fail "not root, and sudo needs a password"
fi

echo "jsprof tests: installing ${missing[*]} from Debian's packages (once; takes a few minutes)" >&2
export DEBIAN_FRONTEND=noninteractive
install() { "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null; }
install 2>/dev/null || { "${as_root[@]}" apt-get update -qq >/dev/null && install; } || fail "apt-get failed"
