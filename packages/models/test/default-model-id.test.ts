import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { defaultModelId } from '../src/default-model-id';

describe('defaultModelId', () => {
  it('prefers BRIDLE_MODEL', () => {
    expect(defaultModelId({ BRIDLE_MODEL: 'anthropic:claude-x', OPENAI_API_KEY: 'k' })).toBe('anthropic:claude-x');
  });

  it('falls back to the provider whose key is present, OpenAI first', () => {
    expect(defaultModelId({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })).toBe('openai:gpt-4o-mini');
    expect(defaultModelId({ ANTHROPIC_API_KEY: 'k' })).toBe('anthropic:claude-sonnet-4-6');
  });

  it('ignores blank variables', () => {
    expect(defaultModelId({ BRIDLE_MODEL: ' ', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'k' })).toBe(
      'anthropic:claude-sonnet-4-6',
    );
  });

  it('names the variables to set when nothing is configured', () => {
    let caught: unknown;
    try {
      defaultModelId({});
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toMatch(
      /^No model configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY .*BRIDLE_MODEL/,
    );
  });
});
