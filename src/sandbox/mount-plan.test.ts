// The sandbox's file system plan: what is bound, what never is, what is covered over.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  argsData,
  bwrapOptions,
  type HostLayout,
  isUnder,
  type Plan,
  probeLayout,
  reachable,
  refusedBind,
} from './mount-plan.js';

const dir = mkdtempSync(join(tmpdir(), 'slipway-plan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const layout: HostLayout = probeLayout(join(dir, 'generated'));

const plan = (over: Partial<Plan> = {}): Plan => ({
  layout,
  uid: 1900000007,
  gid: 1900000007,
  binds: [],
  hidden: [],
  shmBytes: 1 << 20,
  network: 'none',
  env: { PATH: '/usr/bin', SECRET: 'value' },
  cwd: '/opt/ml',
  infoFd: 5,
  blockFd: 6,
  seccompFd: 4,
  ...over,
});

/** Consecutive triples/pairs of an option list, as bwrap reads them. */
const pairs = (a: string[], opt: string) => a.flatMap((x, i) => (x === opt ? [[a[i + 1], a[i + 2]]] : []));

test('every namespace, no capabilities, a read-only root, the seccomp filter, held until prepared', () => {
  const a = bwrapOptions(plan());
  for (const o of ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session'])
    assert.ok(a.includes(o), o);
  assert.ok(!a.includes('--share-net'));
  assert.deepEqual(a.slice(a.indexOf('--cap-drop'), a.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
  assert.equal(a[a.indexOf('--seccomp') + 1], '4');
  assert.equal(a[a.indexOf('--block-fd') + 1], '6');
  // The root tmpfs is made read-only after everything is in place.
  assert.ok(a.lastIndexOf('--remount-ro') > a.lastIndexOf('--bind'));
  assert.equal(a[a.lastIndexOf('--remount-ro') + 1], '/');
  // No nested user namespace: `--dev` (devpts) is not used, device nodes are bound one by one.
  assert.ok(!a.includes('--dev'));
  assert.deepEqual(
    pairs(a, '--dev-bind').map(([s]) => s),
    ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom'],
  );
});

test('the system is read-only, /etc is a copy of the allow-list plus generated files, never /root or /home', () => {
  const a = bwrapOptions(plan());
  const ro = pairs(a, '--ro-bind').map(([s, d]) => `${s}->${d}`);
  assert.ok(ro.includes('/usr->/usr'));
  assert.ok(ro.includes(`${join(dir, 'generated/etc')}->/etc`));
  assert.ok(ro.some((b) => b.endsWith('->/etc/passwd') && b.includes('passwd.1900000007')));
  assert.ok(ro.some((b) => b.endsWith('->/etc/resolv.conf') && b.includes('resolv.conf.none')));
  // The copy: what a program needs, and nothing that is not world-readable or not on the list.
  const copied = readdirSync(join(dir, 'generated/etc'));
  for (const needed of ['ld.so.cache', 'hosts', 'hostname', 'passwd', 'group', 'resolv.conf'])
    assert.ok(copied.includes(needed), needed);
  for (const secret of ['shadow', 'gshadow', 'sudoers', 'ssh', 'credentials.json'])
    assert.ok(!copied.includes(secret), secret);
  if (existsSync('/etc/ssl/private'))
    assert.ok(!existsSync(join(dir, 'generated/etc/ssl/private')), 'ssl/private (0700) is not copied');
  const from = (d: string) =>
    pairs(a, '--symlink').find(([, to]) => to === d)?.[0] ?? (ro.includes(`${d}->${d}`) ? d : undefined);
  assert.ok(from('/bin'), 'bin is there, as on the host');
  for (const [s] of [...pairs(a, '--ro-bind'), ...pairs(a, '--bind')]) {
    assert.ok(!['/', '/root', '/home', '/etc', '/proc', '/sys'].includes(s!), s);
    assert.ok(!s!.startsWith('/etc/shadow') && !s!.startsWith('/etc/sudoers'), s);
  }
});

test('the environment is set inside, not inherited', () => {
  const a = bwrapOptions(plan());
  assert.ok(a.includes('--clearenv'));
  assert.deepEqual(pairs(a, '--setenv'), [
    ['PATH', '/usr/bin'],
    ['SECRET', 'value'],
  ]);
  // Given on a descriptor, NUL-separated: nothing of it on a command line.
  assert.ok(argsData(a).toString().includes('SECRET\0value\0'));
});

test("/tmp and /dev/shm are bounded tmpfs unless /tmp is the job's own directory", () => {
  const a = bwrapOptions(plan({ tmpBytes: 123456, shmBytes: 654321 }));
  assert.deepEqual(a.slice(a.indexOf('/dev/shm') - 3, a.indexOf('/dev/shm') + 1), [
    '--size',
    '654321',
    '--tmpfs',
    '/dev/shm',
  ]);
  assert.deepEqual(a.slice(a.indexOf('/tmp') - 3, a.indexOf('/tmp') + 1), ['--size', '123456', '--tmpfs', '/tmp']);
  const job = bwrapOptions(plan({ binds: [{ source: '/d/t', host: '/d/t', at: '/tmp', writable: true }] }));
  assert.ok(!pairs(job, '--tmpfs').some(([d]) => d === '/tmp'));
  assert.deepEqual(pairs(job, '--bind'), [['/d/t', '/tmp']]);
});

test('secrets under a bound directory are covered: a directory by an empty tmpfs, a file by /dev/null', () => {
  const code = join(dir, 'code');
  mkdirSync(join(code, '.slipway'), { recursive: true });
  writeFileSync(join(code, 'credentials.json'), '{}');
  chmodSync(dir, 0o755);
  chmodSync(code, 0o755);
  const a = bwrapOptions(
    plan({
      binds: [{ source: '/staged/3', host: code, at: code, writable: false }],
      hidden: [join(code, '.slipway'), join(code, 'credentials.json'), '/elsewhere'],
    }),
  );
  assert.deepEqual(
    pairs(a, '--ro-bind').find(([, d]) => d === code),
    ['/staged/3', code],
  );
  assert.ok(pairs(a, '--tmpfs').some(([d]) => d === join(code, '.slipway')));
  assert.ok(pairs(a, '--ro-bind').some(([s, d]) => s === '/dev/null' && d === join(code, 'credentials.json')));
  // Out of the sandbox uid's reach (a 0700 directory on the way): nothing to cover, and bwrap
  // (running as that uid) could not.
  chmodSync(code, 0o700);
  const b = bwrapOptions(
    plan({
      binds: [{ source: code, host: code, at: code, writable: false }],
      hidden: [join(code, 'credentials.json')],
    }),
  );
  assert.ok(!pairs(b, '--ro-bind').some(([s]) => s === '/dev/null'));
  chmodSync(code, 0o755);
});

test('whole trees are never bound; paths are compared by component', () => {
  for (const d of ['/', '/root', '/home', '/etc', '/tmp', '/proc', '/var']) assert.match(refusedBind(d)!, /every file/);
  assert.equal(refusedBind('/root/.pyenv/versions/3.11.7'), undefined);
  assert.equal(refusedBind('/home/alice/project'), undefined);
  assert.match(refusedBind('relative/dir')!, /not an absolute path/);
  assert.ok(isUnder('/a/b/c', '/a/b'));
  assert.ok(!isUnder('/a/bc', '/a/b'));
});

test('reachable: every directory on the way must be searchable by the uid', () => {
  const r = join(dir, 'r');
  mkdirSync(join(r, 'x/y'), { recursive: true });
  chmodSync(r, 0o711);
  chmodSync(join(r, 'x'), 0o700);
  assert.equal(reachable(r, join(r, 'x/y/file'), 1900000007, 1900000007), false);
  chmodSync(join(r, 'x'), 0o701);
  assert.equal(reachable(r, join(r, 'x/y/file'), 1900000007, 1900000007), true);
});
