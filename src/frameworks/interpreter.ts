// Which local Python runs a framework image's code, and what the sandbox must show of it.
//
// The containers file may name one per framework and version ("frameworks" in
// src/inference/runtimes/container/containers-file.ts). Otherwise the first `python3` on PATH (then
// /usr/bin/python3, /usr/local/bin/python3) that has the framework's module installed; failing
// that, the first one there is, and the job's log says the module is missing. A probe asks the
// interpreter once (cached per interpreter and framework) for its version, its prefixes and path,
// and the framework's installed version, without importing the framework.

import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { ContainersFile } from '../inference/runtimes/container/containers-file.js';
import { frameworkSettings } from '../inference/runtimes/container/containers-file.js';
import { FRAMEWORK_MODULES, type FrameworkImage, versionsAgree } from './images.js';

export interface Interpreter {
  /** The interpreter's absolute path (as found; the sandbox shows it at the same path). */
  readonly python: string;
  /** Directories outside /usr the interpreter and its packages live in (shown read-only). */
  readonly binds: readonly string[];
  /** From the containers file's settings, added to the program's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** requirements.txt installs from here (pip --no-index --find-links), when configured. */
  readonly wheels: string | undefined;
  readonly pythonVersion: string;
  /** The framework's installed version, undefined when it is not installed for this interpreter. */
  readonly frameworkVersion: string | undefined;
  /** What the job's log says: the interpreter, Python, the framework's version and any mismatch. */
  readonly notes: readonly string[];
}

export class InterpreterError extends Error {
  override readonly name = 'InterpreterError';
}

interface Probe {
  readonly executable: string;
  readonly version: string;
  readonly prefixes: string[];
  readonly path: string[];
  readonly found: boolean;
  readonly dist: string | null;
}

const PROBE = `
import sys, json, importlib.util
m, d = sys.argv[1], sys.argv[2]
try:
    found = importlib.util.find_spec(m) is not None
except Exception:
    found = False
dist = None
if found:
    try:
        import importlib.metadata as md
        dist = md.version(d)
    except Exception:
        dist = None
print(json.dumps({"executable": sys.executable, "version": sys.version.split()[0],
  "prefixes": sorted({sys.prefix, sys.base_prefix, sys.exec_prefix}), "path": [p for p in sys.path if p],
  "found": found, "dist": dist}))
`;

const probes = new Map<string, { at: number; probe: Promise<Probe> }>();
/** A probe older than this is refreshed in the background; jobs use the last answer meanwhile. */
const PROBE_FRESH_MS = 60_000;

function runProbe(python: string, module: string, dist: string): Promise<Probe> {
  return new Promise<Probe>((resolve, reject) => {
    execFile(python, ['-I', '-c', PROBE, module, dist], { timeout: 20_000, maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err)
        return reject(
          new InterpreterError(`Python interpreter ${python} cannot be run: ${err.message.split('\n')[0]}`),
        );
      try {
        resolve(JSON.parse(stdout) as Probe);
      } catch {
        reject(new InterpreterError(`Python interpreter ${python} did not answer as Python 3 does.`));
      }
    });
  });
}

/**
 * The interpreter's answer, cached: a job's start never waits for a probe it has seen before (an
 * interpreter or framework installed or removed meanwhile shows at the refresh a minute later).
 */
function probe(python: string, module: string, dist: string): Promise<Probe> {
  const key = `${python}\0${module}`;
  const hit = probes.get(key);
  if (hit && Date.now() - hit.at < PROBE_FRESH_MS) return hit.probe;
  const p = runProbe(python, module, dist);
  if (hit) {
    // refresh in the background; the last good answer serves until the new one is in
    p.then(
      () => probes.set(key, { at: Date.now(), probe: p }),
      () => probes.delete(key),
    );
    hit.at = Date.now();
    return hit.probe;
  }
  probes.set(key, { at: Date.now(), probe: p });
  p.catch(() => probes.delete(key));
  return p;
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `python3` on PATH, then the system's, each once (by real path), in that order. */
export function candidateInterpreters(path = process.env.PATH ?? ''): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const dir of [...path.split(delimiter).filter((d) => isAbsolute(d)), '/usr/bin', '/usr/local/bin']) {
    const p = join(dir, 'python3');
    if (!executable(p)) continue;
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(p);
  }
  return out;
}

