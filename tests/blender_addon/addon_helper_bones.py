"""Runs inside headless Blender: Bake to Helper Bones (issue 31) leaves the character's armature
with helper bones and their keys and the mesh's vertex groups refitted, so that the Armature
modifier alone plays the stack's motion; Remove Bake puts everything back.

    blender -b -noaudio --factory-startup --python-exit-code 1 --python addon_helper_bones.py -- \
        ADDON.zip WOBBLE_CLI CHARACTER.glb SCRATCH_DIR

On the bundled clip (Walk, frames 0..24 at 30 fps) with lbs,dynamic:
  - the live preview (the stack's output as the add-on shows it, which addon_parity.py checks
    against `wobble bake`) and the Armature modifier alone are played first;
  - Bake to Helper Bones, 8 helpers and 4 influences: 8 deforming bones wobble_helper_*, each a
    child of a deform bone of the character, keyed (linear) on every frame in the armature's
    action; every vertex in at most 4 groups, its weights summing to one; the live effect off,
    the Armature modifier on;
  - the mesh as Blender plays the bake is, in RMS over frames and vertices, as far from the
    preview as the fit says (its RMSE: wobble's own LBS of the extended skeleton against the same
    frames) to 1e-5 of the character size, so Blender plays the skeleton wobble fitted; and that
    distance is under a third of the secondary motion (the preview against the modifier alone);
  - Remove Bake: the armature's bones and curves and the mesh's groups and weights as before,
    and the live effect back (the preview's frames);
  - with the modifier's Preserve Volume (dual quaternions) the bake is refused with the reason.
"""
import os
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_clip import checker, import_character, install_addon, np, play  # noqa: E402

zip_path, cli, character_path, scratch = sys.argv[sys.argv.index("--") + 1:][:4]
FPS, CLIP, LAST_FRAME = 30, "Walk", 24
HELPERS, INFLUENCES = 8, 4
started = time.time()
check = checker("addon_helper_bones")

addon = install_addon(zip_path)
mesh_obj = import_character(character_path, CLIP, FPS, 0, LAST_FRAME)
scene = bpy.context.scene
armature = next(m.object for m in mesh_obj.modifiers if m.type == 'ARMATURE')
s = mesh_obj.wobble
s.dynamic.amplitude, s.dynamic.drag = 1.0, 0.3
frames = range(0, LAST_FRAME + 1)
size = float(np.linalg.norm(np.ptp(play(mesh_obj, [0])[0][0], axis=0)))


def operator(name, **arguments):
    with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
        try:
            return getattr(bpy.ops.wobble, name)(**arguments), ""
        except RuntimeError as error:  # an operator's error report, in a script
            return {'CANCELLED'}, str(error)


def weights_by_vertex():
    names = {g.index: g.name for g in mesh_obj.vertex_groups}
    return [{names[e.group]: e.weight for e in v.groups if e.weight > 0} for v in mesh_obj.data.vertices]


def curve_paths():
    return sorted((c.data_path, c.array_index) for c in armature.animation_data.action.fcurves)


def rms(a, b):
    return float(np.sqrt(np.mean(np.sum((a - b) ** 2, axis=-1))))


plain, _ = play(mesh_obj, frames)
scene.frame_set(0)
s.enabled = True
preview, _ = play(mesh_obj, frames)
secondary = rms(preview, plain)
check(secondary > 1e-3 * size, f"the effect's secondary motion: RMS {secondary / size:.2e} of the size")
before = {"bones": sorted(b.name for b in armature.data.bones), "curves": curve_paths(),
          "groups": sorted(g.name for g in mesh_obj.vertex_groups), "weights": weights_by_vertex()}

# --- the bake ---
s.helper_bones.bones, s.helper_bones.influences = HELPERS, INFLUENCES
scene.frame_set(0)
baking = time.time()
result, _ = operator("bake", target='HELPER_BONES')
check(result == {'FINISHED'}, f"Bake to Helper Bones finished ({time.time() - baking:.1f} s)")
helpers = [b for b in armature.data.bones if b.name.startswith("wobble_helper_")]
check(len(helpers) == HELPERS and all(b.use_deform for b in helpers), f"{len(helpers)} deforming helper bones")
check(all(b.parent is not None and b.parent.use_deform and b.parent.name in before["bones"] for b in helpers),
      "each a child of a deform bone of the character: " + ", ".join(sorted({b.parent.name for b in helpers})))
keyed = [c for c in armature.animation_data.action.fcurves if c.data_path.startswith('pose.bones["wobble_helper_')]
check(len(keyed) == 10 * HELPERS and all(len(c.keyframe_points) == len(frames) and
                                         all(p.interpolation == 'LINEAR' for p in c.keyframe_points) for c in keyed),
      f"location, rotation and scale of each helper keyed on the {len(frames)} frames, linear")
check(set(before["curves"]) <= set(curve_paths()), "the clip's own curves are kept")
rows = weights_by_vertex()
check(all(len(row) <= INFLUENCES and abs(sum(row.values()) - 1) <= 1e-5 for row in rows),
      f"every vertex in at most {INFLUENCES} groups, its weights summing to one")
check(sum(any(name.startswith("wobble_helper_") for name in row) for row in rows) > 0, "vertices follow the helpers")
wobble_modifier = mesh_obj.modifiers.get("wobble")
check(not s.enabled and (wobble_modifier is None or not wobble_modifier.show_viewport) and
      all(m.show_viewport for m in mesh_obj.modifiers if m.type == 'ARMATURE'),
      "the live effect is off, the Armature modifier on")

record = mesh_obj["wobble_helper_bones"]
played, _ = play(mesh_obj, frames)
distance = rms(played, preview)
check(abs(distance - record["rmse"]) <= 1e-5 * size,
      f"Blender plays the fitted skeleton: RMS {distance / size:.4e} of the size from the preview, the fit's RMSE "
      f"{record['rmse'] / size:.4e} (apart by {abs(distance - record['rmse']) / size:.1e})")
check(distance < secondary / 3, f"the helpers carry the secondary motion: {100 * distance / secondary:.1f} % of it left")

# --- Remove Bake ---
result, _ = operator("unbake")
check(result == {'FINISHED'}, "Remove Bake finished")
check(sorted(b.name for b in armature.data.bones) == before["bones"] and curve_paths() == before["curves"],
      "the armature's bones and curves are as before")
check(sorted(g.name for g in mesh_obj.vertex_groups) == before["groups"] and weights_by_vertex() == before["weights"],
      "the vertex groups and every weight are as before")
again, _ = play(mesh_obj, [0, 12, LAST_FRAME])
check(s.enabled and np.abs(again - preview[[0, 12, LAST_FRAME]]).max() <= 1e-6 * size, "the live effect is back")

# --- refused ---
modifier = next(m for m in mesh_obj.modifiers if m.type == 'ARMATURE')
modifier.use_deform_preserve_volume = True
result, message = operator("bake", target='HELPER_BONES')
check(result == {'CANCELLED'} and "Preserve Volume" in message, f"with Preserve Volume: refused ({message.strip()})")
check(not any(b.name.startswith("wobble_helper_") for b in armature.data.bones), "... and nothing added")
modifier.use_deform_preserve_volume = False

print(f"addon_helper_bones: OK ({time.time() - started:.1f} s)")
