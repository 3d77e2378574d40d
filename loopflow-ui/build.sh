#!/usr/bin/env bash
# Builds and tests the web run viewer with the system's Node.js and npm (Maven runs this; it works by hand too).
#   build.sh build   install the pinned packages when needed, then bundle the app into target/classes/loopflow-ui
#   build.sh test    type check and unit tests
# Repeated builds are fast: `npm ci` runs only when node_modules is missing or older than package-lock.json, and the
# bundle is rebuilt only when a source is newer than it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

OUT=target/classes/loopflow-ui
STAMP=target/.ui-build-stamp

die() { echo "loopflow-ui: $*" >&2; exit 1; }

need_npm() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
    || die "Node.js and npm are needed to build the web UI (node >= 20.19, npm >= 10); install them (for example \
'apt-get install nodejs npm') and build again."
  local major
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  [ "$major" -ge 20 ] 2>/dev/null || die "Node.js $(node -v 2>/dev/null) is too old to build the web UI: version 20.19 or newer is needed."
}

install_packages() {
  # npm writes node_modules/.package-lock.json after every install; it is older than package-lock.json exactly when
  # the lock file changed since (a pull that updated a package), so the packages are installed again.
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "loopflow-ui: installing packages (npm ci)" >&2
    npm ci --no-audit --no-fund --loglevel=error || die "npm ci failed (see above); the packages are pinned by package-lock.json."
  fi
}

sources_changed() {
  [ ! -f "$STAMP" ] || [ ! -f "$OUT/index.html" ] && return 0
  [ -n "$(find src index.html favicon.svg vite.config.ts tsconfig.json package.json package-lock.json -newer "$STAMP" \
          -print -quit 2>/dev/null)" ]
}

case "${1:-build}" in
  build)
    need_npm
    install_packages
    if sources_changed; then
      echo "loopflow-ui: bundling the app into $OUT" >&2
      npm run --silent build -- --logLevel warn || die "the Vite build failed (see above)."
      mkdir -p target && touch "$STAMP"
    fi
    ;;
  test)
    need_npm
    install_packages
    npm run --silent typecheck || die "the type check failed (see above)."
    npm run --silent test || die "unit tests failed (see above)."
    ;;
  *)
    die "usage: build.sh build|test"
    ;;
esac
