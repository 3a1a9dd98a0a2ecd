// @wobble-fx/three: wobble's Dynamic Skinning and Delta Mush for three.js characters.
// loadWobble() instantiates the WebAssembly module (wobble's runtime and C API, dist/); each
// wobble.attach(skinnedMesh) binds a deformer stack to one SkinnedMesh and shows its result in a
// plain Mesh beside it (fx.mesh), whose position and normal attributes are views into the module's
// memory that fx.update(time) writes in place. Errors are the C API's messages (wobble.h).
import createWobbleModule from './dist/wobble-wasm.js';
import { AttachedBindMode, BufferAttribute, BufferGeometry, DynamicDrawUsage, Mesh, Matrix4 } from 'three';
import { MixerState } from './mixer-state.js';

const FLOAT = 4;
const MATRIX = 16;

/** Loads the WebAssembly module; `options.wasmUrl` says where wobble-wasm.wasm is served (by
 * default next to this module, in dist/). */
export async function loadWobble(options = {}) {
  const wasmUrl = options.wasmUrl ?? new URL('./dist/wobble-wasm.wasm', import.meta.url).href;
  const module = await createWobbleModule({
    locateFile: (file, prefix) => (file.endsWith('.wasm') ? String(wasmUrl) : prefix + file),
    print: (text) => console.log(text),
    printErr: (text) => console.warn(text),
  });
  return new Wobble(module);
}

// The module's memory, strings and status codes.
class Heap {
  constructor(module) {
    this.module = module;
    this.scratch = module._malloc(16);  // out-parameters (pointers)
  }
  f32(pointer, count) { return new Float32Array(this.module.HEAPF32.buffer, pointer, count); }
  get buffer() { return this.module.HEAPF32.buffer; }
  alloc(bytes) {
    const pointer = this.module._malloc(Math.max(bytes, 4));
    if (!pointer) throw new Error(`wobble: out of memory (${bytes} bytes)`);
    return pointer;
  }
  free(pointer) { if (pointer) this.module._free(pointer); }
  // A NUL-terminated UTF-8 copy of text, for one call; free it afterwards.
  string(text) {
    const bytes = this.module.lengthBytesUTF8(text) + 1;
    const pointer = this.alloc(bytes);
    this.module.stringToUTF8(text, pointer, bytes);
    return pointer;
  }
  text(pointer) { return pointer ? this.module.UTF8ToString(pointer) : ''; }
  pointerOut() { return this.module.HEAPU32[this.scratch >> 2]; }
  lastError() { return this.text(this.module._wobble_last_error()); }
  // Throws the C API's message when status is not WOBBLE_OK (0).
  check(status, call) {
    if (status !== 0) throw new Error(`${call}: ${this.lastError()}`);
  }
}

/** The loaded module: deformer descriptions and attach(). */
export class Wobble {
  constructor(module) {
    this._heap = new Heap(module);
    this._effects = new Map();  // id -> WobbleEffect, for the pose sampler and memory growth
    this._nextId = 1;
    this._sampler = module.addFunction((time, matrices, joints, id) => {
      const effect = this._effects.get(id);
      return effect ? effect._sample(time, matrices, joints) : 1;
    }, 'idiii');
    this.version = this._heap.text(module._wobble_version());
  }

  /** Every deformer with its parameters: the JSON of `wobble deformers --json`. */
  deformers() {
    const heap = this._heap;
    const status = heap.module._wobble_deformer_descriptions(heap.scratch);
    this._refreshViews();  // the first call builds the descriptions in the module's memory
    heap.check(status, 'wobble.deformers');
    return JSON.parse(heap.text(heap.pointerOut()));
  }

  /** Binds a deformer stack to a SkinnedMesh; see index.d.ts (AttachOptions). */
  attach(skinnedMesh, options = {}) {
    const id = this._nextId++;
    const effect = new WobbleEffect(this, id, skinnedMesh, options);
    this._effects.set(id, effect);
    this._refreshViews();
    return effect;
  }

  // After any call into the module that may have grown its memory (the old views are then
  // detached): every live effect takes its views again. Map.forEach with a function made once
  // allocates nothing (update() calls this every frame).
  _refreshViews() {
    this._effects.forEach(takeViewsOf);
  }
}

function takeViewsOf(effect) {
  effect._takeViews();
}

// Stands in for the mixer's dispatchEvent while the sampler moves it (its events held back).
function holdEvent() {}

