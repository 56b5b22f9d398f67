/** Python string formatting: `%` interpolation, the format-spec mini-language and str.format. */

import { PyError, typeError, valueError } from './errors.js';
import { floatRepr, intStr, isNumber, isString, numValue, PyDict, PyFloat, PyTuple, pyRepr, pyStr, typeName, type PyValue } from './pyvalue.js';

/** Decimal digits of |x| rounded half-even on its exact binary value, as CPython's float formatting does. */
export function fixedDigits(x: number, prec: number): string {
  const ax = Math.abs(x);
  if (ax >= 1e21) return prec > 0 ? `${BigInt(ax).toString()}.${'0'.repeat(prec)}` : BigInt(ax).toString();
  const extra = Math.min(100, prec + 30);
  const s = ax.toFixed(extra);
  const [ip = '0', fp = ''] = s.split('.');
  const kept = ip + fp.slice(0, prec);
  const rest = fp.slice(prec);
  let up = false;
  if (rest[0] !== undefined && rest[0] > '5') up = true;
  else if (rest[0] === '5') up = /[1-9]/.test(rest.slice(1)) || Number(kept[kept.length - 1]) % 2 === 1;
  let digits = kept;
  if (up) digits = incrementDigits(kept);
  const intLen = digits.length - prec;
  return prec > 0 ? `${digits.slice(0, intLen)}.${digits.slice(intLen)}` : digits;
}

function incrementDigits(d: string): string {
  const a = d.split('');
  let i = a.length - 1;
  while (i >= 0) {
    if (a[i] === '9') {
      a[i] = '0';
      i--;
    } else {
      a[i] = String(Number(a[i]) + 1);
      return a.join('');
    }
  }
  return `1${a.join('')}`;
}

