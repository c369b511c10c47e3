// Benchmark of what the adapters add to an SDK call: the same request through the adapter and through the bare
// SDK (sending the very body the adapter built, captured once), both on a `fetch` that answers at once from
// memory (no network), for transcripts of growing length. The difference is the adapter's mapping both ways.
// Run from the repo root:
//   npx esbuild bench/providers/adapter-overhead.ts --bundle --platform=node --format=esm \
//     --conditions=@bridle/source --outfile=/tmp/bridle-providers-bench.mjs && node /tmp/bridle-providers-bench.mjs
import Anthropic from '@anthropic-ai/sdk';
import { anthropic } from '@bridle/anthropic';
import { openai } from '@bridle/openai';
import type { Message, Model, ModelRequest } from '@bridle/protocol';
import OpenAI from 'openai';

const responsesBody = JSON.stringify({
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  model: 'm',
  output: [
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    },
  ],
  usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
});
const messagesBody = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});
let lastBody = '';
const cannedFetch = (body: string) => async (_url: unknown, init?: { body?: unknown }) => {
  lastBody = String(init?.body ?? '');
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
};

function transcript(groups: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'start' }];
  for (let i = 0; i < groups; i++) {
    messages.push({
      role: 'assistant',
      content: `step ${i}`,
      toolCalls: [{ id: `c${i}`, name: 'add', arguments: { a: i, b: 1 } }],
    });
    messages.push({ role: 'tool', callId: `c${i}`, name: 'add', content: String(i + 1), isError: false });
  }
  return messages;
}

async function time(calls: number, run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await run();
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

const tools = [
  {
    name: 'add',
    description: 'Adds',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  },
];
const signal = new AbortController().signal;

for (const groups of [5, 50, 500]) {
  const messages = transcript(groups);
  const request: ModelRequest = { system: 'sys', messages, tools, signal };
  const calls = groups >= 500 ? 300 : 2000;

  const openaiClient = new OpenAI({ apiKey: 'k', maxRetries: 0, fetch: cannedFetch(responsesBody) });
  const openaiModel: Model = openai({ model: 'm', client: openaiClient, api: 'responses' });
  await openaiModel.generate(request);
  const openaiBody = JSON.parse(lastBody);
  const sdkOpenAI = await time(calls, () => openaiClient.responses.create(openaiBody));
  const adapterOpenAI = await time(calls, () => openaiModel.generate(request));

  const anthropicClient = new Anthropic({
    apiKey: 'k',
    maxRetries: 0,
    timeout: 60_000,
    fetch: cannedFetch(messagesBody),
  });
  const anthropicModel: Model = anthropic({ model: 'm', client: anthropicClient });
  await anthropicModel.generate(request);
  const anthropicBody = JSON.parse(lastBody);
  const sdkAnthropic = await time(calls, () => anthropicClient.messages.create(anthropicBody));
  const adapterAnthropic = await time(calls, () => anthropicModel.generate(request));

  console.log(
    `${messages.length} messages: openai sdk ${sdkOpenAI.toFixed(1)} µs, adapter ${adapterOpenAI.toFixed(1)} µs (+${(adapterOpenAI - sdkOpenAI).toFixed(1)}); ` +
      `anthropic sdk ${sdkAnthropic.toFixed(1)} µs, adapter ${adapterAnthropic.toFixed(1)} µs (+${(adapterAnthropic - sdkAnthropic).toFixed(1)})`,
  );
}
