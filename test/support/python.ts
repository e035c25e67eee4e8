// Finds the Python that has the Debian packages the tests use (python3-boto3, python3-xgboost):
// /usr/bin/python3, unless SLIPWAY_PYTHON names another.
import { spawnSync } from 'node:child_process';
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
