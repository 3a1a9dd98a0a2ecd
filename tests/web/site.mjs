// What the browser tests share: serve SITE (build-web/site, from `make web`) on 127.0.0.1 at a
// free port, launch Debian's chromium headless through playwright-core, and decode canvas
// screenshots with the browser's own PNG decoder and a 2D canvas (independent of WebGL).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';

export function requireSite(site) {
  if (!fs.existsSync(path.join(site, 'index.html')) || !fs.existsSync(path.join(site, 'wobble-viewer.wasm'))) {
    console.error(`web test: ${site} has no index.html and wobble-viewer.wasm: build it first with make web`);
    process.exit(1);
  }
}

// headers: added to every response (e.g. cross-origin isolation, for precise timers).
export async function serve(site, headers = {}) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.data': 'application/octet-stream' };
  const server = http.createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    const file = path.join(site, name === '/' ? 'index.html' : name);
    if (!file.startsWith(site) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream', ...headers });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// One browser test's frame: serves SITE (the command line's first argument, default
// build-web/site), launches Chromium and runs body({ browser, origin, fail }); fail(message) prints
// `name: message` and sets exit code 1, as does anything body throws; the browser and the server
// are closed whatever happens.
export async function runSiteTest(name, body) {
  const site = path.resolve(process.argv[2] || 'build-web/site');
  const fail = (message) => {
    console.error(`${name}: ${message}`);
    process.exitCode = 1;
  };
  requireSite(site);
  const server = await serve(site);
  const browser = await launch();
  try {
    await body({ browser, origin: `http://127.0.0.1:${server.address().port}`, fail });
  } catch (e) {
    fail(e.message);
  } finally {
    await browser.close();
    server.close();
  }
}

// Opens `url` in a new page and waits until the program printed a line containing `line`.
export async function openViewer(browser, url, line) {
  const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
  page.consoleLines = [];
  page.on('console', (m) => page.consoleLines.push(m.text()));
  page.on('pageerror', (e) => page.consoleLines.push(`page error: ${e.message}`));
  await page.goto(url);
  try {
    await page.waitForFunction((l) => window.wobbleLog.some((x) => x.includes(l)), line, { timeout: 180000 });
  } catch (e) {
    throw new Error(`the viewer did not print '${line}'; its output:\n${page.consoleLines.join('\n')}`);
  }
  return page;
}

export async function canvasShot(page) {
  return (await page.locator('#canvas').screenshot()).toString('base64');
}

// Share of pixels of `a` unlike its top-left pixel (foreground), and unlike `b` (changed).
export async function compare(page, a, b) {
  return page.evaluate(async ([a, b]) => {
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
  }, [a, b]);
}

export function pageErrors(page) {
  return page.consoleLines.filter((l) => /error|abort|exception/i.test(l) && !/warning/i.test(l));
}
