// The web viewer in headless Chromium: serves SITE (build-web/site, from `make web`) on
// 127.0.0.1 at a free port, opens it with a timer-driven main loop and without the interface,
// and checks that the canvas shows a non-blank picture that changes while the clip plays with
// the effect on. Usage: node browser_test.mjs SITE
import { canvasShot, compare, openViewer, pageErrors, runSiteTest } from './site.mjs';

await runSiteTest('web test', async ({ browser, origin, fail }) => {
  const page = await openViewer(browser, `${origin}/index.html?timer&no-ui`, 'wobble-viewer: running');
  // Let the clip and the effect run, then take two pictures of the canvas half a second apart.
  await page.waitForTimeout(1500);
  const first = await canvasShot(page);
  await page.waitForTimeout(500);
  const second = await canvasShot(page);
  const stats = await compare(page, first, second);
  const errors = pageErrors(page);
  console.log(`web test: canvas ${stats.width}x${stats.height}, ${(100 * stats.foreground).toFixed(1)}% not background, ` +
              `${(100 * stats.changed).toFixed(2)}% changed in 0.5 s`);
  if (errors.length) fail(`the page reported errors:\n${errors.join('\n')}`);
  if (stats.foreground < 0.02) fail('the canvas is blank');
  if (stats.changed < 0.002) fail('the picture does not change while the clip plays');
});
