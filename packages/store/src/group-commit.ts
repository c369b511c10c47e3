/** What a {@link GroupCommit} needs of its database: transactions that nest (the inner ones as savepoints). */
export interface GroupCommitDatabase {
  /** Runs `body` in one write transaction (BEGIN IMMEDIATE ... COMMIT); throws what its BEGIN or COMMIT threw. */
  transaction(body: () => void): void;
  /** Runs `operation` in a savepoint inside the open transaction: rolled back alone when it throws. */
  savepoint<T>(operation: () => T): T;
}

interface PendingWrite {
  operation: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit: the writes asked for in one turn of the event loop are committed together by one
 * transaction, so concurrent runs share one `fsync` instead of paying one each. Every write still resolves
 * only once its commit is durable, in the order asked; a write that throws is rolled back alone and rejects
 * alone (the batch is then run again with each write in its own savepoint); a transaction that cannot begin
 * or commit rejects every write in it with that error (`mapError` turns driver errors into the store's).
 */
export class GroupCommit {
  readonly #db: GroupCommitDatabase;
  readonly #mapError: (error: unknown) => unknown;
  #pending: PendingWrite[] = [];
  #scheduled = false;

  constructor(db: GroupCommitDatabase, mapError: (error: unknown) => unknown) {
    this.#db = db;
    this.#mapError = mapError;
  }

  /** Queues `operation` for the next commit; resolves with its result once that commit is durable. */
  write<T>(operation: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ operation, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  /** Commits every queued write now (also called before the database closes). */
  readonly flush = (): void => {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    if (batch.length === 1) {
      // A write alone needs no savepoint (two statements fewer): when it throws, rolling back the whole
      // transaction rolls back just it, and it rejects with its error as it would from its savepoint.
      const write = batch[0] as PendingWrite;
      let value: unknown;
      try {
        this.#db.transaction(() => {
          value = write.operation();
        });
      } catch (error) {
        write.reject(this.#mapError(error));
        return;
      }
      write.resolve(value);
      return;
    }
    if (this.#commitWithoutSavepoints(batch)) return;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.#db.transaction(() => {
        outcomes.length = 0;
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: this.#db.savepoint(write.operation) });
          } catch (error) {
            outcomes.push({ ok: false, value: this.#mapError(error) });
          }
        }
      });
    } catch (error) {
      const mapped = this.#mapError(error);
      for (const write of batch) write.reject(mapped);
      return;
    }
    for (const [index, write] of batch.entries()) {
      const outcome = outcomes[index] as { ok: boolean; value: unknown };
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.value);
    }
  };

  /**
   * Runs `batch` in one transaction without savepoints (each costs two statements, and a copy into the
   * sub-journal of every page the write changes), settling every write when it commits. Returns false,
   * having settled nothing, when a write threw: the transaction rolled back whole, and the caller runs the
   * batch again with each write in its own savepoint (so only that write rejects). A write is a function of
   * the database, so running it again after a rollback is as running it the first time.
   */
  #commitWithoutSavepoints(batch: PendingWrite[]): boolean {
    const values: unknown[] = [];
    let thrown = false;
    try {
      this.#db.transaction(() => {
        for (const write of batch) {
          try {
            values.push(write.operation());
          } catch (error) {
            thrown = true;
            throw error;
          }
        }
      });
    } catch (error) {
      if (thrown) return false;
      const mapped = this.#mapError(error);
      for (const write of batch) write.reject(mapped);
      return true;
    }
    for (const [index, write] of batch.entries()) write.resolve(values[index]);
    return true;
  }
}
