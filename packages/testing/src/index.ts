export { expectValidTranscript } from './expect-valid-transcript';
export { type FakeAnthropicServerOptions, fakeAnthropicServer } from './fake-anthropic-server';
export { type FakeOpenAIServerOptions, fakeOpenAIServer } from './fake-openai-server';
export {
  type FakeOtlpCollector,
  type FakeOtlpCollectorOptions,
  type FakeOtlpRequest,
  type FakeOtlpSpan,
  fakeOtlpCollector,
} from './fake-otlp-collector';
export { type FakeCacheUsage, FakePromptCache } from './fake-prompt-cache';
export type {
  FakeCut,
  FakeHang,
  FakeHttpError,
  FakeProviderRequest,
  FakeProviderScript,
  FakeProviderStep,
  FakeRaw,
  FakeReasoning,
  FakeResponse,
  FakeStreamError,
} from './fake-provider-script';
export type { FakeProviderServer } from './fake-provider-server';
export { type Fault, type FaultSchedule, type FaultyModel, faultyModel } from './faulty-model';
export { type GatedTool, gatedTool } from './gated-tool';
export { collectStream, modelRequest, rejection } from './model-request';
export { type Random, seededRandom } from './random';
export { type ReplayModel, replayModel } from './replay-model';
export {
  type Script,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptStep,
  scriptedModel,
} from './scripted-model';
export { type Child, type ChildExit, type ChildOptions, startChild } from './start-child';
