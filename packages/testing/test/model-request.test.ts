import { describe, expect, it } from 'vitest';
import { collectStream, modelRequest, rejection, scriptedModel } from '../src/index';

describe('modelRequest, collectStream, rejection', () => {
  it('builds a request with a fresh signal and optional system and tools', () => {
    const request = modelRequest([{ role: 'user', content: 'hi' }], { system: 'Be brief.' });
    expect(request).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], tools: [], system: 'Be brief.' });
    expect(request.signal.aborted).toBe(false);
    expect('system' in modelRequest([])).toBe(false);
  });

  it('collects a stream and returns a rejection, failing when the promise resolves', async () => {
    const model = scriptedModel([{ content: 'a b' }, new Error('boom')], { stream: true });
    expect(await collectStream(model.stream!(modelRequest([{ role: 'user', content: 'x' }])))).toHaveLength(3);
    expect(await rejection(model.generate(modelRequest([{ role: 'user', content: 'x' }])))).toEqual(new Error('boom'));
    await expect(rejection(Promise.resolve(1))).rejects.toThrow('expected a rejection, but the promise resolved');
  });
});
