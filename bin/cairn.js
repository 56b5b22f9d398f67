#!/usr/bin/env node
// The CLI runs from the bundle in dist/; a checkout that was never built says how to build it.
// `cairn --version` alone is answered from the version module, without loading the CLI.
const versionOnly = process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V');
try {
  if (versionOnly) process.stdout.write(`${(await import('../dist/version.js')).VERSION}\n`);
  else await (await import('../dist/main.js')).main();
} catch (e) {
  const missing = e && e.code === 'ERR_MODULE_NOT_FOUND' && /dist\/(main|version)\.js/.test(String(e.message));
  if (!missing) throw e;
  process.stderr.write('cairn: the program is not built yet (dist/main.js is missing); run `npm ci && npm run build` in the cairn folder first\n');
  process.exitCode = 1;
}
