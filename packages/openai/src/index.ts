export { openai } from './openai';
export { type OpenAICompatibleOptions, openaiCompatible } from './openai-compatible';
export type { OpenAIProviderData, ReasoningItemData } from './openai-provider-data';
export type { OpenAIOptions, ReasoningEffort } from './resolve-openai-options';
