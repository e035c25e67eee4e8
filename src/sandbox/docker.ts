// Images outside the containers file run with `docker run` when a Docker engine answers: Docker's
// own isolation then holds them, given the same limits and network choice as the sandbox would.
// https://docs.docker.com/engine/containers/run/
import type { Limits } from './limits.js';

/** `docker run` options: no capabilities, no privilege gain, the job's limits, no network when isolated. */
export function dockerHardening(network: 'none' | 'outbound', limits: Limits): string[] {
  const a = ['--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--pids-limit', String(limits.pids)];
  a.push('--memory', String(limits.memoryBytes), '--cpus', String(limits.cpus), '--shm-size', String(limits.shmBytes));
  // DEVIATION(aws): outbound Docker jobs use Docker's default bridge, which can reach the host.
  if (network === 'none') a.push('--network', 'none');
  return a;
}
