// The containers file: which custom images this machine can run, and how. Path from the engine's
// `containerConfigPath` option or the SLIPWAY_CONTAINERS_FILE environment variable.
//
//   {
//     "images": {
//       "123456789012.dkr.ecr.us-east-1.amazonaws.com/my-model:1.0": {
//         "command": ["node", "server.js"],      // argv; "serve" is appended, as `docker run IMAGE serve`
//         "cwd": "containers/my-model",          // relative to this file; default: its directory
//         "env": { "WORKERS": "1" },             // added to the container's Environment
//         "startupTimeoutSeconds": 180,          // GET /ping must answer 200 within this (default 180)
//         "appendServe": true,                   // set false to run `command` exactly as given
//         "binds": ["/root/.pyenv/versions/3.11.7"]  // more directories the sandbox shows read-only
//       },
//       "*/my-onnx-image:*": { "runtime": "onnx" }  // an image configured as ONNX (no command)
//     },
//     "frameworks": {                            // SageMaker's framework images (src/frameworks)
//       "sklearn": { "python": "/opt/venvs/sk12/bin/python3" },   // every scikit-learn image
//       "pytorch:2.0.1": { "python": "/opt/venvs/torch201/bin/python3", "env": { "OMP_NUM_THREADS": "1" } },
//       "*": { "wheels": "/srv/wheels" }       // requirements.txt installs from here (no index)
//     }
//   }
//
// Keys are an image URI or a glob where `*` matches any characters; an exact key wins over globs,
// and among globs the longest key wins.

import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

export interface ContainerEntry {
  readonly pattern: string;
  readonly runtime: 'process' | 'onnx';
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly startupTimeoutMs: number | undefined;
  readonly appendServe: boolean;
  /** Directories the sandbox shows read-only besides cwd and the command's own (an interpreter's tree). */
  readonly binds: readonly string[];
}

/** How a framework image's code runs here: `"<framework>[:<version>]"` or `"*"` in "frameworks". */
export interface FrameworkSetting {
  readonly key: string;
  /** The interpreter (absolute, or a name looked up on PATH); default: found by src/frameworks. */
  readonly python?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly binds: readonly string[];
  /** A directory of wheels a source directory's requirements.txt installs from (pip --no-index). */
  readonly wheels?: string;
}

export interface ContainersFile {
  readonly path: string;
  readonly entries: readonly ContainerEntry[];
  readonly frameworks: readonly FrameworkSetting[];
}

export class ContainersFileError extends Error {
  override readonly name = 'ContainersFileError';
}

/** An entry's or a framework's `env` (names to strings) and `binds` (absolute directories), checked. */
function envAndBinds(
  o: Record<string, unknown>,
  what: string,
  fail: (m: string) => never,
): { env: Record<string, string>; binds: string[] } {
  const env = o.env ?? {};
  if (
    typeof env !== 'object' ||
    Array.isArray(env) ||
    !Object.values(env as object).every((v) => typeof v === 'string')
  )
    fail(`${what}: env must map names to strings`);
  const binds = o.binds ?? [];
  if (!Array.isArray(binds) || !binds.every((b) => typeof b === 'string' && isAbsolute(b)))
    fail(`${what}: binds must be a list of absolute directory paths`);
  return { env: env as Record<string, string>, binds: binds as string[] };
}

