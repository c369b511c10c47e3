/** The `--store` flag. */
export interface StoreFlags {
  store?: string;
}

/** Help text of `--store` (kept apart from `cli-store`, so building the commands does not load the store). */
export const STORE_FLAG_HELP =
  'where runs and chat sessions are kept: sqlite:<file>, postgres://..., or memory: (nothing kept) (default: $BRIDLE_STORE, else a SQLite file for this folder in $XDG_DATA_HOME/bridle/projects/, default ~/.local/share/bridle/projects/)';
