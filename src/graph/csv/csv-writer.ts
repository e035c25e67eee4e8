// Writes RFC 4180 CSV fields: quoted only when they contain a comma, a double quote or a line
// break, with quotes doubled, so every reader (the Neptune loader included) splits them right.
// https://www.rfc-editor.org/rfc/rfc4180

const NEEDS_QUOTES = /[",\r\n]/;

/** One field; null and undefined are blank (Neptune loads no value for a blank field). */
export function csvField(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One record with its line break (LF: Neptune and RFC-4180 readers accept it). */
export function csvRecord(fields: readonly (string | number | boolean | null | undefined)[]): string {
  let out = '';
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) out += ',';
    out += csvField(fields[i]);
  }
  return `${out}\n`;
}
