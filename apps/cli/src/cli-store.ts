import type { BridleConfig } from '@bridle/models';
import type { Store } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { DEFAULT_STORE_URL, openStore, redactUrl } from '@bridle/store';
import type { CommandContext } from './command-context';
import type { StoreFlags } from './store-flag';

/** An open store and where it is. */
export interface CliStore {
  store: Store;
  /** The URL it was opened from, credentials redacted (for messages). */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens the store by precedence: `--store` > `BRIDLE_STORE` (shell or `--env-file`; a folder's `.env`
 * cannot set it) > a config file's `store` > `sqlite:.bridle/bridle.db` under the working directory.
 * A store the user chose that cannot open is a `ConfigError` (exit 2). The default one degrades: when
 * SQLite's native addon cannot load on this Node, one warning says so and how to choose a store, and runs
 * are kept in memory only (the run itself still works).
 */
export async function openCliStore(
  context: CommandContext,
  flags: StoreFlags,
  config: BridleConfig = {},
): Promise<CliStore> {
  const { io, errorStyle } = context;
  const chosen = flags.store ?? (io.env.BRIDLE_STORE?.trim() || undefined) ?? config.store;
  const url = chosen ?? DEFAULT_STORE_URL;
  let store: Store;
  try {
    store = await openStore(url, { cwd: io.cwd });
  } catch (error) {
    if (chosen !== undefined || !nativeAddonMissing(error)) throw error;
    io.stderr.write(
      `${errorStyle.yellow(
        `bridle: runs are not kept: the default store ${DEFAULT_STORE_URL} needs better-sqlite3, whose native addon does not load on Node ${process.version} (reinstall with this Node: npm rebuild better-sqlite3). Choose a store with --store or BRIDLE_STORE (postgres://..., or memory: to keep nothing and silence this).`,
      )}\n`,
    );
    store = await openStore('memory:');
  }
  return { store, url: redactUrl(url), close: () => store.close() };
}

function nativeAddonMissing(error: unknown): boolean {
  const message = errorMessage(error);
  return /native addon/.test(message);
}
