/**
 * The diagnostic catalogue: every code cairn reports, declared once, with what it means and what to do.
 * `cairn explain CODE` prints an entry; docs/diagnostics.md is generated from this table; a test fails on a
 * code used in the sources that is missing here. The Inmanta front end reports the real compiler's
 * exception names as its codes, so users can search for them; they are listed here too.
 */
export interface CatalogueEntry {
  /** Which part of cairn reports it. */
  readonly area: string;
  /** What the code means, in one line. */
  readonly title: string;
  /** What to do about it. */
  readonly help: string;
}

const entries = {
  // The graph file (src/frontends/graph)
  F000: { area: 'graph file', title: 'the file is not valid JSON or YAML', help: 'Fix the syntax at the position shown; the graph file is JSON, or YAML when its name ends in .yaml/.yml.' },
  F001: { area: 'graph file', title: 'the top level is not an object', help: 'A graph file holds {"version": 1, "nodes": [...]}.' },
  F002: { area: 'graph file', title: 'unsupported graph version', help: 'Write "version": 1.' },
  F003: { area: 'graph file', title: '"nodes" is not a list', help: 'Write "nodes": [ {...}, ... ].' },
  F004: { area: 'graph file', title: 'a node is not an object', help: 'Each node is {"id": ..., "type": ..., "params": {...}}.' },
  F005: { area: 'graph file', title: 'unknown node field', help: 'Use only the fields listed in the message; requisites are require, watch, onchanges, onfail, prereq, depends.' },
  F006: { area: 'graph file', title: 'a node has no id', help: 'Give every node a non-empty string "id", unique in the file.' },
  F007: { area: 'graph file', title: 'a node has no type', help: 'Give the node a "type" naming a resource kind (see docs/graph.md).' },
  F008: { area: 'graph file', title: '"name" is not a string', help: 'The display name of a node is a string.' },
  F009: { area: 'graph file', title: '"params" is not an object', help: 'Write "params": {"key": value, ...}.' },
  F010: { area: 'graph file', title: 'malformed reference', help: 'A deferred value is written {"$ref": "node-id", "field": "name"}.' },
  F011: { area: 'graph file', title: 'malformed $concat', help: '"$concat" takes a list of strings and references.' },
  F012: { area: 'graph file', title: 'a requisite is not a list of node ids', help: 'Write e.g. "require": ["other-node"].' },
  F013: { area: 'graph file', title: 'nesting too deep', help: 'Values nest deeper than cairn reads; flatten the structure.' },
  F014: { area: 'graph file', title: 'malformed $secret', help: 'A secret value is written {"$secret": {"env": "NAME"}} or {"$secret": {"file": "PATH"}} (a path relative to the graph file).' },
  F015: { area: 'graph file', title: 'a secret cannot be read', help: 'Set the environment variable, or make the file readable, on the machine that runs cairn.' },
  F016: { area: 'graph file', title: '"secret" is not true or false', help: 'Write "secret": true on a node whose values and content must never be shown or stored.' },
  F017: { area: 'graph file', title: 'a param has the wrong type', help: 'Write the value as the message says; a mode is a string of octal digits, e.g. "0644".' },
  // The core graph (src/core)
  G001: { area: 'graph', title: 'duplicate node id', help: 'Node ids are unique in a graph; rename one of them.' },
  G002: { area: 'graph', title: 'an edge starts at an unknown node', help: 'Check the node that declares the requisite.' },
  G003: { area: 'graph', title: 'a requisite names an unknown node', help: 'Name an existing node id, or remove the requisite.' },
  G004: { area: 'graph', title: 'a node depends on itself', help: 'Remove the requisite or reference that points back at the node.' },
  G005: { area: 'graph', title: 'a reference names an unknown node', help: 'A $ref must name an existing node id.' },
  G006: { area: 'graph', title: 'dependency cycle', help: 'Break the cycle shown: one of its requisites must go.' },
  // Resources (src/resources)
  R000: { area: 'resources', title: 'unknown resource type', help: 'Use one of the kinds listed in the message (docs/graph.md lists their params).' },
  R001: { area: 'resources', title: 'invalid resource params', help: 'The message names the param and what it must be.' },
  R002: { area: 'resources', title: 'a source file is missing or unreadable', help: 'Source paths are relative to the file that names them; check the path.' },
  R003: { area: 'resources', title: 'systemd is not running', help: 'Units can be managed only where systemd runs.' },
  // Inventories (src/host/inventory)
  INV001: { area: 'inventory', title: 'not an inventory', help: 'An inventory is a mapping with hosts: (and groups:), or a Salt roster of ID: {host: …} entries (docs/fleet.md).' },
  INV002: { area: 'inventory', title: 'a value has the wrong type', help: 'The message says what the key takes.' },
  INV003: { area: 'inventory', title: 'unknown key', help: 'Use one of the keys listed in the message.' },
  INV004: { area: 'inventory', title: 'a group names an unknown host or group', help: 'Declare the host under hosts:, or the child group under groups:.' },
  INV005: { area: 'inventory', title: 'invalid YAML', help: 'Fix the YAML at the position shown.' },
  INV006: { area: 'inventory', title: 'passwords are not supported', help: 'cairn logs in with keys or ssh-agent only; remove passwd/priv_passwd and use a key.' },
  INV007: { area: 'inventory', title: 'groups contain themselves', help: 'Break the cycle of child groups.' },
  INV008: { area: 'inventory', title: 'a name is both a host and a group', help: 'Rename one of them.' },
  INV009: { area: 'inventory', title: 'a bad line in the OpenSSH client config', help: 'Fix the line shown in the ssh config file (ssh_config(5)), or point --ssh-config elsewhere.' },
  // HCL1 (src/lang/hcl1), used by Converge
  HCL001: { area: 'HCL', title: 'unexpected character', help: 'Remove or quote the character.' },
  HCL002: { area: 'HCL', title: 'unterminated string', help: 'Close the string with " on the same line, or use a heredoc.' },
  HCL003: { area: 'HCL', title: 'bad escape sequence', help: 'Valid escapes: \\n \\t \\" \\\\ \\uXXXX \\UXXXXXXXX.' },
  HCL004: { area: 'HCL', title: 'bad heredoc', help: 'A heredoc starts with <<MARKER at the end of a line and ends with MARKER alone on a line.' },
  HCL005: { area: 'HCL', title: 'unterminated comment', help: 'Close the /* comment with */.' },
  HCL010: { area: 'HCL', title: 'syntax error', help: 'The message says what was expected at the position.' },
  HCL011: { area: 'HCL', title: 'unclosed bracket', help: 'Close the { or [ that the message points at.' },
  HCL012: { area: 'HCL', title: 'more than one key before =', help: 'A block is written type "name" { ... }; an assignment has one key.' },
  HCL013: { area: 'HCL', title: 'invalid number', help: 'Write the number in decimal (or 0x hex).' },
  HCL014: { area: 'HCL', title: 'nesting too deep', help: 'Blocks, lists or objects nest deeper than cairn reads; flatten the structure.' },
  // Converge (src/frontends/converge)
  CV001: { area: 'converge', title: 'a module cannot be read', help: 'Check the module path; it is relative to the calling file.' },
  CV002: { area: 'converge', title: 'a field is given twice', help: 'Keep one of the two.' },
  CV003: { area: 'converge', title: 'a module includes itself', help: 'Break the module cycle.' },
  CV004: { area: 'converge', title: 'a resource is not a block', help: 'Write kind "name" { ... }.' },
  CV005: { area: 'converge', title: 'a block has the wrong labels', help: 'Resources take a name; a module takes a source and a name.' },
  CV006: { area: 'converge', title: 'unknown field in param or module', help: 'A param takes default (and type); a module takes params, depends and group.' },
  CV007: { area: 'converge', title: 'param type is not a string', help: 'Write type = "string" (or int, bool, list, map).' },
  CV008: { area: 'converge', title: 'a required param has no value', help: 'Give it with -p name=value, a default, or the module params.' },
  CV009: { area: 'converge', title: 'a param value has the wrong type', help: 'Give a value of the declared type.' },
  CV010: { area: 'converge', title: 'duplicate node or case', help: 'Names are unique within a module or switch.' },
  CV011: { area: 'converge', title: 'param inside a switch', help: 'Declare params at the top of the module.' },
  CV012: { area: 'converge', title: 'a switch holds something else than case/default', help: 'A switch holds case "PREDICATE" "NAME" { ... } and default { ... } blocks.' },
  CV013: { area: 'converge', title: 'malformed case or default', help: 'case "PREDICATE" "NAME" { ... }; default { ... } takes no labels.' },
  CV014: { area: 'converge', title: 'a case is named default', help: 'Rename the case; default is the fallback branch.' },
  CV015: { area: 'converge', title: 'a module inside a switch case', help: 'Converge allows only resources in a case; move the module out of the switch.' },
  CV016: { area: 'converge', title: 'a switch inside a case', help: 'Converge does not nest switches; flatten the predicates into one switch.' },
  CV020: { area: 'converge', title: 'template error', help: 'Fix the Go template at the position shown.' },
  CV021: { area: 'converge', title: 'module params use deferred values', help: 'Module params must be known before the run; pass literal values or params.' },
  CV022: { area: 'converge', title: 'lookup needs a literal node path', help: 'Write {{lookup "task.name.status.stdout"}}.' },
  CV023: { area: 'converge', title: 'template error in a deferred value', help: 'Fix the Go template at the position shown.' },
  CV024: { area: 'converge', title: 'a lookup or param cannot be resolved', help: 'The message names the node or param that is missing.' },
  CV025: { area: 'converge', title: 'invalid switch predicate', help: 'A predicate is a template that renders to true or false.' },
  CV030: { area: 'converge', title: 'unsupported resource', help: 'This resource type (docker, lvm, …) is not supported by cairn.' },
  CV031: { area: 'converge', title: 'unknown resource type', help: 'Use one of the types listed in the message.' },
  CV032: { area: 'converge', title: 'unknown field', help: 'Use one of the fields listed in the message.' },
  CV040: { area: 'converge', title: 'invalid duration', help: 'Write a duration such as "30s", "5m" or "1h".' },
  CV041: { area: 'converge', title: 'a check script does not parse', help: 'Fix the shell syntax reported by sh -n.' },
  CV042: { area: 'converge', title: 'an env value is not a string', help: 'Quote the value: env = { NAME = "value" }.' },
  CV050: { area: 'converge', title: 'depends is not a list of names', help: 'Write depends = ["task.name"].' },
  CV051: { area: 'converge', title: 'depends on an unknown node', help: 'Name a node of the same module.' },
  CV052: { area: 'converge', title: 'group is not a string', help: 'Write group = "name".' },
  CV053: { area: 'converge', title: 'depends is not a list', help: 'Write depends = ["task.name"].' },
  // Go templates (src/lang/gotemplate)
  GOT001: { area: 'go template', title: 'nesting too deep', help: 'The template nests deeper than cairn reads; flatten it.' },
  // Jinja (src/lang/jinja), used by Salt and Inmanta templates
  JINJA001: { area: 'jinja', title: 'template syntax error', help: 'Fix the Jinja syntax at the position shown.' },
  JINJA002: { area: 'jinja', title: 'undefined variable', help: 'Define the variable, pass it in the context, or guard it with `is defined`.' },
  JINJA003: { area: 'jinja', title: 'template error at render time', help: 'The message says which operation failed.' },
  JINJA004: { area: 'jinja', title: 'template not found', help: 'Check the name given to include, import or extends.' },
  // Salt (src/frontends/salt)
  SALTR001: { area: 'salt', title: 'YAML error in an SLS', help: 'Fix the YAML at the position shown (Salt reads YAML 1.1).' },
  SALTR002: { area: 'salt', title: 'Jinja error in an SLS', help: 'Fix the template at the position shown.' },
  SALTR003: { area: 'salt', title: 'SLS not found', help: 'Check the SLS name and the file roots of the environment.' },
  SALTR004: { area: 'salt', title: 'a path leaves its root', help: 'salt:// paths and includes stay inside the file roots.' },
  SALTR005: { area: 'salt', title: 'malformed high data', help: 'The message gives Salt\'s own wording of what is wrong.' },
  SALTR006: { area: 'salt', title: 'unsupported renderer', help: 'Use jinja|yaml, yaml, json, jinja|json or py.' },
  SALTR007: { area: 'salt', title: 'conflicting IDs', help: 'An ID is declared in two SLS files; rename one.' },
  SALTR008: { area: 'salt', title: 'bad include', help: 'Check the included SLS name.' },
  SALTR009: { area: 'salt', title: 'top file error', help: 'Fix the top file at the position shown.' },
  SALTR010: { area: 'salt', title: 'pillar error', help: 'Check the pillar top file and pillar SLS files.' },
  S200: { area: 'salt', title: 'compile error', help: 'Salt\'s own text of the error is printed in the output.' },
  S201: { area: 'salt', title: 'unknown state function', help: 'The state fails with Salt\'s comment; the others run. Check the spelling (docs/salt.md lists the functions).' },
  S202: { area: 'salt', title: 'requisite not found', help: 'The state fails with Salt\'s comment; name an existing ID or sls.' },
  S203: { area: 'salt', title: 'a state argument Salt refuses', help: 'That state fails with Salt\'s comment and the others run; give the argument a type Salt accepts (the message names it).' },
  // Zapusk (src/frontends/zapusk)
  Z000: { area: 'zapusk', title: 'program error', help: 'The message says what is wrong.' },
  Z001: { area: 'zapusk', title: 'a line cannot be read', help: 'Lines are #### component ####, [step], key=value, a bare key or a comment.' },
  Z002: { area: 'zapusk', title: 'a key before any component', help: 'Start the file with a component header (#### name ####).' },
  Z003: { area: 'zapusk', title: 'a step before any component', help: 'Start the file with a component header (#### name ####).' },
  Z004: { area: 'zapusk', title: 'duplicate component', help: 'Component names are unique in a program.' },
  Z005: { area: 'zapusk', title: 'not a program folder', help: 'A program is a folder NAME.zdb of *.ini files.' },
  Z006: { area: 'zapusk', title: 'a program file cannot be read', help: 'Check permissions on the program folder.' },
  Z007: { area: 'zapusk', title: 'a program has no ini files', help: 'Add at least one *.ini file to the program folder.' },
  Z008: { area: 'zapusk', title: 'invalid command name', help: 'A command is a word of letters, digits, _ and -.' },
  Z009: { area: 'zapusk', title: 'an unsafe state directory', help: 'The state dir may not be /, too short, or hold the program itself; choose a folder of its own.' },
  Z010: { area: 'zapusk', title: 'zdb type not found', help: 'Put TYPE.zdb beside the program or in a --lib folder.' },
  Z020: { area: 'zapusk', title: 'unknown param', help: 'Define the param in the component, the params component, the request or zapusk.conf.' },
  Z021: { area: 'zapusk', title: 'param cycle', help: 'Break the cycle of params that refer to each other.' },
  Z022: { area: 'zapusk', title: 'a {`command`} value failed', help: 'The command in the value exited non-zero; fix it.' },
  Z030: { area: 'zapusk', title: 'a step command failed', help: 'The command exited non-zero (exit 100 means: skip the rest of the component).' },
  Z031: { area: 'zapusk', title: 'guard without key', help: 'Give the guard step a key.' },
  Z032: { area: 'zapusk', title: 'load without dir', help: 'Give the load step a dir.' },
  Z033: { area: 'zapusk', title: 'a deferred script failed', help: 'The deferred script exited non-zero.' },
  Z034: { area: 'zapusk', title: 'an unsafe guard or once folder', help: 'A guard key is one folder name; guard and once folders may not be /.' },
  Z040: { area: 'zapusk', title: 'file step without path', help: 'Give the file step a path.' },
  Z041: { area: 'zapusk', title: 'a file step could not act', help: 'The message names the file and the reason.' },
  Z042: { area: 'zapusk', title: 'invalid file mode', help: 'Use 640, 0640, +x or u=rwx,go=rx.' },
  // OtterScript (src/frontends/otter)
  OTTER001: { area: 'otter', title: 'syntax error', help: 'Fix the OtterScript syntax at the position shown.' },
  OTTER002: { area: 'otter', title: 'unknown operation', help: 'docs/otter.md lists the operations cairn knows.' },
  OTTER003: { area: 'otter', title: 'unknown function', help: 'docs/otter.md lists the functions cairn knows.' },
  OTTER004: { area: 'otter', title: 'undefined variable', help: 'Set the variable before use, or pass it with --var.' },
  OTTER005: { area: 'otter', title: 'unknown module', help: 'Define the module, or check the raft it comes from.' },
  OTTER006: { area: 'otter', title: 'wrong module arguments', help: 'Pass every argument the module declares.' },
  OTTER007: { area: 'otter', title: 'wrong operation arguments', help: 'The message names the property and what it takes.' },
  OTTER008: { area: 'otter', title: 'a value of the wrong type', help: 'Scalars ($), vectors (@) and maps (%) do not mix.' },
  OTTER009: { area: 'otter', title: 'a global declared after use', help: 'Declare `set global` before the statements that read the variable.' },
  // Inmanta: the real compiler's exception names (src/frontends/inmanta)
  DoubleSetException: { area: 'inmanta', title: 'an attribute is set twice to different values', help: 'Set the attribute once.' },
  AttributeException: { area: 'inmanta', title: 'an attribute cannot be set or read', help: 'The message names the attribute and the instance.' },
  OptionalValueException: { area: 'inmanta', title: 'an optional value is null', help: 'Check `is defined` before reading the optional attribute.' },
  UnsetException: { area: 'inmanta', title: 'an attribute was never set', help: 'Set the attribute, or give it a default.' },
  NotFoundException: { area: 'inmanta', title: 'a name is not defined', help: 'Check the variable or attribute name.' },
  TypeNotFoundException: { area: 'inmanta', title: 'a type is not defined', help: 'Check the entity or typedef name, and the imports.' },
  AmbiguousTypeException: { area: 'inmanta', title: 'a constructor type is ambiguous', help: 'Name the type explicitly: several types fit where it is inferred.' },
  WrappingRuntimeException: { area: 'inmanta', title: 'a plugin raised an exception', help: 'The message gives the plugin\'s exception and where it was called.' },
  ExplicitPluginException: { area: 'inmanta', title: 'a plugin reported an error', help: 'The plugin raised PluginException; its message says why.' },
  CompilerException: { area: 'inmanta', title: 'a compiler error', help: 'The message gives the reason.' },
  MissingImportException: { area: 'inmanta', title: 'a namespace is not imported', help: 'Add the import statement.' },
  ExternalException: { area: 'inmanta', title: 'a plugin failed', help: 'The message gives the plugin\'s error.' },
  TypingException: { area: 'inmanta', title: 'a value has the wrong type', help: 'Give a value of the declared type.' },
  DuplicateException: { area: 'inmanta', title: 'something is defined twice', help: 'Remove one of the definitions.' },
  KeyException: { area: 'inmanta', title: 'a key is missing', help: 'The message names the key.' },
  IndexException: { area: 'inmanta', title: 'an index is violated', help: 'Two instances share the values of an index.' },
  HyphenException: { area: 'inmanta', title: 'a name contains a hyphen', help: 'Use _ instead of - in names.' },
  ParserException: { area: 'inmanta', title: 'syntax error', help: 'Fix the syntax at the position shown.' },
  MultiException: { area: 'inmanta', title: 'several errors', help: 'Each error is listed on its own.' },
  ModuleNotFoundException: { area: 'inmanta', title: 'a module is not found', help: 'Check the project\'s modulepath.' },
  ModuleLoadingException: { area: 'inmanta', title: 'a module cannot be loaded', help: 'The message gives the reason.' },
  IndexAttributeMissingInConstructorException: { area: 'inmanta', title: 'an index attribute is not given', help: 'Give every attribute of an index in the constructor.' },
  RuntimeException: { area: 'inmanta', title: 'a runtime error', help: 'The message gives the reason.' },
} as const satisfies Record<string, CatalogueEntry>;

export type Code = keyof typeof entries;

export const CATALOGUE: Readonly<Record<Code, CatalogueEntry>> = entries;

export function isCode(s: string): s is Code {
  return Object.hasOwn(CATALOGUE, s);
}