// The joints wobble sees: the skeleton's bones and their ancestors that are not bones (an armature
// node, glTF's root nodes), as wobble's glTF reader makes them joints, parents first.
function collectJoints(bones) {
  const members = new Set(bones);
  for (const bone of bones) {
    for (let p = bone.parent; p && !p.isScene && !members.has(p); p = p.parent) members.add(p);
  }
  const order = [];
  const visit = (object) => {
    order.push(object);
    for (const child of object.children) if (members.has(child)) visit(child);
  };
  for (const object of members) if (!members.has(object.parent)) visit(object);
  return order;
}

function requireSkin(mesh) {
  const name = mesh && mesh.name ? `'${mesh.name}'` : 'the mesh';
  const geometry = mesh && mesh.geometry;
  const attributes = geometry && geometry.attributes;
  if (!mesh || !mesh.isSkinnedMesh || !mesh.skeleton || !attributes || !attributes.position ||
      !attributes.skinIndex || !attributes.skinWeight) {
    throw new Error(`wobble.attach: ${name} has no skin: a SkinnedMesh with a skeleton and the attributes position, skinIndex and skinWeight is needed`);
  }
  if (attributes.skinIndex.itemSize !== attributes.skinWeight.itemSize) {
    throw new Error(`wobble.attach: ${name}: skinIndex has ${attributes.skinIndex.itemSize} components, skinWeight ${attributes.skinWeight.itemSize}`);
  }
}

// wobble deforms the rest positions: morph targets would be dropped without a word otherwise.
function warnOfMorphTargets(mesh) {
  const morphs = Object.values(mesh.geometry.morphAttributes).reduce((n, list) => Math.max(n, list.length), 0);
  if (morphs > 0) {
    console.warn(`wobble.attach: ${mesh.name ? `'${mesh.name}'` : 'the mesh'} has ${morphs} morph target${morphs === 1 ? '' : 's'}; wobble does not carry them over (fx.mesh shows the shape without them)`);
  }
}

// Three floats per item of a (possibly interleaved or normalised) attribute.
function readRows(attribute, target) {
  for (let i = 0; i < attribute.count; ++i) {
    target[3 * i] = attribute.getX(i);
    target[3 * i + 1] = attribute.getY(i);
    target[3 * i + 2] = attribute.getZ(i);
  }
}

// The deformed mesh: the source's material, index, uvs and colours, its own dynamic position and
// normal attributes; world space (its matrixWorld stays the identity).
function resultMesh(source) {
  const geometry = new BufferGeometry();
  const from = source.geometry;
  if (from.index) geometry.setIndex(from.index);
  for (const [name, attribute] of Object.entries(from.attributes)) {
    if (!['position', 'normal', 'skinIndex', 'skinWeight', 'tangent'].includes(name)) geometry.setAttribute(name, attribute);
  }
  for (const group of from.groups) geometry.addGroup(group.start, group.count, group.materialIndex);
  geometry.setDrawRange(from.drawRange.start, from.drawRange.count);
  const mesh = new Mesh(geometry, source.material);
  mesh.name = source.name ? `${source.name} (wobble)` : 'wobble';
  mesh.matrixAutoUpdate = false;
  mesh.matrixWorldAutoUpdate = false;
  for (const key of ['castShadow', 'receiveShadow', 'frustumCulled', 'renderOrder']) mesh[key] = source[key];
  return mesh;
}

/** One SkinnedMesh with its deformer stack (wobble.attach). */
export class WobbleEffect {
  constructor(wobble, id, skinnedMesh, options) {
    requireSkin(skinnedMesh);
    warnOfMorphTargets(skinnedMesh);
    this._wobble = wobble;
    this._heap = wobble._heap;
    this._id = id;
    this.source = skinnedMesh;
    this.stack = options.stack ?? 'lbs,dynamic';
    this._mixer = options.mixer ?? null;
    this._joints = collectJoints(skinnedMesh.skeleton.bones);
    this._parentIndex = this._joints.map((object) => this._joints.indexOf(object.parent));
    this._pointers = [];
    this._character = 0;
    this._stack = 0;
    try {
      this._createCharacter(skinnedMesh);
      this._createStack(options.settings);
    } catch (error) {
      this._free();
      throw error;
    }
    this.vertexCount = skinnedMesh.geometry.attributes.position.count;
    this.jointCount = this._joints.length;
    this.mesh = resultMesh(skinnedMesh);
    this._box = this._keep(6 * FLOAT);
    this._matrix = new Matrix4();
    this._started = false;
    this._lastTime = 0;
    this._historyStart = 0;
    this._sampling = new MixerState();  // the mixer's state while the sampler has moved it
    this._samplerError = null;
    this._takeViews();
    const position = new BufferAttribute(this._positionsView, 3).setUsage(DynamicDrawUsage);
    const normal = new BufferAttribute(this._normalsView, 3).setUsage(DynamicDrawUsage);
    this.mesh.geometry.setAttribute('position', position);
    this.mesh.geometry.setAttribute('normal', normal);
    this._sourceWasVisible = skinnedMesh.visible;
    skinnedMesh.visible = false;
    if (skinnedMesh.parent) skinnedMesh.parent.add(this.mesh);
  }

