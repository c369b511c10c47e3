import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, test } from 'vitest';
import { type ExtraSchemas, validate } from '../src/index';
import expectedFailures from './conformance-expected-failures.json';

/**
 * The JSON-Schema-Test-Suite (draft 2020-12, required tests) run through `validate`, with the remote
 * documents preloaded under their http://localhost:1234/ ids. Cases Ajv is known to get wrong are
 * listed, with the reason, in conformance-expected-failures.json: the test fails when an unlisted case
 * fails AND when a listed case starts passing.
 */
const SUITE = join(import.meta.dirname, 'fixtures', 'json-schema-test-suite');
const TESTS = join(SUITE, 'tests', 'draft2020-12');
const REMOTES = join(SUITE, 'remotes');
const TOTAL_REQUIRED_CASES = 1299;

interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}
interface SuiteGroup {
  description: string;
  schema: Record<string, unknown> | boolean;
  tests: SuiteCase[];
}
interface Outcome {
  key: string;
  file: string;
  passed: boolean;
  detail: string;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function loadRemotes(): ExtraSchemas {
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const path of filesUnder(REMOTES)) {
    const id = `http://localhost:1234/${relative(REMOTES, path).split(sep).join('/')}`;
    schemas[id] = JSON.parse(readFileSync(path, 'utf8'));
  }
  return schemas;
}

const caseKey = (file: string, group: string, test: string): string => `${file} :: ${group} :: ${test}`;

function runSuite(untrusted: boolean): Outcome[] {
  const schemas = loadRemotes();
  const outcomes: Outcome[] = [];
  for (const file of readdirSync(TESTS).sort()) {
    const groups = JSON.parse(readFileSync(join(TESTS, file), 'utf8')) as SuiteGroup[];
    for (const group of groups) {
      for (const suiteCase of group.tests) {
        let passed: boolean;
        let detail: string;
        try {
          const errors = validate(suiteCase.data, group.schema, { schemas, untrusted });
          passed = (errors.length === 0) === suiteCase.valid;
          detail = `expected ${suiteCase.valid ? 'valid' : 'invalid'}, got ${errors.length === 0 ? 'valid' : errors.join(' | ')}`;
        } catch (error) {
          passed = false;
          detail = `threw ${(error as Error).message}`;
        }
        outcomes.push({ key: caseKey(file, group.description, suiteCase.description), file, passed, detail });
      }
    }
  }
  return outcomes;
}

const outcomes = runSuite(false);
const expected = new Map(expectedFailures.map((entry) => [caseKey(entry.file, entry.group, entry.test), entry.reason]));

describe('JSON-Schema-Test-Suite draft 2020-12 (required)', () => {
  test(`has exactly ${TOTAL_REQUIRED_CASES} cases, each with a unique name`, () => {
    expect(outcomes).toHaveLength(TOTAL_REQUIRED_CASES);
    expect(new Set(outcomes.map((outcome) => outcome.key)).size).toBe(TOTAL_REQUIRED_CASES);
  });

  test('every expected failure names a real case and gives a reason', () => {
    const keys = new Set(outcomes.map((outcome) => outcome.key));
    expect([...expected.keys()].filter((key) => !keys.has(key))).toEqual([]);
    expect(expected.size).toBe(expectedFailures.length);
    for (const reason of expected.values()) expect(reason.length).toBeGreaterThan(20);
  });

  const files = [...new Set(outcomes.map((outcome) => outcome.file))];
  test.each(files)('%s: every case passes except the listed Ajv gaps, which still fail', (file) => {
    const mine = outcomes.filter((outcome) => outcome.file === file);
    const unexpectedFailures = mine.filter((outcome) => !outcome.passed && !expected.has(outcome.key));
    const unexpectedPasses = mine.filter((outcome) => outcome.passed && expected.has(outcome.key));
    expect(unexpectedFailures.map((outcome) => `${outcome.key} => ${outcome.detail}`)).toEqual([]);
    expect(unexpectedPasses.map((outcome) => outcome.key)).toEqual([]);
  });

  test(`passes ${TOTAL_REQUIRED_CASES - expectedFailures.length}/${TOTAL_REQUIRED_CASES}`, () => {
    const passed = outcomes.filter((outcome) => outcome.passed).length;
    expect(passed).toBe(TOTAL_REQUIRED_CASES - expectedFailures.length);
  });
});

describe('JSON-Schema-Test-Suite draft 2020-12 (required), schemas from an untrusted source', () => {
  test('patterns on the linear-time engine give every case the outcome RegExp gives', () => {
    const linear = runSuite(true);
    const differences = linear
      .filter((outcome, index) => outcome.passed !== outcomes[index]?.passed)
      .map((outcome) => `${outcome.key} => ${outcome.detail}`);
    expect(differences).toEqual([]);
  });
});
