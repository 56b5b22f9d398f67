// The floor for `npm run bench:fleet`: a plain node + ssh2 script doing what cairn does for N hosts ×
// K files, with the same durability, and nothing else. Usage: node bench/fleet-floor.mjs HOSTS.json
// HOSTS.json: [{port, key}]; each host's files are $CAIRN_TEST_ROOT/f0..f(K-1) (read with one exec, as
// cairn's graph does) with content "line i\n".
// A file that differs is written to a temp file, fsynced, and renamed over the target (posix-rename).
import { readFileSync } from 'node:fs';
import ssh2 from 'ssh2';

const [file, count = '10'] = process.argv.slice(2);
const hosts = JSON.parse(readFileSync(file, 'utf8'));
const K = Number(count);

const p = (fn) => new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v))));

async function one(h) {
  const client = new ssh2.Client();
  await new Promise((resolve, reject) => {
    client.on('ready', resolve).on('error', reject);
    client.connect({ host: '127.0.0.1', port: h.port, username: 'root', privateKey: readFileSync(h.key), hostVerifier: () => true });
  });
  // Where this test machine's files live (cairn's graph reads the same variable with one exec).
  const rootDir = await new Promise((resolve, reject) =>
    client.exec('printf %s "$CAIRN_TEST_ROOT"', (err, ch) => {
      if (err) return reject(err);
      let out = '';
      ch.on('data', (b) => (out += b)).on('close', () => resolve(out));
      ch.stderr.resume();
    }),
  );
  const sftp = await p((cb) => client.sftp(cb));
  await Promise.all(
    Array.from({ length: K }, async (_, i) => {
      const path = `${rootDir}/f${i}`;
      const want = Buffer.from(`line ${i}\n`);
      const st = await p((cb) => sftp.lstat(path, cb)).catch(() => null);
      if (st && st.size === want.length) {
        const got = await p((cb) => sftp.readFile(path, cb));
        if (got.equals(want)) return;
      }
      const temp = `${path}.tmp`;
      const handle = await p((cb) => sftp.open(temp, 'w', { mode: 0o644 }, cb));
      await p((cb) => sftp.write(handle, want, 0, want.length, 0, cb));
      await p((cb) => sftp.ext_openssh_fsync(handle, cb));
      await p((cb) => sftp.close(handle, cb));
      await p((cb) => sftp.ext_openssh_rename(temp, path, cb));
    }),
  );
  client.end();
}

await Promise.all(hosts.map(one));
