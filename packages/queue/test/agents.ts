import type { ModelRequest, ModelResponse, Tool } from '@bridle/protocol';
import type { RunJob, WorkerAgent } from '../src/index';

/** The tool the test model calls once per run (read-only: safe to run again). */
export const addTool: Tool = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  readOnly: true,
  execute: (args) => {
    const { a, b } = args as { a: number; b: number };
    return a + b;
  },
};

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The item a request is about: the first user message's text. */
export function promptOf(request: ModelRequest): string {
  const first = request.messages[0];
  return typeof first?.content === 'string' ? first.content : '';
}

/**
 * A two-step test model: step 1 asks for `add`, step 2 answers `answer: <prompt>`. Each call takes
 * `latencyMs`; `onCall` sees every call (prompt and step) before it answers.
 */
export function twoStepModel(
  options: { latencyMs?: number; id?: string; onCall?: (prompt: string, step: number) => void | Promise<void> } = {},
) {
  return {
    id: options.id ?? 'test:two-step',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const prompt = promptOf(request);
      const step = request.messages.some((message) => message.role === 'tool') ? 2 : 1;
      await options.onCall?.(prompt, step);
      await wait(options.latencyMs ?? 0, request.signal);
      if (step === 1) return { content: '', toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] };
      return { content: `answer: ${prompt}` };
    },
  };
}

/** A worker `agent` callback: model ids `test:*` only, skills `math` (default) only. */
export function testAgent(model: WorkerAgent['model']) {
  return (job: RunJob): WorkerAgent => {
    if (job.model !== model.id)
      throw new Error(`model ${job.model} is not offered by this worker (it runs ${model.id})`);
    if (job.skill !== undefined && job.skill !== 'math')
      throw new Error(`unknown skill "${job.skill}": this worker offers math`);
    return { model, tools: [addTool], maxSteps: 5 };
  };
}
