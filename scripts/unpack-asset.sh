#!/usr/bin/env sh
# Unpacks one xz-compressed bundled asset: unpack-asset.sh IN.xz OUT (atomically: temp, then rename).
set -eu
mkdir -p "$(dirname "$2")"
xz -dc "$1" > "$2.tmp"
mv "$2.tmp" "$2"
