// PC2 point caches (what `wobble bake -o x.pc2` writes: a 32-byte header, then float32 x y z per
// vertex per frame) and the largest distance between two sequences of frames.
import fs from 'node:fs';

export function readPc2(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 11) !== 'POINTCACHE2') throw new Error(`${file}: not a PC2 file`);
  const points = bytes.readInt32LE(16), count = bytes.readInt32LE(28);
  if (bytes.length !== 32 + 12 * points * count) throw new Error(`${file}: ${bytes.length} bytes for ${count} frames of ${points} points`);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 32, bytes.byteOffset + bytes.length));
  const frames = [];
  for (let f = 0; f < count; ++f) frames.push(data.subarray(3 * points * f, 3 * points * (f + 1)));
  return { points, startFrame: bytes.readFloatLE(20), sampleRate: bytes.readFloatLE(24), frames };
}

// `data`: frames like `frames` concatenated; the largest distance between the same vertex of the
// same frame, as a share of `size`, and the frame where it is. Missing frames count as infinite.
export function compareFrames(data, frames, size) {
  const vertices = frames.length ? frames[0].length / 3 : 0;
  let largest = data.length === 3 * vertices * frames.length ? 0 : Infinity, frame = -1;
  for (let f = 0; f < frames.length && 3 * vertices * (f + 1) <= data.length; ++f) {
    const a = data.subarray(3 * vertices * f), b = frames[f];
    for (let v = 0; v < vertices; ++v) {
      const d = Math.hypot(a[3 * v] - b[3 * v], a[3 * v + 1] - b[3 * v + 1], a[3 * v + 2] - b[3 * v + 2]) / size;
      if (!(d <= largest)) largest = d, frame = f;
    }
  }
  return { largest, frame };
}
