// Service metadata of rest-xml services (S3): the common model plus the XML traits codegen emits.
// https://smithy.io/2.0/aws/protocols/aws-restxml-protocol.html (botocore: locationName, flattened, xmlNamespace)
import type { MemberMeta, OperationMeta, ServiceModel, ShapeMeta } from '../model.js';

export interface XmlMemberMeta extends MemberMeta {
  readonly flattened?: boolean;
  readonly xmlAttribute?: boolean;
  readonly xmlNamespace?: string;
  /** The payload is a byte stream (S3 object bodies), never read into memory by the protocol. */
  readonly streaming?: boolean;
  readonly hostLabel?: boolean;
}

export interface XmlShapeMeta extends Omit<ShapeMeta, 'members'> {
  readonly members?: Readonly<Record<string, XmlMemberMeta>>;
  /** Element name of each item of a (non-flattened) list; `member` when absent. */
  readonly memberName?: string;
  readonly flattened?: boolean;
  /** Element name of the shape itself, when the model gives one. */
  readonly locationName?: string;
  readonly xmlNamespace?: string;
}

export interface RestXmlServiceModel extends Omit<ServiceModel, 'shapes' | 'metadata'> {
  /** S3's model has no signingName (SigV4 signs it as `s3`, from endpointPrefix). */
  readonly metadata: Omit<ServiceModel['metadata'], 'signingName'> & { readonly signingName?: string };
  readonly shapes: Readonly<Record<string, XmlShapeMeta>>;
  readonly operations: Readonly<Record<string, OperationMeta>>;
}
