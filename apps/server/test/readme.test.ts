import { readFileSync } from 'node:fs';
import { scriptedModel } from '@bridle/testing';
import { expect, it } from 'vitest';
import { startServer } from '../src/index';

it('the embedded README example works as written', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toContain(
    "const server = await startServer({ model, store: 'memory:', port: 0, logger: false, handleSignals: false });",
  );
  const model = scriptedModel((request) => ({ content: `You said: ${request.messages.at(-1)?.content}` }));
  const server = await startServer({ model, store: 'memory:', port: 0, logger: false, handleSignals: false });
  const response = await fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'hello' }),
  });
  expect(await response.json()).toMatchObject({ answer: 'You said: hello', status: 'completed' });
  await server.shutdown();
});
