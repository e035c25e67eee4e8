// Types of the runtime service metadata that scripts/codegen writes to src/generated/<service>/model.ts.
// Field meanings follow the botocore service-2.json format.

export type ShapeType =
  | 'structure'
  | 'list'
  | 'map'
  | 'string'
  | 'integer'
  | 'long'
  | 'float'
  | 'double'
  | 'boolean'
  | 'timestamp'
  | 'blob';

export interface MemberMeta {
  readonly shape: string;
  /** rest protocols: where the member is bound on the wire (absent: the body). */
  readonly location?: 'uri' | 'header' | 'headers' | 'querystring' | 'statusCode';
  readonly locationName?: string;
  readonly idempotencyToken?: boolean;
  readonly jsonvalue?: boolean;
}

export interface ShapeMeta {
  readonly type: ShapeType;
  readonly min?: number;
  readonly max?: number;
  /** The model's (Java) pattern, quoted in validation messages. */
  readonly pattern?: string;
  /** RE2 equivalent used for matching when it differs from `pattern`. */
  readonly re2Pattern?: string;
  readonly enum?: readonly string[];
  readonly sensitive?: boolean;
  readonly timestampFormat?: string;
  readonly member?: string;
  readonly key?: string;
  readonly value?: string;
  readonly members?: Readonly<Record<string, MemberMeta>>;
  readonly required?: readonly string[];
  readonly payload?: string;
  readonly exception?: boolean;
  readonly httpStatus?: number;
  readonly fault?: 'client' | 'server';
}

export interface OperationMeta {
  readonly name: string;
  /** lowerCamel name of the handler method. */
  readonly handler: string;
  readonly http: { readonly method: string; readonly requestUri: string; readonly responseCode?: number };
  readonly input: string | null;
  readonly output: string | null;
  readonly errors: readonly string[];
}

export interface ServiceModel {
  readonly metadata: {
    readonly protocol: string;
    readonly targetPrefix: string | null;
    readonly signingName: string;
    readonly serviceId: string;
    readonly apiVersion: string;
    readonly jsonVersion: string | null;
  };
  readonly shapes: Readonly<Record<string, ShapeMeta>>;
  readonly operations: Readonly<Record<string, OperationMeta>>;
}
