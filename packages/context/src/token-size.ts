import { ConfigError, describeValue, type Message } from '@bridle/protocol';
import type { TokenCounter } from './estimate-tokens';
import { serializeMessage } from './message-size';

// One cache per counter (different counters give different counts), each keyed by the message object.
const tokenSizes = new WeakMap<TokenCounter, WeakMap<Message, number>>();

/** The tokens of `JSON.stringify(message)` by `counter`, computed once per (counter, message object). */
export function tokenSize(message: Message, index: number, counter: TokenCounter): number {
  let sizes = tokenSizes.get(counter);
  if (sizes === undefined) {
    sizes = new WeakMap();
    tokenSizes.set(counter, sizes);
  }
  let size = sizes.get(message);
  if (size === undefined) {
    size = counter(serializeMessage(message, index));
    if (typeof size !== 'number' || !Number.isFinite(size) || size < 0)
      throw new ConfigError(
        `The token counter must return a finite number >= 0, got ${describeValue(size)} for messages[${index}]`,
      );
    sizes.set(message, size);
  }
  return size;
}
