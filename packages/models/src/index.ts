export { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, defaultModelId, type Environment } from './default-model-id';
export { type FallbackResponse, fallback, shouldFallBack } from './fallback';
export { type LoadEnvOptions, type LoadEnvResult, loadEnv } from './load-env';
export { checkModelPrice, type ModelPrice, modelPrices, type PublishedModelPrice } from './model-prices';
export { type ModelProvider, type ModelSpec, parseModelId } from './parse-model-id';
export { type ResolveModelOptions, resolveModel } from './resolve-model';
export { usageCost } from './usage-cost';
export { type WithCostOptions, withCost } from './with-cost';
