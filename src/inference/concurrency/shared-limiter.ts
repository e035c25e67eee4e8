// Endpoint and account concurrency shared by replicas through the PostgreSQL they already share:
// each replica leases slots of a scope (an endpoint's MaxConcurrency, the account's serverless
// concurrency, an endpoint's ProvisionedConcurrency) and serves from what it holds without a round
// trip; it asks for more in one transaction for all the invocations waiting (the grant never lets
// the live holds of a scope exceed its limit), and gives unused slots back after a short linger, or
// at once when another replica asks for them (LISTEN/NOTIFY). A hold lives while its lease is
// renewed and while its replica's session holds an advisory lock: a replica killed with -9 loses
// the lock as its connection closes, and its slots are free at the next grant.
// Why PostgreSQL: every replica already depends on it (the README's several-replica setup), its
// transactions and advisory locks give an exact count, and LISTEN/NOTIFY wakes holders at once; no
// other service (Redis, etcd) has to be run for this.
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database, DatabaseSession } from '../../storage/db/types.js';
import { type Holder, SlotHoldRepository } from '../../storage/repositories/slot-holds.js';
import type { ConcurrencyLimiter, LimiterOptions, SlotHandle, SlotScope, WarmShare } from './limiter.js';

export interface SharedLimiterOptions extends LimiterOptions {
  readonly db: Database;
  readonly log: Logger;
  /** Slots of a replica that stops renewing are free after this long (--slot-lease-seconds). */
  readonly leaseMs: number;
  /** Unused slots are kept this long for the next invocation before they are given back. */
  readonly lingerMs?: number;
  /** How long a short grant waits for other replicas to give idle slots back before throttling. */
  readonly askMs?: number;
}

const CHANNEL = 'slipway_slots';

interface Scope {
  readonly key: string;
  max: number;
  inUse: number;
  /** Slots of this scope held in the database (never fewer there than here). */
  held: number;
  /** Most slots in use at once since the last linger check: what stays held. */
  peak: number;
  linger: NodeJS.Timeout | undefined;
  /** Warm scopes: the ProvisionedConcurrency asked for, and who is told about the share. */
  warmTarget: number;
  readonly warmListeners: Set<(granted: number) => void>;
}

interface Waiter {
  readonly scopes: readonly Scope[];
  readonly maxes: readonly number[];
  retried: boolean;
  resolve(ok: boolean): void;
}

interface Message {
  s: string;
  t: 'want' | 'freed';
  k: string;
  h: string;
  n?: number;
}

export interface SharedLimiterStats {
  /** Slot requests that needed a round trip to PostgreSQL, and the time they waited. */
  grows: number;
  growSeconds: number;
  /** Invocations refused because the other replicas held the rest of a limit. */
  throttled: number;
}

export class SharedLimiter implements ConcurrencyLimiter {
  readonly stats: SharedLimiterStats = { grows: 0, growSeconds: 0, throttled: 0 };
  readonly #o: SharedLimiterOptions;
  readonly #repo = new SlotHoldRepository();
  readonly #scopes = new Map<string, Scope>();
  readonly #lingerMs: number;
  readonly #askMs: number;
  #session: DatabaseSession | undefined;
  #holder: Holder | undefined;
  #schema = '';
  /** Holds are usable until then (last renewal + lease, minus a margin); 0 while there is no session. */
  #validUntil = 0;
  #heartbeat: NodeJS.Timeout | undefined;
  /** Every write of this replica's holds goes through this chain, one at a time. */
  #serial: Promise<unknown> = Promise.resolve();
  #queue: Waiter[] = [];
  #flushing = false;
  /** Waiters for other replicas' answers, by scope. */
  readonly #asking = new Map<string, Set<() => void>>();
  #closed = false;

  private constructor(o: SharedLimiterOptions) {
    this.#o = o;
    this.#lingerMs = o.lingerMs ?? 250;
    this.#askMs = o.askMs ?? 50;
  }

  static async open(o: SharedLimiterOptions): Promise<SharedLimiter> {
    const l = new SharedLimiter(o);
    await l.#connect();
    l.#heartbeat = setInterval(() => void l.#renew(), Math.max(50, o.leaseMs / 3));
    l.#heartbeat.unref();
    return l;
  }

  /** The holder id of this replica's current session (tests). */
  get holderId(): string | undefined {
    return this.#holder?.id;
  }

