import { expect, it } from 'vitest';
import { startChild } from '../src/index';

it('startChild reads stdout by line, writes stdin, and reports the exit with stderr', async () => {
  const script = [
    "process.stdout.write('ready\\n');",
    "process.stdin.once('data', (chunk) => { console.log('got ' + String(chunk).trim() + ' ' + process.env.EXTRA); console.error('bye'); process.exit(3); });",
  ].join('\n');
  const child = startChild('-e', [script], { nodeArgs: [], env: { EXTRA: 'x' } });
  // '-e' takes the script as its argument: the child runs it.
  expect(await child.waitFor((line) => line === 'ready')).toBe('ready');
  child.process.stdin?.end('go\n');
  expect(await child.waitFor((line) => line.startsWith('got'))).toBe('got go x');
  expect(await child.exited).toEqual({ code: 3, signal: null, lines: ['ready', 'got go x'], stderr: 'bye\n' });
  await expect(child.waitFor((line) => line === 'never')).rejects.toThrow(
    'child -e exited (3) before the line; stderr:\nbye',
  );
});
