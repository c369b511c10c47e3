// Start-up benchmark of the built CLI (apps/cli/dist/bin.js, run as a user runs it: the file itself, through its
// `sh` launcher), whole process from spawn to exit, beside `node -e ''` (the floor no Node program goes under).
// Targets (issue "A terminal people live in"): `bridle --help` at most 0.35 s, a one-step `bridle run` against an
// instant local OpenAI-compatible server at most 0.8 s, on the development machine at low load.
// Build first: pnpm --filter bridle... build. Then: pnpm bench startup [rounds = 15]
// Rounds are interleaved (each round runs every case once, in turn), so a load change hits all cases alike; the
// load average is printed before and after, since other builds share the machine.
// The run case uses a fresh data and config folder (XDG_DATA_HOME, XDG_CONFIG_HOME), so its SQLite store is created
// on the first round and reused after, as on a user's machine; standard input is /dev/null and output a pipe.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const rounds = Number(process.argv[2] ?? 15);
const bin = resolve('apps/cli/dist/bin.js');
if (!existsSync(bin)) {
  console.log(`No built CLI at ${bin}: build it first (pnpm --filter bridle... build).`);
  process.exit(1);
}

// An OpenAI-compatible server that answers at once: one streamed text chunk, then the usage chunk.
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const streamed = JSON.parse(body).stream === true;
    const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'instant' };
    if (!streamed) {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        }),
      );
      return;
    }
    response.setHeader('content-type', 'text/event-stream');
    const chunks = [
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi.' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
    ];
    response.end(`${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`);
  });
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const port = server.address().port;

const home = mkdtempSync(join(tmpdir(), 'bridle-bench-startup-'));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_DATA_HOME: join(home, 'data'),
  XDG_CONFIG_HOME: join(home, 'config'),
  NO_COLOR: '1',
};
const model = `openai-compatible:http://127.0.0.1:${port}/v1#instant`;
const cases = [
  { name: "node -e ''", command: process.execPath, args: ['-e', ''] },
  { name: 'bridle --help', command: bin, args: ['--help'] },
  { name: 'bridle --version', command: bin, args: ['--version'] },
  { name: 'bridle run (one step)', command: bin, args: ['run', 'Say hi', '--model', model] },
];

// GNU time, when present, also gives each process's CPU seconds (user + system): a figure the machine's load changes
// much less than the wall time.
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/**
 * Runs one case to its exit; resolves with the wall seconds it took and its CPU seconds (undefined without GNU time);
 * rejects on a failure, with its output.
 */
function time({ command, args }) {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = gnuTime
      ? spawn(gnuTime, ['-f', 'cpu %U %S', command, ...args], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(command, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const cpu = /cpu (\S+) (\S+)\s*$/.exec(output);
      if (code === 0) done({ seconds, cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : undefined });
      else fail(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()} (1, 5, 15 min)`);
const times = cases.map(() => []);
try {
  // One warm-up round (disk cache, the store's creation), not counted.
  for (const item of cases) await time(item);
  for (let round = 0; round < rounds; round++)
    for (const [index, item] of cases.entries()) times[index].push(await time(item));
} finally {
  server.close();
  rmSync(home, { recursive: true, force: true });
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
console.log(`${rounds} interleaved rounds, whole process, seconds (wall; CPU = user + system):`);
for (const [index, item] of cases.entries()) {
  const wall = times[index].map((time) => time.seconds);
  const cpu = times[index].map((time) => time.cpu).filter((value) => value !== undefined);
  const cpuText = cpu.length === 0 ? '' : `   CPU min ${Math.min(...cpu).toFixed(2)}  median ${median(cpu).toFixed(2)}`;
  console.log(
    `  ${item.name.padEnd(24)} min ${Math.min(...wall).toFixed(3)}  median ${median(wall).toFixed(3)}${cpuText}`,
  );
}
console.log(`load average after: ${load()}`);
