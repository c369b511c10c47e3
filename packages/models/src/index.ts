export { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, defaultModelId, type Environment } from './default-model-id';
export { type LoadEnvOptions, type LoadEnvResult, loadEnv } from './load-env';
export { type ModelProvider, type ModelSpec, parseModelId } from './parse-model-id';
export { type ResolveModelOptions, resolveModel } from './resolve-model';
