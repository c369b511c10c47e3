export { anthropic } from './anthropic';
export { MAX_CACHE_BREAKPOINTS } from './anthropic-cache';
export type { AnthropicProviderData, ThinkingBlockData } from './anthropic-provider-data';
export {
  type AnthropicOptions,
  DEFAULT_MAX_TOKENS,
  MIN_THINKING_BUDGET,
} from './resolve-anthropic-options';
