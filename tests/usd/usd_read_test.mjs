// wobble's USD output read by a real USD reader: TinyUSDZ's WebAssembly build (npm `tinyusdz`,
// which runs in browsers only) in headless Debian chromium. Bakes the character to .usda and to
// .pc2 with the same stack, opens the .usda with TinyUSDZ and checks:
//   - the stage's metadata (timeCodesPerSecond = the frame rate, start and end time codes, up axis);
//   - the Mesh TinyUSDZ builds (its render mesh): point and face counts, UVs, and its points,
//     which it evaluates at the default time, against the PC2's first frame;
//   - every time sample of `points` as TinyUSDZ parsed it (its layer printed back), against the
//     PC2 frame of that time code, to 1e-5 of the character size.
// Usage: node usd_read_test.mjs WOBBLE_CLI CHARACTER.glb
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const [cli, character] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const reader = path.join(here, 'node_modules', 'tinyusdz');
const FPS = 30, END = 0.5, CLIP = 'Walk', STACK = 'lbs,dynamic';
let failures = 0;
function check(condition, message) {
  console.log(`usd test: ${condition ? 'ok' : 'FAILED'}: ${message}`);
  if (!condition) failures++;
}
if (!cli || !character) {
  console.error('usage: node usd_read_test.mjs WOBBLE_CLI CHARACTER.glb');
  process.exit(1);
}
if (!fs.existsSync(path.join(reader, 'tinyusdz.wasm'))) {
  console.error(`usd test: ${reader} is missing: run scripts/install-deps.sh test (npm ci in tests/usd)`);
  process.exit(1);
}

// --- the bakes ---
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wobble-usd-'));
const bake = (out) => execFileSync(cli, ['bake', character, '--clip', CLIP, '--fps', String(FPS), '--end', String(END),
                                         '--deformer', STACK, '--quiet', '-o', out]);
bake(path.join(scratch, 'baked.usda'));
bake(path.join(scratch, 'baked.pc2'));

function readPc2(file) {
  const bytes = fs.readFileSync(file);
  const points = bytes.readInt32LE(16), frames = bytes.readInt32LE(28);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 32, bytes.byteOffset + 32 + points * frames * 12));
  return { points, frames, startFrame: bytes.readFloatLE(20), frame: (f) => data.subarray(f * points * 3, (f + 1) * points * 3) };
}
const pc2 = readPc2(path.join(scratch, 'baked.pc2'));
const first = pc2.frame(0);
const low = [Infinity, Infinity, Infinity], high = [-Infinity, -Infinity, -Infinity];
for (let i = 0; i < first.length; i++) {
  low[i % 3] = Math.min(low[i % 3], first[i]);
  high[i % 3] = Math.max(high[i % 3], first[i]);
}
const size = Math.hypot(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
const maxDifference = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

// --- TinyUSDZ in the browser ---
const files = { '/tinyusdz.js': path.join(reader, 'tinyusdz.js'), '/tinyusdz.wasm': path.join(reader, 'tinyusdz.wasm'),
                '/baked.usda': path.join(scratch, 'baked.usda') };
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.usda': 'application/octet-stream' };
const page_html = `<!doctype html><script type="module">
import initTinyUSDZ from './tinyusdz.js';
try {
  const native = await initTinyUSDZ();
  const bytes = new Uint8Array(await (await fetch('baked.usda')).arrayBuffer());
  const scene = new native.TinyUSDZLoaderNative();
  const loaded = scene.loadFromBinary(bytes, 'baked.usda');
  const result = { loaded, error: scene.error(), meshes: loaded ? scene.numMeshes() : 0 };
  if (result.meshes > 0) {
    const mesh = scene.getMesh(0);
    result.points = Array.from(mesh.points);
    result.indices = mesh.faceVertexIndices.length;
    result.counts = mesh.faceVertexCounts ? Array.from(mesh.faceVertexCounts) : null;
    result.texcoords = mesh.texcoords ? mesh.texcoords.length : 0;
    result.normals = mesh.normals ? mesh.normals.length : 0;
  }
  const layer = new native.TinyUSDZLoaderNative();
  result.layerLoaded = layer.loadAsLayerFromBinary(bytes, 'baked.usda');
  result.layer = result.layerLoaded ? layer.layerToString() : '';
  window.result = result;
} catch (e) {
  window.result = { exception: String(e) };
}
</script>`;
const server = http.createServer((request, response) => {
  const name = new URL(request.url, 'http://localhost').pathname;
  if (name === '/' || name === '/index.html') return response.writeHead(200, { 'Content-Type': 'text/html' }).end(page_html);
  if (!files[name]) return response.writeHead(404).end('not found');
  response.writeHead(200, { 'Content-Type': types[path.extname(name)] });
  fs.createReadStream(files[name]).pipe(response);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run'],
});
let result;
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  await page.waitForFunction(() => window.result, null, { timeout: 120000 });
  result = await page.evaluate(() => window.result);
} finally {
  await browser.close();
  server.close();
}
if (result.exception) {
  console.error(`usd test: TinyUSDZ threw: ${result.exception}`);
  process.exit(1);
}

