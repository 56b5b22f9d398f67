/**
 * High data → low chunks (Salt's compile_high_data and order_chunks): one chunk per state function and
 * per entry of `names`, then the order flags resolved (`first`, `last`, negative orders, the names
 * increments) and the list sorted by (order, state + name + fun).
 */
import { pyStr } from '../pytext.js';
import { type Arg, argsOf, type Body, type High, isModuleKey, REQUISITE_IN } from './high.js';

/** A low chunk: `state`, `fun`, `name`, `__id__`, `__sls__`, `__env__`, `order` and every argument. */
export type Chunk = Record<string, unknown> & {
  state: string;
  fun: string;
  name: string;
  __id__: string;
  __sls__: string;
  __env__: string;
  order: number;
};

const VERIFIED_REQUISITES: ReadonlySet<string> = new Set(['require', 'watch', 'prereq', 'onchanges']);

/**
 * Salt's verify_high: structure errors, requisite shapes and the two-state requisite cycles it can see.
 * `requisiteInIds`, when given, gets the IDs requisiteIn has to look at, in order: those with an argument
 * that is a requisite_in statement (or `use`, `prereq`), and those verify_high skips (names starting
 * with `__`), so that requisiteIn need not go over every argument again.
 */
export function verifyHigh(high: High, idTypes: Record<string, string> = {}, requisiteInIds?: string[]): string[] {
  const errors: string[] = [];
  const reqs = new Map<string, Map<string, string>>();
  // forEach, not for-of: a Map's iterator makes garbage for every ID.
  high.forEach((body, id) => {
    if (id.startsWith('__')) {
      requisiteInIds?.push(id);
      return;
    }
    let requisiteIn = false;
    const sls = pyStr(body.__sls__);
    const idType = Object.hasOwn(idTypes, id) ? idTypes[id] : undefined;
    if (idType) errors.push(`ID '${id}' in SLS '${sls}' is not formed as a string, but is a ${idType}. It may need to be quoted.`);
    for (const state in body) {
      if (!isModuleKey(state)) continue;
      const run = body[state];
      if (run === null || run === undefined) {
        errors.push(
          `ID '${id}' in SLS '${sls}' contains a short declaration (${state}) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.`,
        );
        continue;
      }
      if (!Array.isArray(run)) {
        errors.push(`State '${id}' in SLS '${sls}' is not formed as a list`);
        continue;
      }
      let fun = state.includes('.') ? 1 : 0;
      for (let a = 0; a < run.length; a++) {
        const arg = run[a] as Arg;
        if (typeof arg === 'string') {
          fun++;
          if (arg.trim().includes(' ')) {
            errors.push(
              `The function "${arg}" in state "${id}" in SLS "${sls}" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a ":"`,
            );
          }
          continue;
        }
        if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) continue;
        let key: string | undefined;
        for (const k in arg) {
          key = k;
          break;
        }
        if (key === undefined) continue;
        if (REQUISITE_IN.has(key)) requisiteIn = true;
        if (key === 'names' && !Array.isArray(arg[key])) errors.push(`The 'names' argument in state '${id}' in SLS '${sls}' needs to be formed as a list`);
        if (VERIFIED_REQUISITES.has(key)) {
          const keys = Object.keys(arg);
          if (!Array.isArray(arg[key])) {
            errors.push(`The ${key} statement in state '${id}' in SLS '${sls}' needs to be formed as a list`);
          } else {
            const mine = new Map<string, string>([['state', state]]);
            reqs.set(id, mine);
            for (let req of arg[key] as unknown[]) {
              if (typeof req === 'string') req = { id: req };
              if (typeof req !== 'object' || req === null || Array.isArray(req)) {
                errors.push(`Requisite declaration ${pyStr(req)} in SLS ${sls} is not formed as a single key dictionary`);
                continue;
              }
              const reqKey = Object.keys(req)[0] ?? '';
              const reqVal = (req as Record<string, unknown>)[reqKey];
              if (reqKey.includes('.')) {
                errors.push(
                  `Invalid requisite type '${reqKey}' in state '${id}', in SLS '${sls}'. Requisite types must not contain dots, did you mean '${reqKey.slice(0, reqKey.indexOf('.'))}'?`,
                );
              }
              if (typeof reqVal === 'object' && reqVal !== null) {
                errors.push(`Illegal requisite "${pyStr(reqVal)}", please check your syntax.\n`);
                continue;
              }
              const val = pyStr(reqVal);
              mine.set(val, reqKey);
              const other = reqs.get(val);
              if (other?.has(id) && other.get(id) === state && other.get('state') === mine.get(val)) {
                errors.push(`A recursive requisite was found, SLS "${sls}" ID "${id}" ID "${val}"`);
              }
            }
          }
          if (keys.length !== 1) errors.push(`Multiple dictionaries defined in argument of state '${id}' in SLS '${sls}'`);
        }
      }
      if (fun === 0) {
        if (state === 'require' || state === 'watch') continue;
        errors.push(`No function declared in state '${state}' in SLS '${sls}'`);
      } else if (fun > 1) errors.push(`Too many functions declared in state '${state}' in SLS '${sls}'`);
    }
    if (requisiteIn) requisiteInIds?.push(id);
  });
  return errors;
}

