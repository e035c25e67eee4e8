// The seccomp filter every sandboxed program runs under: a classic-BPF deny list in the spirit of
// Docker's default profile (moby/profiles seccomp/default.json), compiled here for x86_64 and
// handed to bubblewrap (`--seccomp FD`). https://www.kernel.org/doc/html/latest/userspace-api/seccomp_filter.html
//
// What it refuses, and why (the calls an unprivileged process could otherwise make, or that a
// kernel bug in them would turn into an escape):
//   - mounts and namespaces: mount, umount2, pivot_root, chroot, the new mount API (fsopen ...),
//     unshare, setns, clone with any CLONE_NEW* flag; clone3 answers ENOSYS so libc falls back to
//     clone, whose flags this filter can read;
//   - the kernel itself: modules, kexec, reboot, swap, acct, quotas, clock and time setting,
//     iopl/ioperm, syslog, perf_event_open, bpf, userfaultfd, io_uring, keyrings, kcmp,
//     open_by_handle_at (the "shocker" escape), lookup_dcookie, personality flags other than the
//     ones Docker allows (ADDR_NO_RANDOMIZE would undo ASLR);
//   - sockets that no network namespace confines: AF_VSOCK (a VM host's services) and
//     AF_BLUETOOTH answer EAFNOSUPPORT.
// A foreign architecture (i386 through int 0x80) kills the process; the x32 ABI is refused.
// ptrace and process_vm_* stay allowed as Docker allows them: the sandbox's PID namespace holds only
// the job's own processes.

/** `struct sock_filter`: 16-bit code, two 8-bit jump offsets, 32-bit operand. */
export interface Instruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const X32_SYSCALL_BIT = 0x40000000;

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;

export const EPERM = 1;
export const ENOSYS = 38;
export const EAFNOSUPPORT = 97;

// cBPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** Offsets into `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

/** x86_64 system call numbers refused with EPERM. */
export const DENIED_SYSCALLS: Readonly<Record<string, number>> = {
  acct: 163,
  add_key: 248,
  adjtimex: 159,
  afs_syscall: 183,
  bpf: 321,
  chroot: 161,
  clock_adjtime: 305,
  clock_settime: 227,
  create_module: 174,
  delete_module: 176,
  fanotify_init: 300,
  finit_module: 313,
  fsconfig: 431,
  fsmount: 432,
  fsopen: 430,
  fspick: 433,
  get_kernel_syms: 177,
  getpmsg: 181,
  init_module: 175,
  io_uring_enter: 426,
  io_uring_register: 427,
  io_uring_setup: 425,
  ioperm: 173,
  iopl: 172,
  kcmp: 312,
  kexec_file_load: 320,
  kexec_load: 246,
  keyctl: 250,
  lookup_dcookie: 212,
  migrate_pages: 256,
  mount: 165,
  mount_setattr: 442,
  move_mount: 429,
  move_pages: 279,
  name_to_handle_at: 303,
  nfsservctl: 180,
  open_by_handle_at: 304,
  open_tree: 428,
  open_tree_attr: 467,
  perf_event_open: 298,
  pidfd_getfd: 438,
  pivot_root: 155,
  putpmsg: 182,
  query_module: 178,
  quotactl: 179,
  quotactl_fd: 443,
  reboot: 169,
  request_key: 249,
  security: 185,
  setdomainname: 171,
  sethostname: 170,
  setns: 308,
  settimeofday: 164,
  swapoff: 168,
  swapon: 167,
  _sysctl: 156,
  sysfs: 139,
  syslog: 103,
  tuxcall: 184,
  umount2: 166,
  unshare: 272,
  uselib: 134,
  userfaultfd: 323,
  ustat: 136,
  vhangup: 153,
  vserver: 236,
};

export const SYS_CLONE = 56;
export const SYS_CLONE3 = 435;
export const SYS_PERSONALITY = 135;
export const SYS_SOCKET = 41;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (and NEWTIME, 0x80). */
export const CLONE_NAMESPACE_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80;

