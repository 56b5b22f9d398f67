/**
 * The rest of the real std module's plugins: operating-system families, host names, base64, the IPv4 helpers
 * and validate_type for the types std's own typedefs check with it. IPv6 and the pydantic types that need
 * network lookups are not handled: they report that clearly.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Span } from '../../core/diag.js';
import { readAttribute } from './attributes.js';
import type { Ctx } from './context.js';
import { InmantaError } from './errors.js';
import { moduleFilePath, pluginFailure, type PluginFn } from './templates.js';
import { isInstance, type Value } from './values.js';

function arg(name: string, names: readonly string[], args: Value[], kwargs: Map<string, Value>, span: Span, defaults: Record<string, Value> = {}): Value[] {
  return names.map((n, i) => {
    if (i < args.length) return args[i] as Value;
    if (kwargs.has(n)) return kwargs.get(n) as Value;
    if (n in defaults) return defaults[n] as Value;
    throw new InmantaError('RuntimeException', `std::${name}() missing 1 required positional argument: '${n}'`, span);
  });
}

function text(v: Value, span: Span): string {
  if (typeof v !== 'string') throw new InmantaError('RuntimeException', `Invalid value '${String(v)}', expected string`, span);
  return v;
}

function integer(v: Value, span: Span): number {
  if (typeof v !== 'number') throw new InmantaError('RuntimeException', `Invalid value '${String(v)}', expected int`, span);
  return v;
}

// ---- IPv4 ----

function parseAddress(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0')) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

function formatAddress(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (2 ** 32 - 2 ** (32 - prefix)) >>> 0;
}

/** `a.b.c.d/len` (len optional: 32); strict networks have no host bits set. */
function parseInterface(s: string, strictNetwork: boolean): { addr: number; prefix: number } | undefined {
  const [a, p, ...rest] = s.split('/');
  if (rest.length > 0 || a === undefined) return undefined;
  const addr = parseAddress(a);
  const prefix = p === undefined ? 32 : /^\d{1,2}$/.test(p) ? Number(p) : NaN;
  if (addr === undefined || !(prefix >= 0 && prefix <= 32)) return undefined;
  if (strictNetwork && (addr & ~maskOf(prefix)) >>> 0 !== 0) return undefined;
  return { addr, prefix };
}

function ipInterface(plugin: string, v: Value, span: Span): { addr: number; prefix: number } {
  const s = text(v, span);
  const r = parseInterface(s, false);
  if (!r) throw pluginFailure(`std::${plugin}`, s.includes(':') ? `IPv6 is not supported here: ${s}` : `ValueError: '${s}' does not appear to be an IPv4 or IPv6 interface`, span);
  return r;
}

const VALIDATORS: Record<string, (s: Value) => boolean> = {
  'ipaddress.IPv4Address': (v) => typeof v === 'string' && parseAddress(v) !== undefined,
  'ipaddress.IPv4Interface': (v) => typeof v === 'string' && parseInterface(v, false) !== undefined,
  'ipaddress.IPv4Network': (v) => typeof v === 'string' && parseInterface(v, true) !== undefined,
  'pydantic.PositiveInt': (v) => typeof v === 'number' && v > 0,
  'pydantic.NegativeInt': (v) => typeof v === 'number' && v < 0,
};

function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

