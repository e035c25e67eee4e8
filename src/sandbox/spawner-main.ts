// The process spawner (spawner.ts): forked once by the server while it is small, it starts the
// processes the server asks for and hands back their pipes and their exit. Each pipe (a Unix
// socket libuv made) is sent over the IPC channel as a handle and closed here; Node starts reading
// a child's pipes as soon as it makes them, so reading is stopped first, before this process
// returns to its event loop: every byte the child writes stays in the socket for the server.
// It ends when the server does (the channel closes), not on a signal to their process group; a
// sandbox it started then goes too (bwrap --die-with-parent), the rest the server's exit handlers
// and reapStraySandboxes end.
import type { ChildProcess } from 'node:child_process';
import { type FromHelper, startChild, type ToHelper } from './spawner.js';

const send = (m: FromHelper, handle?: unknown) => {
  if (process.connected) process.send!(m, handle as never);
};

process.on('disconnect', () => process.exit(0));
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
  child.once('exit', (code, signal) => send({ id, exit: [code, signal] }));
  child.on('error', () => {}); // a kill that failed: the exit still comes
});
