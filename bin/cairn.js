#!/usr/bin/env node
// The CLI runs from the bundle in dist/; a checkout that was never built says how to build it.
try {
  await import('../dist/main.js');
} catch (e) {
  const missing = e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist/main.js');
  if (!missing) throw e;
  process.stderr.write('cairn: the program is not built yet (dist/main.js is missing); run `npm ci && npm run build` in the cairn folder first\n');
  process.exitCode = 1;
}