  _keep(bytes) {
    const pointer = this._heap.alloc(bytes);
    this._pointers.push(pointer);
    return pointer;
  }

  // wobble_character_create from the geometry, the joints and the skin.
  _createCharacter(mesh) {
    const heap = this._heap, module = heap.module, geometry = mesh.geometry;
    const n = geometry.attributes.position.count;
    const joints = this._joints, bones = mesh.skeleton.bones;
    const k = geometry.attributes.skinIndex.itemSize;
    const jointOf = new Map(joints.map((object, j) => [object, j]));  // bone -> joint
    const positions = this._keep(3 * n * FLOAT);
    readRows(geometry.attributes.position, heap.f32(positions, 3 * n));
    let normals = 0;
    if (geometry.attributes.normal) {
      normals = this._keep(3 * n * FLOAT);
      readRows(geometry.attributes.normal, heap.f32(normals, 3 * n));
    }
    const index = geometry.index;
    const corners = index ? index.count : n;
    const triangles = this._keep(corners * 4);
    const triangleView = new Uint32Array(heap.buffer, triangles, corners);
    for (let c = 0; c < corners; ++c) triangleView[c] = index ? index.getX(c) : c;
    const parents = this._keep(joints.length * 4);
    new Int32Array(heap.buffer, parents, joints.length).set(this._parentIndex);
    // Inverse bind matrices in the space of the geometry: three.js skins bindMatrix * position.
    const inverseBind = this._keep(joints.length * MATRIX * FLOAT);
    const inverseView = heap.f32(inverseBind, joints.length * MATRIX);
    const matrix = new Matrix4();
    joints.forEach((object, j) => {
      const b = bones.indexOf(object);
      if (b >= 0) matrix.multiplyMatrices(mesh.skeleton.boneInverses[b], mesh.bindMatrix);
      else matrix.identity();  // a helper joint, as wobble's glTF reader makes them
      inverseView.set(matrix.elements, j * MATRIX);
    });
    const influenceJoints = this._keep(n * k * 2), influenceWeights = this._keep(n * k * FLOAT);
    const jointView = new Uint16Array(heap.buffer, influenceJoints, n * k);
    const weightView = heap.f32(influenceWeights, n * k);
    const skinIndex = geometry.attributes.skinIndex, skinWeight = geometry.attributes.skinWeight;
    for (let v = 0; v < n; ++v) {
      for (let s = 0; s < k; ++s) {
        const weight = skinWeight.getComponent(v, s);
        const bone = skinIndex.getComponent(v, s);
        weightView[v * k + s] = weight;
        if (weight !== 0 && !(bone >= 0 && bone < bones.length && Number.isInteger(bone))) {
          throw new Error(`wobble.attach: vertex ${v} uses bone ${bone}, the skeleton has ${bones.length}`);
        }
        jointView[v * k + s] = weight !== 0 ? jointOf.get(bones[bone]) : 0;
      }
    }
    heap.check(module._wobble_web_character_create(n, positions, normals, corners / 3, triangles, joints.length, parents,
                                                   inverseBind, k, influenceJoints, influenceWeights, heap.scratch),
               'wobble.attach');
    this._character = heap.pointerOut();
    this._setJointNames();
    // What the stack needs every frame: world matrices in, positions and normals out.
    this._matrices = this._keep(joints.length * MATRIX * FLOAT);
    this._positions = this._keep(3 * n * FLOAT);
    this._normals = this._keep(3 * n * FLOAT);
  }

