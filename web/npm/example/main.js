// @ts-check
// @wobble-fx/three's example: two copies of clonk walking, three.js's own skinning on the left and
// wobble on the right, and a slider for every live number of the stack, built from
// wobble.deformers(). tsc checks this file against the package's index.d.ts (tsconfig.json).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { loadWobble } from '@wobble-fx/three';

/** @param {string} id */
function element(id) {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}

const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
document.body.prepend(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x20242b);
scene.add(new THREE.HemisphereLight(0xffffff, 0x404048, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 2.0);
sun.position.set(20, 40, 30);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(35, window.innerWidth / window.innerHeight, 0.5, 500);
camera.position.set(0, 13, 52);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 10.5, 0);
controls.update();

const wobble = await loadWobble();
const gltf = await new GLTFLoader().loadAsync('./clonk.glb');
const walk = THREE.AnimationClip.findByName(gltf.animations, 'Walk') ?? gltf.animations[0];

/** A copy of the character at x, walking in place. @param {number} x */
function walker(x) {
  const root = SkeletonUtils.clone(gltf.scene);
  root.position.x = x;
  scene.add(root);
  /** @type {THREE.SkinnedMesh | null} */
  let mesh = null;
  root.traverse((object) => {
    if (!mesh && object instanceof THREE.SkinnedMesh) mesh = object;
  });
  if (!mesh) throw new Error('clonk.glb has no skinned mesh');
  const mixer = new THREE.AnimationMixer(root);
  mixer.clipAction(walk).play();
  return { mesh: /** @type {THREE.SkinnedMesh} */ (mesh), mixer };
}
const plain = walker(-10);
const wobbly = walker(10);

/** @type {import('@wobble-fx/three').WobbleEffect} */
let fx = wobble.attach(wobbly.mesh, { stack: 'lbs,dynamic', mixer: wobbly.mixer });

// One slider per live number of every deformer in the stack, over its described slider range.
function buildSliders() {
  const panel = element('sliders');
  panel.replaceChildren();
  const names = fx.stack.split(',');
  for (const deformer of wobble.deformers().filter((d) => names.includes(d.name))) {
    const live = deformer.parameters.filter((p) => p.lifetime === 'live' && p.type === 'number');
    if (!live.length) continue;
    const heading = document.createElement('h2');
    heading.textContent = deformer.name;
    heading.title = deformer.summary;
    panel.append(heading);
    for (const parameter of live) {
      const label = document.createElement('label');
      const value = document.createElement('span');
      value.className = 'value';
      const slider = document.createElement('input');
      slider.type = 'range';
      slider.min = String(parameter.soft_minimum ?? parameter.minimum ?? 0);
      slider.max = String(parameter.soft_maximum ?? parameter.maximum ?? 1);
      slider.step = 'any';
      slider.value = String(parameter.default);
      slider.dataset.deformer = deformer.name;
      slider.dataset.key = parameter.key;
      value.textContent = slider.value;
      slider.addEventListener('input', () => {
        fx.setParameter(deformer.name, parameter.key, Number(slider.value));
        value.textContent = Number(slider.value).toPrecision(3);
      });
      label.title = parameter.help;
      label.append(`${parameter.key}${parameter.unit ? ` (${parameter.unit})` : ''}`, value, slider);
      panel.append(label);
    }
  }
  element('caption').textContent = `wobble: ${fx.stack}`;
}
buildSliders();

const stackMenu = /** @type {HTMLSelectElement} */ (element('stack'));
stackMenu.addEventListener('change', () => {
  fx.dispose();
  fx = wobble.attach(wobbly.mesh, { stack: stackMenu.value, mixer: wobbly.mixer });
  buildSliders();
});

const clock = new THREE.Clock();
let time = 0;
/** @type {number[]} */
const updateTimes = [];
function frame() {
  const step = Math.min(clock.getDelta(), 0.1);
  time += step;
  plain.mixer.update(step);
  wobbly.mixer.update(step);
  scene.updateMatrixWorld();
  const start = performance.now();
  fx.update(time);
  updateTimes.push(performance.now() - start);
  if (updateTimes.length === 120) {
    updateTimes.sort((a, b) => a - b);
    element('timing').textContent = `fx.update: ${updateTimes[60].toFixed(2)} ms (median of 120 frames)`;
    updateTimes.length = 0;
  }
  renderer.render(scene, camera);
}
renderer.setAnimationLoop(frame);
window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});

// For tests (tests/npm): what the page shows.
Object.assign(window, {
  example: {
    ready: true,
    describe: () => ({
      stack: fx.stack,
      sliders: document.querySelectorAll('#sliders input[type=range]').length,
      liveParameters: wobble.deformers().filter((d) => fx.stack.split(',').includes(d.name))
        .flatMap((d) => d.parameters).filter((p) => p.lifetime === 'live' && p.type === 'number').length,
      settings: fx.settings(),
    }),
    /** @param {string} deformer @param {string} key @param {number} value */
    setSlider: (deformer, key, value) => {
      const slider = /** @type {HTMLInputElement | null} */ (
        document.querySelector(`#sliders input[data-deformer="${deformer}"][data-key="${key}"]`));
      if (!slider) throw new Error(`no slider for ${deformer}.${key}`);
      slider.value = String(value);
      slider.dispatchEvent(new Event('input'));
    },
    // The share of the picture that is not background.
    coverage: () => {
      const canvas = document.createElement('canvas');
      canvas.width = renderer.domElement.width;
      canvas.height = renderer.domElement.height;
      const context = canvas.getContext('2d');
      if (!context) return 0;
      context.drawImage(renderer.domElement, 0, 0);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      let covered = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if (Math.abs(pixels[i] - 0x20) + Math.abs(pixels[i + 1] - 0x24) + Math.abs(pixels[i + 2] - 0x2b) > 24) covered++;
      }
      return covered / (pixels.length / 4);
    },
  },
});
