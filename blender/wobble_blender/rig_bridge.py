"""From Blender data to wobble: a mesh object deformed by an Armature modifier becomes a
wobble Character, and the scene's evaluated state (objects and the armature's pose) a wobble Pose.

Space. wobble works in world space, so that moving objects (the armature object and its parents,
a character walking by object animation) drive the effect as the bones do. Bind space is world
space at the moment the character is built (the mesh's vertices taken there: the character size,
the bounding-box diagonal, is measured in world axes); results are taken back into the mesh
object's space, where the Armature modifier works, with the mesh's world matrix. Axes are
Blender's (Z up); a glTF file's Y-up data arrives already turned by Blender's importer, and
wobble's effects turn with the character, so the axes make no difference.

Joints, parents first:
  0        the mesh object: vertices without weights follow it, as with the modifier;
  1..k     the armature object's parent objects and the armature object (helpers without weights);
  k+1..    the bones; bone j's bind matrix is armature.matrix_world @ bone.matrix_local (when the
           character is built: the mesh must keep its place relative to the armature object, as
           when parented to it), its pose armature.matrix_world @ pose_bone.matrix, so that
           world_j @ bind_j^-1 is the matrix the modifier applies.
Weights: vertex groups named after deform bones, normalised per vertex as the modifier does.
"""
import numpy as np

from .module import wobble

ROOT_NAME = "__wobble_mesh_object__"


def armature_modifier(obj):
    """The first enabled Armature modifier with an armature, or None."""
    for modifier in obj.modifiers:
        if modifier.type == 'ARMATURE' and modifier.object is not None and modifier.object.type == 'ARMATURE':
            return modifier
    return None


def _matrix(m):
    return np.array([list(row) for row in m], dtype=np.float64)


def _bones_parents_first(armature):
    ordered = []

    def visit(bone):
        ordered.append(bone)
        for child in bone.children:
            visit(child)

    for bone in armature.data.bones:
        if bone.parent is None:
            visit(bone)
    return ordered


class CharacterBridge:
    """A wobble Character built from a mesh object and its Armature modifier, and the pose of
    the armature at the current frame."""

    def __init__(self, obj, modifier):
        self.object_name = obj.name
        armature = modifier.object
        self.armature_name = armature.name
        self.base = 'dqs' if modifier.use_deform_preserve_volume else 'lbs'
        mesh = obj.data
        self.vertex_count = len(mesh.vertices)
        # Bind space: world space when the character is built.
        mesh_world = _matrix(obj.matrix_world)

        co = np.empty(self.vertex_count * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        positions = co.reshape(-1, 3).astype(np.float64) @ mesh_world[:3, :3].T + mesh_world[:3, 3]
        mesh.calc_loop_triangles()
        triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.uint32)
        mesh.loop_triangles.foreach_get("vertices", triangles)

        chain = []  # the armature object and its parents, root first
        o = armature
        while o is not None:
            chain.insert(0, o.name)
            o = o.parent
        self.object_names = chain
        bones = _bones_parents_first(armature)
        self.bone_names = [b.name for b in bones]
        # Where each bone (parents first) sits in armature.pose.bones, read in one foreach_get.
        stored = {b.name: k for k, b in enumerate(armature.data.bones)}
        self.pose_order = np.array([stored[name] for name in self.bone_names], dtype=np.intp)
        first_bone = 1 + len(chain)
        index = {name: first_bone + k for k, name in enumerate(self.bone_names)}
        names = [ROOT_NAME] + ["object:" + n for n in chain] + self.bone_names
        parents = [-1] + [-1 if k == 0 else k for k in range(len(chain))]
        parents += [index[b.parent.name] if b.parent else len(chain) for b in bones]
        bind = np.empty((len(names), 4, 4))
        bind[0] = mesh_world
        for k, name in enumerate(chain):
            bind[1 + k] = _matrix(bpy_objects()[name].matrix_world)
        armature_world = _matrix(armature.matrix_world)
        for k, bone in enumerate(bones):
            bind[first_bone + k] = armature_world @ _matrix(bone.matrix_local)
        self.bind_world, self.first_bone = bind, first_bone
        # The joints the Armature modifier can weight: deform bones (not the objects).
        self.deform_joints = np.array([k >= first_bone and bones[k - first_bone].use_deform for k in range(len(names))])

        # Weights of deform bones' vertex groups, normalised (the modifier divides by their sum).
        group_joint = {}
        for group in obj.vertex_groups:
            k = index.get(group.name)
            if k is not None and armature.data.bones[group.name].use_deform:
                group_joint[group.index] = k
        offsets, joints, weights = [0], [], []
        for vertex in mesh.vertices:
            row = [(group_joint[g.group], g.weight) for g in vertex.groups if g.group in group_joint and g.weight > 0]
            total = sum(w for _, w in row)
            if total > 1e-4:  # below this Blender leaves the vertex at rest: joint 0
                joints.extend(j for j, _ in row)
                weights.extend(w / total for _, w in row)
            offsets.append(len(joints))
        self.character = wobble.Character.from_arrays(
            positions.astype(np.float32), triangles.reshape(-1, 3), names, parents, bind.astype(np.float32),
            np.asarray(offsets, dtype=np.uint32), np.asarray(joints, dtype=np.uint32),
            np.asarray(weights, dtype=np.float32), name=f"Blender object '{obj.name}'")

    def pose(self, depsgraph):
        """The wobble pose of the evaluated scene (world space) and the mesh's world matrix."""
        world, mesh_world = self.world_matrices(depsgraph)
        return wobble.Pose.from_world(self.character, world.astype(np.float32)), mesh_world

    def world_matrices(self, depsgraph):
        """The joints' world matrices (J, 4, 4) in the evaluated scene and the mesh's world matrix."""
        objects = bpy_objects()
        mesh_world = _matrix(objects[self.object_name].evaluated_get(depsgraph).matrix_world)
        world = np.empty((1 + len(self.object_names) + len(self.bone_names), 4, 4))
        world[0] = mesh_world
        for k, name in enumerate(self.object_names):
            world[1 + k] = _matrix(objects[name].evaluated_get(depsgraph).matrix_world)
        armature = objects[self.armature_name].evaluated_get(depsgraph)
        armature_world = world[len(self.object_names)]
        bones = armature.pose.bones
        flat = np.empty(len(bones) * 16, dtype=np.float32)
        bones.foreach_get("matrix", flat)  # column-major 4x4 per bone
        matrices = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[self.pose_order]
        # einsum, not `@`: BLAS threads cost more than the product (see timeline.inverse_3x3).
        world[1 + len(self.object_names):] = np.einsum('ij,njk->nik', armature_world, matrices)
        return world, mesh_world


def bpy_objects():
    import bpy
    return bpy.data.objects
