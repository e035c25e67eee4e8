import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { frameworkSettings, parseContainersFile } from '../inference/runtimes/container/containers-file.js';
import { parseFrameworkImage } from './images.js';
import { candidateInterpreters, InterpreterError, resolveInterpreter } from './interpreter.js';

const SKLEARN = parseFrameworkImage(
  '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3',
)!;
const file = (frameworks: unknown) =>
  parseContainersFile('/etc/slipway/containers.json', JSON.stringify({ frameworks }));

describe('framework settings in the containers file', () => {
  it('merge "*", then the framework, then framework:version', () => {
    const f = file({
      '*': { wheels: '/srv/wheels', env: { A: '1', B: '1' } },
      sklearn: { python: '/opt/sk/bin/python3', env: { B: '2' } },
      'sklearn:1.2-1': { env: { C: '3' }, binds: ['/opt/sk'] },
      pytorch: { python: '/opt/torch/bin/python3' },
    });
    const s = frameworkSettings(f, 'sklearn', '1.2-1');
    assert.equal(s.python, '/opt/sk/bin/python3');
    assert.equal(s.wheels, '/srv/wheels');
    assert.deepEqual(s.env, { A: '1', B: '2', C: '3' });
    assert.deepEqual(s.binds, ['/opt/sk']);
    assert.equal(frameworkSettings(f, 'sklearn', '0.23-1').env.C, undefined);
  });

  it('refuses settings it cannot use, naming the entry', () => {
    assert.throws(
      () => file({ sklearn: { wheels: 'relative/dir' } }),
      /framework "sklearn": wheels must be an absolute/,
    );
    assert.throws(() => file({ sklearn: { python: 3 } }), /framework "sklearn": python must be/);
    assert.throws(() => file({ sklearn: { env: { A: 1 } } }), /env must map names to strings/);
  });
});

describe('resolveInterpreter', () => {
  it('fails naming a configured interpreter that is not there', async () => {
    await assert.rejects(
      resolveInterpreter(SKLEARN, file({ sklearn: { python: '/nonexistent/bin/python3' } })),
      (e: unknown) =>
        e instanceof InterpreterError && /configured for sklearn:1.2-1 \(\/nonexistent\/bin\/python3\)/.test(e.message),
    );
  });

  it('finds a python3 that has the framework, and says which ran', {
    skip: !existsSync('/usr/bin/python3'),
  }, async () => {
    assert.ok(candidateInterpreters('/nonexistent').includes('/usr/bin/python3'));
    const i = await resolveInterpreter(SKLEARN, undefined);
    assert.match(
      i.notes[0]!,
      /^Framework scikit-learn 1\.2-1 \(image tag 1\.2-1-cpu-py3\) runs on \/\S+ \(Python 3\.\d+/,
    );
    if (i.frameworkVersion) assert.match(i.notes[1]!, /scikit-learn/);
    else assert.match(i.notes[1]!, /^Warning: scikit-learn is not installed/);
  });

  it('names the interpreter itself, not a launcher in front of it', {
    skip: !existsSync('/usr/bin/python3'),
  }, async () => {
    const i = await resolveInterpreter(SKLEARN, file({ sklearn: { python: 'python3' } }));
    assert.ok(i.python.startsWith('/'), i.python);
    assert.ok(!i.python.includes('/shims/'), i.python);
  });
});
