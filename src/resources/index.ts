/** Every resource kind, by type name. */
import { kind as absent } from './absent/index.js';
import { kind as append } from './append/index.js';
import { kind as chmod } from './chmod/index.js';
import { kind as chown } from './chown/index.js';
import { kind as cleandir } from './cleandir/index.js';
import { kind as command } from './command/index.js';
import { kind as directory } from './directory/index.js';
import { kind as fetch } from './fetch/index.js';
import { kind as file } from './file/index.js';
import { kind as group } from './group/index.js';
import { kind as line } from './line/index.js';
import type { Kind } from './kind.js';
import { kind as pkg } from './package/index.js';
import { kind as replace } from './replace/index.js';
import { kind as symlink } from './symlink/index.js';
import { kind as task } from './task/index.js';
import { kind as testKind } from './test/index.js';
import { kind as touch } from './touch/index.js';
import { kind as unarchive } from './unarchive/index.js';
import { kind as unit } from './unit/index.js';
import { kind as user } from './user/index.js';
import { kind as wait } from './wait/index.js';

export const kinds: ReadonlyMap<string, Kind> = new Map([file, directory, symlink, absent, command, pkg, user, group, testKind, task, touch, append, replace, line, cleandir, fetch, unarchive, wait, chown, chmod, unit].map((k) => [k.type, k]));
export type { Kind };
