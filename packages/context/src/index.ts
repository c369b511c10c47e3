export { boundToolResult, omissionMarker } from './bound-tool-result';
export { estimateTokens, type TokenCounter } from './estimate-tokens';
export { selectContext } from './select-context';
export { type SelectByTokensOptions, selectContextByTokens } from './select-context-by-tokens';
