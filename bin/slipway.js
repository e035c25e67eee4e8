#!/usr/bin/env node
// Entry point of the `slipway` command; the code lives in dist/ (npm run build).
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`slipway: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
