import type { Tool } from '@bridle/protocol';
import { calculatorTool, clockTool, httpFetchTool } from '@bridle/tools';

/** Options of {@link createToolbox}. */
export interface ToolboxOptions {
  /** Passed to `clockTool` (default time zone of its answers). */
  timeZone?: string;
  /** Passed to `httpFetchTool` (allowed hosts, size and time limits; private networks are refused by default). */
  http?: Parameters<typeof httpFetchTool>[0];
}

/**
 * One instance of each general tool. Skills built from the same toolbox share tool objects, so they
 * compose without a name clash (`assistant` and `analyst` both bring `calculator`).
 */
export interface Toolbox {
  readonly clock: Tool;
  readonly calculator: Tool;
  readonly httpFetch: Tool;
}

/** Creates a {@link Toolbox} from `@bridle/tools`. */
export function createToolbox(options: ToolboxOptions = {}): Toolbox {
  return {
    clock: clockTool(options.timeZone === undefined ? {} : { timeZone: options.timeZone }) as Tool,
    calculator: calculatorTool() as Tool,
    httpFetch: httpFetchTool(options.http ?? {}) as Tool,
  };
}
