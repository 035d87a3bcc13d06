#!/usr/bin/env bash
# Debian ships python3 without venv; install python3-venv when it is missing rather than fail later.
set -euo pipefail
python=${1:-python3}
if "$python" -c 'import ensurepip, venv' 2>/dev/null; then exit 0; fi
echo "tableref: $python has no venv module; installing Debian's python3-venv" >&2
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "tableref: run 'apt-get install python3-venv' as root, then try again" >&2; exit 1
fi
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