function lookup(name: string): string | undefined {
  if (isAbsolute(name)) return executable(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isAbsolute(dir) && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

const SYSTEM = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/lib32/'];
const inSystem = (p: string) => SYSTEM.some((s) => `${p}/`.startsWith(s));

/** The directories to show: prefixes and path entries outside the system's own trees, outermost only. */
function bindsOf(python: string, p: Probe): string[] {
  const dirs = new Set<string>();
  const add = (d: string) => {
    if (!isAbsolute(d) || d === '/') return;
    let real = d;
    try {
      real = realpathSync(d);
    } catch {
      return; // a path entry that does not exist (a zip of the stdlib, say)
    }
    if (!inSystem(real)) dirs.add(real);
    if (!inSystem(d)) dirs.add(d);
  };
  for (const d of [dirname(python), ...p.prefixes, ...p.path]) add(d);
  try {
    add(dirname(realpathSync(python)));
  } catch {}
  const sorted = [...dirs].sort();
  return sorted.filter((d) => !sorted.some((o) => o !== d && d.startsWith(`${o}/`)));
}

/** The interpreter for a framework image, as configured or as found; throws InterpreterError. */
export async function resolveInterpreter(
  image: FrameworkImage,
  file: ContainersFile | undefined,
): Promise<Interpreter> {
  const settings = frameworkSettings(file, image.framework, image.version);
  const { module, dist, name } = FRAMEWORK_MODULES[image.framework];
  let python: string | undefined;
  let found: Probe | undefined;
  if (settings.python) {
    python = lookup(settings.python);
    if (!python)
      throw new InterpreterError(
        `The Python interpreter configured for ${image.framework}:${image.version} (${settings.python}) is not an executable file on this host.`,
      );
    found = await probe(python, module, dist);
  } else {
    const candidates = candidateInterpreters();
    if (candidates.length === 0)
      throw new InterpreterError(
        `No python3 on this host runs ${name} code: install Python 3, or name an interpreter for "${image.framework}" under "frameworks" in the containers file.`,
      );
    for (const c of candidates) {
      const p = await probe(c, module, dist).catch(() => undefined);
      if (!p) continue;
      if (p.found) {
        python = c;
        found = p;
        break;
      }
      if (!found) {
        python = c;
        found = p;
      }
    }
    if (!python || !found)
      throw new InterpreterError(`No python3 on this host answers (tried ${candidates.join(', ')}).`);
  }
  // The interpreter itself, not a launcher in front of it (a pyenv shim is a shell script that
  // needs pyenv; the sandbox shows neither).
  if (isAbsolute(found.executable) && executable(found.executable)) python = found.executable;
  const notes = [
    `Framework ${name} ${image.version} (image tag ${image.tag}) runs on ${python} (Python ${found.version}).`,
  ];
  if (!found.found) {
    notes.push(
      `Warning: ${name} is not installed for ${python}: the script's "import ${module}" will fail. Install it (Debian: python3-${module === 'sklearn' ? 'sklearn' : module}) or name an interpreter that has it under "frameworks" in the containers file.`,
    );
  } else {
    const agree = versionsAgree(image.version, found.dist ?? undefined);
    if (agree === false)
      notes.push(
        `Warning: the image carries ${name} ${image.version}; this host runs ${name} ${found.dist}. Code that depends on the difference may behave otherwise than on SageMaker.`,
      );
    else notes.push(`${name} ${found.dist ?? '(version unknown)'} installed.`);
  }
  return {
    python,
    binds: [...bindsOf(python, found), ...settings.binds],
    env: settings.env,
    wheels: settings.wheels,
    pythonVersion: found.version,
    frameworkVersion: found.found ? (found.dist ?? undefined) : undefined,
    notes,
  };
}
