/**
 * Heap tuning for a run over a large input. A run keeps what it reads and finds until it records it, so
 * most young objects survive, and V8 answers by growing the young generation to 32 MiB: that is most of
 * the difference in peak memory between a no-op plan of 10,000 files and the floor, for no gain in time.
 * Kept at its first size, the plan peaks about 20 MiB lower in the same time. The old generation is let
 * grow by half instead of V8's larger steps before it is collected: about 10 MiB lower again (a first
 * apply of 10,000 files peaks under 100 MiB) for a few per cent more CPU. A huge input (100,000
 * resources) is left to V8's defaults: its heap is hundreds of MiB whatever the young generation's size,
 * and a small young generation there means hundreds of collections, a fifth of the run's CPU. Only for
 * large inputs: changing a V8 flag makes V8 refuse Node's code cache for built-in modules loaded
 * afterwards (a few milliseconds), which a small run would notice.
 */
/** Inputs from this many characters (a graph of a few thousand resources) count as large. */
export const LARGE_INPUT = 512 * 1024;
/** From this many characters (a graph of some 30,000 resources), V8's defaults again. */
export const HUGE_INPUT = 4 * 1024 * 1024;

/** The V8 flags a run over an input of `chars` characters sets, if any. */
export function heapFlagsFor(chars: number): string | undefined {
  return chars >= LARGE_INPUT && chars < HUGE_INPUT ? '--semi-space-growth-factor=1 --heap-growing-percent=50' : undefined;
}

let allowed = false;

/**
 * Called by the process entry of the CLI (`main`): a process that runs one command may tune its heap. A
 * process that hosts many runs (the tests' in-process runner) keeps V8's defaults for all of them.
 */
export function allowHeapTuning(): void {
  allowed = true;
}

/** The tunings this process has made, each at most once. */
const done = new Set<string>();

/**
 * A large run hashes many of its results for the store (resources/file/diff.ts): it loads the crypto
 * module before its first flag change, while V8 still takes Node's code cache for it (some 1.5 ms of CPU;
 * after a flag change, some 4.5 ms). A small run hashes its few contents without the module.
 */
function loadBeforeTuning(): void {
  if (allowed && done.size === 0) process.getBuiltinModule('node:crypto');
}

/** Sets V8 `flags` for the tuning called `name`, where allowed and not done yet; true when this call did. */
function tuneOnce(name: string, flags: string | undefined): boolean {
  if (!allowed || done.has(name) || flags === undefined) return false;
  done.add(name);
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
  return true;
}

/** Tunes the heap for an input of `chars` characters, where allowed; true when this call did. */
export function tuneHeapForInput(chars: number): boolean {
  return tuneOnce('heap', heapFlagsFor(chars));
}

/**
 * V8 hands a function to its optimizing compiler (TurboFan, on a helper thread) once the function has run
 * through its interrupt budget a few times. A front end that compiles its input (a parser and an evaluator
 * that go over every statement once) makes many functions hot for a short while, and most of that
 * optimizing is finished when the work it was for is nearly done: an Inmanta deploy of 1,000 files spent
 * about a third of its instructions (measured with callgrind) in TurboFan. With the budget about nine
 * times V8's default (67,584), only what stays hot is optimized: that deploy takes about a quarter fewer
 * instructions, 10,000 files about a fifth fewer, on a machine whose other core is busy the same in wall
 * time or less. Only where heap tuning is allowed (a process that runs one command).
 */
const ONE_RUN_INTERRUPT_BUDGET = 600_000;
/**
 * A graph file from this many characters (some 500 resources) up to LARGE_INPUT (some 4,000) is run with
 * that budget too: its load, check and records go over every resource once, and a no-op plan of 1,000
 * files takes about a sixth less CPU (the same time on an idle machine). A smaller one keeps V8's
 * default, as changing a flag costs a small run more (above) than it saves; so does a larger one, where
 * the functions optimized early on the other core pay back in time (a no-op plan of 10,000 files took
 * about 15% longer with the larger budget, for less CPU in all).
 */
const JIT_INPUT = 64 * 1024;

/** Sets the larger interrupt budget for a compile that runs once in this process, where allowed; true when this call did. */
export function tuneJitForOneRun(): boolean {
  return tuneOnce('jit', `--interrupt-budget=${ONE_RUN_INTERRUPT_BUDGET}`);
}

/**
 * tuneJitForOneRun for a front end that compiles `chars` characters of source: from JIT_INPUT on (some 500
 * resources), whose run hashes its results for the store, the crypto module is loaded first, as for a
 * graph file of that size (loaded after the flag change, it costs some 3 ms more of CPU).
 */
export function tuneJitForOneRunOf(chars: number): boolean {
  if (chars >= JIT_INPUT) loadBeforeTuning();
  return tuneJitForOneRun();
}

