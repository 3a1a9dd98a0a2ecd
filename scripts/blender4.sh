#!/usr/bin/env bash
# Runs Debian 13's Blender 4.3 from the tree scripts/install-blender4.sh makes, with the same
# arguments as `blender`; its exit code is Blender's.
#   scripts/blender4.sh -b -noaudio --factory-startup --python script.py -- ARGS
# Inside, at the same paths as outside: the checkout, ../shared beside it, /tmp and the current
# folder (which must be under one of them); /proc, /dev and /sys as Blender needs them; the host's
# own root at /run/host (WOBBLE_HOST_ROOT), so that a script can run this machine's programs, such
# as the wobble CLI built here, with `chroot /run/host PROGRAM ...`. The mounts live in a private
# mount namespace (unshare -m): nothing leaks out, they vanish when Blender ends, and runs at the
# same time do not see each other's. Needs root.
set -euo pipefail
root="${WOBBLE_BLENDER4_ROOT:-/opt/wobble-blender4}"
checkout="$(cd "$(dirname "$0")/.." && pwd -P)"
if [ ! -f "$root/.wobble-blender4" ]; then
  echo "blender4: no Blender 4 tree in $root: run scripts/install-blender4.sh" >&2
  exit 127
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "blender4: needs root (mount namespaces, chroot)" >&2
  exit 127
fi
visible=("$checkout" /tmp)
[ -d "$checkout/../shared" ] && visible+=("$(cd "$checkout/../shared" && pwd -P)")
here="$(pwd -P)"
inside=no
for folder in "${visible[@]}"; do
  case "$here/" in "$folder"/*) inside=yes ;; esac
done
if [ "$inside" = no ]; then
  echo "blender4: the current folder $here is not visible inside (only ${visible[*]}): cd into one of them" >&2
  exit 127
fi

# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare --mount --propagation private -- /bin/sh -ec '
  root="$1" here="$2" count="$3"; shift 3
  mkdir -p "$root/run/host"
  mount --rbind / "$root/run/host"   # first: later mounts in the tree stay out of it
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  while [ "$count" -gt 0 ]; do
    mkdir -p "$root$1"
    mount --rbind "$1" "$root$1"
    shift; count=$((count - 1))
  done
  export WOBBLE_HOST_ROOT=/run/host
  exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec /usr/bin/blender \"\$@\"" "$here" "$@"
' blender4 "$root" "$here" "${#visible[@]}" "${visible[@]}" "$@"