// --- what TinyUSDZ read ---
check(result.loaded && result.meshes === 1, `TinyUSDZ opens the stage and finds one mesh (${result.meshes}; ${result.error || 'no error'})`);
const triangles = (fs.readFileSync(path.join(scratch, 'baked.usda'), 'latin1').match(/faceVertexIndices = \[([^\]]*)\]/)[1]
  .split(',').length) / 3;
check(result.points.length === 3 * pc2.points, `${result.points.length / 3} points, as the PC2 has (${pc2.points})`);
check(result.indices === 3 * triangles && (!result.counts || result.counts.every((c) => c === 3)),
      `${result.indices / 3} triangles`);
check(result.texcoords === 2 * pc2.points, `UVs as a vertex primvar (${result.texcoords / 2})`);
const atDefault = maxDifference(result.points, first) / size;
check(atDefault <= 1e-5, `its points (default time) equal the PC2's first frame: ${atDefault.toExponential(2)} of the size`);

const metadata = (key) => (result.layer.match(new RegExp(`\\b${key} = ([^\\n]+)`)) || [])[1];
check(Number(metadata('timeCodesPerSecond')) === FPS, `timeCodesPerSecond = ${metadata('timeCodesPerSecond')}`);
check(Number(metadata('startTimeCode')) === 0 && Number(metadata('endTimeCode')) === END * FPS,
      `time codes ${metadata('startTimeCode')} to ${metadata('endTimeCode')}`);
check(metadata('upAxis') === '"Y"' && Number(metadata('metersPerUnit')) === 1, `upAxis ${metadata('upAxis')}, metersPerUnit ${metadata('metersPerUnit')}`);

// The points' time samples as TinyUSDZ parsed and printed them: `code: [(x, y, z), ...],`.
const block = result.layer.match(/point3f\[\] points\.timeSamples = \{([\s\S]*?)\n\s*\}/);
const samples = block ? [...block[1].matchAll(/([-\d.e+]+): \[([^\]]*)\]/g)] : [];
check(samples.length === pc2.frames, `${samples.length} time samples of points, the PC2 has ${pc2.frames} frames`);
let worst = 0, compared = 0;
for (const [, code, values] of samples) {
  const frame = Number(code) - pc2.startFrame;
  if (!Number.isInteger(frame) || frame < 0 || frame >= pc2.frames) {
    check(false, `time code ${code} is no PC2 frame`);
    continue;
  }
  const numbers = values.replace(/[()]/g, '').split(',').map(Number);
  if (numbers.length !== 3 * pc2.points) {
    check(false, `time code ${code}: ${numbers.length / 3} points`);
    continue;
  }
  worst = Math.max(worst, maxDifference(numbers, pc2.frame(frame)) / size);
  compared++;
}
check(compared === pc2.frames && worst <= 1e-5,
      `points at every time code equal the PC2 frames (${compared} compared): max difference ${worst.toExponential(2)} of the size`);
fs.rmSync(scratch, { recursive: true, force: true });
if (failures) {
  console.error(`usd test: ${failures} check(s) failed`);
  process.exit(1);
}
console.log('usd test: OK');
