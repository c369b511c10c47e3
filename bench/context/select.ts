/**
 * selectContext per-step cost as the history grows.
 * Run: npx tsx bench/context/select.ts   (from /work/main)
 *
 * Simulates the loop: one growing array; each step appends an assistant message with one tool call and its
 * 2,000-character result (2 messages), then selects the context for the next model call. Reports the median
 * and mean time per call over steps 250-499 and over the last 250 steps. Flat = the ratio stays near 1.
 */
import type { Message } from '@bridle/protocol';
import { selectContext, selectContextByTokens } from '../../packages/context/src/index';

const STEPS = 2500; // 5,001 messages at the end
const WINDOW = 250;
const MAX_CHARS = 100_000; // about 48 tool results selected
const payload = 'lorem ipsum dolor sit amet '.repeat(80).slice(0, 2000);

function makeStep(step: number): Message[] {
  return [
    {
      role: 'assistant',
      content: `step ${step}`,
      toolCalls: [{ id: `call_${step}`, name: 'read_file', arguments: { path: `f${step}.txt` } }],
    },
    { role: 'tool', callId: `call_${step}`, name: 'read_file', content: `${step} ${payload}`, isError: false },
  ];
}

function run(label: string, select: (messages: Message[]) => Message[], copyEachTime = false): void {
  const messages: Message[] = [{ role: 'user', content: 'Read every file and summarize.' }];
  const times: number[] = [];
  let selected = 0;
  for (let step = 0; step < STEPS; step++) {
    messages.push(...makeStep(step));
    const input = copyEachTime ? [...messages] : messages;
    const start = performance.now();
    selected += select(input).length;
    times.push(performance.now() - start);
  }
  // Medians (GC pauses land on random calls) and means, in µs.
  const window = (from: number) => times.slice(from, from + WINDOW).map((ms) => ms * 1000);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const first = window(WINDOW); // steps 250..499: past the point where everything fits
  const last = window(STEPS - WINDOW);
  const f = (value: number) => value.toFixed(1).padStart(6);
  console.log(
    `${label.padEnd(44)} median ${f(median(first))} -> ${f(median(last))} µs (x${(median(last) / median(first)).toFixed(2)})   mean ${f(mean(first))} -> ${f(mean(last))} µs   [${messages.length} messages, ~${Math.round(selected / STEPS)} selected]`,
  );
}

// Warm-up pass so both measured windows see optimized code.
run('warm-up (ignore)', (messages) => selectContext(messages, MAX_CHARS));
run('selectContext, same growing array', (messages) => selectContext(messages, MAX_CHARS));
run('selectContextByTokens, same growing array', (messages) => selectContextByTokens(messages, { maxTokens: 25_000 }));
run('selectContext, a new array copy every call', (messages) => selectContext(messages, MAX_CHARS), true);
run('naive: JSON.stringify(all) then select', (messages) => {
  JSON.stringify(messages);
  return selectContext(messages, MAX_CHARS);
});
