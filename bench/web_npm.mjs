// The browser side of the npm package's benchmark (scripts/bench-web.sh): per-frame costs of
// fx.update and of three.js's own frame without wobble, measured in headless Chromium on the
// package as installed from its tarball (tests/npm/project.mjs), served cross-origin isolated
// (performance.now at 5 us, not 100 us). Writes JSON.
// Usage: node bench/web_npm.mjs OUT.json CHARACTER.glb...   (clip Walk, else the first)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshProject } from '../tests/npm/project.mjs';
import { launch, serve } from '../tests/web/site.mjs';

const [out, ...characters] = process.argv.slice(2);
if (!out || !characters.length) {
  console.error('usage: node bench/web_npm.mjs OUT.json CHARACTER.glb...');
  process.exit(2);
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
  const results = [];
  for (const character of characters) {
    const url = `/${path.basename(character)}`;
    console.log(`web_npm: ${url}`);
    results.push(await page.evaluate((url) => window.checks.bench({ url, stacks: ['lbs,dynamic', 'lbs,dynamic,deltamush'] }), url));
    console.log(JSON.stringify(results.at(-1)));
  }
  fs.writeFileSync(out, JSON.stringify({ browser: browser.version(), results }, null, 2));
} finally {
  if (browser) await browser.close();
  if (server) server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
