import type { ProjectFlags } from '../project-flags';

/** Flags of `bridle eval`, as commander parsed them. */
export interface EvalFlags extends ProjectFlags {
  model?: string[];
  skill?: string[];
  scorer?: string[];
  judge?: string;
  rubric?: string;
  concurrency: number;
  queue?: string;
  queuePrefix?: string;
  fromRuns?: string;
  replay?: boolean;
  failUnder?: number;
  out?: string;
  evalId?: string;
  workspace?: string;
  maxSteps?: number;
  maxToolCalls?: number;
  timeout?: number;
  maxCost?: number;
  system?: string;
  yes?: boolean;
  store?: string;
}
