import { DEFAULT_TENANT, type RunEvent, type Store, type StoredRun } from '@bridle/protocol';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import type { Session } from './session-store';
import type { Caller } from './tenant-auth';

/** The tenant of a run: its first `run_start`'s (absent: tenant `default`). */
export function tenantOfRun(run: StoredRun): string {
  const first = run.events.find((event) => event.type === 'run_start');
  return (first?.type === 'run_start' ? first.tenant : undefined) ?? DEFAULT_TENANT;
}

/** The 404 of a run that does not exist, or belongs to another tenant: the two read the same. */
export function runNotFound(id: string): ServerError {
  return new ServerError('not_found', `Run ${id} does not exist in this server's store (BRIDLE_STORE).`);
}

/** The 404 of a session that does not exist, or belongs to another tenant: the two read the same. */
export function sessionNotFound(id: string): ServerError {
  return new ServerError('not_found', `Session ${id} does not exist (deleted, expired, or never created here).`);
}

/** Run `id` when it exists and belongs to the caller's tenant, else undefined (never tells which). */
export async function readOwnRun(context: ServerContext, caller: Caller, id: string): Promise<StoredRun | undefined> {
  const run = await context.store.readRun(id);
  return run && tenantOfRun(run) === caller.tenant ? run : undefined;
}

/** Whether a session belongs to the caller's tenant. */
export function ownsSession(caller: Caller, session: Session): boolean {
  return (session.tenant ?? DEFAULT_TENANT) === caller.tenant;
}

/** Session `id` when it exists and belongs to the caller's tenant, else undefined (never tells which). */
export async function getOwnSession(context: ServerContext, caller: Caller, id: string): Promise<Session | undefined> {
  const session = await context.sessions.get(id);
  return session && ownsSession(caller, session) ? session : undefined;
}

/** At most this many stamped stores are kept per store (tenants times key names; past it, they are made again). */
const MAX_STAMPED = 1000;

// One stamped store per store, tenant and key name, made on first use: a server has a few, and making one (a
// proxy, its closures) on every request cost more than the proxy's use.
const stampedStores = new WeakMap<Store, Map<string, Store>>();

/**
 * `store` with every `run_start` it journals stamped with the caller's tenant and key name: the journal
 * records who started (or, resuming with decisions, decided) each segment. Every other method, and any a
 * store adds, passes through to the store itself (bound to it).
 */
export function stampedStore(store: Store, caller: Caller): Store {
  let byCaller = stampedStores.get(store);
  if (byCaller === undefined) {
    byCaller = new Map();
    stampedStores.set(store, byCaller);
  }
  const key = caller.keyName === undefined ? caller.tenant : `${caller.tenant}\u0000${caller.keyName}`;
  let stamped = byCaller.get(key);
  if (stamped === undefined) {
    if (byCaller.size >= MAX_STAMPED) byCaller.clear();
    stamped = stamping(store, caller.tenant, caller.keyName);
    byCaller.set(key, stamped);
  }
  return stamped;
}

function stamping(store: Store, tenant: string, keyName: string | undefined): Store {
  const stamp = (event: RunEvent): RunEvent =>
    event.type === 'run_start' ? { ...event, tenant, ...(keyName === undefined ? {} : { by: keyName }) } : event;
  const appendEvents = (runId: string, events: RunEvent[], ...rest: unknown[]) =>
    (store.appendEvents as (...args: unknown[]) => Promise<void>).call(
      store,
      runId,
      events.some((event) => event.type === 'run_start') ? events.map(stamp) : events,
      ...rest,
    );
  // Each method bound once, by the function it is now (a method replaced on the store is bound anew).
  const bound = new WeakMap<(...args: never[]) => unknown, unknown>();
  return new Proxy(store, {
    get(target, property) {
      if (property === 'appendEvents') return appendEvents;
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(value);
      if (method === undefined) {
        method = value.bind(target);
        bound.set(value, method);
      }
      return method;
    },
  });
}

/**
 * The caller of a segment the server starts on its own (recovering an orphan, applying a passed approval
 * deadline): the run's tenant, named by what started it, with no scopes.
 */
export function serverCaller(tenant: string | undefined, keyName: string): Caller {
  return { tenant: tenant ?? DEFAULT_TENANT, keyName, scopes: new Set() };
}
