// A credentials file for end-to-end tests of authentication: an administrator, a read-only user
// with one explicit deny, a graph reader, the role the bulk loader may act as, and an execution role.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { ACCOUNT } from './server.js';

export const ALICE = { accessKeyId: 'AKIAALICE00000000001', secretAccessKey: 'alice-secret-access-key' };
export const BOB = { accessKeyId: 'AKIABOB0000000000002', secretAccessKey: 'bob-secret-access-key' };
export const CAROL = { accessKeyId: 'AKIACAROL00000000003', secretAccessKey: 'carol-secret-access-key' };
export const UNKNOWN = { accessKeyId: 'AKIANOBODY0000000009', secretAccessKey: 'nobody-secret-key' };
export const ALICE_ARN = `arn:aws:iam::${ACCOUNT}:user/alice`;
export const BOB_ARN = `arn:aws:iam::${ACCOUNT}:user/bob`;
export const LOADER_ROLE = `arn:aws:iam::${ACCOUNT}:role/graph-loader`;
/** The execution role models and jobs name: it exists, and alice (Action *) may pass it. */
export const SM_ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;

export function credentialsDocument(): unknown {
  return {
    principals: [
      {
        ...ALICE,
        arn: ALICE_ARN,
        policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
      },
      {
        ...BOB,
        arn: BOB_ARN,
        policy: [
          {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Action: ['sagemaker:Describe*', 'sagemaker:List*', 'sagemaker:DeleteModel'],
                Resource: '*',
              },
              { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::models/*' },
              { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::models' },
            ],
          },
          { Version: '2012-10-17', Statement: { Effect: 'Deny', Action: 'sagemaker:DeleteModel', Resource: '*' } },
        ],
      },
      {
        ...CAROL,
        arn: `arn:aws:iam::${ACCOUNT}:user/carol`,
        policy: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: ['neptune-db:ReadDataViaQuery', 'neptune-db:GetEngineStatus'], Resource: '*' },
          ],
        },
      },
    ],
    roles: [
      {
        arn: SM_ROLE,
        policy: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: 'arn:aws:s3:::models*' }],
        },
      },
      {
        arn: LOADER_ROLE,
        policy: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::data' },
            { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::data/graph/*' },
          ],
        },
      },
    ],
  };
}

export function writeCredentialsFile(dir: string, doc: unknown = credentialsDocument()): string {
  const path = join(dir, 'credentials.json');
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

/** The AWS SDK's own signer, for requests the clients do not make (raw fetches, WebSocket upgrades). */
export function sdkSigner(
  creds: { accessKeyId: string; secretAccessKey: string },
  service: string,
  region: string,
): SignatureV4 {
  return new SignatureV4({
    credentials: creds,
    region,
    service,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: service !== 's3',
    applyChecksum: service === 's3',
  });
}
