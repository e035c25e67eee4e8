// The README's examples run as written: each block marked `<!-- example: LANG -->` is extracted from
// README.md and run against a fresh server with the real client it shows (Debian's boto3, the AWS SDK
// for JavaScript from this repository's node_modules, Debian's AWS CLI v1), only the endpoint's port
// changed. A README edit that breaks an example fails here.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer, tempDir } from '../support/server.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** The README's marked examples by language, in the order they appear. */
export function readmeExamples(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /<!-- example: (\w+) -->\n```\w*\n([\s\S]*?)\n```/g;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) out.set(m[1]!, `${m[2]!}\n`);
  return out;
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

const hasAws = spawnSync('aws', ['--version'], { stdio: 'ignore' }).status === 0;

describe('README examples', () => {
  const examples = readmeExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  let server: TestServer;
  let work: string;
  const localize = (code: string) => code.replaceAll('http://localhost:4810', server.endpoint);
  before(async () => {
    server = await startServer(['--account-id', '000000000000']);
    work = tempDir('slipway-readme-');
  });
  after(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('marks a Python, a JavaScript and a shell example', () => {
    assert.deepEqual([...examples.keys()].sort(), ['javascript', 'python', 'shell']);
  });

  it('the boto3 loop trains, deploys, predicts and walks the lineage back to the data', async () => {
    const file = join(work, 'loop.py');
    writeFileSync(file, localize(examples.get('python')!));
    const r = await run('/usr/bin/python3', [file], work);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^Completed \[\{'MetricName': 'train:rmse'/m);
    const prediction = Number(/^prediction: (\S+)/m.exec(r.out)?.[1]);
    assert.ok(Math.abs(prediction - 1) < 0.3, `3*0.5 - 2*0.25 ≈ 1: ${r.out}`);
    assert.match(r.out, /^Artifact DataSet arn:aws:sagemaker:us-east-1:000000000000:artifact\//m);
  });

  it('the JavaScript loop runs as plain ESM on Node 20', async () => {
    // Inside the repository, so that its imports resolve to this repository's node_modules.
    const dir = join(ROOT, 'dist', 'readme-examples');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'loop.mjs');
    writeFileSync(file, localize(examples.get('javascript')!));
    const r = await run(process.execPath, [file], work);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^Completed \[/m);
    const prediction = Number(/^prediction: (\S+)/m.exec(r.out)?.[1]);
    assert.ok(Math.abs(prediction - 1) < 0.3, r.out);
  });

  it("the AWS CLI loop runs with Debian's CLI v1", {
    skip: !hasAws && !process.env.CI && 'no aws command (Debian package awscli)',
  }, async () => {
    assert.ok(hasAws, 'the aws command must be installed (Debian package awscli)');
    const file = join(work, 'loop.sh');
    writeFileSync(file, localize(examples.get('shell')!));
    const r = await run('bash', ['-euo', 'pipefail', file], work);
    assert.equal(r.code, 0, r.out);
    const prediction = Number(/^prediction: (\S+)/m.exec(r.out)?.[1]);
    assert.ok(Math.abs(prediction - 1) < 0.3, r.out);
  });
});
