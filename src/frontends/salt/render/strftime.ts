/**
 * Salt's `strftime` / `date_format` filters without timelib (as Salt 3006 runs them when timelib is absent):
 * a number, or a string of digits or a float, is a Unix time read in local time (datetime.fromtimestamp);
 * anything else fails with Salt's message. Formatting follows Python's strftime in the C locale.
 */
import { PyError } from '../../../lang/jinja/errors.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const pad = (n: number, w = 2, c = '0'): string => String(n).padStart(w, c);

function dayOfYear(d: Date): number {
  const start = new Date(d.getFullYear(), 0, 1);
  return Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - start.getTime()) / 86400000) + 1;
}

/** Week number of the year, weeks starting on `first` (0 Sunday, 1 Monday), as %U / %W. */
function weekOfYear(d: Date, first: number): number {
  const wday = (d.getDay() + 7 - first) % 7;
  return Math.floor((dayOfYear(d) - 1 - wday + 7) / 7);
}

export function pyStrftime(d: Date, format: string): string {
  return format.replace(/%(.)/gs, (whole, c: string) => {
    switch (c) {
      case 'Y': return String(d.getFullYear());
      case 'y': return pad(d.getFullYear() % 100);
      case 'm': return pad(d.getMonth() + 1);
      case 'd': return pad(d.getDate());
      case 'e': return pad(d.getDate(), 2, ' ');
      case 'H': return pad(d.getHours());
      case 'I': return pad(d.getHours() % 12 === 0 ? 12 : d.getHours() % 12);
      case 'M': return pad(d.getMinutes());
      case 'S': return pad(d.getSeconds());
      case 'f': return pad(d.getMilliseconds() * 1000, 6);
      case 'p': return d.getHours() < 12 ? 'AM' : 'PM';
      case 'a': return (DAYS[d.getDay()] as string).slice(0, 3);
      case 'A': return DAYS[d.getDay()] as string;
      case 'w': return String(d.getDay());
      case 'u': return String(d.getDay() === 0 ? 7 : d.getDay());
      case 'b': case 'h': return (MONTHS[d.getMonth()] as string).slice(0, 3);
      case 'B': return MONTHS[d.getMonth()] as string;
      case 'j': return pad(dayOfYear(d), 3);
      case 'U': return pad(weekOfYear(d, 0));
      case 'W': return pad(weekOfYear(d, 1));
      case 'D': return pyStrftime(d, '%m/%d/%y');
      case 'F': return pyStrftime(d, '%Y-%m-%d');
      case 'T': return pyStrftime(d, '%H:%M:%S');
      case 'R': return pyStrftime(d, '%H:%M');
      case 'c': return pyStrftime(d, '%a %b %e %H:%M:%S %Y');
      case 'x': return pyStrftime(d, '%m/%d/%y');
      case 'X': return pyStrftime(d, '%H:%M:%S');
      case 's': return String(Math.floor(d.getTime() / 1000));
      case 'z': case 'Z': return '';
      case 'n': return '\n';
      case 't': return '\t';
      case '%': return '%';
      default: return whole;
    }
  });
}

/** salt.utils.dateutils.date_cast without timelib. */
export function dateCast(v: unknown): Date {
  if (v === null || v === undefined) return new Date();
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/.test(v)) n = Number(v);
  if (n === undefined || !Number.isFinite(n)) throw new PyError('RuntimeError', `Unable to parse ${String(v)}. Consider installing timelib`);
  return new Date(n * 1000);
}
