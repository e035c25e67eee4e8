// The AWS query protocol's responses: `<OpResponse xmlns=...><OpResult>...</OpResult><ResponseMetadata>`,
// members as elements in model order, lists as `<member>` items, maps as `<entry><key/><value/></entry>`,
// timestamps in ISO 8601; errors as `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/>`.
// https://smithy.io/2.0/aws/protocols/aws-query-protocol.html#response-serialization
import { escapeXml, XML_DECLARATION } from '../rest-xml/xml.js';
import type { QueryServiceModel, QueryShapeMeta } from './query-model.js';

/** Writes one value of `shape` as the content of an element (without the element itself). */
function content(model: QueryServiceModel, shape: QueryShapeMeta, v: unknown, out: string[]): void {
  switch (shape.type) {
    case 'structure': {
      const o = v as Record<string, unknown>;
      for (const [name, member] of Object.entries(shape.members ?? {})) {
        const x = o[name];
        if (x === undefined || x === null) continue;
        element(model, model.shapes[member.shape]!, member.locationName ?? name, x, out, member.flattened);
      }
      return;
    }
    case 'list': {
      const item = model.shapes[shape.member!]!;
      const name = shape.memberName ?? 'member';
      for (const x of v as unknown[]) element(model, item, name, x, out);
      return;
    }
    case 'map': {
      const valueShape = model.shapes[shape.value!]!;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        out.push('<entry><key>', escapeXml(k), '</key>');
        element(model, valueShape, 'value', x, out);
        out.push('</entry>');
      }
      return;
    }
    default:
      out.push(escapeXml(scalarText(v)));
  }
}

function element(
  model: QueryServiceModel,
  shape: QueryShapeMeta,
  name: string,
  v: unknown,
  out: string[],
  flattenedMember = false,
): void {
  if (shape.type === 'list' && (shape.flattened || flattenedMember)) {
    const item = model.shapes[shape.member!]!;
    for (const x of v as unknown[]) element(model, item, name, x, out);
    return;
  }
  out.push('<', name, '>');
  content(model, shape, v, out);
  out.push('</', name, '>');
}

function scalarText(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  return String(v);
}

/** The whole response document of an operation. */
export function queryResponse(
  model: QueryServiceModel,
  operation: string,
  resultWrapper: string | undefined,
  outputShape: string | null,
  output: Record<string, unknown>,
  requestId: string,
): string {
  const out = [XML_DECLARATION, `<${operation}Response xmlns="${model.metadata.xmlNamespace}">`];
  if (outputShape && resultWrapper) {
    out.push(`<${resultWrapper}>`);
    content(model, model.shapes[outputShape]!, output, out);
    out.push(`</${resultWrapper}>`);
  }
  out.push(`<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${operation}Response>`);
  return out.join('');
}

export function queryErrorResponse(
  xmlNamespace: string,
  type: 'Sender' | 'Receiver',
  code: string,
  message: string,
  requestId: string,
): string {
  return `${XML_DECLARATION}<ErrorResponse xmlns="${xmlNamespace}"><Error><Type>${type}</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
}
