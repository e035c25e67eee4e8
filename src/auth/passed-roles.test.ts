// iam:PassRole: the table of operations that pass a role, and the gate that checks every one of
// them (with IAM's sentence) and that the role exists (with SageMaker's).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { model } from '../generated/sagemaker/model.js';
import { rolesAt, SAGEMAKER_PASSED_ROLES } from './actions/sagemaker.js';
import { type Authenticated, Authorizer } from './authorizer.js';
import { parseCredentials } from './credentials.js';
import { gateFor } from './services.js';

const ACCOUNT = '111122223333';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;
const ADMIN = `arn:aws:iam::${ACCOUNT}:role/admin`;
const credentials = parseCredentials({
  principals: [
    {
      accessKeyId: 'AKIAPASSER0000000001',
      secretAccessKey: 'passer-secret',
      arn: `arn:aws:iam::${ACCOUNT}:user/passer`,
      policy: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'sagemaker:*', Resource: '*' },
          { Effect: 'Allow', Action: 'iam:PassRole', Resource: ROLE },
          { Effect: 'Allow', Action: 'iam:PassRole', Resource: `arn:aws:iam::${ACCOUNT}:role/ghost` },
        ],
      },
    },
  ],
  roles: [
    { arn: ROLE },
    { arn: ADMIN, policy: { Version: '2012-10-17', Statement: { Effect: 'Allow', Action: '*', Resource: '*' } } },
  ],
});
const authorizer = Authorizer.fromCredentials(credentials);
const principal = credentials.byAccessKey.get('AKIAPASSER0000000001')!;
// The gate reads only the principal of an authenticated request.
const gate = gateFor(
  'sagemaker',
  authorizer,
  { principal } as Authenticated,
  { accountId: ACCOUNT, region: 'us-west-2' },
  {},
);

function refusal(f: () => void): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  assert.fail('expected a refusal');
}

type Shapes = Record<string, { type: string; members?: Record<string, { shape: string }>; member?: string }>;

/** Every string member of an operation's input whose name says it is a role, as dotted paths. */
function roleMembers(shape: string, path = '', seen = new Set<string>()): string[] {
  const shapes = model.shapes as unknown as Shapes;
  const s = shapes[shape]!;
  if (seen.has(shape)) return [];
  const next = new Set(seen).add(shape);
  if (s.type === 'list') return roleMembers(s.member!, `${path}[]`, next);
  if (s.type !== 'structure') return [];
  const out: string[] = [];
  for (const [name, m] of Object.entries(s.members ?? {})) {
    const p = path ? `${path}.${name}` : name;
    if (/Role(Arn)?$/.test(name) && shapes[m.shape]!.type === 'string') out.push(p);
    out.push(...roleMembers(m.shape, p, next));
  }
  return out;
}

test('every served operation that names a role SageMaker acts as is in the PassRole table', () => {
  const ops = model.operations as unknown as Record<string, { input?: string }>;
  const passing: string[] = [];
  for (const [op, o] of Object.entries(ops)) {
    if (!o.input) continue;
    // A Redshift dataset's ClusterRoleArn is the cluster's own role, not one SageMaker assumes.
    const found = roleMembers(o.input).filter((p) => !p.endsWith('ClusterRoleArn'));
    if (found.length === 0) continue;
    passing.push(op);
    assert.deepEqual([...(SAGEMAKER_PASSED_ROLES[op] ?? [])].sort(), found.sort(), op);
  }
  for (const op of ['CreateTrainingJob', 'CreateProcessingJob', 'CreateModel']) assert.ok(passing.includes(op), op);
});

test('roles are read at dotted paths, through lists', () => {
  const input = {
    TrainingJobDefinition: { RoleArn: 'a' },
    TrainingJobDefinitions: [{ RoleArn: 'b' }, { RoleArn: 'a' }, {}],
  };
  assert.deepEqual(rolesAt(input, SAGEMAKER_PASSED_ROLES.CreateHyperParameterTuningJob!), ['a', 'b']);
  assert.deepEqual(rolesAt({}, ['RoleArn']), []);
});

test('a role the caller may not pass: AccessDeniedException with IAM sentence', () => {
  assert.deepEqual(
    refusal(() => gate.operation('CreateTrainingJob', { TrainingJobName: 'j', RoleArn: ADMIN })),
    {
      code: 'AccessDeniedException',
      message: `User: arn:aws:iam::${ACCOUNT}:user/passer is not authorized to perform: iam:PassRole on resource: ${ADMIN} because no identity-based policy allows the iam:PassRole action`,
    },
  );
  // Every list element is checked: one role it may pass does not carry another.
  assert.equal(
    refusal(() =>
      gate.operation('CreateHyperParameterTuningJob', {
        HyperParameterTuningJobName: 't',
        TrainingJobDefinitions: [{ RoleArn: ROLE }, { RoleArn: ADMIN }],
      }),
    ).code,
    'AccessDeniedException',
  );
});

test('a role the credentials file does not hold: SageMaker cannot assume it', () => {
  const ghost = `arn:aws:iam::${ACCOUNT}:role/ghost`;
  assert.deepEqual(
    refusal(() => gate.operation('CreateModel', { ModelName: 'm', ExecutionRoleArn: ghost })),
    {
      code: 'ValidationException',
      message: `Could not assume role ${ghost}. Please ensure that the role exists and allows principal 'sagemaker.amazonaws.com' to assume the role.`,
    },
  );
});

test('a role it may pass, every time, even where the decision on the name is remembered', () => {
  gate.operation('CreateModel', { ModelName: 'm', ExecutionRoleArn: ROLE });
  gate.operation('CreateModel', { ModelName: 'm', ExecutionRoleArn: ROLE });
  assert.equal(
    refusal(() => gate.operation('CreateModel', { ModelName: 'm', ExecutionRoleArn: ADMIN })).code,
    'AccessDeniedException',
  );
});

test("a stored role (a pipeline's) is checked through passRole", () => {
  gate.operation('StartPipelineExecution', { PipelineName: 'p' });
  gate.passRole(ROLE);
  assert.equal(refusal(() => gate.passRole(ADMIN)).code, 'AccessDeniedException');
});
