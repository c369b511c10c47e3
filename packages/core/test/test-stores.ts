import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent, RunState, Store, StoredRun } from '@bridle/protocol';

/** Derives a StoredRun from a run's events, the way SPEC says every Store does. */
function storedRun(runId: string, events: RunEvent[]): StoredRun {
  let status = 'running';
  let state: RunState | undefined;
  for (const event of events) {
    if (event.type === 'run_start') {
      status = 'running';
      state = undefined;
    } else if (event.type === 'run_end') {
      status = event.status;
      state = event.state;
    }
  }
  return {
    runId,
    status,
    events,
    ...(state ? { state } : {}),
    createdAt: events[0]?.timestamp ?? '',
    updatedAt: events.at(-1)?.timestamp ?? '',
  };
}

const unsupported = async (): Promise<never> => {
  throw new Error('not used by these tests');
};

/** The journal half of a Store, in memory (events copied through JSON, as a real store serializes them). */
export function memoryJournal(): Store & { runs: Map<string, RunEvent[]>; appends: RunEvent[][] } {
  const runs = new Map<string, RunEvent[]>();
  const appends: RunEvent[][] = [];
  return {
    runs,
    appends,
    async appendEvents(runId, events) {
      const copy = JSON.parse(JSON.stringify(events)) as RunEvent[];
      appends.push(copy);
      runs.set(runId, [...(runs.get(runId) ?? []), ...copy]);
    },
    async readRun(runId) {
      const events = runs.get(runId);
      return events ? storedRun(runId, JSON.parse(JSON.stringify(events))) : undefined;
    },
    listRuns: unsupported,
    getSession: unsupported,
    saveSession: unsupported,
    deleteSession: unsupported,
    listSessions: unsupported,
    async close() {},
  };
}

/** The journal half of a Store in one JSON-lines file per run, fsynced on every append (survives SIGKILL). */
export function fileJournal(dir: string): Store {
  const file = (runId: string) => path.join(dir, `${runId}.jsonl`);
  return {
    async appendEvents(runId, events) {
      const fd = fs.openSync(file(runId), 'a');
      try {
        fs.writeSync(fd, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    },
    async readRun(runId) {
      if (!fs.existsSync(file(runId))) return undefined;
      const lines = fs.readFileSync(file(runId), 'utf8').split('\n').filter(Boolean);
      return storedRun(
        runId,
        lines.map((line) => JSON.parse(line) as RunEvent),
      );
    },
    listRuns: unsupported,
    getSession: unsupported,
    saveSession: unsupported,
    deleteSession: unsupported,
    listSessions: unsupported,
    async close() {},
  };
}
