// The browser side of the npm package's benchmark (scripts/bench-web.sh): per-frame CPU costs of
// fx.update and of three.js's own work of the same frame without wobble, measured in headless
// Chromium on the package as installed from its tarball (tests/npm/project.mjs). Each loop of
// frames (tests/npm/page/checks.js, benchLoop) is bracketed by the page's main-thread CPU time
// (DevTools Performance.getMetrics, ThreadTime), so that on a shared machine the time the page
// waited for a core does not count, as Google Benchmark's CPU time does not count it natively.
// fx.update's cost is a loop with it minus the same loop without it. Writes JSON.
// Usage: node bench/web_npm.mjs OUT.json CLONK.glb [CHARACTER.glb...]   (clip Walk, else the first;
// the test page loads clonk.glb in any case)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshProject } from '../tests/npm/project.mjs';
import { launch, serve } from '../tests/web/site.mjs';

const stacks = ['lbs,dynamic', 'lbs,dynamic,deltamush'];
const repetitions = 7;  // after one warm-up round; medians
const [out, ...characters] = process.argv.slice(2);
if (!out || !characters.length) {
  console.error('usage: node bench/web_npm.mjs OUT.json CLONK.glb [CHARACTER.glb...]');
  process.exit(2);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

// Milliseconds a frame, CPU and wall, of one loop of `frames` frames.
async function timedLoop(page, session, what, frames, offset) {
  const threadTime = async () => (await session.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value;
  const before = await threadTime();
  const wall = await page.evaluate((loop) => window.checks.benchLoop(loop), { what, frames, offset });
  return { cpu: (1e3 * (await threadTime() - before)) / frames, wall: wall / frames };
}

// One character: every loop once per round, rounds interleaved; the costs as medians over rounds.
async function benchCharacter(page, session, url) {
  const { vertices, crossOriginIsolated } = await page.evaluate((setup) => window.checks.benchSetup(setup), { url, stacks });
  const frames = Math.max(10, Math.round(240 * 1814 / vertices));  // about the same work per loop
  const loops = [['three', 0], ['skinning', 0], ...stacks.map((s) => [s, 0]), ['three', 0.5], ...stacks.map((s) => [s, 0.5])];
  const rounds = [];
  for (let r = 0; r <= repetitions; ++r) {
    const round = {};
    for (const [what, offset] of loops) round[`${what}@${offset}`] = await timedLoop(page, session, what, frames, offset);
    if (r > 0) rounds.push(round);  // the first warms up
  }
  await page.evaluate(() => window.checks.benchDispose());
  // Per round, a loop's cost minus its baseline's (the same frames without the measured work).
  const cost = (what, offset, kind) => median(rounds.map((round) => round[`${what}@${offset}`][kind] - round[`three@${offset}`][kind]));
  const result = {
    url, vertices, frames_per_loop: frames, crossOriginIsolated,
    three_frame_ms: median(rounds.map((round) => round['three@0'].cpu)),
    three_skinning_ms: cost('skinning', 0, 'cpu'),
  };
  for (const stack of stacks) {
    result[stack] = { update_ms: cost(stack, 0, 'cpu'), off_grid_update_ms: cost(stack, 0.5, 'cpu'), wall_update_ms: cost(stack, 0, 'wall') };
  }
  return result;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wobble-npm-bench-'));
let server, browser;
try {
  const { project } = freshProject(work, characters);
  server = await serve(project, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  browser = await launch();
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`web_npm: page error: ${e.message}`));
  await page.goto(`http://127.0.0.1:${server.address().port}/test/index.html`);
  await page.waitForFunction(() => window.checksReady, null, { timeout: 120000 });
  const session = await page.context().newCDPSession(page);
  await session.send('Performance.enable', { timeDomain: 'threadTicks' });
  const results = [];
  for (const character of characters) {
    const url = `/${path.basename(character)}`;
    console.log(`web_npm: ${url}`);
    results.push(await benchCharacter(page, session, url));
    console.log(JSON.stringify(results.at(-1)));
  }
  fs.writeFileSync(out, JSON.stringify({ browser: browser.version(), cpu_time: 'main thread (ThreadTime)', results }, null, 2));
} finally {
  if (browser) await browser.close();
  if (server) server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