  // Settings name joints (dynamic's per-joint table) by their three.js names, where those are
  // non-empty and unique; any other joint keeps wobble's name joint<j>.
  _setJointNames() {
    const heap = this._heap;
    const counts = new Map();
    for (const object of this._joints) counts.set(object.name, (counts.get(object.name) ?? 0) + 1);
    const names = this._joints.map((object, j) => (object.name && counts.get(object.name) === 1 ? object.name : `joint${j}`));
    if (new Set(names).size !== names.length) return;  // a bone named like another's fallback
    const strings = names.map((name) => heap.string(name));
    const table = heap.alloc(4 * names.length);
    try {
      new Uint32Array(heap.buffer, table, names.length).set(strings);
      heap.check(heap.module._wobble_character_set_joint_names(this._character, table, names.length), 'wobble.attach');
    } finally {
      strings.forEach((pointer) => heap.free(pointer));
      heap.free(table);
    }
  }

  _createStack(settings) {
    const heap = this._heap, module = heap.module;
    const stackText = heap.string(String(this.stack));
    const settingsText = heap.string(settings === undefined ? '' : settingsJson(settings));
    try {
      heap.check(module._wobble_stack_create(this._character, stackText, settingsText, 1, heap.scratch), 'wobble.attach');
      this._stack = heap.pointerOut();
    } finally {
      heap.free(stackText);
      heap.free(settingsText);
    }
    if (this._mixer) heap.check(module._wobble_stack_set_pose_sampler(this._stack, this._wobble._sampler, this._id), 'wobble.attach');
  }

  // The views into the module's memory, taken again when it has grown (the old ones are detached).
  _takeViews() {
    if (this._viewBuffer === this._heap.buffer) return;
    const heap = this._heap, n = this.vertexCount;
    this._viewBuffer = heap.buffer;
    this._positionsView = heap.f32(this._positions, 3 * n);
    this._normalsView = heap.f32(this._normals, 3 * n);
    this._matricesView = heap.f32(this._matrices, this.jointCount * MATRIX);
    this._boxView = heap.f32(this._box, 6);
    const attributes = this.mesh && this.mesh.geometry.attributes;
    if (attributes && attributes.position) {
      attributes.position.array = this._positionsView;
      attributes.normal.array = this._normalsView;
    }
  }

  _alive(call) {
    if (!this._stack) throw new Error(`${call}: this wobble effect was disposed`);
  }

  // The joints' world matrices now, into the module's memory at `view`.
  _writeMatrices(view) {
    const mesh = this.source;
    const detached = mesh.bindMode !== AttachedBindMode;
    if (detached) this._matrix.multiplyMatrices(mesh.matrixWorld, mesh.bindMatrixInverse);
    for (let j = 0; j < this._joints.length; ++j) {
      const world = this._joints[j].matrixWorld;
      view.set(detached ? this._scratch().multiplyMatrices(this._matrix, world).elements : world.elements, j * MATRIX);
    }
  }

  _scratch() {
    if (!this._scratchMatrix) this._scratchMatrix = new Matrix4();
    return this._scratchMatrix;
  }

  // The joints' world matrices from their local transforms, parents first (the sampler's poses).
  _updateJointMatrices() {
    for (let j = 0; j < this._joints.length; ++j) {
      const object = this._joints[j];
      if (object.matrixAutoUpdate) object.updateMatrix();
      if (this._parentIndex[j] >= 0) object.matrixWorld.multiplyMatrices(object.parent.matrixWorld, object.matrix);
      else object.updateWorldMatrix(true, false);
    }
  }

  /** Deforms the mesh for the frame at `time` (seconds) from the bones' current world matrices. */
  update(time) {
    this._alive('fx.update');
    this._takeViews();
    if (!this._started || time < this._lastTime) this._historyStart = time;
    this._writeMatrices(this._matricesView);
    this._frameTime = time;
    const status = this._heap.module._wobble_web_evaluate(this._stack, time, this._matrices, this.jointCount,
                                                          this._positions, this._normals);
    this._wobble._refreshViews();  // before _updateBounds and three.js read them
    this._endSampling();
    if (this._samplerError) {
      const error = this._samplerError;
      this._samplerError = null;
      throw error;
    }
    this._heap.check(status, 'fx.update');
    this._started = true;
    this._lastTime = time;
    const geometry = this.mesh.geometry;
    geometry.attributes.position.needsUpdate = true;
    geometry.attributes.normal.needsUpdate = true;
    this._updateBounds(geometry);
  }

