/** `$Date(format)`: the .NET custom format letters scripts use (yyyy MM dd HH hh mm ss fff tt). */

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

export function formatDate(d: Date, format: string, utc: boolean): string {
  const f = format === '' ? 'yyyy-MM-dd HH:mm:ss' : format;
  const get = {
    y: utc ? d.getUTCFullYear() : d.getFullYear(),
    M: (utc ? d.getUTCMonth() : d.getMonth()) + 1,
    d: utc ? d.getUTCDate() : d.getDate(),
    H: utc ? d.getUTCHours() : d.getHours(),
    m: utc ? d.getUTCMinutes() : d.getMinutes(),
    s: utc ? d.getUTCSeconds() : d.getSeconds(),
    f: d.getMilliseconds(),
  };
  return f.replace(/yyyy|yy|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|fff|tt|'[^']*'/g, (t) => {
    switch (t) {
      case 'yyyy':
        return String(get.y);
      case 'yy':
        return pad(get.y % 100);
      case 'MM':
        return pad(get.M);
      case 'M':
        return String(get.M);
      case 'dd':
        return pad(get.d);
      case 'd':
        return String(get.d);
      case 'HH':
        return pad(get.H);
      case 'H':
        return String(get.H);
      case 'hh':
        return pad(get.H % 12 || 12);
      case 'h':
        return String(get.H % 12 || 12);
      case 'mm':
        return pad(get.m);
      case 'm':
        return String(get.m);
      case 'ss':
        return pad(get.s);
      case 's':
        return String(get.s);
      case 'fff':
        return pad(get.f, 3);
      case 'tt':
        return get.H < 12 ? 'AM' : 'PM';
      default:
        return t.slice(1, -1);
    }
  });
}
