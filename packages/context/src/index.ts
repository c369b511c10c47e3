export { boundToolResult, omissionMarker } from './bound-tool-result';
export {
  type CompactOptions,
  type CompactResult,
  compact,
  DEFAULT_KEEP_TOKENS,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  SUMMARY_PREFIX,
} from './compact';
export { estimateTokens, type TokenCounter } from './estimate-tokens';
export { selectContext } from './select-context';
export { type SelectByTokensOptions, selectContextByTokens } from './select-context-by-tokens';
