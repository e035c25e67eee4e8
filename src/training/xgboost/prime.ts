// V8 compiles a function whose loop runs hot on stack replacement, the code after the loop
// included; code that has not run yet by then is compiled as an exit to the interpreter, and the
// compiled code stays cached for the loop, so every later call leaves it there again. In a job after
// the warm-up this sent the rest of the work to the interpreter ~240 times in the sketch's merge
// (~100 ms), ~120 times in its sort and 12-16 times in the column cutter. A module that calls such a
// function on made-up data at load, every branch taken, gives V8 the types of all of it before
// anything is compiled.

/** Runs `exercise` enough times at module load for V8 to record its types (it does only after a few runs). */
export function primeAtLoad(exercise: (i: number) => void): void {
  for (let i = 0; i < 32; i++) exercise(i);
}