/** personality(2) values Docker's profile allows: PER_LINUX, PER_LINUX32, UNAME26 variants, the query. */
export const ALLOWED_PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

/** Address families no network namespace confines. */
export const DENIED_SOCKET_FAMILIES = { AF_BLUETOOTH: 31, AF_VSOCK: 40 };

type Target = 'next' | 'allow' | 'eperm' | 'enosys' | 'eafnosupport' | 'kill' | `label:${string}`;

interface Pending {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
  label?: string;
}

/** The filter as instructions (see `encode` for bubblewrap's byte form). */
export function seccompProgram(): Instruction[] {
  const out: Pending[] = [];
  const ld = (offset: number, label?: string) => out.push({ code: LD_W_ABS, k: offset, label });
  const jeq = (k: number, jt: Target, jf: Target = 'next') => out.push({ code: JEQ_K, k, jt, jf });
  const ret = (k: number, label: string) => out.push({ code: RET_K, k, label });

  ld(ARCH);
  jeq(AUDIT_ARCH_X86_64, 'next', 'kill');
  ld(NR);
  out.push({ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'eperm', jf: 'next' });
  for (const nr of Object.values(DENIED_SYSCALLS)) jeq(nr, 'eperm');
  jeq(SYS_CLONE3, 'enosys');
  jeq(SYS_CLONE, 'label:clone');
  jeq(SYS_PERSONALITY, 'label:personality');
  jeq(SYS_SOCKET, 'label:socket', 'allow');

  ld(ARG0_LOW, 'clone');
  out.push({ code: JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'eperm', jf: 'allow' });

  ld(ARG0_LOW, 'personality');
  for (const p of ALLOWED_PERSONALITIES.slice(0, -1)) jeq(p, 'allow');
  jeq(ALLOWED_PERSONALITIES.at(-1)!, 'allow', 'eperm');

  ld(ARG0_LOW, 'socket');
  const families = Object.values(DENIED_SOCKET_FAMILIES);
  for (const f of families.slice(0, -1)) jeq(f, 'eafnosupport');
  jeq(families.at(-1)!, 'eafnosupport', 'allow');

  ret(SECCOMP_RET_ALLOW, 'allow');
  ret(SECCOMP_RET_ERRNO | EPERM, 'eperm');
  ret(SECCOMP_RET_ERRNO | ENOSYS, 'enosys');
  ret(SECCOMP_RET_ERRNO | EAFNOSUPPORT, 'eafnosupport');
  ret(SECCOMP_RET_KILL_PROCESS, 'kill');

  const at = new Map<string, number>();
  out.forEach((p, i) => {
    if (p.label) at.set(p.label, i);
  });
  const offset = (from: number, t: Target | undefined): number => {
    if (t === undefined || t === 'next') return 0;
    const name = t.startsWith('label:') ? t.slice(6) : t;
    const to = at.get(name);
    if (to === undefined || to <= from) throw new Error(`seccomp: no forward target ${name}`);
    const d = to - from - 1;
    if (d > 255) throw new Error(`seccomp: jump to ${name} too long (${d})`);
    return d;
  };
  return out.map((p, i) => ({ code: p.code, jt: offset(i, p.jt), jf: offset(i, p.jf), k: p.k >>> 0 }));
}

/** The program as bubblewrap reads it from `--seccomp FD`: an array of `struct sock_filter`. */
export function encode(program: readonly Instruction[]): Buffer {
  const b = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    b.writeUInt16LE(ins.code, i * 8);
    b.writeUInt8(ins.jt, i * 8 + 2);
    b.writeUInt8(ins.jf, i * 8 + 3);
    b.writeUInt32LE(ins.k, i * 8 + 4);
  });
  return b;
}

let compiled: Buffer | undefined;
/** The encoded filter (built once). */
export function seccompFilter(): Buffer {
  compiled ??= encode(seccompProgram());
  return compiled;
}

/** Whether this machine runs the x86_64 ABI the filter is written for. */
export const seccompSupported = (): boolean => process.arch === 'x64' && process.platform === 'linux';
