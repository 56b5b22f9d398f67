/**
 * PyYAML's YAML 1.1 implicit resolvers (the tags a plain scalar gets): the one table every part of cairn
 * that reads or writes YAML the way Python does consults. A string that matches one of them must be
 * quoted when written, or it would read back as a bool, number, null, date, merge key or value key.
 */
export type ImplicitTag = 'bool' | 'float' | 'int' | 'merge' | 'null' | 'timestamp' | 'value';

const RESOLVERS: ReadonlyArray<readonly [ImplicitTag, RegExp]> = [
  ['bool', /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/],
  ['float', /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/],
  ['int', /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/],
  ['merge', /^(?:<<)$/],
  ['null', /^(?:~|null|Null|NULL|)$/],
  ['timestamp', /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/],
  ['value', /^(?:=)$/],
];

/** The tag PyYAML's resolver gives a plain scalar, or undefined for a plain string. */
export function implicitTag(text: string): ImplicitTag | undefined {
  for (const [tag, re] of RESOLVERS) if (re.test(text)) return tag;
  return undefined;
}

/** Whether a string written plainly would be read back as something else than that string. */
export function needsQuotes(text: string): boolean {
  return implicitTag(text) !== undefined;
}
