import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BridleConfig } from '@bridle/models';
import type { Store } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { openStore, redactUrl } from '@bridle/store';
import type { CommandContext } from './command-context';
import { projectStoreUrl } from './project-store-url';
import type { StoreFlags } from './store-flag';

/** An open store and where it is. */
export interface CliStore {
  store: Store;
  /** The URL it was opened from, credentials redacted (for messages). */
  url: string;
  /**
   * Said when a run or session is not found in the default store while the folder has the store earlier
   * versions kept in it (`.bridle/bridle.db`): how to open that one.
   */
  hint?: string;
  close(): Promise<void>;
}

/** Options of {@link openCliStore}. */
export interface OpenCliStoreOptions {
  /**
   * The command only reads (`bridle runs`, `bridle replay`): a SQLite file that does not exist is not
   * created (nor its folders); the command sees an empty store.
   */
  readOnly?: boolean;
}

/** The store file of the second release's default, in the project folder. */
const FOLDER_STORE = join('.bridle', 'bridle.db');

/**
 * Opens the store by precedence: `--store` > `BRIDLE_STORE` (shell or `--env-file`; a folder's `.env`
 * cannot set it) > a config file's `store` (the user's, or a trusted folder's) > the default,
 * `sqlite:<data>/bridle/projects/<key>/bridle.db` in the user's data folder (`$XDG_DATA_HOME`, default
 * `~/.local/share`), one per canonical working directory. A store inside the folder is thus opened only
 * when the user named it or trusted the folder. A store the user chose that cannot open is a `ConfigError`
 * (exit 2). The default one degrades: when SQLite's native addon cannot load on this Node, one warning says
 * so and how to choose a store, and runs are kept in memory only (the run itself still works).
 */
export async function openCliStore(
  context: CommandContext,
  flags: StoreFlags,
  config: BridleConfig = {},
  options: OpenCliStoreOptions = {},
): Promise<CliStore> {
  const { io, errorStyle } = context;
  const chosen = flags.store ?? (io.env.BRIDLE_STORE?.trim() || undefined) ?? config.store;
  const url = chosen ?? projectStoreUrl(io.cwd, io.env);
  const hint =
    chosen === undefined && existsSync(join(io.cwd, FOLDER_STORE))
      ? `This folder has ${FOLDER_STORE}, where earlier versions kept runs: open it with --store sqlite:${FOLDER_STORE} if you trust its contents (a cloned folder's store may be planted).`
      : undefined;
  const withHint = (store: Store): CliStore => ({
    store,
    url: redactUrl(url),
    ...(hint === undefined ? {} : { hint }),
    close: () => store.close(),
  });
  if (options.readOnly && missingSqliteFile(url, io.cwd)) return withHint(await openStore('memory:'));
  try {
    return withHint(await openStore(url, { cwd: io.cwd }));
  } catch (error) {
    if (chosen !== undefined || !nativeAddonMissing(error)) throw error;
    io.stderr.write(
      `${errorStyle.yellow(
        `bridle: runs are not kept: the default store ${redactUrl(url)} needs better-sqlite3, whose native addon does not load on Node ${process.version} (reinstall with this Node: npm rebuild better-sqlite3). Choose a store with --store or BRIDLE_STORE (postgres://..., or memory: to keep nothing and silence this).`,
      )}\n`,
    );
    return withHint(await openStore('memory:'));
  }
}

/**
 * True for a well-formed SQLite store URL (or bare path) whose file does not exist. Anything else is left
 * to `openStore`, which names what is wrong with it.
 */
function missingSqliteFile(url: string, cwd: string): boolean {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'sqlite') return false;
  const file = (scheme === undefined ? url : url.slice('sqlite:'.length)).replace(/\?.*$/, '');
  return file !== '' && !file.startsWith('//') && !existsSync(resolve(cwd, file));
}

function nativeAddonMissing(error: unknown): boolean {
  const message = errorMessage(error);
  return /native addon/.test(message);
}
