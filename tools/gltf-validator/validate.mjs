// Usage: node validate.mjs FILE...  Prints one JSON line per file: {file, errors, warnings, messages}
// and exits 1 if any file has validation errors.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

let failed = false;
for (const file of process.argv.slice(2)) {
  const bytes = new Uint8Array(await readFile(file));
  const dir = path.dirname(file);
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 50,
    externalResourceFunction: (uri) =>
      readFile(path.join(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const issues = report.issues;
  const messages = issues.messages.filter((m) => m.severity <= 1)
    .map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
  console.log(JSON.stringify({ file, errors: issues.numErrors, warnings: issues.numWarnings, messages }));
  if (issues.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
