// The package's checks in the browser, as a three.js developer uses it: clonk.glb through
// GLTFLoader, its Walk through an AnimationMixer, wobble attached to the SkinnedMesh. The driver
// (npm_package_test.mjs) calls window.checks.* and compares with `wobble bake`.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { loadWobble, Wobble, WobbleEffect } from '@wobble-fx/three';

const wobble = await loadWobble();

async function loadCharacter(url, clipName) {
  const gltf = await new GLTFLoader().loadAsync(url);
  const clip = THREE.AnimationClip.findByName(gltf.animations, clipName) ?? gltf.animations[0];
  return { gltf, clip };
}
const clonk = await loadCharacter('/clonk.glb', 'Walk');

// A fresh copy of the character in its own scene, its clip played once and held at its end
// (as `wobble bake` holds the clip's last key).
function character(source = clonk) {
  const root = SkeletonUtils.clone(source.gltf.scene);
  const scene = new THREE.Scene();
  scene.add(root);
  let mesh = null;
  root.traverse((object) => { if (object.isSkinnedMesh && !mesh) mesh = object; });
  const mixer = new THREE.AnimationMixer(root);
  const action = mixer.clipAction(source.clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  return { scene, mesh, mixer, duration: source.clip.duration };
}

function worldPositions(fx) {
  const position = fx.mesh.geometry.attributes.position;
  const out = new Float32Array(3 * position.count);
  const v = new THREE.Vector3();
  for (let i = 0; i < position.count; ++i) {
    v.fromBufferAttribute(position, i).applyMatrix4(fx.mesh.matrixWorld);
    out.set([v.x, v.y, v.z], 3 * i);
  }
  return out;
}

function base64(arrays) {
  const bytes = new Uint8Array(arrays.reduce((n, a) => n + a.byteLength, 0));
  let offset = 0;
  for (const a of arrays) {
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offset);
    offset += a.byteLength;
  }
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// Plays the clip at `fps` from time 0 to its end (frames k / fps) with the effect; returns the
// world positions of the frames with k % every == 0, concatenated, as base64 float32.
// change: {frame, deformer, key, value}: fx.setParameter before that frame. sampled: false
// attaches without the mixer (wobble then holds each frame step's velocity between frames).
function play({ fps, every = 1, stack = 'lbs,dynamic', settings, change, sampled = true }) {
  const c = character();
  const fx = wobble.attach(c.mesh, { stack, settings, mixer: sampled ? c.mixer : undefined });
  const kept = [];
  const frames = Math.floor(c.duration * fps + 1e-9) + 1;
  for (let k = 0; k < frames; ++k) {
    const t = k / fps;
    if (change && k === change.frame) fx.setParameter(change.deformer, change.key, change.value);
    c.mixer.setTime(t);
    c.scene.updateMatrixWorld();
    fx.update(t);
    if (k % every === 0) kept.push(worldPositions(fx));
  }
  const result = { frames, kept: kept.length, vertices: fx.vertexCount, joints: fx.jointCount, positions: base64(kept) };
  fx.dispose();
  return result;
}

// Each bad input with the message it raised (or null when it raised nothing).
function badInputs() {
  const c = character();
  const attempt = (what) => {
    try {
      what();
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : `not an Error: ${error}`;
    }
  };
  const results = {};
  results.no_skin = attempt(() => wobble.attach(new THREE.Mesh(c.mesh.geometry, c.mesh.material)));
  const wide = c.mesh.clone();
  wide.geometry = c.mesh.geometry.clone();
  const n = wide.geometry.attributes.position.count;
  wide.geometry.setAttribute('skinIndex', new THREE.BufferAttribute(new Uint16Array(65 * n), 65));
  wide.geometry.setAttribute('skinWeight', new THREE.BufferAttribute(new Float32Array(65 * n).fill(1 / 65), 65));
  results.too_many_influences = attempt(() => wobble.attach(wide));
  const broken = c.mesh.clone();
  broken.geometry = c.mesh.geometry.clone();
  broken.geometry.attributes.position.setX(7, NaN);
  results.nan_position = attempt(() => wobble.attach(broken));
  results.unknown_deformer = attempt(() => wobble.attach(c.mesh, { stack: 'lbs,wobbly' }));
  results.morph_warning = morphWarning(c.mesh);
  results.unknown_key = attempt(() => wobble.attach(c.mesh, { settings: { dynamic: { amplitud: 1 } } }));
  results.nan_setting = attempt(() => wobble.attach(c.mesh, { settings: { dynamic: { amplitude: NaN } } }));
  const fx = wobble.attach(c.mesh, { stack: 'lbs,dynamic,deltamush', mixer: c.mixer });
  c.scene.updateMatrixWorld();
  results.nan_time = attempt(() => fx.update(NaN));
  results.nan_parameter = attempt(() => fx.setParameter('dynamic', 'amplitude', NaN));
  results.unknown_parameter = attempt(() => fx.setParameter('dynamic', 'wobbliness', 1));
  results.bind_parameter = attempt(() => fx.setParameter('deltamush', 'iterations', 3));
  results.out_of_range = attempt(() => fx.setParameter('dynamic', 'max_angle', 500));
  results.still_works = attempt(() => fx.update(0));
  fx.dispose();
  results.disposed_update = attempt(() => fx.update(0));
  results.disposed_set = attempt(() => fx.setParameter('dynamic', 'amplitude', 1));
  results.disposed_reset = attempt(() => fx.reset());
  results.dispose_twice = attempt(() => fx.dispose());
  results.source_visible_again = c.mesh.visible;
  return results;
}

// What attach() says of a mesh with a morph target (console.warn), or null.
function morphWarning(mesh) {
  const morphed = mesh.clone();
  morphed.geometry = mesh.geometry.clone();
  morphed.geometry.morphAttributes.position = [morphed.geometry.attributes.position.clone()];
  const warn = console.warn;
  let said = null;
  console.warn = (text) => { said = String(text); };
  try {
    wobble.attach(morphed).dispose();
  } finally {
    console.warn = warn;
  }
  return said;
}

// What attach() makes: fx.mesh beside the SkinnedMesh, culling bounds that hold every vertex.
function shape() {
  const c = character();
  const fx = wobble.attach(c.mesh, { mixer: c.mixer });
  c.mixer.setTime(0.5);
  c.scene.updateMatrixWorld();
  fx.update(0.5);
  const geometry = fx.mesh.geometry;
  const positions = worldPositions(fx);
  let outside = 0;
  const v = new THREE.Vector3();
  for (let i = 0; i < positions.length; i += 3) {
    v.fromArray(positions, i);
    if (geometry.boundingSphere.distanceToPoint(v) > 1e-4 * geometry.boundingSphere.radius) ++outside;
  }
  const result = {
    sameParent: fx.mesh.parent === c.mesh.parent,
    sourceHidden: !c.mesh.visible,
    sameMaterial: fx.mesh.material === c.mesh.material,
    dynamic: geometry.attributes.position.usage === THREE.DynamicDrawUsage,
    identityWorld: fx.mesh.matrixWorld.equals(new THREE.Matrix4()),
    outsideBounds: outside,
    descriptions: wobble.deformers().map((d) => d.name),
    classes: wobble instanceof Wobble && fx instanceof WobbleEffect,
    version: wobble.version,
  };
  fx.dispose();
  result.removed = fx.mesh.parent === null;
  return result;
}

// The clip played at `fps` from time 0 through `until` seconds (frames k / fps).
function playTo(c, fx, fps, until) {
  for (let k = 0; k <= Math.round(until * fps); ++k) {
    c.mixer.setTime(k / fps);
    c.scene.updateMatrixWorld();
    fx.update(k / fps);
  }
}

// three.js's own skinning of the SkinnedMesh's rest normals, world space: applyBoneTransform of
// p + n minus that of p is the weighted blend of the bones' linear parts applied to n, as linear
// blend skinning skins a direction (unnormalised; transformDirection normalises).
function threeSkinnedNormals(mesh) {
  const { position, normal } = mesh.geometry.attributes;
  const out = new Float32Array(3 * position.count);
  const p = new THREE.Vector3(), q = new THREE.Vector3(), n = new THREE.Vector3();
  for (let i = 0; i < position.count; ++i) {
    p.fromBufferAttribute(position, i);
    q.copy(p).add(n.fromBufferAttribute(normal, i));
    mesh.applyBoneTransform(i, p);
    mesh.applyBoneTransform(i, q);
    q.sub(p).transformDirection(mesh.matrixWorld).toArray(out, 3 * i);
  }
  return out;
}

// three.js's area-weighted vertex normals (computeVertexNormals) of fx.mesh's positions now, on
// its triangles.
function threeAreaNormals(fx) {
  const geometry = new THREE.BufferGeometry();
  geometry.setIndex(fx.mesh.geometry.index);
  geometry.setAttribute('position', new THREE.BufferAttribute(fx.mesh.geometry.attributes.position.array.slice(), 3));
  geometry.computeVertexNormals();
  return geometry.attributes.normal.array;
}

// Per vertex, whether its area-weighted normal is defined by the surface: the length of the sum
// of its triangles' area vectors is at least 1 % of the sum of their lengths (computed in
// doubles). Where triangles cancel (clonk has back-to-back pairs), the direction is rounding
// noise, different in any two implementations.
function wellDefinedNormals(fx) {
  const p = fx.mesh.geometry.attributes.position.array, index = fx.mesh.geometry.index.array;
  const sum = new Float64Array(p.length), lengths = new Float64Array(p.length / 3);
  const a = new THREE.Vector3(), b = new THREE.Vector3(), c = new THREE.Vector3();
  for (let t = 0; t < index.length; t += 3) {
    a.fromArray(p, 3 * index[t]);
    b.fromArray(p, 3 * index[t + 1]).sub(a);
    c.fromArray(p, 3 * index[t + 2]).sub(a);
    b.cross(c);
    for (let k = 0; k < 3; ++k) {
      const v = index[t + k];
      sum[3 * v] += b.x, sum[3 * v + 1] += b.y, sum[3 * v + 2] += b.z;
      lengths[v] += b.length();
    }
  }
  return lengths.map((length, v) => (Math.hypot(sum[3 * v], sum[3 * v + 1], sum[3 * v + 2]) >= 0.01 * length ? 1 : 0));
}

// The largest |a_i - b_i| over the vertices `compared` marks (all by default), and the largest
// | |a_i| - 1 | over all.
function normalErrors(a, b, compared = null) {
  let difference = 0, length = 0;
  for (let i = 0; i < a.length; i += 3) {
    if (!compared || compared[i / 3]) difference = Math.max(difference, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
    length = Math.max(length, Math.abs(Math.hypot(a[i], a[i + 1], a[i + 2]) - 1));
  }
  return { difference, length };
}

// The normals fx.update writes into fx.mesh at `time` of the Walk, against three.js's own
// computation of the same frame's: lbs,dynamic (dynamic moves positions only, so its normals are
// LBS's) against three.js's skinning of the rest normals; lbs,dynamic,deltamush (Delta Mush
// recomputes them on its result) against computeVertexNormals of the written positions, where
// the surface defines them (wellDefinedNormals). Also how far the rest normals are from them
// (what a check that never ran the pose would miss).
function normals({ time = 0.5 } = {}) {
  const result = {};
  for (const stack of ['lbs,dynamic', 'lbs,dynamic,deltamush']) {
    const c = character();
    const fx = wobble.attach(c.mesh, { stack, mixer: c.mixer });
    playTo(c, fx, 60, time);
    const got = fx.mesh.geometry.attributes.normal.array;
    const skinned = stack === 'lbs,dynamic';
    const expected = skinned ? threeSkinnedNormals(c.mesh) : threeAreaNormals(fx);
    const compared = skinned ? null : wellDefinedNormals(fx);
    const rest = c.mesh.geometry.attributes.normal.array;
    result[stack] = {
      ...normalErrors(got, expected, compared),
      fromRest: normalErrors(got, rest).difference,
      vertices: got.length / 3,
      compared: compared ? compared.reduce((n, x) => n + x, 0) : got.length / 3,
    };
    fx.dispose();
  }
  return result;
}

// Whether fx.update allocates: frames at 30 fps on the mixer path (wobble's sampler moves the
// mixer to the 60 Hz step between every two frames), `warmup` of them first (V8 optimises the
// code meanwhile); the position and normal arrays three.js reads must stay the same objects (a
// grown memory would detach them and index.js would take new views), and the module's memory
// buffer with them. The driver wraps runSteadyFrames in a heap profile of the JavaScript side.
let steady = null;
function startSteadyFrames({ stack = 'lbs,dynamic,deltamush', warmup = 600 } = {}) {
  const c = character();
  c.mixer.existingAction(clonk.clip).setLoop(THREE.LoopRepeat, Infinity);
  const fx = wobble.attach(c.mesh, { stack, mixer: c.mixer });
  let k = 0;
  const run = (frames) => {
    for (const end = k + frames; k < end; ++k) {
      c.mixer.setTime(k / 30);
      c.scene.updateMatrixWorld();
      fx.update(k / 30);
    }
  };
  run(warmup);
  const { position, normal } = fx.mesh.geometry.attributes;
  steady = { fx, run, position: position.array, normal: normal.array, buffer: position.array.buffer, bytes: position.array.buffer.byteLength };
}
function runSteadyFrames(frames) {
  steady.run(frames);
}
function endSteadyFrames() {
  const { fx, position, normal, buffer, bytes } = steady;
  const now = fx.mesh.geometry.attributes;
  const result = {
    samePosition: now.position.array === position,
    sameNormal: now.normal.array === normal,
    sameBuffer: now.position.array.buffer === buffer && buffer.byteLength === bytes,
    memoryBytes: bytes,
  };
  fx.dispose();
  steady = null;
  return result;
}

// The module's memory grown inside fx.update (as any allocation of the C++ side may grow it):
// the mixer that one effect's pose sampler moves between frames allocates 64 MiB in the module
// the first time it runs within that effect's update (the sampler is called from inside
// wobble_stack_evaluate). Another effect attached beside it keeps its arrays. Afterwards both
// effects' position and normal arrays must be views of the new memory (a detached view reads as
// empty), hold what a twin effect without the growth writes (same stack, same frames), and the
// other effect's arrays hold what they held before; the bounding box stays finite.
function memoryGrowth({ stack = 'lbs,dynamic', fps = 30, frames = 12 } = {}) {
  const module = wobble._heap.module;  // the test reaches into the module only to grow it
  const make = () => {
    const c = character();
    return { c, fx: wobble.attach(c.mesh, { stack, mixer: c.mixer }) };
  };
  const grown = make(), twin = make(), other = make();
  const update = grown.c.mixer.update.bind(grown.c.mixer);
  let growNow = false, block = 0;
  grown.c.mixer.update = (delta) => {
    if (growNow && !block) block = module._malloc(64 << 20);
    return update(delta);
  };
  const step = ({ c, fx }, t, last = false) => {
    c.mixer.setTime(t);
    c.scene.updateMatrixWorld();
    growNow = last;
    fx.update(t);
    growNow = false;
  };
  step(other, 0);
  const otherBefore = other.fx.mesh.geometry.attributes.position.array.slice();
  let bytesBefore = 0, bytesAfter = 0, grewInUpdate = false;
  for (let k = 0; k < frames; ++k) {
    step(twin, k / fps);
    const buffer = module.HEAPF32.buffer, bytes = buffer.byteLength;
    const last = k === frames - 1;
    step(grown, k / fps, last);
    if (last) {
      grewInUpdate = module.HEAPF32.buffer !== buffer;
      bytesBefore = bytes, bytesAfter = module.HEAPF32.buffer.byteLength;
    }
  }
  const live = (fx) => ['position', 'normal'].every((name) => {
    const array = fx.mesh.geometry.attributes[name].array;
    return array.buffer === module.HEAPF32.buffer && array.length === 3 * fx.vertexCount;
  });
  const detached = (a) => a.buffer.byteLength === 0;
  const largest = (a, b) => (detached(a) || detached(b) ? Infinity : a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0));
  const box = grown.fx.mesh.geometry.boundingBox;
  const result = {
    grewInUpdate, bytesBefore, bytesAfter,
    grownLive: live(grown.fx), otherLive: live(other.fx),
    positionsFromTwin: largest(grown.fx.mesh.geometry.attributes.position.array, twin.fx.mesh.geometry.attributes.position.array),
    normalsFromTwin: largest(grown.fx.mesh.geometry.attributes.normal.array, twin.fx.mesh.geometry.attributes.normal.array),
    otherChanged: largest(other.fx.mesh.geometry.attributes.position.array, otherBefore),
    finiteBox: [box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z].every(Number.isFinite),
  };
  for (const { fx } of [grown, twin, other]) fx.dispose();
  module._free(block);
  return result;
}

// The benchmark's frames (bench/web_npm.mjs): copies of a character set up once, then loops of
// frames that the driver brackets with the main thread's CPU time (so that the time the page
// waited for a core on a shared machine does not count); each loop also returns its wall time.
// No rendering: under headless SwiftShader a draw is the CPU emulating a GPU, not three.js's cost.
let benchCopies = null;
async function benchSetup({ url, clip = 'Walk', stacks }) {
  benchDispose();
  const source = url === '/clonk.glb' ? clonk : await loadCharacter(url, clip);
  const looping = (c) => {
    c.mixer.existingAction(source.clip).setLoop(THREE.LoopRepeat, Infinity);
    return { ...c, next: 0 };
  };
  benchCopies = { plain: looping(character(source)), stacks: {} };
  for (const stack of stacks) {
    const c = looping(character(source));
    benchCopies.stacks[stack] = { ...c, fx: wobble.attach(c.mesh, { stack, mixer: c.mixer }) };
  }
  const position = benchCopies.plain.mesh.geometry.attributes.position;
  benchCopies.skinned = new Float32Array(3 * position.count);
  return { vertices: position.count, crossOriginIsolated: self.crossOriginIsolated };
}

function benchDispose() {
  if (benchCopies) for (const { fx } of Object.values(benchCopies.stacks)) fx.dispose();
  benchCopies = null;
}

// three.js's own CPU work of a frame at time t when the GPU skins: the mixer, the world matrices,
// the bone matrices it would upload.
function threeFrame(c, t) {
  c.mixer.setTime(t);
  c.scene.updateMatrixWorld();
  c.mesh.skeleton.update();
}

// `frames` frames at 60 fps, frame k at (k + offset) / 60 s, k going on from the copy's last loop
// (offset 0.5: half a frame off wobble's 60 Hz grid, where its sampler poses the mixer once more):
//   what 'three': threeFrame on the plain copy;
//   what 'skinning': the same plus three.js's CPU vertex skinning, SkinnedMesh.applyBoneTransform
//     over every vertex into a Float32Array (positions only);
//   what a stack: threeFrame on that stack's copy plus fx.update.
// Returns the loop's wall time in milliseconds.
function benchLoop({ what, frames, offset = 0 }) {
  const c = benchCopies.stacks[what] ?? benchCopies.plain;
  const position = c.mesh.geometry.attributes.position, skinned = benchCopies.skinned;
  const v = new THREE.Vector3();
  const start = performance.now();
  for (let f = 0; f < frames; ++f, ++c.next) {
    const t = (c.next + offset) / 60;
    threeFrame(c, t);
    if (c.fx) c.fx.update(t);
    if (what === 'skinning') {
      for (let i = 0; i < position.count; ++i) c.mesh.applyBoneTransform(i, v.fromBufferAttribute(position, i)).toArray(skinned, 3 * i);
    }
  }
  return performance.now() - start;
}

// A plain glTF as any three.js page plays it, without wobble (the helper-bone bakes of
// `wobble bake --helper-bones`): its first animation through a mixer, every SkinnedMesh skinned
// on the CPU by three itself (getVertexPosition: the shader's skinning), world positions of the
// frames k / fps in the scene's order of meshes, as wobble's PC2 concatenates primitives.
async function playPlain({ url, fps }) {
  const gltf = await new GLTFLoader().loadAsync(url);
  const scene = new THREE.Scene();
  scene.add(gltf.scene);
  const meshes = [];
  gltf.scene.traverse((object) => { if (object.isSkinnedMesh) meshes.push(object); });
  const clip = gltf.animations[0];
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const frames = Math.floor(clip.duration * fps + 1e-9) + 1;
  const vertices = meshes.reduce((n, mesh) => n + mesh.geometry.attributes.position.count, 0);
  const out = new Float32Array(3 * vertices * frames);
  const v = new THREE.Vector3();
  let at = 0;
  for (let k = 0; k < frames; ++k) {
    mixer.setTime(k / fps);
    scene.updateMatrixWorld();
    for (const mesh of meshes) {
      mesh.skeleton.update();
      for (let i = 0; i < mesh.geometry.attributes.position.count; ++i, at += 3) {
        mesh.getVertexPosition(i, v).applyMatrix4(mesh.matrixWorld);
        out.set([v.x, v.y, v.z], at);
      }
    }
  }
  const bones = meshes.length ? meshes[0].skeleton.bones : [];
  return {
    frames, vertices, meshes: meshes.length, tracks: clip.tracks.length,
    helpers: bones.filter((bone) => bone.name.startsWith('wobble_helper_')).length,
    morphTargets: meshes.some((mesh) => Object.keys(mesh.geometry.morphAttributes).length > 0),
    positions: base64([out]),
  };
}

window.checks = { play, playPlain, badInputs, shape, normals, startSteadyFrames, runSteadyFrames, endSteadyFrames, memoryGrowth, benchSetup, benchLoop, benchDispose };
window.checksReady = true;
