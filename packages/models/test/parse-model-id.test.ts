import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { parseModelId } from '../src/parse-model-id';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseModelId', () => {
  it('parses openai and anthropic ids', () => {
    expect(parseModelId('openai:gpt-4o-mini')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(parseModelId('anthropic:claude-sonnet-4-6')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    expect(parseModelId('  openai:gpt-4.1  ')).toEqual({ provider: 'openai', model: 'gpt-4.1' });
  });

  it('keeps colons inside the model name', () => {
    expect(parseModelId('openai:ft:gpt-4o-mini:org::abc')).toEqual({
      provider: 'openai',
      model: 'ft:gpt-4o-mini:org::abc',
    });
  });

  it('parses openai-compatible ids with a base URL and the model after the last #', () => {
    expect(parseModelId('openai-compatible:http://localhost:11434/v1#llama3.2')).toEqual({
      provider: 'openai-compatible',
      baseURL: 'http://localhost:11434/v1',
      model: 'llama3.2',
    });
    expect(parseModelId('openai-compatible:https://host:8080/v1#org/model:q4')).toEqual({
      provider: 'openai-compatible',
      baseURL: 'https://host:8080/v1',
      model: 'org/model:q4',
    });
  });

  it('rejects empty and non-string ids', () => {
    expect(errorOf(() => parseModelId('')).message).toContain('Invalid model id ""');
    expect(errorOf(() => parseModelId(undefined)).message).toContain('Invalid model id undefined');
    expect(errorOf(() => parseModelId(42)).message).toContain('number 42');
  });

  it('rejects an id without a provider', () => {
    const error = errorOf(() => parseModelId('gpt-4o-mini'));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toBe(
      'Invalid model id "gpt-4o-mini": expected <provider>:<model>, such as openai:gpt-4o-mini, anthropic:claude-sonnet-4-6 or openai-compatible:http://localhost:11434/v1#llama3.2.',
    );
  });

  it('rejects an unknown provider, naming the known ones', () => {
    expect(errorOf(() => parseModelId('google:gemini')).message).toMatch(
      /^Unknown model provider "google" in "google:gemini": use openai, anthropic or openai-compatible/,
    );
  });

  it('rejects a missing model name', () => {
    expect(errorOf(() => parseModelId('openai:')).message).toContain(
      'the model name after "openai:" must be non-empty',
    );
    expect(errorOf(() => parseModelId('anthropic:claude sonnet')).message).toContain(
      'e.g. anthropic:claude-sonnet-4-6',
    );
  });

  it('parses the .env-safe form openai-compatible:<model> (the server from OPENAI_COMPATIBLE_BASE_URL)', () => {
    expect(parseModelId('openai-compatible:llama3.2')).toEqual({ provider: 'openai-compatible', model: 'llama3.2' });
    expect(parseModelId('openai-compatible:org/model:q4')).toEqual({
      provider: 'openai-compatible',
      model: 'org/model:q4',
    });
  });

  it('a base URL whose #model a .env comment cut off names the cause and both fixes', () => {
    expect(errorOf(() => parseModelId('openai-compatible:http://host/v1')).message).toBe(
      'Invalid model id "openai-compatible:http://host/v1": there is no #<model> after the base URL. Written unquoted in a .env file, "#" starts a comment and cuts the model name off. ' +
        'Fix: quote the value (BRIDLE_MODEL="openai-compatible:http://host/v1#<model>"), or set OPENAI_COMPATIBLE_BASE_URL=http://host/v1 and BRIDLE_MODEL=openai-compatible:<model>.',
    );
  });

  it('rejects malformed openai-compatible ids', () => {
    expect(errorOf(() => parseModelId('openai-compatible:http://x/v1#')).message).toContain(
      'expected openai-compatible:<baseURL>#<model>',
    );
    expect(errorOf(() => parseModelId('openai-compatible:localhost#m')).message).toContain('"localhost" is not a URL');
    expect(errorOf(() => parseModelId('openai-compatible:file:///etc#m')).message).toContain(
      'must use http or https, not file:',
    );
  });
});