  _updateBounds(geometry) {
    this._heap.module._wobble_web_bounds(this._positions, this.vertexCount, this._box);
    const b = this._boxView;
    if (!geometry.boundingBox) geometry.computeBoundingBox();
    if (!geometry.boundingSphere) geometry.computeBoundingSphere();
    geometry.boundingBox.min.set(b[0], b[1], b[2]);
    geometry.boundingBox.max.set(b[3], b[4], b[5]);
    geometry.boundingBox.getBoundingSphere(geometry.boundingSphere);
  }

  // The pose sampler (wobble_pose_sampler): the mixer's pose at `time`, the frame's pose held
  // before the history's start (as `wobble bake` holds the first frame's). Returns 0, or 1 with
  // the error kept for update() to throw.
  _sample(time, matrices, joints) {
    try {
      if (time > this._historyStart) this._poseMixer(time - this._frameTime);
      else this._endSampling();
      if (this._sampleView?.byteOffset !== matrices || this._sampleView.buffer !== this._heap.buffer) {
        this._sampleView = this._heap.f32(matrices, joints * MATRIX);
      }
      this._writeMatrices(this._sampleView);
      return 0;
    } catch (error) {
      this._samplerError = error;
      return 1;
    }
  }

  // The mixer moved by `delta` seconds from the frame's state; its events held back meanwhile.
  _poseMixer(delta) {
    const mixer = this._mixer, saved = this._sampling;
    if (!saved.active) {
      saved.save(mixer);
      mixer.dispatchEvent = holdEvent;
    } else {
      saved.restore(mixer);
    }
    mixer.update(delta);
    this._updateJointMatrices();
  }

  // Back to the frame's pose after sampling: the mixer's state, its pose, the joints' matrices.
  _endSampling() {
    const saved = this._sampling;
    if (!saved.active) return;
    saved.restore(this._mixer);
    this._mixer.update(0);
    this._mixer.dispatchEvent = saved.dispatch;
    saved.active = false;
    this._updateJointMatrices();
  }

  /** Changes one live parameter between frames; the motion goes on. */
  setParameter(deformer, key, value) {
    this._alive('fx.setParameter');
    const heap = this._heap, module = heap.module;
    const d = heap.string(String(deformer)), k = heap.string(String(key));
    const json = typeof value === 'number' ? 0 : heap.string(settingsJson(value));
    try {
      const status = json ? module._wobble_stack_set_parameter_json(this._stack, d, k, json)
                          : module._wobble_stack_set_parameter(this._stack, d, k, value);
      heap.check(status, 'fx.setParameter');
    } finally {
      heap.free(d), heap.free(k), heap.free(json);
      this._wobble._refreshViews();
    }
  }

  /** The settings the stack runs with now (what differs from the defaults). */
  settings() {
    this._alive('fx.settings');
    const heap = this._heap;
    const status = heap.module._wobble_stack_settings(this._stack, heap.scratch);
    this._wobble._refreshViews();
    heap.check(status, 'fx.settings');
    return JSON.parse(heap.text(heap.pointerOut()));
  }

  /** Forgets the motion's history (after a cut or a jump in time). */
  reset() {
    this._alive('fx.reset');
    const status = this._heap.module._wobble_stack_reset(this._stack);
    this._wobble._refreshViews();
    this._heap.check(status, 'fx.reset');
    this._started = false;
  }

  /** Frees the WebAssembly side, removes fx.mesh and shows the SkinnedMesh again. */
  dispose() {
    if (!this._stack && !this._character) return;
    this._free();
    this._wobble._effects.delete(this._id);
    if (this.mesh) {
      this.mesh.removeFromParent();
      this.mesh.geometry.dispose();
      this.source.visible = this._sourceWasVisible;
    }
  }

  _free() {
    const module = this._heap.module;
    if (this._stack) module._wobble_stack_destroy(this._stack);
    if (this._character) module._wobble_character_destroy(this._character);
    this._stack = this._character = 0;
    this._pointers.forEach((pointer) => this._heap.free(pointer));
    this._pointers = [];
  }
}

// Settings as JSON text; a number that JSON cannot hold (NaN, Infinity) is written as text, so
// that the C API names its key and value ("dynamic.amplitude: expected a number, got "NaN"")
// instead of reading null.
function settingsJson(value) {
  const text = JSON.stringify(value, (key, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
  return text === undefined ? 'null' : text;
}