  async #connect(): Promise<void> {
    const open = this.#o.db.openSession;
    if (!open) throw new Error('shared concurrency needs PostgreSQL');
    const session = await open.call(this.#o.db);
    try {
      // Two random positive int4 keys: the lock that tells other replicas this one is alive.
      const holder = { id: '', lockA: randomInt(1, 2 ** 31 - 1), lockB: randomInt(1, 2 ** 31 - 1) };
      await session.query('SELECT pg_advisory_lock($1::int, $2::int)', [holder.lockA, holder.lockB]);
      const [row] = await session.query<{ s: string }>('SELECT current_schema() AS s');
      this.#schema = row?.s ?? '';
      await session.query(`LISTEN ${CHANNEL}`);
      if (this.#closed) {
        // close() ran while this (re)connection was on its way: nothing will end it later, and its
        // socket would keep the process alive.
        await session.end();
        return;
      }
      session.onNotification((_c, payload) => this.#onMessage(payload));
      session.onLost((err) => this.#lost(err));
      this.#holder = { ...holder, id: `${holder.lockA}-${holder.lockB}` };
      this.#session = session;
      this.#validUntil = Date.now() + this.#o.leaseMs * 0.8;
    } catch (err) {
      await session.end();
      throw err;
    }
  }

  /** The session broke: nothing held counts any more (others may take it); reconnect in the background. */
  #lost(err: Error): void {
    if (this.#closed) return;
    this.#o.log.warn({ err }, 'concurrency session to PostgreSQL lost; reconnecting');
    this.#session = undefined;
    this.#validUntil = 0;
    for (const s of this.#scopes.values()) {
      s.held = 0;
      if (s.warmTarget > 0) for (const l of s.warmListeners) l(0);
    }
    const retry = (delay: number) =>
      setTimeout(() => {
        if (this.#closed) return;
        this.#connect().then(
          () => {
            this.#o.log.info('concurrency session to PostgreSQL restored');
            void this.#renew();
          },
          () => retry(Math.min(delay * 2, 5000)),
        );
      }, delay).unref();
    retry(200);
  }

  #scope(key: string, max: number): Scope {
    let s = this.#scopes.get(key);
    if (!s) {
      s = { key, max, inUse: 0, held: 0, peak: 0, linger: undefined, warmTarget: 0, warmListeners: new Set() };
      this.#scopes.set(key, s);
    }
    return s;
  }

  handle(scope: SlotScope): SlotHandle {
    const ep = this.#scope(`e|${scope.key}`, scope.max);
    ep.max = scope.max;
    const acct = scope.account ? this.#scope(`a|${scope.account}`, this.#o.accountConcurrency) : undefined;
    const scopes = acct ? [acct, ep] : [ep];
    const maxes = acct ? [this.#o.accountConcurrency, scope.max] : [scope.max];
    const tryTake = (): boolean => {
      // The fast path: slots already held here, and the lease still good.
      if (ep.inUse >= ep.held || ep.inUse >= scope.max) return false;
      if (acct && acct.inUse >= acct.held) return false;
      if (Date.now() >= this.#validUntil) return false;
      if (++ep.inUse > ep.peak) ep.peak = ep.inUse;
      if (acct && ++acct.inUse > acct.peak) acct.peak = acct.inUse;
      return true;
    };
    return {
      tryTake,
      take: () => {
        if (tryTake()) return Promise.resolve(true);
        return new Promise<boolean>((resolve) => {
          this.#queue.push({ scopes, maxes, retried: false, resolve });
          this.#flushSoon();
        });
      },
      give: () => {
        for (const s of scopes) {
          s.inUse--;
          this.#lingerThenTrim(s);
        }
      },
      close: () => {},
    };
  }

  async warm(key: string, target: number, changed: (granted: number) => void): Promise<WarmShare> {
    const s = this.#scope(`w|${key}`, target);
    s.max = target;
    s.warmTarget = target;
    await this.#serialize(() => this.#growWarm(s)).catch((err) =>
      this.#o.log.warn({ err }, 'could not claim provisioned concurrency; retrying at the next heartbeat'),
    );
    s.warmListeners.add(changed);
    const self = this;
    return {
      get granted() {
        return s.held;
      },
      close() {
        s.warmListeners.delete(changed);
        if (s.warmListeners.size === 0) {
          s.warmTarget = 0;
          void self.#serialize(() => self.#put(s, 0)).catch(() => undefined);
        }
      },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    for (const s of this.#scopes.values()) if (s.linger) clearTimeout(s.linger);
    for (const w of this.#queue.splice(0)) w.resolve(false);
    const holder = this.#holder;
    await this.#serial.catch(() => undefined);
    if (holder) await this.#repo.removeHolder(this.#o.db, holder.id).catch(() => undefined);
    await this.#session?.end();
  }

  #serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(op, op);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  #flushSoon(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    // Invocations that arrive in the same turn share one transaction.
    setImmediate(() => {
      void this.#serialize(() => this.#grow()).finally(() => {
        this.#flushing = false;
        if (this.#queue.length > 0) this.#flushSoon();
      });
    });
  }

  /** Asks PostgreSQL for the slots the queued invocations need, then serves them or refuses them. */
  async #grow(): Promise<void> {
    const waiting = this.#queue.splice(0);
    if (waiting.length === 0) return;
    const holder = this.#holder;
    if (!holder || this.#closed) {
      for (const w of waiting) w.resolve(false);
      return;
    }
    const t0 = performance.now();
    const needed = new Map<Scope, { want: number; max: number }>();
    for (const w of waiting)
      w.scopes.forEach((s, i) => {
        const n = needed.get(s) ?? { want: 0, max: 0 };
        n.want++;
        n.max = Math.max(n.max, w.maxes[i]!);
        needed.set(s, n);
      });
    const short = new Map<Scope, number>();
    const leaseUntil = Date.now() + this.#o.leaseMs;
    try {
      const granted = await this.#o.db.transaction(async (tx) => {
        const scopes = [...needed.keys()].sort((a, b) => (a.key < b.key ? -1 : 1));
        await this.#repo.lock(
          tx,
          scopes.map((s) => s.key),
        );
        const out = new Map<Scope, number>();
        const now = Date.now();
        for (const s of scopes) {
          const { want, max } = needed.get(s)!;
          const others = await this.#repo.others(tx, s.key, holder.id, now);
          const taken = others.reduce((a, o) => a + o.slots, 0);
          const target = Math.min(s.inUse + want, Math.max(s.held, max - taken));
          if (target > s.held) await this.#repo.put(tx, s.key, holder, target, leaseUntil);
          out.set(s, Math.max(target, s.held));
          if (s.inUse + want > target && others.length > 0) {
            short.set(s, others.length);
            await tx.run('SELECT pg_notify(?, ?)', [CHANNEL, this.#message('want', s.key)]);
          }
        }
        // The database answered: every hold of this replica is good for another lease.
        await this.#repo.renew(tx, holder.id, leaseUntil);
        return out;
      });
      if (this.#holder === holder) {
        for (const [s, n] of granted) s.held = Math.max(s.held, n);
        this.#validUntil = Math.max(this.#validUntil, leaseUntil - this.#o.leaseMs * 0.2);
      }
    } catch (err) {
      this.#o.log.warn({ err }, 'could not reach PostgreSQL for endpoint concurrency; refusing');
    }
    this.stats.grows++;
    this.stats.growSeconds += (performance.now() - t0) / 1000;
    const again: Waiter[] = [];
    for (const w of waiting) {
      if (this.#takeAll(w)) {
        w.resolve(true);
        continue;
      }
      const asked = w.scopes.filter((s) => short.has(s));
      if (!w.retried && asked.length > 0) {
        w.retried = true;
        again.push(w);
      } else {
        this.stats.throttled++;
        w.resolve(false);
      }
    }
    // Another replica may give idle slots back at once: wait a moment for its answer, then ask again.
    for (const w of again) {
      void this.#answers(
        w.scopes.filter((s) => short.has(s)),
        short,
      ).then(() => {
        this.#queue.push(w);
        this.#flushSoon();
      });
    }
    for (const s of needed.keys()) this.#lingerThenTrim(s);
  }

