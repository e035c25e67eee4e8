// Service metadata of AWS query services (STS) and of awsQueryCompatible services that speak the
// query protocol beside JSON and CBOR (CloudWatch): the common model plus what codegen emits for them.
// https://smithy.io/2.0/aws/protocols/aws-query-protocol.html
// https://smithy.io/2.0/aws/protocols/aws-query-protocol.html#aws-protocols-awsquerycompatible-trait
import type { OperationMeta, ServiceModel } from '../model.js';
import type { XmlShapeMeta } from '../rest-xml/xml-model.js';

export interface QueryShapeMeta extends XmlShapeMeta {
  /** The error's query code (`<Code>`, `x-amzn-query-error`) when it is not the shape's name. */
  readonly queryCode?: string;
}

export interface QueryOperationMeta extends OperationMeta {
  /** The element the output is wrapped in (`GetCallerIdentityResult`). */
  readonly resultWrapper?: string;
}

export interface QueryServiceModel extends Omit<ServiceModel, 'shapes' | 'metadata' | 'operations'> {
  readonly metadata: ServiceModel['metadata'] & {
    /** The wire protocols the service speaks, preferred first (botocore's `protocols`). */
    readonly protocols: readonly string[];
    /** JSON and CBOR errors also carry the query code in `x-amzn-query-error`. */
    readonly awsQueryCompatible: boolean;
    readonly xmlNamespace: string;
  };
  readonly shapes: Readonly<Record<string, QueryShapeMeta>>;
  readonly operations: Readonly<Record<string, QueryOperationMeta>>;
}
