import type { RunEvent } from '@bridle/events';
import type { FastifyInstance } from 'fastify';
import { agentFor } from '../openai/agent-models';
import type { ClientRunResult } from '../openai/client-run';
import { finalStepText } from '../openai/final-step-text';
import { openAIErrorBody } from '../openai/openai-error';
import { type ClientMessage, toAgentInput } from '../openai/openai-input';
import { runFailure } from '../openai/run-failure';
import { runForClient } from '../openai/run-for-client';
import { chatUsage } from '../openai/usage';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { openSseStream, type SseStream } from '../sse-stream';

/** The body of `POST /v1/chat/completions` (the fields Bridle reads; others are accepted and ignored). */
export interface ChatCompletionsBody {
  model: string;
  messages: ClientMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  n?: number | null;
  tools?: unknown[] | null;
}

const seconds = () => Math.floor(Date.now() / 1000);

/** `length` when the last response was cut by the model's output limit, as OpenAI says it; else `stop`. */
function chatFinishReason(result: ClientRunResult): 'length' | 'stop' {
  return result.finishReason === 'length' ? 'length' : 'stop';
}

/**
 * `POST /v1/chat/completions`, OpenAI's Chat Completions: `model` is `bridle:<skill>`; the answer is the
 * text of the run's final step (the agent's tool calls stay inside); usage is summed over the run. With
 * `stream: true`, chunks as OpenAI sends them, then `data: [DONE]`; the final step's text is sent once
 * the step is known to be final (a step that calls tools is never streamed).
 */
export function registerOpenAIChatRoute(app: FastifyInstance, context: ServerContext, schema: object): void {
  app.post<{ Body: ChatCompletionsBody }>(
    '/chat/completions',
    { schema: { ...schema, summary: 'OpenAI-compatible chat completion with a Bridle agent', tags: ['openai'] } },
    async (request, reply) => {
      const body = request.body;
      if (body.n != null && body.n !== 1) throw new ServerError('bad_request', 'n must be 1: one answer per request.');
      if (Array.isArray(body.tools) && body.tools.length > 0) {
        throw new ServerError(
          'bad_request',
          'tools are not accepted: the agent runs its own tools (see GET /v1/models).',
        );
      }
      const agent = agentFor(context, body.model);
      const input = toAgentInput(body.messages, 'messages');
      const created = seconds();
      if (!body.stream) {
        const result = await runForClient(context, reply, { agent, input, stream: false });
        if (result.status !== 'completed')
          return reply.code(runFailure(result).status).send(openAIErrorBody(runFailure(result)));
        return {
          id: `chatcmpl-${result.runId}`,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: result.answer ?? '', refusal: null },
              finish_reason: chatFinishReason(result),
              logprobs: null,
            },
          ],
          usage: chatUsage(result.usage),
        };
      }

      let sse: SseStream | undefined;
      let id = '';
      const chunk = (delta: object, finishReason: string | null = null) => ({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      });
      const final = finalStepText((pieces) => {
        for (const piece of pieces) sse?.send(chunk({ content: piece }));
      });
      const onEvent = (event: RunEvent) => {
        if (!sse) {
          // The stream opens with the run: failures before it still get their JSON error status.
          id = `chatcmpl-${event.runId}`;
          sse = openSseStream(reply, {
            headers: { 'x-request-id': request.id },
            maxBufferBytes: context.config.maxSseBufferBytes,
            // The connection is then destroyed, and its closing aborts the run.
            onOverflow: () => request.log.warn('the client reads the event stream too slowly: run aborted'),
          });
          sse.send(chunk({ role: 'assistant', content: '' }));
        }
        final(event);
      };
      try {
        const result = await runForClient(context, reply, { agent, input, stream: true, onEvent });
        const stream = sse as SseStream | undefined;
        if (!stream) return reply;
        if (result.status === 'completed') {
          stream.send(chunk({}, chatFinishReason(result)));
          if (body.stream_options?.include_usage) {
            stream.send({ ...chunk({}), choices: [], usage: chatUsage(result.usage) });
          }
          stream.sendRaw('[DONE]');
        } else {
          stream.send(openAIErrorBody(runFailure(result)));
        }
        stream.end();
        return reply;
      } catch (error) {
        if (!sse) throw error;
        request.log.error({ err: error }, 'chat completion failed after the event stream started');
        (sse as SseStream).end();
        return reply;
      }
    },
  );
}
