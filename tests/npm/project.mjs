// A fresh project as a three.js developer makes one: the package packed with `npm pack`, the
// tarball and the harness's pinned three and @types/three installed from npm (the npm cache
// first: scripts/install-deps.sh fills it with `npm ci` here), the example the tarball ships at
// its root and tests/npm/page under test/, the characters beside them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const packageDir = path.resolve(here, '../../web/npm');

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// In `work`; `characters` are copied to the project's root by name. Returns the project's folder
// and what npm pack reported.
export function freshProject(work, characters) {
  if (!fs.existsSync(path.join(packageDir, 'dist/wobble-wasm.wasm'))) {
    throw new Error(`${packageDir}/dist has no wobble-wasm.wasm: build it first with make web`);
  }
  const [packed] = JSON.parse(run('npm', ['pack', packageDir, '--pack-destination', work, '--json', '--loglevel=error']));
  const project = path.join(work, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh-three-project', private: true, type: 'module' }));
  const pinned = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).dependencies;
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(work, packed.filename),
              `three@${pinned.three}`, `@types/three@${pinned['@types/three']}`], project);
  // The example as the tarball ships it (package.json `files`), not as the repository holds it.
  const example = path.join(project, 'node_modules/@wobble-fx/three/example');
  for (const file of ['index.html', 'main.js', 'tsconfig.json']) {
    fs.copyFileSync(path.join(example, file), path.join(project, file));
  }
  fs.cpSync(path.join(here, 'page'), path.join(project, 'test'), { recursive: true });
  for (const character of characters) fs.copyFileSync(character, path.join(project, path.basename(character)));
  return { project, packed };
}
