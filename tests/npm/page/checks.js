// The package's checks in the browser, as a three.js developer uses it: clonk.glb through
// GLTFLoader, its Walk through an AnimationMixer, wobble attached to the SkinnedMesh. The driver
// (npm_package_test.mjs) calls window.checks.* and compares with `wobble bake`.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { loadWobble } from '@wobble-fx/three';

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
    version: wobble.version,
  };
  fx.dispose();
  result.removed = fx.mesh.parent === null;
  return result;
}

// Per-frame costs (milliseconds; medians of `repetitions` batches of `frames` frames at 60 fps,
// frame k at k / 60 s, the clip looping): three.js's own frame without wobble (mixer, world
// matrices, render of the SkinnedMesh), and fx.update alone on a second copy, on wobble's 60 Hz
// grid and half a frame off it (where the sampler poses the mixer once more).
let renderer = null;
async function bench({ url = '/clonk.glb', clip = 'Walk', stacks = ['lbs,dynamic'], frames = 120, repetitions = 7 }) {
  const source = url === '/clonk.glb' ? clonk : await loadCharacter(url, clip);
  if (!renderer) {
    renderer = new THREE.WebGLRenderer();
    renderer.setSize(480, 320);
    document.body.append(renderer.domElement);
  }
  const camera = new THREE.PerspectiveCamera(35, 1.5, 0.5, 500);
  camera.position.set(0, 12, 60);
  const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
  const looping = (c) => { c.mixer.existingAction(source.clip).setLoop(THREE.LoopRepeat, Infinity); return c; };
  const timed = (body) => {
    const batches = [];
    for (let r = 0; r <= repetitions; ++r) {
      let spent = 0;
      for (let k = 0; k < frames; ++k) spent += body(r * frames + k);
      if (r > 0) batches.push(spent / frames);  // the first batch warms up
    }
    return median(batches);
  };
  const plain = looping(character(source));
  plain.scene.add(new THREE.HemisphereLight(0xffffff, 0x404040, 2));
  const result = { url, vertices: plain.mesh.geometry.attributes.position.count, crossOriginIsolated: self.crossOriginIsolated };
  result.three_frame_ms = timed(() => {
    const start = performance.now();
    plain.mixer.update(1 / 60);
    plain.scene.updateMatrixWorld();
    renderer.render(plain.scene, camera);
    return performance.now() - start;
  });
  for (const stack of stacks) {
    const c = looping(character(source));
    const fx = wobble.attach(c.mesh, { stack, mixer: c.mixer });
    const update = (offset) => (k) => {
      const t = (k + offset) / 60;
      c.mixer.setTime(t);
      c.scene.updateMatrixWorld();
      const start = performance.now();
      fx.update(t);
      return performance.now() - start;
    };
    result[stack] = { update_ms: timed(update(0)), off_grid_update_ms: timed(update(0.5)) };
    fx.dispose();
  }
  return result;
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

window.checks = { play, playPlain, badInputs, shape, bench };
window.checksReady = true;
