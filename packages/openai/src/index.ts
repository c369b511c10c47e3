export { openai } from './openai';
export { type OpenAICompatibleOptions, openaiCompatible } from './openai-compatible';
export type { OpenAIOptions } from './resolve-openai-options';
