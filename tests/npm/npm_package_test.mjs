// The npm package (web/npm, @wobble-fx/three) as a three.js developer uses it: `npm pack`, the
// tarball and three installed from npm into a fresh project, the example and tests/npm/page
// served from it, headless Chromium (playwright-core) checking against `wobble bake`:
//   (a) the Walk at 60 fps equals `wobble bake --fps 60 --deformer lbs,dynamic` (PC2);
//   (b) the same clip at 30 and at 144 fps gives the same positions at their common times;
//   (c) a live setParameter equals the bake whose settings key that change (history kept);
//   (d) bad inputs raise Errors with the C API's messages; a disposed effect throws;
//   (e) tsc --noEmit checks the example against index.d.ts;
//   (f) a helper-bone bake (`wobble bake --helper-bones`) played by three.js alone, its own
//       skinning, equals wobble's plain LBS of the same file;
//   (g) the normals written into fx.mesh are unit length and three.js's own of the same frame;
//   (h) fx.update allocates nothing: the module's memory and the attribute arrays stay the same;
//   (i) memory grown inside fx.update: every effect's arrays follow it (views taken again);
// and the example page runs (sliders from wobble.deformers(), a picture). Distances are shares
// of clonk's size (its rest bounding-box diagonal). Needs `make web` (web/npm/dist).
// Usage: node npm_package_test.mjs WOBBLE_CLI CLONK_GLB [--screenshot OUT.png]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serve } from '../web/site.mjs';
import { compareFrames, readPc2 } from './pc2.mjs';
import { freshProject, packageDir } from './project.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [cli, clonkGlb] = process.argv.slice(2);
const screenshotAt = process.argv.indexOf('--screenshot');
const tolerance = 1e-5;
let failures = 0;
function check(ok, message) {
  console.log(`npm package test: ${ok ? 'ok  ' : 'FAIL'} ${message}`);
  if (!ok) failures++;
}
const run = (command, args) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

if (!cli || !clonkGlb) {
  console.error('usage: node npm_package_test.mjs WOBBLE_CLI CLONK_GLB [--screenshot OUT.png]');
  process.exit(2);
}

function bake(work, name, settings) {
  const out = path.join(work, `${name}.pc2`);
  const args = ['bake', clonkGlb, '--clip', 'Walk', '--fps', '60', '--deformer', 'lbs,dynamic', '--quiet', '-o', out];
  if (settings) {
    fs.writeFileSync(path.join(work, `${name}.json`), JSON.stringify(settings));
    args.push('--settings', path.join(work, `${name}.json`));
  }
  run(cli, args);
  return readPc2(out);
}

const floats = (base64) => { const b = Buffer.from(base64, 'base64'); return new Float32Array(b.buffer, b.byteOffset, b.length / 4); };

