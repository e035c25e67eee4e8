// What the lineage exporter reads (nodes of four entity types and associations) and the node and
// edge files it writes, in the seed notebook's file names with typed, complete columns.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-entities.html
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html

export type ExportFormat = 'gremlin' | 'opencypher';

/**
 * Lineage already written as rows (store-export.ts: read and written on several threads), in
 * the files' order: blocks of node rows (UTF-8, one text per NODE_FILES entry), then of edge rows.
 */
export interface RenderedLineage {
  nodes(): AsyncIterable<{ readonly texts: readonly Uint8Array[]; readonly nodes: number }>;
  edges(): AsyncIterable<{ readonly text: Uint8Array; readonly edges: number; readonly skipped: number }>;
  close(): Promise<void>;
}

export type NodeKind = 'artifact' | 'trialComponent' | 'action' | 'context';

export interface LineageNode {
  readonly arn: string;
  readonly sourceUri?: string;
  /** Trial components: TrialComponentSource. */
  readonly sourceArn?: string;
  readonly sourceType?: string;
  /** ArtifactType, ActionType, ContextType. */
  readonly type?: string;
  /** Action Status, or a trial component's Status.PrimaryStatus. */
  readonly status?: string;
  /** Trial component Status.Message. */
  readonly message?: string;
  readonly creationTime?: Date;
  readonly lastModifiedTime?: Date;
}

export interface LineageEdge {
  readonly sourceArn: string;
  readonly destinationArn: string;
  readonly associationType?: string;
}

/** Where lineage comes from: Slipway's store or a SageMaker account. Both stream in pages. */
export interface LineageSource {
  nodes(kind: NodeKind): AsyncIterable<readonly LineageNode[]>;
  edges(): AsyncIterable<readonly LineageEdge[]>;
  /** The files' rows written by the source itself (on several threads), when it can. */
  rendered?(format: ExportFormat): RenderedLineage | undefined;
  close?(): Promise<void>;
}

export type PropertyColumn = {
  readonly name: string;
  readonly type: 'String' | 'Date';
  readonly get: (n: LineageNode) => string | Date | undefined;
};

export interface NodeFile {
  readonly kind: NodeKind;
  /** The seed notebook's file name. */
  readonly file: string;
  /** Vertex label (the seed queries `hasLabel('artifact')`). */
  readonly label: string;
  readonly columns: readonly PropertyColumn[];
}

const created: PropertyColumn = { name: 'creationtime', type: 'Date', get: (n) => n.creationTime };
const modified: PropertyColumn = { name: 'LastModifiedTime', type: 'Date', get: (n) => n.lastModifiedTime };
const arn: PropertyColumn = { name: 'arn', type: 'String', get: (n) => n.arn };

/** The seed's four node files, every column the seed writes (and each row as long as its header). */
export const NODE_FILES: readonly NodeFile[] = [
  {
    kind: 'artifact',
    file: 'artifacts-nodes.csv',
    label: 'artifact',
    columns: [
      arn,
      { name: 'sourceuri', type: 'String', get: (n) => n.sourceUri },
      { name: 'type', type: 'String', get: (n) => n.type },
      created,
      modified,
    ],
  },
  {
    kind: 'trialComponent',
    file: 'tcs-nodes.csv',
    label: 'trial_component',
    columns: [
      arn,
      { name: 'sourcearn', type: 'String', get: (n) => n.sourceArn },
      { name: 'sourcetype', type: 'String', get: (n) => n.sourceType },
      { name: 'status', type: 'String', get: (n) => n.status },
      { name: 'message', type: 'String', get: (n) => n.message },
      created,
      modified,
    ],
  },
  {
    kind: 'action',
    file: 'action-nodes.csv',
    label: 'action',
    columns: [
      arn,
      { name: 'sourceuri', type: 'String', get: (n) => n.sourceUri },
      { name: 'status', type: 'String', get: (n) => n.status },
      { name: 'type', type: 'String', get: (n) => n.type },
      created,
      modified,
    ],
  },
  {
    kind: 'context',
    file: 'contexts-nodes.csv',
    label: 'context',
    columns: [
      arn,
      { name: 'sourceuri', type: 'String', get: (n) => n.sourceUri },
      { name: 'type', type: 'String', get: (n) => n.type },
      created,
      modified,
    ],
  },
];

export const EDGE_FILE = 'edges.csv';

/** ARN resource types that are exported as nodes (experiments and trials are not). */
const EXPORTED = /^arn:[^:]+:sagemaker:[^:]*:[^:]*:(artifact|action|context|experiment-trial-component)\//;

export function isExportedArn(a: string): boolean {
  return EXPORTED.test(a);
}
