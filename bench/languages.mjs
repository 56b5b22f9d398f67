// Every language against the graph file on the same work, whole process against whole process, in one run
// (bench/lang-compare.mjs): N files (default 1,000; `--n 10000`), each language's no-op next to the graph
// file's no-op apply, round-robin. `npm run bench` runs the same at 1,000 and 10,000 files. Run with:
//   npm run build && node bench/languages.mjs [--n N] [--runs R] [--shared-store]
// Last line: bench-languages: salt=X converge=X otter=X zapusk=X inmanta=X (no-op ratio to the graph file)
import { compareLanguages, LANGUAGES } from './lang-compare.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ratios = compareLanguages(arg('--n', 1000), arg('--runs', 5), { shared: process.argv.includes('--shared-store') });
console.log(`bench-languages: ${LANGUAGES.map((l) => `${l}=${ratios[l] === undefined ? 'n/a' : ratios[l].toFixed(2)}`).join(' ')}`);
