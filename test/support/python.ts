// Finds the Python that has the Debian packages the tests use (python3-boto3, python3-xgboost):
// /usr/bin/python3, unless SLIPWAY_PYTHON names another.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function python(): string {
  if (process.env.SLIPWAY_PYTHON) return process.env.SLIPWAY_PYTHON;
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/** Whether `import <module>` works in that Python. */
export function hasPythonModule(module: string): boolean {
  const r = spawnSync(python(), ['-c', `import ${module}`], { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * In CI a missing module is a failure (CI installs it); on a developer machine the test is skipped
 * with a message saying what to install.
 */
export function requirePythonModule(module: string, debianPackage: string): string | undefined {
  if (hasPythonModule(module)) return undefined;
  const msg = `${python()} cannot import ${module}: apt-get install -y ${debianPackage}`;
  if (process.env.CI) throw new Error(msg);
  return msg;
}

/**
 * Runs a Python script without blocking the event loop (an in-process server must keep serving
 * while it runs), with no AWS config or credentials files; resolves with its exit code and output.
 */
export async function runPythonScript(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(python(), args, {
    env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, out };
}
