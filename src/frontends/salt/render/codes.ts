/** Diagnostic codes of the Salt render stage. */
export const SALT_YAML = 'SALTR001';
export const SALT_JINJA = 'SALTR002';
export const SALT_MISSING_SLS = 'SALTR003';
export const SALT_PATH_ESCAPE = 'SALTR004';
export const SALT_STRUCTURE = 'SALTR005';
export const SALT_RENDERER = 'SALTR006';
export const SALT_CONFLICT = 'SALTR007';
export const SALT_INCLUDE = 'SALTR008';
export const SALT_TOP = 'SALTR009';
export const SALT_PILLAR = 'SALTR010';