async function checkAgainstBakes(page, work) {
  const reference = bake(work, 'walk');
  const size = JSON.parse(run(cli, ['info', clonkGlb, '--json'])).size;  // the rest bounding-box diagonal
  const at60 = await page.evaluate(() => window.checks.play({ fps: 60 }));
  // (a)
  check(at60.frames === reference.frames.length, `(a) ${at60.frames} frames at 60 fps, the bake has ${reference.frames.length} (${at60.vertices} vertices, ${at60.joints} joints)`);
  const a = compareFrames(floats(at60.positions), reference.frames, size);
  check(a.largest <= tolerance, `(a) 60 fps against wobble bake: largest distance ${a.largest.toExponential(2)} of the size (frame ${a.frame}), at most ${tolerance}`);
  // (b): common times of 30 and 144 fps are k/6 s, frames 5k and 24k (and 10k of the bake).
  const at30 = await page.evaluate(() => window.checks.play({ fps: 30, every: 5 }));
  const at144 = await page.evaluate(() => window.checks.play({ fps: 144, every: 24 }));
  const common = reference.frames.filter((_, k) => k % 10 === 0);
  const b30 = compareFrames(floats(at30.positions), common, size);
  const b144 = compareFrames(floats(at144.positions), common, size);
  const between = compareFrames(floats(at30.positions), framesOf(floats(at144.positions), at144.vertices), size);
  check(at30.kept === common.length && at144.kept === common.length && between.largest <= tolerance &&
        b30.largest <= tolerance && b144.largest <= tolerance,
        `(b) ${common.length} common times: 30 against 144 fps ${between.largest.toExponential(2)} of the size; ` +
        `against the 60 fps bake ${b30.largest.toExponential(2)} (30 fps), ${b144.largest.toExponential(2)} (144 fps)`);
  const held30 = await page.evaluate(() => window.checks.play({ fps: 30, every: 5, sampled: false }));
  const held144 = await page.evaluate(() => window.checks.play({ fps: 144, every: 24, sampled: false }));
  const held = compareFrames(floats(held30.positions), framesOf(floats(held144.positions), held144.vertices), size);
  console.log(`npm package test: (b) without the mixer (each frame step's velocity held) 30 against 144 fps differ by ${held.largest.toExponential(2)} of the size`);
  // (c): amplitude 0.25 -> 0.6 before frame 30 (t = 0.5 s), against the bake keyed so (step).
  const keyed = bake(work, 'keyed', { dynamic: { amplitude: { keys: [[0, 0.25], [0.5, 0.6]], interpolation: 'step' } } });
  const live = await page.evaluate(() => window.checks.play({ fps: 60, change: { frame: 30, deformer: 'dynamic', key: 'amplitude', value: 0.6 } }));
  const c = compareFrames(floats(live.positions), keyed.frames, size);
  const before = compareFrames(floats(live.positions).subarray(0, 30 * 3 * live.vertices), reference.frames.slice(0, 30), size);
  const changed = compareFrames(floats(live.positions).subarray(30 * 3 * live.vertices), reference.frames.slice(30), size);
  check(c.largest <= tolerance && before.largest <= tolerance && changed.largest > 100 * tolerance,
        `(c) setParameter('dynamic', 'amplitude', 0.6) at 0.5 s against the keyed bake: ${c.largest.toExponential(2)} of the size; ` +
        `before it the unchanged bake's (${before.largest.toExponential(2)}), after it ${changed.largest.toExponential(2)} away from it`);
}

function framesOf(data, vertices) {
  const frames = [];
  for (let f = 0; f < data.length / (3 * vertices); ++f) frames.push(data.subarray(3 * vertices * f, 3 * vertices * (f + 1)));
  return frames;
}

// (f): the engine-ready bake. three.js plays the file with its own skinning (no wobble) and
// must give what wobble's reader and LBS give for the same file, within 1e-4 of the size.
async function checkHelperBones(page, project) {
  const file = path.join(project, 'helpers.glb');
  run(cli, ['bake', clonkGlb, '--clip', 'Walk', '--fps', '60', '--deformer', 'lbs,dynamic', '--helper-bones', '8', '--quiet', '-o', file]);
  const reference = path.join(project, 'helpers.pc2');
  run(cli, ['bake', file, '--clip', '0', '--fps', '60', '--deformer', 'lbs', '--quiet', '-o', reference]);
  const expected = readPc2(reference);
  const size = JSON.parse(run(cli, ['info', file, '--json'])).size;
  const got = await page.evaluate(() => window.checks.playPlain({ url: '/helpers.glb', fps: 60 }));
  check(got.helpers === 8 && !got.morphTargets && got.frames === expected.frames.length && 3 * got.vertices === expected.frames[0].length,
        `(f) helpers.glb in three.js: ${got.helpers} helper bones, morph targets: ${got.morphTargets}, ${got.frames} frames ` +
        `(wobble: ${expected.frames.length}), ${got.vertices} vertices in ${got.meshes} meshes, ${got.tracks} tracks`);
  const f = compareFrames(floats(got.positions), expected.frames, size);
  check(f.largest <= 1e-4, `(f) three.js's skinning of helpers.glb against wobble's LBS of it: largest distance ${f.largest.toExponential(2)} of the size (frame ${f.frame}), at most 1e-4`);
}

async function checkBadInputs(page) {
  const got = await page.evaluate(() => window.checks.badInputs());
  const expected = {
    no_skin: 'has no skin',
    too_many_influences: 'influences_per_vertex is 65 (1 to 64)',
    nan_position: 'positions[7] is not finite',
    unknown_deformer: "unknown deformer 'wobbly'",
    morph_warning: 'has 1 morph target; wobble does not carry them over',
    unknown_key: "unknown parameter 'amplitud' for deformer 'dynamic' (did you mean 'amplitude'?)",
    nan_setting: 'dynamic.amplitude: expected a number, got "NaN"',
    nan_time: 'frame: time is not finite',
    nan_parameter: 'amplitude',
    unknown_parameter: "'wobbliness'",
    bind_parameter: 'bind parameter',
    out_of_range: 'max_angle',
    disposed_update: 'fx.update: this wobble effect was disposed',
    disposed_set: 'fx.setParameter: this wobble effect was disposed',
    disposed_reset: 'fx.reset: this wobble effect was disposed',
  };
  for (const [name, text] of Object.entries(expected)) {
    check(typeof got[name] === 'string' && got[name].includes(text), `(d) ${name}: ${got[name]}`);
  }
  check(got.still_works === null && got.dispose_twice === null && got.source_visible_again === true,
        '(d) after the errors the effect still runs; dispose() twice is fine and shows the SkinnedMesh again');
}

