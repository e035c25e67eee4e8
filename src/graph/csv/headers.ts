// Header rows of the two property-graph load formats, reduced to one column plan the loader runs:
// Gremlin CSV (`~id`, `~label`, `~from`, `~to`, `name:Type(cardinality)`, `name:Type[]`) and
// openCypher CSV (`:ID`, `:LABEL`, `:START_ID`, `:END_ID`, `:TYPE`, `name:Type[]`).
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-opencypher.html
import { type ValueType, valueTypeOf } from '../store/values.js';

export type SystemColumn = 'id' | 'label' | 'from' | 'to';

export type Column =
  | { readonly kind: SystemColumn }
  | { readonly kind: 'ignore' }
  | {
      readonly kind: 'property';
      readonly name: string;
      readonly type: ValueType;
      readonly cardinality: 'single' | 'set';
      /** `name:Type[]`: the field holds several values separated by `;` (`\;` for a literal `;`). */
      readonly array: boolean;
    };

export interface FilePlan {
  readonly element: 'vertex' | 'edge';
  readonly columns: readonly Column[];
  /** openCypher relationship files may omit :ID; the loader then makes one up. */
  readonly generatedIds: boolean;
  readonly format: 'csv' | 'opencypher';
}

export class HeaderError extends Error {}

const GREMLIN_SYSTEM: Record<string, SystemColumn> = { '~id': 'id', '~label': 'label', '~from': 'from', '~to': 'to' };

/** `name:Type(single)`, `name:Type(set)`, `name:Type[]`, `name:Type`, `name`. */
const PROPERTY = /^(.*?)(?::([A-Za-z]+)(?:\((single|set)\))?(\[\])?)?$/;

function property(header: string, element: 'vertex' | 'edge', format: 'csv' | 'opencypher'): Column {
  const m = PROPERTY.exec(header);
  if (!m?.[1]) throw new HeaderError(`invalid column header '${header}'`);
  const [, name, typeName, card, array] = m;
  const type = typeName === undefined ? 'string' : valueTypeOf(typeName);
  if (!type) throw new HeaderError(`invalid data type '${typeName}' in column header '${header}'`);
  if (format === 'csv' && type === 'date' && typeName!.toLowerCase() === 'datetime') {
    throw new HeaderError(`invalid data type '${typeName}' in column header '${header}'`);
  }
  if (card && array && card === 'single') {
    throw new HeaderError(`column '${header}': an array type cannot have single cardinality`);
  }
  if (element === 'edge' && (card === 'set' || array)) {
    // Edge properties always have single cardinality in Neptune.
    throw new HeaderError(`column '${header}': edge properties can only have single cardinality`);
  }
  // openCypher properties are single-valued unless they are arrays; Gremlin's default is set.
  const cardinality =
    card === 'single' || card === 'set'
      ? card
      : format === 'opencypher' || element === 'edge'
        ? array
          ? 'set'
          : 'single'
        : 'set';
  return { kind: 'property', name: name!, type, cardinality, array: array !== undefined };
}

function checkDuplicates(columns: readonly Column[], headers: readonly string[]): void {
  const seen = new Set<string>();
  columns.forEach((c, i) => {
    const key = c.kind === 'property' ? `p:${c.name}` : c.kind === 'ignore' ? `i:${i}` : `s:${c.kind}`;
    if (seen.has(key)) throw new HeaderError(`duplicate column '${headers[i]}' in header`);
    seen.add(key);
  });
}

/** Plans a Gremlin CSV file from its header row. */
export function gremlinPlan(headers: readonly (string | null)[]): FilePlan {
  const names = headers.map((h) => (h ?? '').trim());
  const isEdge = names.includes('~from') || names.includes('~to');
  const element = isEdge ? 'edge' : 'vertex';
  const columns = names.map((h): Column => {
    if (h === '') throw new HeaderError('empty column header');
    const sys = GREMLIN_SYSTEM[h.toLowerCase()];
    if (sys) return { kind: sys };
    if (h.startsWith('~')) throw new HeaderError(`unknown system column '${h}'`);
    return property(h, element, 'csv');
  });
  checkDuplicates(columns, names);
  const has = (k: SystemColumn) => columns.some((c) => c.kind === k);
  if (isEdge) {
    if (!has('from') || !has('to')) throw new HeaderError('an edge file needs both ~from and ~to columns');
    if (!has('id')) throw new HeaderError('missing ~id column in header');
  } else if (!has('id')) {
    throw new HeaderError('missing ~id column in header');
  }
  return { element, columns, generatedIds: false, format: 'csv' };
}

const CYPHER_SYSTEM = /^:(ID|LABEL|START_ID|END_ID|TYPE)(?:\(([^)]*)\))?$/i;

/** Plans an openCypher CSV file from its header row. */
export function openCypherPlan(headers: readonly (string | null)[]): FilePlan {
  const names = headers.map((h) => (h ?? '').trim());
  const isEdge = names.some((h) => /^:(START_ID|END_ID)\b/i.test(h));
  const element = isEdge ? 'edge' : 'vertex';
  const columns = names.map((h): Column => {
    if (h === '') throw new HeaderError('empty column header');
    // `name:ID` names the id column and also stores it as a property in Neptune; we keep the id only.
    const named = /^(.+):ID(?:\(([^)]*)\))?$/i.exec(h);
    if (named) return { kind: 'id' };
    const m = CYPHER_SYSTEM.exec(h);
    if (m) {
      const k = m[1]!.toUpperCase();
      if (k === 'ID') return { kind: 'id' };
      if (k === 'START_ID') return { kind: 'from' };
      if (k === 'END_ID') return { kind: 'to' };
      if (k === 'LABEL' || k === 'TYPE') return { kind: 'label' };
    }
    if (h.startsWith(':')) throw new HeaderError(`unknown system column '${h}'`);
    return property(h, element, 'opencypher');
  });
  checkDuplicates(columns, names);
  const has = (k: SystemColumn) => columns.some((c) => c.kind === k);
  if (isEdge) {
    if (!has('from') || !has('to'))
      throw new HeaderError('a relationship file needs both :START_ID and :END_ID columns');
    if (!has('label')) throw new HeaderError('missing :TYPE column in relationship file header');
  } else if (!has('id')) {
    throw new HeaderError('missing :ID column in header');
  }
  return { element, columns, generatedIds: isEdge && !has('id'), format: 'opencypher' };
}

/** Splits an array field on `;`, honouring `\;` as a literal semicolon. */
export function splitArray(field: string): string[] {
  if (!field.includes('\\')) return field.split(';');
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c === '\\' && field[i + 1] === ';') {
      cur += ';';
      i++;
    } else if (c === ';') {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}
