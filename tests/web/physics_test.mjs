// The web viewer's physics demo in headless Chromium: `?physics&shape=elephant` renders (a
// non-blank canvas) and animates (a ball dropped on the elephant: the picture after 90 fixed
// frames differs from the one after 10), and a scripted drag (?script=) changes the picture
// against the same frames without it. ?stop-frame=N holds the picture after N frames of 1/60 s,
// so the pictures compared are deterministic. Usage: node physics_test.mjs SITE
import { canvasShot, compare, openViewer, pageErrors, runSiteTest } from './site.mjs';

await runSiteTest('web physics test', async ({ browser, origin, fail }) => {
  const base = `${origin}/index.html?timer&no-ui&size=480x320&physics&shape=elephant&handles=8&points=400`;
  // Grab the elephant's back (file frame of elephant.off) and pull it up and sideways.
  const drag = encodeURIComponent(JSON.stringify([
    { at: 0.05, do: 'press', point: [0, 0.3, 0] }, { at: 0.1, do: 'drag', point: [0.4, 0.9, 0] }]));
  async function pictureAt(frames, extra) {
    const page = await openViewer(browser, `${base}&stop-frame=${frames}${extra}`, `wobble-viewer: stopped at frame ${frames}`);
    await page.waitForTimeout(300);  // a few more (held) frames drawn
    const shot = await canvasShot(page);
    const errors = pageErrors(page);
    if (errors.length) fail(`the page reported errors:\n${errors.join('\n')}`);
    return { page, shot };
  }
  const early = await pictureAt(10, '&ball');
  const late = await pictureAt(90, '&ball');
  const animated = await compare(early.page, early.shot, late.shot);
  const still = await pictureAt(60, '');
  const dragged = await pictureAt(60, `&script=${drag}`);
  const pulled = await compare(still.page, still.shot, dragged.shot);
  console.log(`web physics test: ${(100 * animated.foreground).toFixed(1)}% not background, ` +
              `${(100 * animated.changed).toFixed(2)}% changed between frames 10 and 90 (ball dropped), ` +
              `${(100 * pulled.changed).toFixed(2)}% changed by the scripted drag at frame 60`);
  if (animated.foreground < 0.02) fail('the canvas is blank');
  if (animated.changed < 0.005) fail('the physics demo does not animate');
  if (pulled.changed < 0.005) fail('the scripted drag does not change the picture');
});