async function checkShape(page) {
  const s = await page.evaluate(() => window.checks.shape());
  check(s.sameParent && s.sourceHidden && s.sameMaterial && s.dynamic && s.identityWorld && s.removed,
        'fx.mesh: a Mesh beside the SkinnedMesh (hidden), its material, dynamic attributes, identity matrixWorld; removed by dispose()');
  check(s.outsideBounds === 0, `fx.mesh's bounding sphere holds every deformed vertex (${s.outsideBounds} outside)`);
  check(s.descriptions.includes('dynamic') && s.descriptions.includes('deltamush'), `wobble.deformers(): ${s.descriptions.join(', ')} (wobble ${s.version})`);
  check(s.classes, 'the loaded module and the effect are instances of the exported classes Wobble and WobbleEffect');
}

// (g) The normals fx.update writes: unit length, and three.js's own of the same frame (its
// skinning of the rest normals for lbs,dynamic; computeVertexNormals of the written positions
// after Delta Mush, at the vertices whose triangles do not cancel: at least 99 %), while the pose
// has turned them far from the rest normals.
async function checkNormals(page) {
  const got = await page.evaluate(() => window.checks.normals({ time: 0.5 }));
  for (const [stack, n] of Object.entries(got)) {
    check(n.length <= 1e-5 && n.difference <= 1e-4 && n.fromRest > 0.1 && n.compared >= 0.99 * n.vertices,
          `(g) ${stack}: normals of ${n.vertices} vertices at 0.5 s: unit length within ${n.length.toExponential(1)} (at most 1e-5), ` +
          `${n.difference.toExponential(2)} from three.js's at the ${n.compared} where the surface defines them (at most 1e-4), ` +
          `up to ${n.fromRest.toFixed(2)} from the rest normals`);
  }
}

