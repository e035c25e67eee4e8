// The process spawner (spawner.ts): forked once by the server while it is small, it starts the
// processes the server asks for and hands back their pipes and their exit. Each pipe (a Unix
// socket libuv made) is sent over the IPC channel as a handle and closed here; Node starts reading
// a child's pipes as soon as it makes them, so reading is stopped first, before this process
// returns to its event loop: every byte the child writes stays in the socket for the server.
// It ends when the server does (the channel closes, or its parent changes), not on a signal to
// their process group, and ends what it started and is still running (a sandbox would go anyway:
// bwrap --die-with-parent).
import type { ChildProcess } from 'node:child_process';
import { type FromHelper, startChild, type ToHelper } from './spawner.js';

const send = (m: FromHelper, handle?: unknown) => {
  if (process.connected) process.send!(m, handle as never);
};

/** The children started and not yet exited (process group leaders when detached). */
const alive = new Map<number, boolean>();

/**
 * The server is gone: what this process started is ended (no server will wait for it; a later
 * server would reap it as a stray), then this process.
 */
function orphaned(): never {
  for (const [pid, detached] of alive) {
    try {
      process.kill(detached ? -pid : pid, 'SIGKILL');
    } catch {}
  }
  process.exit(0);
}

process.on('disconnect', orphaned);
// 'disconnect' did not always come: once in CI a helper outlived its server (killed with SIGKILL)
// by minutes, its channel closed and its event loop waiting, holding the server's stdout open
// for whoever waited for that to end. So it also looks for its parent every second.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent || !process.connected) orphaned();
}, 1000).unref();
// A signal to the server's process group (Ctrl-C, a service manager's stop) is the server's to
// handle: it stops its sandboxes gracefully, then exits, which ends this process.
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => {});

process.on('message', (m: ToHelper) => {
  const { id, file, args, options } = m;
  let child: ChildProcess;
  try {
    child = startChild(file, args, options);
  } catch (e) {
    send({ id, error: { message: (e as Error).message, code: (e as NodeJS.ErrnoException).code } });
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (e: NodeJS.ErrnoException) => send({ id, error: { message: e.message, code: e.code } }));
    return;
  }
  const pipes: number[] = [];
  child.stdio.forEach((s, fd) => {
    if (!s) return;
    const h = (s as unknown as { _handle?: { readStop?: () => number; reading?: boolean } })._handle;
    h?.readStop?.();
    if (h) h.reading = false;
    pipes.push(fd);
  });
  for (const fd of pipes) send({ id, fd }, child.stdio[fd]);
  send({ id, pid: child.pid });
  const pid = child.pid;
  alive.set(pid, options.detached === true);
  child.once('exit', (code, signal) => {
    alive.delete(pid);
    send({ id, exit: [code, signal] });
  });
  child.on('error', () => {}); // a kill that failed: the exit still comes
});
