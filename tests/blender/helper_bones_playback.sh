#!/usr/bin/env bash
# A helper-bone bake played by Blender alone (helper_bones_playback.py), against wobble's own LBS
# of the file.
#   tests/blender/helper_bones_playback.sh BLENDER WOBBLE CLONK.glb
# BLENDER: `blender` (the host's 3.4) or scripts/blender4.sh (Debian 13's 4.3, waited for).
set -euo pipefail
blender="$1" wobble="$2" character="$3"
here="$(cd "$(dirname "$0")" && pwd -P)"
case "$blender" in
  */blender4.sh) "$(dirname "$blender")/install-blender4.sh" --wait ;;
esac
work="$(mktemp -d /tmp/wobble-helper-playback.XXXXXX)"
trap 'rm -rf "$work"' EXIT
"$wobble" bake "$character" --clip Walk --fps 20 --deformer lbs,dynamic --helper-bones 8 --quiet -o "$work/helpers.glb"
"$wobble" bake "$work/helpers.glb" --clip 0 --fps 20 --deformer lbs --quiet -o "$work/reference.pc2"
size="$("$wobble" info "$work/helpers.glb" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["size"])')"
cd "$work"
output="$("$blender" -b -noaudio --factory-startup --python "$here/helper_bones_playback.py" -- \
  "$work/helpers.glb" "$work/reference.pc2" "$size" 2>&1)" || { echo "$output"; exit 1; }
echo "$output" | grep 'helper_bones_playback.py'
echo "$output" | grep -q 'helper_bones_playback.py: ok'
