export { scriptedModel, type Script, type ScriptStep, type ScriptedModel, type ScriptedModelOptions } from './scripted-model';
export { faultyModel, type Fault, type FaultSchedule, type FaultyModel } from './faulty-model';
export { seededRandom, type Random } from './random';
export { expectValidTranscript } from './expect-valid-transcript';
