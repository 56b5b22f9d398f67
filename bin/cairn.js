#!/usr/bin/env node
'use strict';
// The CLI runs from the bundle dist/cairn.cjs (scripts/build.mjs). This file is CommonJS (bin/package.json)
// so it can compile the bundle with V8's code cache (dist/cairn.cjs.cache, or a front end's own), written
// by the build's training runs: start-up then skips parsing and compiling what every run needs. A cache
// V8 rejects (another Node version) is ignored and the bundle compiled as usual. `cairn --version` alone is answered from the
// version module, without loading the CLI. A checkout that was never built says how to build it.
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const argv = process.argv;

function notBuilt() {
  process.stderr.write('cairn: the program is not built yet (dist/cairn.cjs is missing); run `npm ci && npm run build` in the cairn folder first\n');
  process.exitCode = 1;
}

// A front end's command compiles the bundle with that front end's cache, written by a training run of
// that front end (what it needs and nothing of the other four); any other command with the general one.
const FRONT_ENDS = ['salt', 'converge', 'otter', 'zapusk', 'inmanta'];

/** The code caches to try for this command line, in order: the first is the one a training run writes. */
function cachesFor(file) {
  const general = `${file}.cache`;
  return FRONT_ENDS.includes(argv[2]) ? [`${file}.${argv[2]}.cache`, general] : [general];
}

function loadCli() {
  const file = join(dist, 'cairn.cjs');
  let source;
  try {
    source = readFileSync(file, 'latin1'); // the build keeps the bundle ASCII
  } catch (e) {
    if (e && e.code === 'ENOENT') return undefined;
    throw e;
  }
  const caches = cachesFor(file);
  let cachedData;
  for (const cache of caches) {
    try {
      cachedData = readFileSync(cache);
      break;
    } catch {}
  }
  const vm = require('node:vm');
  const Module = require('node:module');
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  if (process.env.CAIRN_CODE_CACHE_WRITE === '1') {
    process.on('exit', () => {
      const tmp = `${caches[0]}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, caches[0]);
    });
  }
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, Module.createRequire(file), module, file, dist);
  return module.exports;
}

if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
  let version;
  try {
    version = require('../dist/version.cjs').VERSION;
  } catch (e) {
    if (!e || e.code !== 'MODULE_NOT_FOUND') throw e;
  }
  if (version === undefined) notBuilt();
  else process.stdout.write(`${version}\n`);
} else {
  const cli = loadCli();
  if (cli === undefined) notBuilt();
  else {
    const run = cli.main();
    run.catch((e) => {
      process.nextTick(() => {
        throw e;
      });
    });
  }
}
