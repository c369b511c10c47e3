import type { Message } from '@bridle/protocol';
import type { Random } from '@bridle/testing';

const words = ['alpha', 'β', '中文', '😀', 'line\nbreak', '"quoted"', '\\', 'x'.repeat(40)];

function text(random: Random, maxWords: number): string {
  const parts: string[] = [];
  for (let count = random.int(0, maxWords); count > 0; count--) parts.push(random.pick(words));
  return parts.join(' ');
}

/** Appends one random group (a user message, a plain assistant message, or a whole tool batch). */
export function appendRandomGroup(random: Random, messages: Message[], serial: { next: number }): void {
  const kind = random.int(0, 2);
  if (kind === 0) messages.push({ role: 'user', content: text(random, 6) });
  else if (kind === 1) messages.push({ role: 'assistant', content: text(random, 10) });
  else {
    const ids = Array.from({ length: random.int(1, 4) }, () => `call_${serial.next++}`);
    messages.push({
      role: 'assistant',
      content: text(random, 3),
      toolCalls: ids.map((id) => ({ id, name: 'tool', arguments: { q: text(random, 2) } })),
    });
    // Results in any order, as the SPEC allows.
    const order = [...ids].sort(() => random.next() - 0.5);
    for (const id of order)
      messages.push({ role: 'tool', callId: id, name: 'tool', content: text(random, 20), isError: random.bool(0.2) });
  }
}

/** A random valid transcript: a first user message and `groups` random groups. */
export function randomTranscript(random: Random, groups: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: text(random, 8) }];
  const serial = { next: 0 };
  for (let index = 0; index < groups; index++) appendRandomGroup(random, messages, serial);
  return messages;
}

/** Start indexes of the groups after messages[0]. */
export function groupStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  for (let index = 1; index < messages.length; index++) if (messages[index]?.role !== 'tool') starts.push(index);
  return starts;
}