  #takeAll(w: Waiter): boolean {
    for (let i = 0; i < w.scopes.length; i++) {
      const s = w.scopes[i]!;
      if (s.inUse >= s.held || s.inUse >= w.maxes[i]!) return false;
    }
    for (const s of w.scopes) if (++s.inUse > s.peak) s.peak = s.inUse;
    return true;
  }

  /** Resolves when every holder asked about these scopes answered, or after askMs. */
  #answers(scopes: readonly Scope[], holders: Map<Scope, number>): Promise<void> {
    return new Promise((resolve) => {
      let pending = scopes.reduce((a, s) => a + (holders.get(s) ?? 0), 0);
      const done = () => {
        clearTimeout(timer);
        for (const [k, fn] of entries) this.#asking.get(k)?.delete(fn);
        resolve();
      };
      const timer = setTimeout(done, this.#askMs);
      const entries: Array<[string, () => void]> = scopes.map((s) => {
        const fn = () => {
          if (--pending <= 0) done();
        };
        let set = this.#asking.get(s.key);
        if (!set) {
          set = new Set();
          this.#asking.set(s.key, set);
        }
        set.add(fn);
        return [s.key, fn];
      });
    });
  }

  #message(t: Message['t'], k: string, n?: number): string {
    const m: Message = { s: this.#schema, t, k, h: this.#holder?.id ?? '', ...(n !== undefined ? { n } : {}) };
    return JSON.stringify(m);
  }

  #onMessage(payload: string): void {
    let m: Message;
    try {
      m = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (m.s !== this.#schema || m.h === this.#holder?.id) return;
    if (m.t === 'freed') {
      for (const fn of [...(this.#asking.get(m.k) ?? [])]) fn();
      return;
    }
    // 'want': give back what is idle here right away, and say so (even when nothing was idle).
    const s = this.#scopes.get(m.k);
    if (!s || s.held === 0) return;
    void this.#serialize(async () => {
      const freed = s.warmTarget > 0 ? 0 : Math.max(0, s.held - s.inUse);
      if (freed > 0) await this.#put(s, s.inUse);
      await this.#o.db.run('SELECT pg_notify(?, ?)', [CHANNEL, this.#message('freed', s.key, freed)]);
    }).catch(() => undefined);
  }

  /**
   * After a slot falls idle: give back the slots that stayed unused for a whole linger period (a
   * replica under steady load keeps what it uses and asks PostgreSQL nothing).
   */
  #lingerThenTrim(s: Scope): void {
    if (s.linger || s.warmTarget > 0 || s.inUse >= s.held || this.#closed) return;
    s.peak = s.inUse;
    s.linger = setTimeout(() => {
      s.linger = undefined;
      const keep = Math.max(s.inUse, s.peak);
      s.peak = s.inUse;
      if (keep < s.held) void this.#serialize(() => this.#put(s, keep)).catch(() => undefined);
      else this.#lingerThenTrim(s);
    }, this.#lingerMs);
    s.linger.unref();
  }

  /** Lowers (or sets) this replica's hold of a scope; the local count drops first, so nothing uses what is being given back. */
  async #put(s: Scope, slots: number): Promise<void> {
    const holder = this.#holder;
    if (!holder) return;
    if (slots < s.held) s.held = slots;
    await this.#repo.put(this.#o.db, s.key, holder, slots, Date.now() + this.#o.leaseMs);
  }

  /** A warm scope: take as much of the ProvisionedConcurrency as the other replicas leave. */
  async #growWarm(s: Scope): Promise<void> {
    const holder = this.#holder;
    if (!holder || s.warmTarget === 0) return;
    const before = s.held;
    if (s.held > s.warmTarget) await this.#put(s, s.warmTarget);
    else if (s.held < s.warmTarget) {
      const n = await this.#o.db.transaction(async (tx) => {
        await this.#repo.lock(tx, [s.key]);
        const others = await this.#repo.others(tx, s.key, holder.id, Date.now());
        const target = Math.max(s.held, Math.min(s.warmTarget, s.warmTarget - others.reduce((a, o) => a + o.slots, 0)));
        if (target !== s.held) await this.#repo.put(tx, s.key, holder, target, Date.now() + this.#o.leaseMs);
        return target;
      });
      s.held = n;
    }
    if (s.held !== before) for (const l of s.warmListeners) l(s.held);
  }

  /** The heartbeat: renews every hold, and tops warm shares up (a replica that died left its share). */
  async #renew(): Promise<void> {
    const holder = this.#holder;
    if (!holder || this.#closed) return;
    const started = Date.now();
    try {
      await this.#serialize(() => this.#repo.renew(this.#o.db, holder.id, started + this.#o.leaseMs));
      if (this.#holder === holder) this.#validUntil = started + this.#o.leaseMs * 0.8;
      for (const s of this.#scopes.values())
        if (s.warmTarget > 0 && s.held < s.warmTarget) await this.#serialize(() => this.#growWarm(s));
    } catch (err) {
      this.#o.log.warn({ err }, 'could not renew endpoint concurrency leases');
    }
  }
}
