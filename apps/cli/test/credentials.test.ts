// Issue 28 item 8: a model id with credentials (an `openai-compatible:` URL with `user:password@` or a query
// key) is shown without them everywhere the CLI prints, journals or exports a model id.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@bridle/store';
import { type FakeOtlpCollector, fakeOtlpCollector } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCli, tempDir } from './cli-process';
import { sqliteProblem } from './sqlite-probe';

beforeAll(requireBuild);

const sqliteError = await sqliteProblem('credentials tests');

const SECRET_ID = 'openai-compatible:http://bridle-user:hunter2-7f3@127.0.0.1:9/v1?api-key=sk-secret-7f3#fake-model';
const SHOWN_ID = 'openai-compatible:http://127.0.0.1:9/v1#fake-model';
const leaks = /hunter2|sk-secret|bridle-user/;

let collector: FakeOtlpCollector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

describe.skipIf(sqliteError !== undefined)('a model id with credentials', { timeout: 120_000 }, () => {
  it('is printed, journaled and exported without them: run --json, runs, the store, OTel, batch and chat headers', async () => {
    collector = await fakeOtlpCollector();
    const cwd = tempDir();
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const env = cliEnv({ BRIDLE_MODEL: SECRET_ID, BRIDLE_STORE: store, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
    // Node's fetch refuses a URL with user info, so the run fails: what matters here is what it shows.
    const run = await runCli(['run', 'hi', '--json'], { cwd, env });
    const result = JSON.parse(run.stdout) as { model: string; runId: string; status: string };
    expect(result.model).toBe(SHOWN_ID);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(leaks);

    const listed = await runCli(['runs'], { cwd, env });
    expect(listed.stdout).toContain(`${result.runId}  ${result.status}  ${SHOWN_ID}  `);
    const listedJson = await runCli(['runs', '--json'], { cwd, env });
    expect(JSON.parse(listedJson.stdout.trim())).toMatchObject({ runId: result.runId, model: SHOWN_ID });
    const journal = await openStore(store);
    const events = (await journal.readRun(result.runId))?.events;
    await journal.close();
    expect(events?.[0]).toMatchObject({ type: 'run_start', model: SHOWN_ID });
    expect(JSON.stringify(events)).not.toMatch(leaks);
    expect(JSON.stringify(collector.spans())).toContain('fake-model');
    expect(collector.requests.map((request) => request.body).join('\n')).not.toMatch(leaks);

    writeFileSync(join(cwd, 'in.jsonl'), '{"id": "a", "prompt": "hi"}\n');
    const batch = await runCli(['batch', 'in.jsonl', '--out', 'out.jsonl'], { cwd, env });
    expect(batch.stderr).toMatch(new RegExp(`^1 to run · ${SHOWN_ID.replace(/[.?]/g, '\\$&')} · concurrency`, 'm'));
    expect(batch.stderr).not.toMatch(leaks);

    const chat = await runCli(['chat'], { cwd, env, input: '/exit\n' });
    expect(chat.stderr).toContain(`bridle chat · ${SHOWN_ID} · `);
    expect(chat.stderr).not.toMatch(leaks);
  });
});
