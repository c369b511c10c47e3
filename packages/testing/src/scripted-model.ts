import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '@bridle/protocol';

/** One scripted step: a response, a thrown error, or a function of the request. */
export type ScriptStep =
  | ModelResponse
  | Error
  | ((request: ModelRequest, callIndex: number) => ModelResponse | Promise<ModelResponse>);

/** A script: a list of steps taken in order, or one function called for every request. */
export type Script =
  | readonly ScriptStep[]
  | ((request: ModelRequest, callIndex: number) => ModelResponse | Promise<ModelResponse>);

export interface ScriptedModelOptions {
  /** Model id; default `scripted:model`. */
  id?: string;
  /** Also offer `stream()`, which yields the content as word-sized text deltas, then the response. */
  stream?: boolean;
}

/** A model that plays a script and records every request it receives. */
export interface ScriptedModel extends Model {
  /** Every request received, in order; `messages` is a snapshot taken at call time. */
  readonly requests: ModelRequest[];
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A deterministic model for tests and demos. Each call takes the next step of the script (or calls the
 * script function). A step that is an `Error` is thrown. An exhausted script throws an error that says so.
 * A call whose signal is already aborted rejects with the abort reason.
 */
export function scriptedModel(script: Script, options: ScriptedModelOptions = {}): ScriptedModel {
  const requests: ModelRequest[] = [];

  async function respond(request: ModelRequest): Promise<ModelResponse> {
    const callIndex = requests.length;
    requests.push({ ...request, signal: request.signal, messages: [...request.messages], tools: [...request.tools] });
    if (request.signal.aborted) throw abortError(request.signal);
    let step: ScriptStep | undefined;
    if (typeof script === 'function') step = script;
    else {
      step = script[callIndex];
      if (step === undefined)
        throw new Error(
          `scriptedModel: no response scripted for call ${callIndex + 1} (the script has ${script.length})`,
        );
    }
    if (step instanceof Error) throw step;
    const response = typeof step === 'function' ? await step(request, callIndex) : step;
    return structuredClone(response);
  }

  const model: ScriptedModel = {
    id: options.id ?? 'scripted:model',
    requests,
    generate: respond,
  };
  if (options.stream) {
    model.stream = async function* stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      const response = await respond(request);
      for (const piece of response.content.match(/\S+\s*|\s+/g) ?? []) {
        if (request.signal.aborted) throw abortError(request.signal);
        yield { type: 'text_delta', text: piece };
      }
      yield { type: 'response', response };
    };
  }
  return model;
}
