// The web viewer in headless Chromium: serves SITE (build-web/site, from `make web`) on
// 127.0.0.1 at a free port, opens it with a timer-driven main loop and without the interface,
// and checks that the canvas shows a non-blank picture that changes while the clip plays with
// the effect on. Usage: node browser_test.mjs SITE
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';

const site = path.resolve(process.argv[2] || 'build-web/site');
function fail(message) {
  console.error(`web test: ${message}`);
  process.exitCode = 1;
}
if (!fs.existsSync(path.join(site, 'index.html')) || !fs.existsSync(path.join(site, 'wobble-viewer.wasm'))) {
  console.error(`web test: ${site} has no index.html and wobble-viewer.wasm: build it first with make web`);
  process.exit(1);
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.data': 'application/octet-stream' };
const server = http.createServer((request, response) => {
  const name = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  const file = path.join(site, name === '/' ? 'index.html' : name);
  if (!file.startsWith(site) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    response.writeHead(404).end('not found');
    return;
  }
  response.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(response);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
  const console_lines = [];
  page.on('console', (m) => console_lines.push(m.text()));
  page.on('pageerror', (e) => console_lines.push(`page error: ${e.message}`));
  await page.goto(`http://127.0.0.1:${port}/index.html?timer&no-ui`);
  try {
    await page.waitForFunction(() => window.wobbleLog.some((l) => l.includes('wobble-viewer: running')), null,
                               { timeout: 120000 });
  } catch (e) {
    throw new Error(`the viewer did not start; its output:\n${console_lines.join('\n')}`);
  }
  // Let the clip and the effect run, then take two pictures of the canvas half a second apart.
  await page.waitForTimeout(1500);
  const first = (await page.locator('#canvas').screenshot()).toString('base64');
  await page.waitForTimeout(500);
  const second = (await page.locator('#canvas').screenshot()).toString('base64');
  // Decode them with the browser's own PNG decoder and a 2D canvas (independent of WebGL).
  const stats = await page.evaluate(async ([a, b]) => {
    const pixels = async (data) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      return context.getImageData(0, 0, image.width, image.height);
    };
    const p = await pixels(a), q = await pixels(b);
    let foreground = 0, changed = 0;
    const n = p.width * p.height;
    for (let i = 0; i < 4 * n; i += 4) {
      const differs = (x, y, t) => Math.abs(x[i] - y[0]) > t || Math.abs(x[i + 1] - y[1]) > t || Math.abs(x[i + 2] - y[2]) > t;
      if (differs(p.data, p.data.slice(0, 3), 12)) foreground++;
      if (differs(p.data, q.data.slice(i, i + 3), 24)) changed++;
    }
    return { width: p.width, height: p.height, foreground: foreground / n, changed: changed / n };
  }, [first, second]);
  const errors = console_lines.filter((l) => /error|abort|exception/i.test(l) && !/warning/i.test(l));
  console.log(`web test: canvas ${stats.width}x${stats.height}, ${(100 * stats.foreground).toFixed(1)}% not background, ` +
              `${(100 * stats.changed).toFixed(2)}% changed in 0.5 s`);
  if (errors.length) fail(`the page reported errors:\n${errors.join('\n')}`);
  if (stats.foreground < 0.02) fail('the canvas is blank');
  if (stats.changed < 0.002) fail('the picture does not change while the clip plays');
} catch (e) {
  fail(e.message);
} finally {
  await browser.close();
  server.close();
}
