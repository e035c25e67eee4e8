// Seeds a synthetic account's lineage straight into the tables (multi-row INSERTs through the SQL
// seam), far faster than through the API: `units` model lineages of 10 entities and 50 associations
// each, plus shared hubs (images, processing code, model group contexts).
//
// One unit, in topological order (every earlier entity is associated with every later one, 45 edges):
//   0 raw DataSet → 1 ProcessingJob trial component → 2 train DataSet, 3 validation DataSet
//   → 4 TrainingJob trial component → 5 Model (model data) → 6 Model (package) → 7 Approval action
//   → 8 ModelDeployment action → 9 Endpoint context
// plus 5 hub edges: image → 1, 4, 8; processing code → 1; package → its ModelGroup context.
import type { Partition } from '../../src/domain/arn.js';
import type { Database, SqlValue } from '../../src/storage/db/types.js';

export const ENTITIES_PER_UNIT = 10;
export const EDGES_PER_UNIT = 50;
const IMAGES = 50;
const CODES = 20;
const GROUPS = 200;

const ROLES = [
  ['artifact', 'DataSet', 'Artifact'],
  ['experiment-trial-component', 'ProcessingJob', 'TrialComponent'],
  ['artifact', 'DataSet', 'Artifact'],
  ['artifact', 'DataSet', 'Artifact'],
  ['experiment-trial-component', 'TrainingJob', 'TrialComponent'],
  ['artifact', 'Model', 'Artifact'],
  ['artifact', 'Model', 'Artifact'],
  ['action', 'Approval', 'Action'],
  ['action', 'ModelDeployment', 'Action'],
  ['context', 'Endpoint', 'Context'],
] as const;

interface Entity {
  arn: string;
  kind: string;
  name: string | null;
  type: string;
  lineage: string;
  doc: string;
  at: number;
}

export interface SeededAccount {
  readonly entities: number;
  readonly associations: number;
  /** ARN of entity `role` (0..9) of unit `u`. */
  arnOf(u: number, role: number): string;
}