/** V8's own interrupt budget (its default in Node 20), which endJitForLargeRun puts back. */
const V8_INTERRUPT_BUDGET = 67_584;
/**
 * A run of this many items after a one-run compile (a Salt state.apply of 5,000 states or more) takes
 * V8's default budget back for the run itself, which does the same for every item: at 10,000
 * file.managed states the run's functions stay hot long enough that optimizing them early, on the other
 * core, pays back in time when that core is free (5-8% less wall time on the bench's no-op on a quiet
 * machine, about the same on a busy one, for some 4% more CPU in all), as the graph file's large input
 * found. The render and compile before it keep the larger budget unless their input is large too
 * (tuneJitForLargeInput).
 */
export const LARGE_RUN_ITEMS = 5000;

/** The V8 flags that end the one-run budget for a run of `items` items, if any. */
export function jitFlagsForRun(items: number): string | undefined {
  return items >= LARGE_RUN_ITEMS ? `--interrupt-budget=${V8_INTERRUPT_BUDGET}` : undefined;
}

/** After tuneJitForOneRun, V8's default budget for a run of `items` items, where large enough; true when this call did. */
export function endJitForLargeRun(items: number): boolean {
  return done.has('jit') && tuneOnce('jit-end', jitFlagsForRun(items));
}

/**
 * TurboFan inlines up to 920 bytes of bytecode into a function it optimizes. A front end that compiles a
 * large model once makes its parser's and evaluator's hot functions inline most of the language: an
 * Inmanta keyword-argument list took in the whole expression parser, the costliest function TurboFan
 * compiled in a deploy of 10,000 files. With half that, the deploy took about 8% less wall time and a
 * little less CPU (measured against the graph file's no-op in the same rounds); a model of 1,000 files
 * gained nothing, so only a large one is run so. Only where heap tuning is allowed.
 */
const ONE_RUN_INLINED_BYTECODE = 460;

/** Halves TurboFan's cumulative inlining for a large compile that runs once in this process, where allowed; true when this call did. */
export function limitInliningForLargeCompile(): boolean {
  loadBeforeTuning();
  return tuneOnce('inlining', `--max-inlined-bytecode-size-cumulative=${ONE_RUN_INLINED_BYTECODE}`);
}

/**
 * A large Inmanta compile keeps nearly all it allocates (its syntax tree, instances and resources) until
 * it exports, and V8 grows the young generation up to 16 MiB for it: each scavenge then copies megabytes
 * that survive anyway (a 10,000-file deploy spent some 100 ms in fewer, larger scavenges). Kept at its
 * first size, as tuneHeapForInput does for a large graph file, the deploy took about 4% less CPU and 10%
 * less wall time (measured interleaved against the same deploy without, on a busy machine; about as many
 * instructions); the old generation's growth is left as V8 has it (grown by half, as for a graph file, it
 * was collected far more often: some 16% more instructions). A small model gains nothing (a flag changed
 * after start-up costs it more), and a huge one (from HUGE_INPUT, as for a graph file) is left to V8's
 * defaults: its heap is hundreds of MiB, and a small young generation there means hundreds of scavenges.
 * Only where heap tuning is allowed.
 */
export function keepYoungGenerationForLargeCompile(chars: number): boolean {
  return chars < HUGE_INPUT && tuneOnce('young', '--semi-space-growth-factor=1');
}

/** The V8 flags that end the one-run budget once `chars` characters of source are read, if any. */
export function jitFlagsForInput(chars: number): string | undefined {
  return chars >= LARGE_INPUT ? `--interrupt-budget=${V8_INTERRUPT_BUDGET}` : undefined;
}

/**
 * After tuneJitForOneRun, for a front end that has read `chars` characters of source so far: from
 * LARGE_INPUT (a Salt render of SLS files of some 5,000 file.managed states), V8's default budget back and
 * TurboFan's inlining halved, as for a large Inmanta compile. Reading and rendering that much is long
 * enough for early optimizing to pay back, and the reader's and the run's hot functions are many and
 * small. A Salt no-op of 10,000 file.managed states: its YAML load about a quarter less time with the
 * default budget, and the whole no-op about 4% less CPU again with the inlining halved (measured against
 * the same no-op without, in the same rounds). True when this call changed a flag.
 */
export function tuneJitForLargeInput(chars: number): boolean {
  const flags = jitFlagsForInput(chars);
  if (!done.has('jit') || flags === undefined) return false;
  const ended = tuneOnce('jit-end', flags);
  const limited = tuneOnce('inlining', `--max-inlined-bytecode-size-cumulative=${ONE_RUN_INLINED_BYTECODE}`);
  return ended || limited;
}

/** Tunes a run over a graph file of `chars` characters: the heap for a large one, the JIT budget for a middling one. */
export function tuneForGraphInput(chars: number): void {
  if (chars >= JIT_INPUT) loadBeforeTuning();
  tuneHeapForInput(chars);
  if (chars >= JIT_INPUT && chars < LARGE_INPUT) tuneJitForOneRun();
}
