import type { RunEvent } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { TurnResult } from '../turns/turn-result';

/** One chunk of the AI SDK UI message stream protocol (`UIMessageChunk` of the `ai` package, v1 stream). */
export type UiChunk = { type: string } & Record<string, unknown>;

/** Statuses that are not a failure of the run. */
const FINE = new Set(['completed', 'awaiting_approval']);

/** The AI SDK's finish reasons, from a run's status. */
function finishReason(result: TurnResult): string {
  if (result.status === 'completed') return result.finishReason === 'length' ? 'length' : 'stop';
  if (result.status === 'awaiting_approval') return 'tool-calls';
  return 'error';
}

/**
 * Turns a run's events into UI message chunks, as `useChat` reads them: `start`, a step per model call
 * (`start-step` / `finish-step`), streamed text (`text-start` / `text-delta` / `text-end`), tool calls with
 * their input and output (`tool-input-available`, `tool-output-available`, `tool-output-error`,
 * `tool-output-denied`), the calls a paused run waits on as `tool-approval-request` (the approval id is the
 * pending call's digest, so an answer applies to this pause only), an `error` for a run that failed, then
 * `finish`. Sub-agents' events stay out. Bridle models stream no reasoning text, so no reasoning parts.
 */
export class UiMessageStream {
  readonly #send: (chunk: UiChunk) => void;
  readonly #announced = new Set<string>();
  readonly #denied = new Set<string>();
  #started = false;
  #openText: string | undefined;
  #textInLastStep = false;
  #stepOpen = false;

  readonly #startChunk: UiChunk;

  /** `startChunk` is the message's `start` chunk (its id and metadata), sent before anything else. */
  constructor(send: (chunk: UiChunk) => void, startChunk: UiChunk) {
    this.#send = send;
    this.#startChunk = startChunk;
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#send(this.#startChunk);
  }

  #closeText(): void {
    if (this.#openText === undefined) return;
    this.#send({ type: 'text-end', id: this.#openText });
    this.#openText = undefined;
  }

  /** Hears one event of the run. */
  observe(event: RunEvent): void {
    if (event.parentRunId !== undefined) return;
    this.#start();
    switch (event.type) {
      case 'model_start':
        this.#closeText();
        if (this.#stepOpen) this.#send({ type: 'finish-step' });
        this.#send({ type: 'start-step' });
        this.#stepOpen = true;
        this.#textInLastStep = false;
        return;
      case 'text_delta': {
        const id = `${event.runId}:${event.step}`;
        if (this.#openText !== id) {
          this.#closeText();
          this.#send({ type: 'text-start', id });
          this.#openText = id;
        }
        this.#textInLastStep = true;
        this.#send({ type: 'text-delta', id, delta: event.text });
        return;
      }
      case 'model_end':
        this.#closeText();
        return;
      case 'tool_start':
        this.#closeText();
        this.#announce(event.callId, event.name, event.arguments);
        return;
      case 'approval_decided':
        if (!event.approved) this.#denied.add(event.callId);
        return;
      case 'tool_end':
        if (this.#denied.has(event.callId)) this.#send({ type: 'tool-output-denied', toolCallId: event.callId });
        else if (event.isError)
          this.#send({ type: 'tool-output-error', toolCallId: event.callId, errorText: event.result });
        else this.#send({ type: 'tool-output-available', toolCallId: event.callId, output: event.result });
        return;
      default:
        return;
    }
  }

  #announce(callId: string, name: string, input: unknown): void {
    if (this.#announced.has(callId)) return;
    this.#announced.add(callId);
    this.#send({ type: 'tool-input-available', toolCallId: callId, toolName: name, input });
  }

  /** Ends the message with what the run came to: approval requests, an error, and `finish`. */
  finish(result: TurnResult): void {
    this.#start();
    this.#closeText();
    if (result.status === 'completed' && !this.#textInLastStep && result.answer) {
      // A model that does not stream: its final text arrives with the result.
      const id = `${result.runId}:answer`;
      this.#send({ type: 'text-start', id });
      this.#send({ type: 'text-delta', id, delta: result.answer });
      this.#send({ type: 'text-end', id });
    }
    for (const call of result.pendingApprovals ?? []) {
      this.#announce(call.callId, call.name, call.arguments);
      this.#send({
        type: 'tool-approval-request',
        approvalId: call.digest ?? `${result.runId}:${call.callId}`,
        toolCallId: call.callId,
      });
    }
    if (!FINE.has(result.status)) {
      const reason = result.error === undefined ? '' : `: ${redactCredentials(result.error)}`;
      this.#send({ type: 'error', errorText: `The run ended ${result.status}${reason}` });
    }
    if (this.#stepOpen) this.#send({ type: 'finish-step' });
    this.#send({ type: 'finish', finishReason: finishReason(result) });
  }

  /** Ends the message after a failure that left no result (the server's fault, logged). */
  fail(message: string): void {
    this.#start();
    this.#closeText();
    this.#send({ type: 'error', errorText: message });
    this.#send({ type: 'finish', finishReason: 'error' });
  }
}
