#!/usr/bin/env bash
# Debian packages used beyond Python: font families for the card renderer (tests render scenes with them), and
# chromium, the browser that the dashboard's page tests drive through Playwright.
set -euo pipefail
packages=(
  fonts-dejavu-core fonts-liberation2 fonts-urw-base35 fonts-freefont-ttf fonts-croscore fonts-roboto
  fonts-cantarell fonts-open-sans fonts-lato fonts-crosextra-carlito fonts-crosextra-caladea fonts-texgyre
  fonts-comfortaa fonts-firacode fonts-ebgaramond fonts-inconsolata fonts-linuxlibertine fonts-hack
  chromium
)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
