#!/usr/bin/env bash
# The main job on the bundled default character: bake the OpenClonk Clonk walking.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
wobble="$build/wobble"
mkdir -p out
"$wobble" info "$build/assets/clonk.glb" | head -n 3 || true  # head closes the pipe early (SIGPIPE)
"$wobble" bake "$build/assets/clonk.glb" --clip Walk --fps 60 --deformer lbs -o out/clonk_walk_lbs.glb
"$wobble" bake "$build/assets/clonk.glb" --clip Walk --fps 60 --deformer dqs -o out/clonk_walk_dqs.pc2
# Dynamic Skinning (default settings: visible, tasteful wobble and drag), as glTF and point cache.
"$wobble" bake "$build/assets/clonk.glb" --clip Walk --fps 60 --deformer lbs,dynamic -o out/clonk_walk_dynamic.glb
"$wobble" bake "$build/assets/clonk.glb" --clip Walk --fps 60 --deformer lbs,dynamic -o out/clonk_walk_dynamic.pc2
# A seamless walk loop for a game engine: the Walk cycle (2.4 s) in its periodic steady state, as
# glTF with the cycle as its animation (one cycle, both ends). --seam prints the effect's largest
# jump from the cycle's last frame to the next cycle's first, without and with --loop.
echo "seam of the walk cycle without --loop:"
"$wobble" bake "$build/assets/clonk.glb" --clip Walk --fps 30 --deformer lbs,dynamic --seam -q -o out/clonk_walk_cycle_plain.glb
echo "seam of the walk cycle with --loop:"
"$wobble" bake "$build/assets/clonk.glb" --clip Walk --fps 30 --deformer lbs,dynamic --loop --seam -q -o out/clonk_walk_loop.glb
# Side-by-side video like the paper's comparisons: LBS | drag only (oscillation amplitude 0) |
# Dynamic Skinning, rendered headless (EGL) and encoded by ffmpeg. Needs the renderer.
# Side by side, as in the paper's comparison videos: LBS | drag only | dynamic skinning.
"$wobble" render "$build/assets/clonk.glb" --clip Walk --fps 30 --size 640x360 \
  --compare lbs lbs,dynamic:amplitude=0 lbs,dynamic --label "LBS" "drag only" "dynamic skinning" \
  -o out/clonk_walk_compare.mp4
echo
echo "demo outputs:"
echo "  $(pwd)/out/clonk_walk_lbs.glb   (open in any glTF viewer)"
echo "  $(pwd)/out/clonk_walk_dqs.pc2   (point cache, e.g. Blender's Mesh Cache modifier)"
echo "  $(pwd)/out/clonk_walk_dynamic.glb   (Dynamic Skinning: lbs,dynamic)"
echo "  $(pwd)/out/clonk_walk_dynamic.pc2   (the same as a point cache)"
echo "  $(pwd)/out/clonk_walk_compare.mp4   (video, side by side: LBS | drag only | dynamic skinning)"
echo "  $(pwd)/out/clonk_walk_loop.glb   (a seamless walk loop: Dynamic Skinning's periodic steady state)"
