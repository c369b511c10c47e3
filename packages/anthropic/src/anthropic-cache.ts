import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
} from '@anthropic-ai/sdk/resources/messages/messages';

/** The most `cache_control` breakpoints the Messages API accepts in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Marks the last block of a user turn (turning non-blank string content into one text block). False when it cannot. */
function markTurnEnd(message: MessageParam): boolean {
  if (typeof message.content === 'string') {
    // An empty text block is refused by the API; a blank turn simply gets no breakpoint.
    if (message.content.trim() === '') return false;
    message.content = [{ type: 'text', text: message.content, cache_control: EPHEMERAL }];
    return true;
  }
  const last = message.content.at(-1);
  if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') return false;
  message.content[message.content.length - 1] = { ...last, cache_control: EPHEMERAL } as ContentBlockParam;
  return true;
}

/**
 * Places prompt-cache breakpoints (`cache_control: { type: 'ephemeral' }`) on a request body, in place: one on the
 * stable prefix (the system prompt, which caches the tools before it too; the last tool when there is no system
 * prompt), and one on the last block of each of the last two user turns. The newest one writes the conversation so
 * far to the cache; the one before it is where the previous request of the tool loop ended, so the next request
 * reads everything up to there even when more than 20 blocks were added since (the API looks back only 20 blocks
 * from a breakpoint). Three breakpoints at most, under the API's limit of {@link MAX_CACHE_BREAKPOINTS}.
 */
export function addCacheBreakpoints(body: MessageCreateParamsNonStreaming): void {
  if (typeof body.system === 'string' && body.system !== '') {
    body.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
  } else if (body.tools && body.tools.length > 0) {
    const tools = [...body.tools];
    tools[tools.length - 1] = { ...(tools.at(-1) as (typeof tools)[number]), cache_control: EPHEMERAL };
    body.tools = tools;
  }
  let marked = 0;
  for (let index = body.messages.length - 1; index >= 0 && marked < 2; index--) {
    const message = body.messages[index] as MessageParam;
    if (message.role === 'user' && markTurnEnd(message)) marked++;
  }
}
