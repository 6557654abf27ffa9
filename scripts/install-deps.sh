#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Stream builds and tests with. Idempotent: does nothing when all are present.
set -euo pipefail

packages=(
    pkg-config libssl-dev openssl ca-certificates
    libx264-dev libyuv-dev libvo-aacenc-dev
    libxcb1-dev libxcb-shm0-dev libxcb-xfixes0-dev libpulse-dev x11-xserver-utils
    nginx libnginx-mod-rtmp libnginx-mod-stream
    ffmpeg xvfb pulseaudio pulseaudio-utils sox
    libsqlite3-dev sqlite3 libopus-dev libfaad-dev coturn
    # Posters (stream serve): libavcodec's H.264 decoder and libjpeg-turbo's TurboJPEG, both loaded with dlopen.
    libavcodec-dev libturbojpeg0-dev
    chromium fonts-dejavu-core wrk curl
    # systemd-analyze checks docs/deploy/stream.service (DeployTests).
    systemd
    # HLS players in HLSPlayerTests: VLC (cvlc; its adaptive and mp4 demuxers and avcodec are in plugin-base),
    # GStreamer's gst-launch (tools), souphttpsrc/qtdemux/hlsdemux2 (good), legacy hlsdemux/h264parse (bad),
    # avdec_h264 (libav).
    vlc-bin vlc-plugin-base
    gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
)

here=$(cd "$(dirname "$0")" && pwd)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Pinned to a major version (its security updates are fine): PostgreSQL for PostgresShowStoreTests, which start
# their own server from /usr/lib/postgresql/15/bin, and the libpq the store links (docs/scale.md).
pinned=(
    "postgresql-15=15.*" "libpq-dev=15.*"
)
for entry in "${pinned[@]}"; do
    name=${entry%%=*}
    want=${entry#*=}
    have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
    # shellcheck disable=SC2254 # $want is a version pattern
    case "$have" in
        "install ok installed "$want) ;;
        *) missing+=("$entry") ;;
    esac
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian starts nginx on port 80 when it can; Stream's tests run their own nginx and need nothing else listening.
    # The same for PostgreSQL's own cluster on 5432: the tests start their own servers on free ports.
    if command -v service >/dev/null 2>&1; then
        $sudo service nginx stop >/dev/null 2>&1 || true
        $sudo service postgresql stop >/dev/null 2>&1 || true
    fi
fi

# Python peers, pinned (scripts/requirements-test.txt). Playwright drives Debian's chromium: no browser download.
python=$(command -v python3)
if ! "$python" - "$here/requirements-test.txt" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, pinned = line.split("==")
    if version(name) != pinned:
        sys.exit(1)
PY
then
    echo "installing Python test peers (scripts/requirements-test.txt)" >&2
    $sudo "$python" -m pip install -q --disable-pip-version-check -r "$here/requirements-test.txt"
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "swift is not on PATH: install the Swift 6 toolchain (https://swift.org/install) and retry" >&2
    exit 1
fi