function expDigits(x: number, prec: number, upper: boolean): string {
  const ax = Math.abs(x);
  let e = ax === 0 ? 0 : Math.floor(Math.log10(ax));
  let m = fixedDigits(ax / 10 ** e, prec);
  // log10 and the division can be off by one near powers of ten; renormalise.
  if (Number(m) >= 10) {
    e += 1;
    m = fixedDigits(ax / 10 ** e, prec);
  } else if (ax !== 0 && Number(m) < 1) {
    e -= 1;
    m = fixedDigits(ax / 10 ** e, prec);
  }
  const es = `${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return `${m}${upper ? 'E' : 'e'}${es}`;
}

function generalDigits(x: number, precIn: number, alt: boolean, upper: boolean): string {
  const prec = precIn === 0 ? 1 : precIn;
  const ax = Math.abs(x);
  if (ax === 0) return alt ? `0.${'0'.repeat(prec - 1)}` : '0';
  const exp = Number(expDigits(ax, prec - 1, false).split('e')[1]);
  let s = exp >= -4 && exp < prec ? fixedDigits(ax, prec - 1 - exp) : expDigits(ax, prec - 1, upper);
  if (!alt) {
    s = s.replace(/(\.\d*?)0+(?=$|[eE])/, '$1').replace(/\.(?=$|[eE])/, '');
  }
  return s;
}

interface Spec {
  fill: string;
  align: string;
  sign: string;
  alt: boolean;
  zero: boolean;
  width: number;
  grouping: string;
  precision: number | undefined;
  type: string;
}

function parseSpec(spec: string): Spec {
  const m = /^(?:(.)?([<>=^]))?([-+ ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([a-zA-Z%])?$/s.exec(spec);
  if (!m) throw valueError('Invalid format specifier');
  return {
    fill: m[1] ?? (m[5] && !m[2] ? '0' : ' '),
    align: m[2] ?? (m[5] ? '=' : ''),
    sign: m[3] ?? '-',
    alt: m[4] !== undefined,
    zero: m[5] !== undefined,
    width: m[6] ? Number(m[6]) : 0,
    grouping: m[7] ?? '',
    precision: m[8] !== undefined ? Number(m[8]) : undefined,
    type: m[9] ?? '',
  };
}

function group(intDigits: string, sep: string): string {
  if (!sep) return intDigits;
  return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
}

function pad(body: string, signStr: string, sp: Spec, defaultAlign: string): string {
  const align = sp.align || defaultAlign;
  const total = signStr.length + body.length;
  if (total >= sp.width) return signStr + body;
  const n = sp.width - total;
  const fill = sp.fill;
  if (align === '<') return signStr + body + fill.repeat(n);
  if (align === '^') return fill.repeat(Math.floor(n / 2)) + signStr + body + fill.repeat(n - Math.floor(n / 2));
  if (align === '=') return signStr + fill.repeat(n) + body;
  return fill.repeat(n) + signStr + body;
}

function formatNumber(v: number | boolean | PyFloat, sp: Spec): string {
  const isFloat = v instanceof PyFloat;
  const x = numValue(v);
  let type = sp.type;
  if (!isFloat && 'bcdoxXn'.includes(type) && type !== '') {
    let body: string;
    const ax = Math.abs(x);
    if (type === 'c') return pad(String.fromCodePoint(x), '', sp, '<');
    if (type === 'b') body = (sp.alt ? '0b' : '') + ax.toString(2);
    else if (type === 'o') body = (sp.alt ? '0o' : '') + ax.toString(8);
    else if (type === 'x') body = (sp.alt ? '0x' : '') + ax.toString(16);
    else if (type === 'X') body = (sp.alt ? '0X' : '') + ax.toString(16).toUpperCase();
    else body = group(intStr(ax), sp.grouping);
    return pad(body, signOf(x < 0, sp.sign), sp, '>');
  }
  if (isFloat && 'bcdoxX'.includes(type) && type !== '') throw valueError(`Unknown format code '${type}' for object of type 'float'`);
  let body: string;
  const neg = x < 0 || Object.is(x, -0);
  if (type === '' && !isFloat) body = group(intStr(Math.abs(x)), sp.grouping);
  else if (!Number.isFinite(x)) body = Number.isNaN(x) ? 'nan' : 'inf';
  else {
    if (type === '') type = sp.precision === undefined ? 'r' : 'g';
    const prec = sp.precision ?? 6;
    const ax = Math.abs(x);
    if (type === 'r') body = floatRepr(ax);
    else if (type === 'f' || type === 'F') body = fixedDigits(ax, prec);
    else if (type === 'e' || type === 'E') body = expDigits(ax, prec, type === 'E');
    else if (type === '%') body = `${fixedDigits(ax * 100, prec)}%`;
    else {
      body = generalDigits(ax, prec, sp.alt, type === 'G');
      if (sp.type === '' && !/[.e]/.test(body)) body += '.0';
    }
    if (sp.grouping) {
      const idx = body.search(/[.e%]/);
      body = idx < 0 ? group(body, sp.grouping) : group(body.slice(0, idx), sp.grouping) + body.slice(idx);
    }
  }
  return pad(body, signOf(neg, sp.sign), sp, '>');
}

function signOf(neg: boolean, sign: string): string {
  if (neg) return '-';
  return sign === '+' ? '+' : sign === ' ' ? ' ' : '';
}

/** format(value, spec) */
export function formatSpec(v: PyValue, spec: string): string {
  if (spec === '') return pyStr(v);
  const sp = parseSpec(spec);
  if (isNumber(v) && !(typeof v === 'boolean' && (sp.type === 's' || sp.type === ''))) return formatNumber(v, sp);
  if (isString(v) || typeof v === 'boolean') {
    if (sp.type !== '' && sp.type !== 's') throw valueError(`Unknown format code '${sp.type}' for object of type '${typeName(v)}'`);
    let s = pyStr(v);
    if (sp.precision !== undefined) s = [...s].slice(0, sp.precision).join('');
    return pad(s, '', sp, '<');
  }
  throw typeError(`unsupported format string passed to ${typeName(v)}.__format__`);
}

const PERCENT_RE = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcrsa%])/g;

/** `fmt % args` */
export function percentFormat(fmt: string, argsIn: PyValue): string {
  const args = argsIn instanceof PyTuple ? [...argsIn.items] : [argsIn];
  const mapping = argsIn instanceof PyDict ? argsIn : null;
  let used = 0;
  let usedMapping = false;
  const next = (): PyValue => {
    if (used >= args.length) throw typeError('not enough arguments for format string');
    return args[used++];
  };
  const out = fmt.replace(PERCENT_RE, (_m, key: string | undefined, flags: string, width: string | undefined, prec: string | undefined, conv: string) => {
    if (conv === '%') return '%';
    let v: PyValue;
    const w = width === '*' ? Number(next()) : width ? Number(width) : 0;
    const p = prec === '*' ? Number(next()) : prec !== undefined ? Number(prec) : undefined;
    if (key !== undefined) {
      if (!mapping) throw typeError('format requires a mapping');
      usedMapping = true;
      if (!mapping.has(key)) throw new PyError('KeyError', pyRepr(key));
      v = mapping.get(key);
    } else v = next();
    const sp: Spec = {
      fill: flags.includes('0') && !flags.includes('-') ? '0' : ' ',
      align: flags.includes('-') ? '<' : flags.includes('0') ? '=' : '>',
      sign: flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '-',
      alt: flags.includes('#'),
      zero: false,
      width: w,
      grouping: '',
      precision: p,
      type: conv,
    };
    return percentOne(v, sp, conv);
  });
  if (!usedMapping && used < args.length && !(mapping && args.length === 1)) {
    throw typeError('not all arguments converted during string formatting');
  }
  return out;
}

function percentOne(v: PyValue, sp: Spec, conv: string): string {
  if (conv === 's' || conv === 'r' || conv === 'a') {
    let s = conv === 's' ? pyStr(v) : pyRepr(v);
    if (sp.precision !== undefined) s = s.slice(0, sp.precision);
    return pad(s, '', { ...sp, fill: ' ', align: sp.align === '<' ? '<' : '>' }, '>');
  }
  if (conv === 'c') return pad(typeof v === 'number' ? String.fromCodePoint(v) : pyStr(v), '', { ...sp, fill: ' ' }, '>');
  if (!isNumber(v)) {
    const what = 'diouxX'.includes(conv) ? 'a real number' : 'must be real number';
    throw typeError(what === 'a real number' ? `%${conv} format: a real number is required, not ${typeName(v)}` : `must be real number, not ${typeName(v)}`);
  }
  if ('diu'.includes(conv)) return formatNumber(Math.trunc(numValue(v)), { ...sp, type: 'd', precision: undefined });
  if ('oxX'.includes(conv)) {
    if (v instanceof PyFloat) throw typeError(`%${conv} format: an integer is required, not float`);
    const s = formatNumber(numValue(v), { ...sp, type: conv, alt: false });
    if (!sp.alt) return s;
    return formatNumber(numValue(v), { ...sp, type: conv });
  }
  return formatNumber(new PyFloat(numValue(v)), { ...sp, type: conv, precision: sp.precision ?? 6 });
}

/** str.format(*args, **kwargs) */
export function strFormat(
  fmt: string,
  args: PyValue[],
  kwargs: Map<string, PyValue>,
  getField: (obj: PyValue, key: string, isAttr: boolean) => PyValue,
  counter = { auto: 0 },
): string {
  let out = '';
  let i = 0;
  while (i < fmt.length) {
    const c = fmt[i]!;
    if (c === '{' && fmt[i + 1] === '{') { out += '{'; i += 2; continue; }
    if (c === '}' && fmt[i + 1] === '}') { out += '}'; i += 2; continue; }
    if (c === '}') throw valueError("Single '}' encountered in format string");
    if (c !== '{') { out += c; i++; continue; }
    // The spec may hold nested replacement fields (`{:>{}}`).
    let end = i + 1;
    for (let depth = 1; end < fmt.length; end++) {
      if (fmt[end] === '{') depth++;
      else if (fmt[end] === '}' && --depth === 0) break;
    }
    if (end >= fmt.length) throw valueError("expected '}' before end of string");
    const field = fmt.slice(i + 1, end);
    i = end + 1;
    const m = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]*\])*)(?:!([rsa]))?(?::(.*))?$/s.exec(field);
    if (!m) throw valueError('bad format field');
    const head = m[1] ?? '';
    let v: PyValue;
    if (head === '') v = args[counter.auto++];
    else if (/^\d+$/.test(head)) v = args[Number(head)];
    else {
      if (!kwargs.has(head)) throw new PyError('KeyError', pyRepr(head));
      v = kwargs.get(head);
    }
    if (v === undefined) throw new PyError('IndexError', `Replacement index ${head || counter.auto - 1} out of range for positional args tuple`);
    for (const part of (m[2] ?? '').match(/\.[^.[]+|\[[^\]]*\]/g) ?? []) {
      if (part.startsWith('.')) v = getField(v, part.slice(1), true);
      else {
        const k = part.slice(1, -1);
        v = getField(v, /^\d+$/.test(k) ? (Number(k) as unknown as string) : k, false);
      }
    }
    if (m[3] === 'r' || m[3] === 'a') v = pyRepr(v);
    else if (m[3] === 's') v = pyStr(v);
    const spec = m[4] ?? '';
    out += formatSpec(v, spec.includes('{') ? strFormat(spec, args, kwargs, getField, counter) : spec);
  }
  return out;
}
