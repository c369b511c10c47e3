import type { RunEvent } from '@bridle/events';
import type { FastifyInstance } from 'fastify';
import { agentFor } from '../openai/agent-models';
import { finalStepText } from '../openai/final-step-text';
import { openAIErrorBody } from '../openai/openai-error';
import { type ClientMessage, toAgentInput } from '../openai/openai-input';
import { runFailure } from '../openai/run-failure';
import { type ClientRunResult, runForClient } from '../openai/run-for-client';
import { responsesUsage } from '../openai/usage';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { openSseStream, type SseStream } from '../sse-stream';

/** The body of `POST /v1/responses` (the fields Bridle reads; others are accepted and ignored). */
export interface ResponsesBody {
  model: string;
  input: string | ClientMessage[];
  instructions?: string | null;
  stream?: boolean | null;
  previous_response_id?: string | null;
  tools?: unknown[] | null;
}

interface ResponseParts {
  id: string;
  messageId: string;
  created: number;
  model: string;
}

function outputMessage(parts: ResponseParts, text: string, status: 'in_progress' | 'completed') {
  return {
    type: 'message',
    id: parts.messageId,
    status,
    role: 'assistant',
    content: status === 'completed' ? [{ type: 'output_text', text, annotations: [], logprobs: [] }] : [],
  };
}

/**
 * The status of a completed run's response: `incomplete` when its last model response was cut by the output
 * limit (the Responses API's `max_output_tokens`), else `completed`.
 */
function endStatus(result: ClientRunResult): 'completed' | 'incomplete' {
  return result.finishReason === 'length' ? 'incomplete' : 'completed';
}

/** A Responses API `response` object. */
function responseObject(parts: ResponseParts, state: { status: string; text?: string; result?: ClientRunResult }) {
  const failed = state.result !== undefined && state.result.status !== 'completed';
  return {
    id: parts.id,
    object: 'response',
    created_at: parts.created,
    status: state.status,
    error: failed
      ? {
          code: runFailure(state.result as ClientRunResult).code,
          message: runFailure(state.result as ClientRunResult).message,
        }
      : null,
    incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model: parts.model,
    output: state.text === undefined ? [] : [outputMessage(parts, state.text, 'completed')],
    parallel_tool_calls: false,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    text: { format: { type: 'text' } },
    truncation: 'disabled',
    store: false,
    metadata: {},
    usage: state.result === undefined ? null : responsesUsage(state.result.usage),
  };
}

/**
 * `POST /v1/responses`, OpenAI's Responses API (stateless: no `previous_response_id`): `model` is
 * `bridle:<skill>`, `input` a string or messages, `instructions` the client's system text. The output is
 * one message with the text of the run's final step; usage is summed over the run. With
 * `stream: true`, the Responses events (`response.created` ... `response.completed`, `response.incomplete`
 * when the answer was cut by the output limit, or `response.failed`), each `event: <type>` with a `sequence_number`.
 */
export function registerOpenAIResponsesRoute(app: FastifyInstance, context: ServerContext, schema: object): void {
  app.post<{ Body: ResponsesBody }>(
    '/responses',
    { schema: { ...schema, summary: 'OpenAI-compatible response with a Bridle agent', tags: ['openai'] } },
    async (request, reply) => {
      const body = request.body;
      if (body.previous_response_id != null) {
        throw new ServerError(
          'bad_request',
          'previous_response_id is not supported: this server keeps no responses; send the whole conversation in input.',
        );
      }
      if (Array.isArray(body.tools) && body.tools.length > 0) {
        throw new ServerError(
          'bad_request',
          'tools are not accepted: the agent runs its own tools (see GET /v1/models).',
        );
      }
      const agent = agentFor(context, body.model);
      const input = toAgentInput(
        typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input,
        'input',
      );
      if (typeof body.instructions === 'string' && body.instructions.trim() !== '') {
        input.instructions.unshift(body.instructions);
      }
      const parts: ResponseParts = { id: '', messageId: '', created: Math.floor(Date.now() / 1000), model: body.model };
      const name = (runId: string) => {
        parts.id = `resp_${runId.replaceAll('-', '')}`;
        parts.messageId = `msg_${runId.replaceAll('-', '')}`;
      };
      if (!body.stream) {
        const result = await runForClient(context, reply, { agent, input, stream: false });
        name(result.runId);
        if (result.status !== 'completed')
          return reply.code(runFailure(result).status).send(openAIErrorBody(runFailure(result)));
        return responseObject(parts, { status: endStatus(result), text: result.answer ?? '', result });
      }

      let sse: SseStream | undefined;
      let sequence = 0;
      const emit = (type: string, fields: object) =>
        sse?.send({ type, ...fields, sequence_number: sequence++ }, { event: type });
      const location = { output_index: 0, content_index: 0 };
      let text: string | undefined;
      const final = finalStepText((pieces) => {
        text = pieces.join('');
        const item = { item_id: parts.messageId, ...location };
        emit('response.output_item.added', { output_index: 0, item: outputMessage(parts, '', 'in_progress') });
        emit('response.content_part.added', { ...item, part: { type: 'output_text', text: '', annotations: [] } });
        for (const delta of pieces) emit('response.output_text.delta', { ...item, delta, logprobs: [] });
        emit('response.output_text.done', { ...item, text, logprobs: [] });
        emit('response.content_part.done', { ...item, part: { type: 'output_text', text, annotations: [] } });
        emit('response.output_item.done', { output_index: 0, item: outputMessage(parts, text, 'completed') });
      });
      const onEvent = (event: RunEvent) => {
        if (!sse) {
          name(event.runId);
          sse = openSseStream(reply, {
            headers: { 'x-request-id': request.id },
            maxBufferBytes: context.config.maxSseBufferBytes,
            onOverflow: () => request.log.warn('the client reads the event stream too slowly: run aborted'),
          });
          emit('response.created', { response: responseObject(parts, { status: 'in_progress' }) });
          emit('response.in_progress', { response: responseObject(parts, { status: 'in_progress' }) });
        }
        final(event);
      };
      try {
        const result = await runForClient(context, reply, { agent, input, stream: true, onEvent });
        if (!sse) return reply;
        if (result.status === 'completed') {
          const status = endStatus(result);
          emit(`response.${status}`, { response: responseObject(parts, { status, text: text ?? '', result }) });
        } else {
          emit('response.failed', { response: responseObject(parts, { status: 'failed', result }) });
        }
        (sse as SseStream).end();
        return reply;
      } catch (error) {
        if (!sse) throw error;
        request.log.error({ err: error }, 'response failed after the event stream started');
        (sse as SseStream).end();
        return reply;
      }
    },
  );
}
