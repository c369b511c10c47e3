import type { ToolCall } from '@bridle/protocol';
import { parseToolArguments } from '@bridle/protocol/internal';

/** A tool call as a Chat Completions server sends it, in a message or as one stream delta (loosely typed on purpose). */
export interface ChatToolCallPiece {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * Bridle tool calls from assembled calls, in order. A missing id gets a stand-in (`call_<position>`), and an id
 * used by an earlier call of the same answer gets `_<position>` appended: Bridle needs unique, non-empty ids.
 */
function finish(calls: readonly PendingCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, position) => {
    let id = call.id === '' ? `call_${position}` : call.id;
    if (seen.has(id)) id = `${id}_${position}`;
    seen.add(id);
    return { id, name: call.name, arguments: parseToolArguments(call.arguments) };
  });
}

/** The function tool calls of a non-streamed Chat Completions message. */
export function chatMessageToolCalls(calls: readonly (ChatToolCallPiece & { type?: string })[]): ToolCall[] {
  return finish(
    calls
      .filter((call) => call.type === undefined || call.type === 'function')
      .map((call) => ({ id: call.id ?? '', name: call.function?.name ?? '', arguments: call.function?.arguments })),
  );
}

/**
 * Assembles tool calls from Chat Completions stream deltas. OpenAI sends each call's id and name once, then argument
 * pieces under the same `index`, the pieces of several calls possibly interleaved. Compatible servers differ, and each
 * of these is handled: the whole call in one delta; every call at index 0, each with its own id (older Ollama); no
 * `index` at all (a piece then belongs to the last call, unless it brings a new id, or a new name when no ids are
 * sent); names repeated on every piece; no ids; arguments as a JSON object instead of a string.
 */
export class ChatToolCallAssembler {
  readonly #calls: PendingCall[] = [];
  readonly #byIndex = new Map<number, PendingCall>();
  #last: PendingCall | undefined;

  /** Adds one `tool_calls` delta. */
  add(piece: ChatToolCallPiece): void {
    const hasIndex = typeof piece.index === 'number';
    const name = piece.function?.name ?? '';
    let call = hasIndex ? this.#byIndex.get(piece.index as number) : this.#last;
    const newId = Boolean(piece.id && call?.id && piece.id !== call.id);
    const newName = !hasIndex && !piece.id && !call?.id && name !== '' && call?.name !== '' && name !== call?.name;
    if (!call || newId || newName) {
      call = { id: '', name: '', arguments: '' };
      this.#calls.push(call);
    }
    if (hasIndex) this.#byIndex.set(piece.index as number, call);
    this.#last = call;
    if (piece.id) call.id = piece.id;
    // Names arrive whole (some servers repeat them on every piece), so they replace rather than append.
    if (name !== '') call.name = name;
    const args = piece.function?.arguments;
    if (typeof args === 'string') call.arguments = `${typeof call.arguments === 'string' ? call.arguments : ''}${args}`;
    else if (args !== undefined && args !== null) call.arguments = args;
  }

  /** The assembled calls, in the order they started. */
  toolCalls(): ToolCall[] {
    return finish(this.#calls);
  }
}
