// Times SigV4 authentication inside a running server: preloaded into a server's process, it
// wraps Authorizer.authenticate and, when the process exits, prints how many requests it
// authenticated and the mean time each took there (caches as the server leaves them, unlike a
// loop over one request). Used through the benches' BENCH_NODE_ARGS, for example:
//   BENCH_NODE_ARGS="--import ./dist/bench/auth-timing.js" node dist/bench/auth.js --pin --fresh
// An anonymous server authenticates nothing and prints nothing.
import { Authorizer } from '../src/auth/authorizer.js';

const authenticate = Authorizer.prototype.authenticate;
let count = 0;
let ms = 0;
Authorizer.prototype.authenticate = function (this: Authorizer, ...args: Parameters<Authorizer['authenticate']>) {
  const started = performance.now();
  try {
    return authenticate.apply(this, args);
  } finally {
    ms += performance.now() - started;
    count++;
  }
};
process.on('exit', () => {
  if (count > 0)
    process.stderr.write(
      `auth-timing: pid ${process.pid} authenticated ${count} requests, ${((ms * 1000) / count).toFixed(2)} µs each\n`,
    );
});
