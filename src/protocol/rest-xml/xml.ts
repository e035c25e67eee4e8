// The little XML that S3 speaks: a writer for responses and a strict, non-validating reader for
// the few request bodies S3 takes (CreateBucketConfiguration, Delete, CompleteMultipartUpload).
// https://docs.aws.amazon.com/AmazonS3/latest/API/RESTAPI.html
// A hand-written reader keeps the dependency list short and makes the security stance explicit:
// no DOCTYPE, no external entities, no entity expansion beyond the five predefined ones.

export interface XmlElement {
  /** Local name (any namespace prefix removed). */
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** Concatenated character data directly inside this element. */
  text: string;
}

export class XmlSyntaxError extends Error {}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const NEEDS_ESCAPE = /[&<>"'\u0000-\u0008\u000b-\u001f]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Escapes text for element content and attribute values. Control characters are written as
 * character references, as S3 does (`&#13;` keeps a carriage return through XML line-end
 * normalisation); clients that cannot read them should ask for `encoding-type=url`.
 */
export function escapeXml(s: string): string {
  return s.replace(NEEDS_ESCAPE, (c) => ESCAPES[c] ?? `&#${c.charCodeAt(0)};`);
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

const NAME = /[A-Za-z_][\w.:-]*/y;
const WS = /[ \t\r\n]*/y;

function decodeEntities(s: string, at: number): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);|&/g, (m, ref: string | undefined) => {
    if (ref === undefined) throw new XmlSyntaxError(`bare '&' near offset ${at}`);
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      if (!(cp >= 0 && cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff))
        throw new XmlSyntaxError(`bad character reference ${m}`);
      return String.fromCodePoint(cp);
    }
    const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[ref];
    if (named === undefined) throw new XmlSyntaxError(`unknown entity ${m}`);
    return named;
  });
}

/** Parses one XML document and returns its root element. Throws XmlSyntaxError on anything malformed. */
export function parseXml(text: string, maxDepth = 32): XmlElement {
  let i = 0;
  const n = text.length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;

  const skipWs = () => {
    WS.lastIndex = i;
    WS.exec(text);
    i = WS.lastIndex;
  };
  const readName = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(text);
    if (!m) throw new XmlSyntaxError(`expected a name at offset ${i}`);
    i = NAME.lastIndex;
    return m[0];
  };
  const local = (qname: string) => qname.slice(qname.indexOf(':') + 1);

  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < n) {
    const lt = text.indexOf('<', i);
    const chunk = lt < 0 ? text.slice(i) : text.slice(i, lt);
    if (chunk.length > 0) {
      const top = stack[stack.length - 1];
      if (top) top.text += decodeEntities(chunk, i);
      else if (chunk.trim() !== '') throw new XmlSyntaxError(`text outside the root element at offset ${i}`);
    }
    if (lt < 0) break;
    i = lt;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i);
      if (end < 0) throw new XmlSyntaxError('unterminated processing instruction');
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i);
      if (end < 0) throw new XmlSyntaxError('unterminated comment');
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i);
      const top = stack[stack.length - 1];
      if (end < 0 || !top) throw new XmlSyntaxError('misplaced or unterminated CDATA section');
      top.text += text.slice(i + 9, end);
      i = end + 3;
    } else if (text.startsWith('<!', i)) {
      // DOCTYPE and its entity declarations are refused outright (XXE, billion laughs).
      throw new XmlSyntaxError('DOCTYPE is not allowed');
    } else if (text.startsWith('</', i)) {
      i += 2;
      const name = local(readName());
      skipWs();
      if (text[i] !== '>') throw new XmlSyntaxError(`expected '>' at offset ${i}`);
      i++;
      const open = stack.pop();
      if (!open || open.name !== name) throw new XmlSyntaxError(`mismatched closing tag </${name}>`);
      if (stack.length === 0) root = open;
    } else {
      if (root) throw new XmlSyntaxError('more than one root element');
      i++;
      const el: XmlElement = { name: local(readName()), attributes: {}, children: [], text: '' };
      for (;;) {
        skipWs();
        if (text[i] === '>' || text.startsWith('/>', i)) break;
        const attr = readName();
        skipWs();
        if (text[i] !== '=') throw new XmlSyntaxError(`expected '=' at offset ${i}`);
        i++;
        skipWs();
        const quote = text[i];
        if (quote !== '"' && quote !== "'") throw new XmlSyntaxError(`expected a quoted value at offset ${i}`);
        const end = text.indexOf(quote, i + 1);
        if (end < 0) throw new XmlSyntaxError('unterminated attribute value');
        (el.attributes as Record<string, string>)[attr] = decodeEntities(text.slice(i + 1, end), i);
        i = end + 1;
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      if (text[i] === '/') {
        i += 2;
        if (!parent) root = el;
      } else {
        i++;
        if (stack.length >= maxDepth) throw new XmlSyntaxError('document nested too deeply');
        stack.push(el);
      }
    }
  }
  if (stack.length > 0 || !root) throw new XmlSyntaxError('document ended before its root element closed');
  return root;
}
