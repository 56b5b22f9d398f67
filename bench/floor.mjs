// The floor: the least a Node process can do for the same work as cairn. It reads the same graph file
// and, per file node, stats, reads and compares (check), or also writes where drifted with the same
// durability as cairn (temp file, fsync, rename) and sets the mode (apply).
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

const [graphFile, mode] = process.argv.slice(2);
const graph = JSON.parse(readFileSync(graphFile, 'utf8'));
let drifted = 0;
for (const node of graph.nodes) {
  const { path, content, mode: m } = node.params;
  if (node.type === 'directory') {
    try {
      statSync(path);
    } catch {
      if (mode === 'apply') mkdirSync(path, { recursive: true });
    }
    continue;
  }
  const want = Number.parseInt(m, 8);
  let same = false;
  try {
    const st = statSync(path);
    same = (st.mode & 0o7777) === want && readFileSync(path, 'utf8') === content;
  } catch {}
  if (same) continue;
  drifted++;
  if (mode !== 'apply') continue;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.floor-tmp`;
  const fd = openSync(tmp, 'w', want);
  writeSync(fd, content);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
}
process.stdout.write(`${drifted}\n`);
