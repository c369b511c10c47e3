import { describe, expect, it } from 'vitest';
import { redactUrl } from '../src/redact-url';

describe('redactUrl', () => {
  it('hides a Postgres password but keeps the user; hides all user info of other schemes', () => {
    expect(redactUrl('postgres://bridle:p%40ss@db:5432/x')).toBe('postgres://bridle:***@db:5432/x');
    expect(redactUrl('postgresql://bridle@db/x')).toBe('postgresql://bridle@db/x');
    expect(redactUrl('redis://:token@cache:6379')).toBe('redis://***@cache:6379');
    expect(redactUrl('https://ghp_abcdef@example.com/repo')).toBe('https://***@example.com/repo');
  });

  it('hides values of query keys that look secret, keeps the others', () => {
    expect(redactUrl('postgres://db/x?password=a&sslkey=b&api_token=c&sslmode=require')).toBe(
      'postgres://db/x?password=***&sslkey=***&api_token=***&sslmode=require',
    );
  });

  it('strips user info from strings that are not URLs', () => {
    expect(redactUrl('weird://user:pass@[bad')).toBe('weird://***@[bad');
    expect(redactUrl('no url here')).toBe('no url here');
  });
});
