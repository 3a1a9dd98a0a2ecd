// The web viewer's GPU post-deformers in headless Chromium (WebGL 2 on SwiftShader): with ?gpu,
// `lbs,deltamush` and `lbs,ddm` run as transform-feedback kernels (the page says so), and the
// picture held after 30 fixed frames (?stop-frame) equals the CPU path's (?cpu) at the same
// frame. Usage: node gpu_test.mjs SITE
import { canvasShot, compare, openViewer, pageErrors, runSiteTest } from './site.mjs';

await runSiteTest('web GPU test', async ({ browser, origin, fail }) => {
  const base = `${origin}/index.html?timer&no-ui&size=480x320&stop-frame=30`;
  async function pictureOf(stack, path) {
    const page = await openViewer(browser, `${base}&deformer=${stack}&${path}`, 'wobble-viewer: stopped at frame 30');
    await page.waitForTimeout(300);  // a few more (held) frames drawn
    const shot = await canvasShot(page);
    const errors = pageErrors(page);
    if (errors.length) fail(`${stack} (${path}): the page reported errors:\n${errors.join('\n')}`);
    const fallback = page.consoleLines.filter((l) => l.includes('the CPU path takes over'));
    if (fallback.length) fail(`${stack}: the GPU path failed:\n${fallback.join('\n')}`);
    return { page, shot };
  }
  for (const stack of ['lbs,deltamush', 'lbs,ddm']) {
    const gpu = await pictureOf(stack, 'gpu');
    const ready = `wobble-viewer: GPU path ready for ${stack} (transform feedback)`;
    if (!gpu.page.consoleLines.some((l) => l.includes(ready))) fail(`${stack}: the page did not say '${ready}'`);
    const cpu = await pictureOf(stack, 'cpu');
    const stats = await compare(gpu.page, gpu.shot, cpu.shot);
    console.log(`web GPU test: ${stack}: ${(100 * stats.foreground).toFixed(1)}% not background, ` +
                `${(100 * stats.changed).toFixed(3)}% differ from the CPU path`);
    if (stats.foreground < 0.02) fail(`${stack}: the canvas is blank`);
    if (stats.changed > 0.002) fail(`${stack}: the GPU picture differs from the CPU path's`);
    await gpu.page.close();
    await cpu.page.close();
  }
});
