/**
 * The one golden harness. Every front end's goldens have one layout: a fixture root
 * (test/fixtures/<front end>[/<corpus>]) whose every folder is one case, holding the case's input files
 * and its expected files side by side. A suite says which folders are cases, which names in a case are
 * expected files, and how to run a case; the harness then
 *
 * - makes one test per case; the case compares what it produced with its expected files through
 *   `Expect` (text or JSON);
 * - under `CAIRN_ACCEPT=1` (the one accept mode) writes what was produced into the expected files instead
 *   of failing, except for expected files recorded from the real system (`recorded`: the whole suite, or
 *   the names it says): those are re-recorded from the real system by their recorder, never from cairn;
 * - adds a last test that fails on orphans: a folder in the root that is not a case, a file in a case
 *   that is neither an input nor an expected file, and an expected file that no comparison of its
 *   (finished) case read.
 *
 * Cases run their command lines through the in-process runner (test/cli/cli-helpers.ts `cairn`).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

/** `CAIRN_ACCEPT=1`: expected files are rewritten from what cairn produced. */
export const ACCEPT = process.env.CAIRN_ACCEPT === '1';

export interface GoldenCase {
  readonly name: string;
  readonly dir: string;
}

export interface GoldenSuite {
  /** Test names are `<title> <case>`. */
  readonly title: string;
  /** The fixture root; every folder in it is a case unless `isCase` says otherwise. */
  readonly root: string;
  /** Whether a folder of the root is a case (default: every folder). Other folders are orphans. */
  readonly isCase?: (dir: string) => boolean;
  /** Entries of the root that are not cases and not orphans (a README, a shared folder). */
  readonly shared?: readonly string[];
  /** Whether a top-level name in a case folder is an expected file (compared, and written when accepting). */
  readonly expected: (name: string) => boolean;
  /** Whether a top-level name in a case folder is an input (default: everything that is not expected). */
  readonly input?: (name: string) => boolean;
  /**
   * Expected files recorded from the real system, which CAIRN_ACCEPT never rewrites: all of them (true),
   * or those whose top-level name the function accepts (a suite that keeps cairn's output beside the real one).
   */
  readonly recorded?: boolean | ((name: string) => boolean);
  /** Words added to a case's test name (e.g. its note). */
  readonly describe?: (c: GoldenCase) => string;
  /** The check of one case. */
  readonly run: (c: GoldenCase, expect: Expect) => void | Promise<void>;
}

/** The expected files of one case. */
export class Expect {
  readonly read = new Set<string>();
  accepted = 0;

  constructor(
    private readonly dir: string,
    private readonly suite: GoldenSuite,
    private readonly accept = ACCEPT,
  ) {}

  private file(name: string): string {
    assert.ok(this.suite.expected(name.split('/')[0] as string), `${name} is not an expected-file name of ${this.suite.title}`);
    this.read.add(name);
    return join(this.dir, name);
  }

  private accepting(name: string): boolean {
    const recorded = this.suite.recorded;
    return this.accept && !(recorded === true || (typeof recorded === 'function' && recorded(name.split('/')[0] as string)));
  }

  /** Whether the expected file exists (it counts as read). */
  has(name: string): boolean {
    return existsSync(this.file(name));
  }

  /** The expected file's text (undefined when it does not exist). */
  textOf(name: string): string | undefined {
    const path = this.file(name);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  }

  /**
   * `actual` must equal the file's text. With `absentIsEmpty`, a missing file stands for '' (and accepting
   * '' removes the file).
   */
  text(name: string, actual: string, message: string, options: { absentIsEmpty?: boolean } = {}): void {
    const path = this.file(name);
    const exists = existsSync(path);
    const want = exists ? readFileSync(path, 'utf8') : options.absentIsEmpty ? '' : undefined;
    if (want === actual) return;
    if (this.accepting(name)) {
      if (actual === '' && options.absentIsEmpty) rmSync(path, { force: true });
      else writeFileSync(path, actual);
      this.accepted++;
      return;
    }
    assert.ok(want !== undefined, `${message}: ${relative(process.cwd(), path)} is missing (CAIRN_ACCEPT=1 writes it)`);
    assert.equal(actual, want, message);
  }

  /** The file's JSON value (undefined when it does not exist). */
  jsonOf(name: string): unknown {
    const text = this.textOf(name);
    return text === undefined ? undefined : JSON.parse(text);
  }

  /** `actual` must deep-equal the file's JSON; accepting writes it with `indent`. */
  json(name: string, actual: unknown, message: string, indent = 2): void {
    const path = this.file(name);
    const want = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
    try {
      assert.deepEqual(actual, want, message);
    } catch (e) {
      if (!this.accepting(name)) throw e;
      writeFileSync(path, `${JSON.stringify(actual, null, indent)}\n`);
      this.accepted++;
    }
  }
}

function entries(dir: string): string[] {
  return readdirSync(dir).sort();
}

/** The case folders of a suite's root, sorted. */
export function casesOf(suite: GoldenSuite): string[] {
  if (!existsSync(suite.root)) return [];
  return entries(suite.root).filter((n) => statSync(join(suite.root, n)).isDirectory() && (suite.isCase ?? (() => true))(join(suite.root, n)));
}

/**
 * The orphans of a suite: root entries that are no case, case files that are neither input nor expected,
 * and, for the cases that finished (`finished`: case → the expected files it read), expected files unread.
 */
export function orphansOf(suite: GoldenSuite, finished: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const cases = casesOf(suite);
  const orphans: string[] = [];
  const shared = new Set(suite.shared ?? []);
  for (const n of entries(suite.root)) {
    if (!cases.includes(n) && !shared.has(n)) orphans.push(`${n}: not a case`);
  }
  const input = suite.input ?? ((n: string) => !suite.expected(n));
  for (const name of cases) {
    const names = entries(join(suite.root, name));
    for (const n of names) {
      if (!suite.expected(n) && !input(n)) orphans.push(`${name}/${n}: neither an input nor an expected file`);
    }
    const read = finished.get(name);
    if (!read) continue; // the case failed or was not run: its own test says so
    const readTop = new Set([...read].map((f) => f.split('/')[0]));
    for (const n of names) {
      if (suite.expected(n) && !readTop.has(n)) orphans.push(`${name}/${n}: an expected file no run compares`);
    }
  }
  return orphans;
}

/** Declares one test per case of the suite, then the orphan check. */
export function goldenSuite(suite: GoldenSuite): void {
  const cases = casesOf(suite);
  const finished = new Map<string, Set<string>>();
  test(`${suite.title}: the corpus is not empty`, () => assert.ok(cases.length > 0, `no case under ${suite.root}`));
  for (const name of cases) {
    const dir = join(suite.root, name);
    const more = suite.describe?.({ name, dir }) ?? '';
    test(`${suite.title} ${name}${more ? ` ${more}` : ''}`, async () => {
      const expect = new Expect(dir, suite);
      await suite.run({ name, dir }, expect);
      finished.set(name, expect.read);
      if (expect.accepted > 0) process.stderr.write(`${suite.title} ${name}: accepted ${expect.accepted} expected file(s)\n`);
    });
  }
  test(`${suite.title}: no orphan fixtures`, () => assert.deepEqual(orphansOf(suite, finished), [], `orphan fixtures under ${suite.root}`));
}