export async function seedSyntheticAccount(
  db: Database,
  p: Partition,
  units: number,
  log = (_: string) => {},
): Promise<SeededAccount> {
  const base = `arn:aws:sagemaker:${p.region}:${p.accountId}`;
  const hex = (n: number) => n.toString(16).padStart(32, '0');
  const t0 = Date.UTC(2024, 0, 1);
  const roleName = [
    'raw',
    'aws-processing-job',
    'train',
    'validation',
    'aws-training-job',
    'model',
    'package',
    'aws-approval',
    'aws-model-deployment',
    'aws-endpoint',
  ];
  const entity = (u: number, role: number): Entity => {
    const [kind, type, lineage] = ROLES[role]!;
    const name = kind === 'artifact' ? null : `unit-${u}-${roleName[role]}`;
    const arn = kind === 'artifact' ? `${base}:artifact/${hex(u * 16 + role)}` : `${base}:${kind}/${name}`;
    const uri =
      role === 6
        ? `${base}:model-package/group-${u % GROUPS}/${Math.floor(u / GROUPS) + 1}`
        : `s3://bench-lineage/unit-${u}/${roleName[role]}`;
    const doc =
      kind === 'artifact'
        ? { Source: { SourceUri: uri, SourceTypes: [] }, ArtifactType: type }
        : kind === 'action'
          ? { ActionName: name, Source: { SourceUri: uri, SourceType: 'ARN' }, ActionType: type, Status: 'Completed' }
          : kind === 'context'
            ? { ContextName: name, Source: { SourceUri: uri, SourceType: 'ARN' }, ContextType: type }
            : {
                TrialComponentName: name,
                Status: { PrimaryStatus: 'Completed' },
                Source: { SourceArn: uri, SourceType: `SageMaker${type}` },
              };
    return { arn, kind, name, type, lineage, doc: JSON.stringify(doc), at: t0 + u * 1000 + role };
  };
  const hub = (kind: 'artifact' | 'context', type: string, i: number, offset: number): Entity => {
    const name = kind === 'context' ? `group-${i}-aws-model-package-group` : null;
    const arn = kind === 'artifact' ? `${base}:artifact/${hex(0xfff0000000 + offset + i)}` : `${base}:context/${name}`;
    const uri =
      type === 'Image'
        ? `000000000000.dkr.ecr.us-east-1.amazonaws.com/image-${i}:1`
        : type === 'Code'
          ? `s3://bench-lineage/code/${i}.py`
          : `${base}:model-package-group/group-${i}`;
    const doc =
      kind === 'artifact'
        ? { Source: { SourceUri: uri, SourceTypes: [] }, ArtifactType: type }
        : { ContextName: name, Source: { SourceUri: uri, SourceType: 'ARN' }, ContextType: type };
    return {
      arn,
      kind,
      name,
      type,
      lineage: kind === 'artifact' ? 'Artifact' : 'Context',
      doc: JSON.stringify(doc),
      at: t0 - 1000 + i,
    };
  };
  const images = Array.from({ length: IMAGES }, (_, i) => hub('artifact', 'Image', i, 0));
  const codes = Array.from({ length: CODES }, (_, i) => hub('artifact', 'Code', i, 1000));
  const groups = Array.from({ length: GROUPS }, (_, i) => hub('context', 'ModelGroup', i, 0));

  const entityRows: SqlValue[][] = [];
  const edgeRows: SqlValue[][] = [];
  let entities = 0;
  let associations = 0;
  const addEntity = (e: Entity) => {
    entities++;
    entityRows.push([
      p.accountId,
      p.region,
      e.arn,
      e.kind,
      e.name?.toLowerCase() ?? null,
      e.name,
      e.type,
      null,
      null,
      null,
      e.doc,
      e.at,
      e.at,
    ]);
  };
  const addEdge = (s: Entity, d: Entity, type: string, at: number) => {
    associations++;
    edgeRows.push([
      p.accountId,
      p.region,
      s.arn,
      d.arn,
      type,
      s.type,
      d.type,
      s.lineage,
      d.lineage,
      s.name,
      d.name,
      at,
    ]);
  };
  const edgeType = (s: number, d: number) =>
    d === 9
      ? 'AssociatedWith'
      : ROLES[s]![2] === 'TrialComponent' && ROLES[d]![0] === 'artifact'
        ? 'Produced'
        : ROLES[s]![1] === 'DataSet' && ROLES[d]![1] === 'DataSet'
          ? 'DerivedFrom'
          : 'ContributedTo';

  const flush = async (force: boolean) => {
    if (!force && entityRows.length + edgeRows.length < 20_000) return;
    await db.transaction(async (tx) => {
      for (let i = 0; i < entityRows.length; i += 40) {
        const chunk = entityRows.slice(i, i + 40);
        await tx.run(
          `INSERT INTO lineage_entities (account_id, region, arn, kind, name_key, name, entity_type, source_key, unique_source, parent_key, doc, created_at, last_modified_at)
           VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flat(),
        );
      }
      for (let i = 0; i < edgeRows.length; i += 40) {
        const chunk = edgeRows.slice(i, i + 40);
        await tx.run(
          `INSERT INTO lineage_associations (account_id, region, source_arn, destination_arn, association_type, source_type, destination_type, source_lineage, destination_lineage, source_name, destination_name, created_at)
           VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flat(),
        );
      }
    });
    entityRows.length = 0;
    edgeRows.length = 0;
  };

  for (const e of [...images, ...codes, ...groups]) addEntity(e);
  for (let u = 0; u < units; u++) {
    const unit = ROLES.map((_, role) => entity(u, role));
    for (const e of unit) addEntity(e);
    for (let s = 0; s < unit.length; s++)
      for (let d = s + 1; d < unit.length; d++) addEdge(unit[s]!, unit[d]!, edgeType(s, d), unit[d]!.at);
    const image = images[u % IMAGES]!;
    addEdge(image, unit[1]!, 'ContributedTo', unit[1]!.at);
    addEdge(image, unit[4]!, 'ContributedTo', unit[4]!.at);
    addEdge(image, unit[8]!, 'ContributedTo', unit[8]!.at);
    addEdge(codes[u % CODES]!, unit[1]!, 'ContributedTo', unit[1]!.at);
    addEdge(unit[6]!, groups[u % GROUPS]!, 'AssociatedWith', unit[6]!.at);
    await flush(false);
    if ((u + 1) % 20_000 === 0) log(`  ${u + 1} units`);
  }
  await flush(true);
  return { entities, associations, arnOf: (u, role) => entity(u, role).arn };
}
