import type { RunEvent } from '@bridle/events';

/**
 * Finds the text of a run's final step in its events. A step's text is held back until the step ends:
 * a step whose response asks for tools is dropped (its text is the agent's own business), a step
 * without tool calls is final, and `onFinal` gets its text deltas (or, when the model did not stream,
 * its whole text as one piece). A retried attempt starts over. Returns the observer to give `runAgent`.
 */
export function finalStepText(onFinal: (pieces: readonly string[]) => void): (event: RunEvent) => void {
  let pieces: string[] = [];
  return (event) => {
    switch (event.type) {
      case 'model_start':
        pieces = [];
        return;
      case 'text_delta':
        pieces.push(event.text);
        return;
      case 'model_end':
        if (event.toolCalls === 0) onFinal(pieces.length > 0 ? pieces : event.content === '' ? [] : [event.content]);
        pieces = [];
        return;
      default:
        return;
    }
  };
}