export const STD_EXTRA: Record<string, PluginFn> = {
  familyof: (_ctx: Ctx, args, kw, span) => {
    const [member, family] = arg('familyof', ['member', 'family'], args, kw, span);
    if (!isInstance(member) || !member.entity.lineage().some((t) => t.fullName === 'std::OS')) {
      throw new InmantaError('RuntimeException', `Invalid value '${String(member)}', expected std::OS`, span);
    }
    const want = text(family ?? null, span);
    // As std does it: the member's own name, then each ancestor's name before stepping to its family.
    if (readAttribute(member, 'name', span) === want) return true;
    let parent: Value = member;
    try {
      while (isInstance(parent) && readAttribute(parent, 'family', span) !== null) {
        if (readAttribute(parent, 'name', span) === want) return true;
        parent = readAttribute(parent, 'family', span);
      }
    } catch (e) {
      if (!InmantaError.is(e) || e.kind !== 'OptionalValueException') throw e;
    }
    return false;
  },
  hostname: (_c, args, kw, span) => text(arg('hostname', ['fqdn'], args, kw, span)[0] ?? null, span).split('.')[0] as string,
  is_base64_encoded: (_c, args, kw, span) => isBase64(text(arg('is_base64_encoded', ['s'], args, kw, span)[0] ?? null, span)),
  list_files: (ctx, args, kw, span) => {
    const path = text(arg('list_files', ['path'], args, kw, span)[0] ?? null, span);
    const dir = moduleFilePath(ctx, 'std::list_files', path, 'files', span, true);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw pluginFailure('std::list_files', `FileNotFoundError: [Errno 2] No such file or directory: '${dir}'`, span);
    return readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile());
  },
  validate_type: (_c, args, kw, span) => {
    const [type, value] = arg('validate_type', ['fq_type_name', 'value', 'validation_parameters'], args, kw, span, { validation_parameters: null });
    const check = VALIDATORS[text(type ?? null, span)];
    if (!check) throw pluginFailure('std::validate_type', `validate_type does not handle ${String(type)} here`, span);
    return check(value ?? null);
  },
  prefixlength_to_netmask: (_c, args, kw, span) => {
    const n = integer(arg('prefixlength_to_netmask', ['prefixlen'], args, kw, span)[0] ?? null, span);
    if (n < 0 || n > 32) throw pluginFailure('std::prefixlength_to_netmask', `ValueError: '255.255.255.255/${n}' does not appear to be an IPv4 or IPv6 interface`, span);
    return formatAddress(maskOf(n));
  },
  prefixlen: (_c, args, kw, span) => ipInterface('prefixlen', arg('prefixlen', ['addr'], args, kw, span)[0] ?? null, span).prefix,
  network_address: (_c, args, kw, span) => {
    const i = ipInterface('network_address', arg('network_address', ['addr'], args, kw, span)[0] ?? null, span);
    return formatAddress((i.addr & maskOf(i.prefix)) >>> 0);
  },
  netmask: (_c, args, kw, span) => formatAddress(maskOf(ipInterface('netmask', arg('netmask', ['addr'], args, kw, span)[0] ?? null, span).prefix)),
  ipindex: (_c, args, kw, span) => {
    const [addr, position, keep] = arg('ipindex', ['addr', 'position', 'keep_prefix'], args, kw, span, { keep_prefix: false });
    const s = text(addr ?? null, span);
    const net = parseInterface(s, true);
    if (!net) throw pluginFailure('std::ipindex', `ValueError: ${s} does not appear to be an IPv4 network with no host bits set`, span);
    const size = 2 ** (32 - net.prefix);
    let p = integer(position ?? null, span);
    if (p < 0) p += size;
    if (p < 0 || p >= size) throw pluginFailure('std::ipindex', 'IndexError: address out of range', span);
    const out = formatAddress(net.addr + p);
    return keep === true ? `${out}/${net.prefix}` : out;
  },
  add_to_ip: (_c, args, kw, span) => {
    const [addr, n] = arg('add_to_ip', ['addr', 'n'], args, kw, span);
    const a = parseAddress(text(addr ?? null, span));
    if (a === undefined) throw pluginFailure('std::add_to_ip', `ValueError: '${String(addr)}' does not appear to be an IPv4 or IPv6 address`, span);
    const r = a + integer(n ?? null, span);
    if (r < 0 || r >= 2 ** 32) throw pluginFailure('std::add_to_ip', 'ipaddress.AddressValueError: the result is outside the IPv4 range', span);
    return formatAddress(r);
  },
  ip_address_from_interface: (_c, args, kw, span) => formatAddress(ipInterface('ip_address_from_interface', arg('ip_address_from_interface', ['ip_interface'], args, kw, span)[0] ?? null, span).addr),
};
