export { anthropic } from './anthropic';
export { type AnthropicOptions, DEFAULT_MAX_TOKENS } from './resolve-anthropic-options';