// (h) fx.update allocates nothing: after a warm-up of 600 frames, 600 frames at 30 fps on the
// mixer path keep the module's memory and the arrays three.js reads (the same objects). On the
// JavaScript side, V8's sampling heap profiler (every allocation's stack, the collected ones
// included) sums what was allocated with the package's own code innermost: not zero, since V8
// boxes the floating-point numbers that cross the JS/WASM boundary (the sampler's time: about
// 30-50 bytes a frame measured), but at most 200 bytes a frame, where the objects and closures
// that index.js made per frame before (its mixer snapshot) came to about 470.
async function checkNoAllocation(page) {
  const frames = 600;
  await page.evaluate(() => window.checks.startSteadyFrames());
  const session = await page.context().newCDPSession(page);
  await session.send('HeapProfiler.enable');
  await session.send('HeapProfiler.startSampling', { samplingInterval: 32, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await page.evaluate((frames) => window.checks.runSteadyFrames(frames), frames);
  const { profile } = await session.send('HeapProfiler.stopSampling');
  await session.detach();
  const memory = await page.evaluate(() => window.checks.endSteadyFrames());
  check(memory.samePosition && memory.sameNormal && memory.sameBuffer,
        `(h) ${frames} frames at 30 fps (lbs,dynamic,deltamush, the mixer sampled between frames): the position and normal arrays ` +
        `and the module's memory (${(memory.memoryBytes / 2 ** 20).toFixed(0)} MiB) stay the same objects`);
  const ours = packageAllocations(profile.head);
  const perFrame = ours.reduce((n, a) => n + a.bytes, 0) / frames;
  check(perFrame <= 200, `(h) JavaScript allocated in the package's code: ${perFrame.toFixed(0)} bytes a frame (sampled; at most 200): ` +
        `${ours.map((a) => `${a.function || '(anonymous)'}:${a.line} ${a.bytes} B`).join(', ') || 'none'}`);
}

// (i) The module's memory grown inside fx.update (checks.js, memoryGrowth): every effect's arrays
// are views of the new memory afterwards and hold what a twin without the growth writes.
async function checkMemoryGrowth(page) {
  const g = await page.evaluate(() => window.checks.memoryGrowth());
  check(g.grewInUpdate && g.grownLive && g.otherLive && g.positionsFromTwin === 0 && g.normalsFromTwin === 0 &&
        g.otherChanged === 0 && g.finiteBox,
        `(i) the module's memory grown from ${(g.bytesBefore / 2 ** 20).toFixed(0)} to ${(g.bytesAfter / 2 ** 20).toFixed(0)} MiB ` +
        `inside fx.update (grew there: ${g.grewInUpdate}): its arrays and another effect's are views of the new memory ` +
        `(${g.grownLive}, ${g.otherLive}), equal to a twin's without the growth (positions ${g.positionsFromTwin}, ` +
        `normals ${g.normalsFromTwin}), the other's unchanged (${g.otherChanged}), the bounding box finite (${g.finiteBox})`);
}

// Bytes sampled with their innermost frame in the package's own files, by function and line.
function packageAllocations(head) {
  const found = new Map();
  const visit = (node) => {
    const frame = node.callFrame;
    if (node.selfSize > 0 && frame.url.includes('/node_modules/@wobble-fx/three/')) {
      const key = `${frame.functionName}:${frame.lineNumber + 1}`;
      const entry = found.get(key) ?? { function: frame.functionName, line: frame.lineNumber + 1, bytes: 0 };
      entry.bytes += node.selfSize;
      found.set(key, entry);
    }
    node.children.forEach(visit);
  };
  visit(head);
  return [...found.values()];
}

// The example page: loads, builds one control per live parameter of its stack, draws.
async function checkExample(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.example && window.example.ready, null, { timeout: 120000 });
  const info = await page.evaluate(() => window.example.describe());
  check(info.sliders > 0 && info.sliders === info.liveParameters,
        `example: ${info.sliders} controls for the ${info.liveParameters} live parameters of ${info.stack}`);
  await page.evaluate(() => window.example.setSlider('dynamic', 'amplitude', 0.9));
  const after = await page.evaluate(() => window.example.describe());
  check(Math.abs((after.settings?.dynamic?.amplitude ?? 0) - 0.9) < 1e-9, `example: the amplitude slider reaches the stack (${JSON.stringify(after.settings)})`);
  await page.waitForTimeout(500);
  const picture = await page.evaluate(() => window.example.coverage());
  check(picture > 0.02, `example: ${(100 * picture).toFixed(1)}% of the picture is not background`);
}

function checkTypes(project) {
  const tsc = path.join(here, 'node_modules/typescript/bin/tsc');
  try {
    run(process.execPath, [tsc, '--noEmit', '-p', path.join(project, 'tsconfig.json')]);
    check(true, `(e) tsc ${run(process.execPath, [tsc, '--version']).trim()} --noEmit: the example against index.d.ts`);
  } catch (e) {
    check(false, `(e) tsc --noEmit:\n${e.stdout}${e.stderr}`);
  }
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wobble-npm-'));
let server, browser, project;
try {
  let packed;
  ({ project, packed } = freshProject(work, [clonkGlb]));
  check(packed.files.some((f) => f.path === 'dist/wobble-wasm.wasm') && packed.files.some((f) => f.path === 'index.d.ts'),
        `npm pack: ${packed.filename}, ${packed.files.length} files, ${(packed.size / 1e6).toFixed(2)} MB`);
  checkTypes(project);
  server = await serve(project);
  const base = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1200, height: 600 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${base}/test/index.html`);
  await page.waitForFunction(() => window.checksReady, null, { timeout: 120000 });
  await checkShape(page);
  await checkNormals(page);
  await checkNoAllocation(page);
  await checkMemoryGrowth(page);
  await checkAgainstBakes(page, work);
  await checkBadInputs(page);
  await checkHelperBones(page, project);
  await checkExample(page, `${base}/index.html`);
  if (screenshotAt > 0) {
    await page.screenshot({ path: process.argv[screenshotAt + 1] });
    console.log(`npm package test: screenshot ${process.argv[screenshotAt + 1]}`);
  }
  check(errors.length === 0, `no page errors${errors.length ? `:\n${errors.join('\n')}` : ''}`);
} catch (e) {
  check(false, e.stack || String(e));
} finally {
  if (browser) await browser.close();
  if (server) server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`npm package test: ${failures ? `${failures} failed` : 'all passed'}`);
process.exitCode = failures ? 1 : 0;
