// The seccomp program, run through a classic-BPF interpreter written here: every denied call is
// refused with its errno, what a program needs is allowed, foreign architectures are killed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AUDIT_ARCH_X86_64,
  CLONE_NAMESPACE_FLAGS,
  DENIED_SYSCALLS,
  EAFNOSUPPORT,
  ENOSYS,
  EPERM,
  encode,
  type Instruction,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  seccompFilter,
  seccompProgram,
} from './seccomp.js';

/** Evaluates a cBPF seccomp program over `struct seccomp_data` (x86_64, little-endian). */
function run(program: readonly Instruction[], nr: number, args: number[] = [], arch = AUDIT_ARCH_X86_64): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  args.forEach((a, i) => {
    data.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + i * 8);
  });
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    switch (code) {
      case 0x20:
        acc = data.readUInt32LE(k);
        break;
      case 0x15:
        pc += acc === k ? jt : jf;
        break;
      case 0x35:
        pc += acc >= k ? jt : jf;
        break;
      case 0x45:
        pc += (acc & k) !== 0 ? jt : jf;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`opcode ${code.toString(16)} not interpreted`);
    }
  }
  throw new Error('fell off the end of the program');
}

const prog = seccompProgram();
const errno = (e: number) => SECCOMP_RET_ERRNO | e;

test('every denied system call answers EPERM', () => {
  for (const [name, nr] of Object.entries(DENIED_SYSCALLS)) assert.equal(run(prog, nr), errno(EPERM), name);
});

test('what programs need is allowed: read, write, openat, mmap, execve, ptrace, socket(AF_INET)', () => {
  for (const nr of [0, 1, 257, 9, 59, 101, 231, 60]) assert.equal(run(prog, nr), SECCOMP_RET_ALLOW, String(nr));
  assert.equal(run(prog, 41, [2, 1, 0]), SECCOMP_RET_ALLOW);
  assert.equal(run(prog, 41, [1, 1, 0]), SECCOMP_RET_ALLOW, 'AF_UNIX');
});

test('clone: threads and forks pass, any new namespace is refused; clone3 answers ENOSYS', () => {
  const CLONE_THREAD_FLAGS = 0x3d0f00;
  assert.equal(run(prog, 56, [CLONE_THREAD_FLAGS]), SECCOMP_RET_ALLOW);
  assert.equal(run(prog, 56, [17 /* SIGCHLD */]), SECCOMP_RET_ALLOW);
  for (let bit = 0; bit < 32; bit++) {
    const flag = 2 ** bit;
    if (CLONE_NAMESPACE_FLAGS & flag)
      assert.equal(run(prog, 56, [flag | 17]), errno(EPERM), `flag ${flag.toString(16)}`);
  }
  assert.equal(run(prog, 56, [0x10000000 /* CLONE_NEWUSER */]), errno(EPERM));
  assert.equal(run(prog, 435, [0, 88]), errno(ENOSYS));
});

test('personality: only the values Docker allows', () => {
  for (const p of [0, 8, 0x20000, 0x20008, 0xffffffff]) assert.equal(run(prog, 135, [p]), SECCOMP_RET_ALLOW);
  assert.equal(run(prog, 135, [0x0040000 /* ADDR_NO_RANDOMIZE */]), errno(EPERM));
});

test('sockets no network namespace confines: AF_VSOCK and AF_BLUETOOTH', () => {
  assert.equal(run(prog, 41, [40, 1, 0]), errno(EAFNOSUPPORT));
  assert.equal(run(prog, 41, [31, 1, 0]), errno(EAFNOSUPPORT));
});

test('another architecture is killed; the x32 ABI is refused', () => {
  assert.equal(run(prog, 0, [], 0x40000003 /* AUDIT_ARCH_I386 */), SECCOMP_RET_KILL_PROCESS);
  assert.equal(run(prog, 0x40000000 + 1), errno(EPERM));
});

test('the encoded filter is struct sock_filter[], 8 bytes each, as bwrap reads it', () => {
  const b = seccompFilter();
  assert.equal(b.length, prog.length * 8);
  assert.deepEqual(encode(prog), b);
  assert.equal(b.readUInt16LE(0), 0x20);
  assert.equal(b.readUInt32LE(4), 4);
});