export function parseContainersFile(path: string, text: string): ContainersFile {
  const fail = (m: string): never => {
    throw new ContainersFileError(`The containers file ${path} is invalid: ${m}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    fail((e as Error).message);
  }
  const images = (doc as { images?: unknown } | null)?.images ?? {};
  const frameworksDoc = (doc as { frameworks?: unknown } | null)?.frameworks ?? {};
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) fail('expected {"images": {...}, "frameworks": {...}}');
  if (typeof images !== 'object' || Array.isArray(images)) fail('"images" must map image URIs to entries');
  if (typeof frameworksDoc !== 'object' || Array.isArray(frameworksDoc))
    fail('"frameworks" must map "<framework>[:<version>]" to settings');
  const base = dirname(resolve(path));
  const entries: ContainerEntry[] = [];
  for (const [pattern, raw] of Object.entries(images as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object') fail(`entry "${pattern}" must be an object`);
    const e = raw as Record<string, unknown>;
    const runtime = (e.runtime ?? 'process') as ContainerEntry['runtime'];
    if (runtime !== 'process' && runtime !== 'onnx') fail(`entry "${pattern}": runtime must be "process" or "onnx"`);
    const command = e.command ?? [];
    if (!Array.isArray(command) || !command.every((c) => typeof c === 'string'))
      fail(`entry "${pattern}": command must be an array of strings`);
    if (runtime === 'process' && (command as string[]).length === 0) fail(`entry "${pattern}": command is required`);
    if (e.cwd !== undefined && typeof e.cwd !== 'string') fail(`entry "${pattern}": cwd must be a string`);
    const { env, binds } = envAndBinds(e, `entry "${pattern}"`, fail);
    const t = e.startupTimeoutSeconds;
    if (t !== undefined && (typeof t !== 'number' || !(t > 0)))
      fail(`entry "${pattern}": startupTimeoutSeconds must be a positive number`);
    entries.push({
      pattern,
      runtime,
      command: command as string[],
      cwd: resolve(base, (e.cwd as string | undefined) ?? '.'),
      env: env as Record<string, string>,
      startupTimeoutMs: typeof t === 'number' ? t * 1000 : undefined,
      appendServe: e.appendServe !== false,
      binds: binds as string[],
    });
  }
  const frameworks: FrameworkSetting[] = [];
  for (const [key, raw] of Object.entries(frameworksDoc as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(`framework "${key}" must be an object`);
    const f = raw as Record<string, unknown>;
    if (f.python !== undefined && (typeof f.python !== 'string' || f.python === ''))
      fail(`framework "${key}": python must be a path or a command name`);
    if (f.wheels !== undefined && (typeof f.wheels !== 'string' || !isAbsolute(f.wheels)))
      fail(`framework "${key}": wheels must be an absolute directory path`);
    const { env, binds } = envAndBinds(f, `framework "${key}"`, fail);
    const python = f.python as string | undefined;
    frameworks.push({
      key,
      python: python && (isAbsolute(python) || !python.includes('/')) ? python : python && resolve(base, python),
      env: env as Record<string, string>,
      binds: binds as string[],
      wheels: f.wheels as string | undefined,
    });
  }
  return { path, entries, frameworks };
}

/**
 * The settings for a framework image, most specific last: `"*"`, then `"<framework>"`, then
 * `"<framework>:<version>"` (each field of a later one wins).
 */
export function frameworkSettings(
  file: ContainersFile | undefined,
  framework: string,
  version: string,
): Omit<FrameworkSetting, 'key'> {
  const order = ['*', framework, `${framework}:${version}`];
  const found = (file?.frameworks ?? [])
    .filter((f) => order.includes(f.key))
    .sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
  let out: Omit<FrameworkSetting, 'key'> = { env: {}, binds: [] };
  for (const f of found) {
    out = {
      python: f.python ?? out.python,
      wheels: f.wheels ?? out.wheels,
      env: { ...out.env, ...f.env },
      binds: [...out.binds, ...f.binds],
    };
  }
  return out;
}

/**
 * The host directories an entry's program lives in, which its sandbox shows read-only at the same
 * paths: its cwd, the directory of each absolute path its command names (`/opt/m/bin/serve`,
 * `node /srv/model/server.js`), and its `binds`.
 */
export function entryCodeDirs(entry: ContainerEntry): string[] {
  const dirs = [entry.cwd];
  for (const arg of entry.command) {
    if (!isAbsolute(arg)) continue;
    try {
      dirs.push(statSync(arg).isDirectory() ? arg : dirname(arg));
    } catch {
      // not a path on this host (an option value): nothing to show
    }
  }
  return [...dirs, ...entry.binds];
}

function globMatch(pattern: string, s: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === s;
  if (!s.startsWith(parts[0]!)) return false;
  let at = parts[0]!.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const k = s.indexOf(parts[i]!, at);
    if (k < 0) return false;
    at = k + parts[i]!.length;
  }
  const last = parts[parts.length - 1]!;
  return s.length - last.length >= at && s.endsWith(last);
}

export function findContainerEntry(file: ContainersFile | undefined, image: string): ContainerEntry | undefined {
  if (!file) return undefined;
  const exact = file.entries.find((e) => e.pattern === image);
  if (exact) return exact;
  let best: ContainerEntry | undefined;
  for (const e of file.entries) {
    if (e.pattern.includes('*') && globMatch(e.pattern, image) && (!best || e.pattern.length > best.pattern.length))
      best = e;
  }
  return best;
}

/** Reads the file when it changed since the last call (edits apply to the next deployment). */
export class ContainersFileReader {
  private cached: { mtimeMs: number; size: number; file: ContainersFile } | undefined;

  constructor(readonly path: string | undefined) {}

  read(): ContainersFile | undefined {
    if (!this.path) return undefined;
    let st: { mtimeMs: number; size: number };
    try {
      st = statSync(this.path);
    } catch {
      throw new ContainersFileError(`The containers file ${this.path} cannot be read.`);
    }
    if (this.cached && this.cached.mtimeMs === st.mtimeMs && this.cached.size === st.size) return this.cached.file;
    const file = parseContainersFile(this.path, readFileSync(this.path, 'utf8'));
    this.cached = { mtimeMs: st.mtimeMs, size: st.size, file };
    return file;
  }
}