interface RawChunk extends Record<string, unknown> {
  name_order?: number;
}

function chunksOf(id: string, body: Body, out: RawChunk[]): void {
  for (const state in body) {
    if (!isModuleKey(state)) continue;
    // Made with the first function (most states have one): a list grown by push starts with room for 17.
    let funcs: string[] | undefined;
    let names: unknown[] | undefined;
    // Salt keeps the first of equal `names` entries; a set of their JSON texts finds one in constant time.
    let seen: Set<string> | undefined;
    let chunk: RawChunk;
    // A rendered declaration has both: the chunk is made with its first five keys at once.
    if ('__sls__' in body && '__env__' in body) chunk = { state, name: id, __sls__: body.__sls__, __env__: body.__env__, __id__: id };
    else {
      chunk = { state, name: id };
      if ('__sls__' in body) chunk.__sls__ = body.__sls__;
      if ('__env__' in body) chunk.__env__ = body.__env__;
      chunk.__id__ = id;
    }
    const args = argsOf(body, state);
    for (let a = 0; a < args.length; a++) {
      const arg = args[a] as Arg;
      if (typeof arg === 'string') {
        if (funcs === undefined) funcs = [arg];
        else if (!funcs.includes(arg)) funcs.push(arg);
        continue;
      }
      if (typeof arg !== 'object' || arg === null) continue;
      for (const key in arg) {
        if (!Object.hasOwn(arg, key)) continue;
        const val = arg[key];
        if (key === 'names' && Array.isArray(val)) {
          names ??= [];
          seen ??= new Set<string>();
          for (const n of val) {
            const key = JSON.stringify(n);
            if (seen.has(key)) continue;
            seen.add(key);
            names.push(n);
          }
        } else if (key === 'state') {
          // A state override is not passed down, as in Salt.
        } else if (key === 'name' && typeof val !== 'string') chunk.name = id;
        else chunk[key] = val;
      }
    }
    if (names !== undefined && names.length > 0) {
      names.forEach((entry, i) => {
        const live: RawChunk = { ...chunk };
        if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
          const [lowName, extra] = Object.entries(entry)[0] ?? [String(entry), []];
          live.name = lowName;
          for (const e of Array.isArray(extra) ? extra : []) if (typeof e === 'object' && e) Object.assign(live, e);
        } else live.name = typeof entry === 'string' ? entry : String(entry);
        live.name_order = i + 1;
        for (const fun of funcs ?? []) out.push({ ...live, fun });
      });
    } else if (funcs !== undefined && funcs.length === 1) {
      // The one chunk is the chunk itself, its function set last (as a copy with `fun` added would have it).
      chunk.fun = funcs[0];
      out.push(chunk);
    } else {
      // Chunks share the argument values: nothing after compile changes them, only chunk keys are set.
      for (const fun of funcs ?? []) out.push({ ...chunk, fun });
    }
  }
}


function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** Salt's order_chunks: resolves every order flag, then sorts. */
export function orderChunks(chunks: RawChunk[]): Chunk[] {
  let cap = 1;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i] as RawChunk;
    if (!('order' in c) || !isInt(c.order)) continue;
    if (c.order > cap - 1 && c.order > 0) cap = c.order + 100;
  }
  // Each chunk's order made a number, then sorted by position, with the orders in a list of their own (no
  // pair object per chunk), filled in the same pass. A chunk's key (state, name, fun) is made when its
  // order ties with another's: the auto orders rarely do.
  const n = chunks.length;
  const orders = new Float64Array(n);
  const keys: Array<string | undefined> = new Array<string | undefined>(n);
  const at: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const c = chunks[i] as RawChunk;
    if (!('order' in c)) c.order = cap;
    else if (typeof c.order !== 'number') c.order = c.order === 'last' ? cap + 1000000 : c.order === 'first' ? 0 : cap;
    if (c.name_order !== undefined) {
      c.order = (c.order as number) + c.name_order / 10000;
      delete c.name_order;
    }
    if ((c.order as number) < 0) c.order = cap + 1000000 + (c.order as number);
    orders[i] = c.order as number;
    at[i] = i;
  }
  const keyOf = (i: number): string => {
    let k = keys[i];
    if (k === undefined) {
      const c = chunks[i] as RawChunk;
      keys[i] = k = `${pyStr(c.state)}${pyStr(c.name)}${pyStr(c.fun)}`;
    }
    return k;
  };
  at.sort((a, b) => {
    const d = (orders[a] as number) - (orders[b] as number);
    if (d !== 0) return d;
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const out: Chunk[] = new Array<Chunk>(n);
  for (let i = 0; i < n; i++) out[i] = chunks[at[i] as number] as Chunk;
  return out;
}

export function compileHighData(high: High): Chunk[] {
  const chunks: RawChunk[] = [];
  high.forEach((body, id) => {
    if (!id.startsWith('__')) chunksOf(id, body, chunks);
  });
  return orderChunks(chunks);
}

/** A chunk as Salt prints it: its keys are already in Salt's order (state, name, __sls__, __env__, __id__, the
 *  arguments as declared, with `order` where it was injected and requisites extend added after it, then fun). */
export function showChunk(c: Chunk): Record<string, unknown> {
  return { ...c };
}
