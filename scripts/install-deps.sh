#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Stream builds and tests with. Idempotent: does nothing when all are present.
set -euo pipefail

packages=(
    pkg-config libssl-dev openssl ca-certificates
    libx264-dev libavcodec-dev libavutil-dev libswresample-dev libyuv-dev
    libxcb1-dev libxcb-shm0-dev libxcb-xfixes0-dev libpulse-dev x11-xserver-utils
    nginx libnginx-mod-rtmp libnginx-mod-stream
    ffmpeg xvfb pulseaudio pulseaudio-utils sox
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts nginx on port 80 when it can; Stream's tests run their own nginx and need nothing else listening.
if command -v service >/dev/null 2>&1; then $sudo service nginx stop >/dev/null 2>&1 || true; fi

if ! command -v swift >/dev/null 2>&1; then
    echo "swift is not on PATH: install the Swift 6 toolchain (https://swift.org/install) and retry" >&2
    exit 1
fi
