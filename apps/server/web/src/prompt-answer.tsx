import type { InspectorEvent } from './api';
import { Markdown } from './markdown';

/** The run's prompt: its first `run_start`'s `prompt`, or the last user message it started from. */
export function promptOf(events: readonly InspectorEvent[]): string | undefined {
  const start = events.find((event) => event.type === 'run_start' && event.parentRunId === undefined);
  if (!start) return undefined;
  if (typeof start.prompt === 'string') return start.prompt;
  const last = start.messages?.at(-1);
  return last?.role === 'user' && typeof last.content === 'string' ? last.content : undefined;
}

/** The run's answer: its last `run_end`'s `answer`. */
export function answerOf(events: readonly InspectorEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as InspectorEvent;
    if (event.type === 'run_end' && event.parentRunId === undefined) return event.answer;
  }
  return undefined;
}

/** What was asked and what was answered, first on a run's page (Markdown rendered, sanitized). */
export function PromptAnswer({ events }: { events: readonly InspectorEvent[] }) {
  const prompt = promptOf(events);
  const answer = answerOf(events);
  return (
    <div class="prompt-answer">
      <section class="prompt" aria-label="Prompt">
        <h3>Prompt</h3>
        {prompt === undefined ? <p class="muted">(no text prompt)</p> : <Markdown text={prompt} />}
      </section>
      <section class="answer" aria-label="Answer">
        <h3>Answer</h3>
        {answer === undefined ? <p class="muted">(no answer yet)</p> : <Markdown text={answer} />}
      </section>
    </div>
  );
}
