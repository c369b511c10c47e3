import { completedWithin } from './completed-within';
import { contains } from './contains';
import { exactAnswer } from './exact-answer';
import { jsonSchema } from './json-schema';
import { matches } from './matches';
import { toolTrajectory } from './tool-trajectory';
import type { Scorer } from './types';

/**
 * The built-in scorers that need no options, each reading its expectation from the case:
 * `exactAnswer`, `contains`, `matches`, `jsonSchema`, `toolTrajectory` (each skips cases without its
 * expectation) and `completedWithin` (status `completed`; it applies to every case).
 */
export const BUILT_IN_SCORERS: Readonly<Record<string, () => Scorer>> = Object.freeze({
  exactAnswer: () => exactAnswer(),
  contains: () => contains(),
  matches: () => matches(),
  jsonSchema: () => jsonSchema(),
  toolTrajectory: () => toolTrajectory(),
  completedWithin: () => completedWithin(),
});
