#!/usr/bin/env bash
# Makes the Blender 4 test environment: a minimal Debian 13 (trixie) tree with Debian's Blender 4.3
# and numpy, in a fixed folder outside the checkout (scripts/blender4.sh runs Blender in it).
# Usage: scripts/install-blender4.sh               install (once; a second call is a no-op)
#        scripts/install-blender4.sh --background  start the install detached, at nice 19, and
#                                                  return at once (log: $WOBBLE_BLENDER4_ROOT.log)
#        scripts/install-blender4.sh --wait        wait for a running install; fail with its log
#                                                  when the tree is not ready
# The tree is built in ROOT.partial and renamed to ROOT when complete, so ROOT is never half made.
# Needs root (debootstrap, chroot, mount); measured on a fresh machine: 237 s (76 s of them the base
# system) and 1.4 GB.
set -euo pipefail
root="${WOBBLE_BLENDER4_ROOT:-/opt/wobble-blender4}"
suite=trixie
packages=(blender python3-numpy libgl1-mesa-dri)
marker="$root/.wobble-blender4"
layout=2  # what the tree holds besides the packages (finish_tree); raise it when that changes
want="$layout $suite ${packages[*]}"
lock="$root.lock"
log="$root.log"
mode="${1:-install}"

ready() { [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ]; }

case "$mode" in
  install|--background|--wait|--locked) ;;
  *) echo "install-blender4: unknown option '$mode' (--background, --wait)" >&2; exit 2 ;;
esac
ready && exit 0

if [ "$mode" = --wait ]; then
  exec 9>"$lock"
  flock 9
  ready && exit 0
  echo "install-blender4: the Blender 4 tree ($root) is not installed." >&2
  if [ -s "$log" ]; then
    echo "install-blender4: its installation failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
  else
    echo "install-blender4: run scripts/install-blender4.sh (or scripts/install-deps.sh test)." >&2
  fi
  exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-blender4: needs root (debootstrap, chroot and mount)" >&2
  exit 1
fi

mkdir -p "$(dirname "$root")"
if [ "$mode" = --background ]; then
  exec 9>"$lock"
  if ! flock -n 9; then echo "install-blender4: already running (log: $log)"; exit 0; fi
  # The child inherits descriptor 9 and with it the lock, so a --wait can never slip in between.
  echo "install-blender4: installing the Blender 4 tree in the background (log: $log)"
  nohup setsid nice -n 19 "$(readlink -f "$0")" --locked </dev/null >"$log" 2>&1 &
  exit 0
fi
if [ "$mode" = install ]; then
  exec 9>"$lock"
  flock 9
  ready && exit 0
fi

# The mirror the host uses (its debian.sources or sources.list), else Debian's own.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
export DEBIAN_FRONTEND=noninteractive

if ! command -v debootstrap >/dev/null 2>&1; then
  echo "install-blender4: installing debootstrap"
  apt-get update -qq
  apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=600 debootstrap
fi

# Runs apt-get inside TREE, with /proc and /dev mounted in a private mount namespace (they vanish
# with it, whatever happens).
apt_in_tree() {
  local tree="$1"; shift
  unshare -m --propagation private sh -ec '
    tree="$1"; shift
    mount -t proc proc "$tree/proc"
    mount --rbind /dev "$tree/dev"
    chroot "$tree" apt-get "$@"' sh "$tree" "$@"
}

# What Blender expects of a system beyond the packages: no services starting, /etc/mtab (Blender's
# file browser lists the mounted file systems from it).
finish_tree() {
  local tree="$1"
  printf '#!/bin/sh\nexit 101\n' >"$tree/usr/sbin/policy-rc.d"
  chmod +x "$tree/usr/sbin/policy-rc.d"
  ln -sfn ../proc/self/mounts "$tree/etc/mtab"
}

if [ -d "$root" ]; then
  # A tree from an older package list: add what is missing.
  echo "install-blender4: updating $root to: $want"
  finish_tree "$root"
  apt_in_tree "$root" update -qq
  apt_in_tree "$root" install -y --no-install-recommends "${packages[@]}"
  apt_in_tree "$root" clean
  echo "$want" >"$marker"
  exit 0
fi

partial="$root.partial"
rm -rf "$partial"
start=$(date +%s)
echo "install-blender4: debootstrap $suite into $partial from $mirror"
debootstrap --variant=minbase "$suite" "$partial" "$mirror"
echo "install-blender4: base system in $(( $(date +%s) - start )) s; installing ${packages[*]}"
finish_tree "$partial"
apt_in_tree "$partial" update -qq
apt_in_tree "$partial" install -y --no-install-recommends "${packages[@]}"
apt_in_tree "$partial" clean
echo "$want" >"$partial/.wobble-blender4"
mv "$partial" "$root"
echo "install-blender4: done in $(( $(date +%s) - start )) s: $(du -sh "$root" | cut -f1) in $root"
