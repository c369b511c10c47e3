import { describe, expect, it } from 'vitest';
import { redactCredentials } from '../src/internal/redact-credentials';

describe('redactCredentials', () => {
  it.each([
    [
      'openai-compatible:http://user:pw@llm.internal:8080/v1?api-key=sk#llama3.2',
      'openai-compatible:http://llm.internal:8080/v1#llama3.2',
    ],
    ['openai-compatible:https://key@host/v1#m', 'openai-compatible:https://host/v1#m'],
    ['openai-compatible:http://localhost:11434/v1#llama3.2', 'openai-compatible:http://localhost:11434/v1#llama3.2'],
    ['openai:gpt-4o-mini', 'openai:gpt-4o-mini'],
    ['Invalid model id "x:ftp://u:p@h/v1#m": bad', 'Invalid model id "x:ftp://h/v1#m": bad'],
    ['see http://u:p@[bad/?k=v and https://ok.example/a?b=c', 'see http://[bad/ and https://ok.example/a'],
    ['http://h/?token=abc', 'http://h/'],
  ])('%s', (text, expected) => {
    expect(redactCredentials(text)).toBe(expected);
  });
});
