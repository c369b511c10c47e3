import { type Message, TranscriptError } from '@bridle/protocol';

// Keyed by the message object: a message is serialized once, however many times it is selected. Messages
// are treated as immutable (the loop never edits one after appending it); an edited message keeps its
// old size, so build a new message object instead of changing one in place.
const charSizes = new WeakMap<Message, number>();

/** `JSON.stringify(message)`, with the index in the error when the message cannot be serialized. */
export function serializeMessage(message: Message, index: number): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(message);
  } catch (error) {
    throw new TranscriptError(
      `Invalid transcript at messages[${index}]: the message cannot be serialized to JSON (${(error as Error).message}); tool call arguments must be JSON values`,
      { cause: error },
    );
  }
  if (json === undefined)
    throw new TranscriptError(`Invalid transcript at messages[${index}]: the message serializes to nothing`);
  return json;
}

/** The length of `JSON.stringify(message)`, computed every time (for a few messages: no cache entry). */
export function serializedSize(message: Message, index: number): number {
  return serializeMessage(message, index).length;
}

/** The length of `JSON.stringify(message)`, computed once per message object. */
export function charSize(message: Message, index: number): number {
  let size = charSizes.get(message);
  if (size === undefined) {
    size = serializeMessage(message, index).length;
    charSizes.set(message, size);
  }
  return size;
}
