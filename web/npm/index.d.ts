// Type declarations of @wobble-fx/three (written by hand: the module is Emscripten's, index.js
// wraps it). Every Error thrown carries the C API's one-line message (include/wobble/wobble.h),
// prefixed with the call that failed ("wobble.attach: ...", "fx.update: ...").
import type { AnimationMixer, Mesh, SkinnedMesh } from 'three';

export interface LoadOptions {
  /** Where wobble-wasm.wasm is served; by default next to the module (dist/wobble-wasm.wasm). */
  wasmUrl?: string | URL;
}

/** Loads and instantiates the WebAssembly module. */
export function loadWobble(options?: LoadOptions): Promise<Wobble>;

/** A deformer's settings: parameter key -> value (docs/parameters.md; `wobble.deformers()`). */
export type DeformerSettings = Record<string, unknown>;
/** One section per deformer, as `wobble bake --settings` reads them: {dynamic: {amplitude: 0.5}}. */
export type StackSettings = Record<string, DeformerSettings>;

/** A keyframed live number: {"keys": [[time, value], ...], "interpolation": "linear" | "step"}. */
export interface Keyframes {
  keys: Array<[number, number]>;
  interpolation?: 'linear' | 'step';
}

export interface AttachOptions {
  /** Deformers in order, one base skinning first: "lbs,dynamic" (the default), "lbs,dynamic,deltamush", "dqs", "lbs,ddm". */
  stack?: string;
  /** Every parameter at once, one section per deformer. */
  settings?: StackSettings;
  /** The mixer that animates the skeleton. With it, wobble samples the animation on its own 60 Hz
   * clock between frames (the mixer is moved to those times and back, its events held), so that
   * 30, 60 and 144 fps give the same motion at the same times; fx.update's time must then run
   * with the mixer's (the seconds it was updated by). Without it, the velocity of each frame step
   * is held between frames. */
  mixer?: AnimationMixer;
}

/** One parameter of a deformer, as `wobble deformers --json` gives it. */
export interface ParameterDescription {
  key: string;
  flag: string;
  type: 'number' | 'integer' | 'boolean' | 'choice' | 'text' | 'vertex_array' | 'vector3' | 'joint_table';
  unit: string;
  default: unknown;
  minimum: number | null;
  maximum: number | null;
  minimum_exclusive: boolean;
  maximum_exclusive: boolean;
  /** A slider's range. */
  soft_minimum: number | null;
  soft_maximum: number | null;
  choices: string[];
  /** "live": fx.setParameter takes it; "bind": only attach's settings. */
  lifetime: 'live' | 'bind';
  optional: boolean;
  attribute_allowed: boolean;
  help: string;
  /** Joint tables: the fields of one joint's entry. */
  fields?: ParameterDescription[];
}

export interface DeformerDescription {
  name: string;
  stage: 'base' | 'effect' | 'post';
  summary: string;
  parameters: ParameterDescription[];
}

/** The loaded module (index.js exports the class; made by loadWobble, not by `new`). */
export class Wobble {
  private constructor();
  /** The runtime's version, "MAJOR.MINOR.PATCH". */
  readonly version: string;
  /** Every deformer with its parameters, for building a UI. */
  deformers(): DeformerDescription[];
  /** Reads the SkinnedMesh's geometry, skeleton and skin (4 influences from GLTFLoader; up to 64
   * with wider skinIndex/skinWeight attributes) and binds the stack once. Hides the SkinnedMesh
   * and adds `fx.mesh` beside it (same parent). */
  attach(skinnedMesh: SkinnedMesh, options?: AttachOptions): WobbleEffect;
}

/** One SkinnedMesh with its deformer stack (index.js exports the class; made by
 * `wobble.attach`, not by `new`). */
export class WobbleEffect {
  private constructor();
  /** The plain Mesh that shows the result: the SkinnedMesh's material, index and uvs, its own
   * position and normal attributes (DynamicDrawUsage; world-space values, views into the module's
   * memory, written in place by update); its matrixWorld stays the identity, so the position
   * attribute transformed by it gives world-space vertices. */
  readonly mesh: Mesh;
  /** The SkinnedMesh it deforms (hidden while attached). */
  readonly source: SkinnedMesh;
  readonly stack: string;
  readonly vertexCount: number;
  /** The skeleton's bones and their ancestors that are not bones (helper joints). */
  readonly jointCount: number;
  /** Deforms the mesh for the frame at `time` (seconds), from the bones' world matrices: call it
   * after the AnimationMixer and scene.updateMatrixWorld(). Allocates nothing in WebAssembly.
   * Going back in time starts the motion's history again. */
  update(time: number): void;
  /** Changes one live parameter between frames; the motion goes on. Numbers as numbers; other
   * types (booleans, choices, keyframes, dynamic's joint table) as their JSON values. */
  setParameter(deformer: string, key: string, value: number | boolean | string | Keyframes | object): void;
  /** The settings the stack runs with now (what differs from the defaults). */
  settings(): StackSettings;
  /** Forgets the motion's history (after a cut or a teleport). */
  reset(): void;
  /** Frees the WebAssembly side, removes `mesh` and shows the SkinnedMesh again. Any later call
   * but dispose() throws an Error. */
  dispose(): void;
}
